"""Every run of the results store as files to download from the site: JSON and CSV.

Two files per run (a run id on one machine), generated into the built site beside the pages
(paths relative to the docs dir, :func:`download_path`):

- ``downloads/<machine>/<run id>.json``: the run's documents, a JSON array with one element
  per (environment, harness commit), each a complete run document of
  :mod:`wsbench.results.runformat` (``"format": "wsbench-run"``) as
  :func:`wsbench.results.runformat.encode` writes it into the store (the store's documents are read
  and written again, so a document saved before a field was added to the format shows it with its
  default). :func:`decode_bundle` reads one back; any JSON reader can too.
- ``downloads/<machine>/<run id>.csv``: one row per sample (measurement window) of every
  document of the run, plus one row per failed benchmark without samples and per
  environment that failed to install without any benchmark; the header is
  :data:`COLUMNS`' names (written by Python's :mod:`csv` module, Excel dialect, UTF-8).

Every run of the store is downloadable, not only the runs the leaderboards show.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import msgspec

from wsbench.results import runformat
from wsbench.results.metrics import METRICS, Metric
from wsbench.results.runformat import Benchmark, FormatError, Run, Sample
from wsbench.scenarios import PARAM_DOCS as PARAM_MEANINGS
from wsbench.scenarios import PARAM_NAMES, SCENARIOS
from wsbench.site.markup import safe_name

DOWNLOADS_DIR = "downloads"
"""The folder of the download files, relative to the docs dir."""
FORMATS = ("json", "csv")
"""The download formats, as file extensions."""


def download_path(machine: str, run_id: str, ext: str) -> str:
    """The download file of run ``run_id`` on ``machine`` in format ``ext`` (``"json"`` or
    ``"csv"``), relative to the docs dir, e.g. ``"downloads/wsbench-ci/20261122T031000Z-
    c0ffee.json"`` (names made file-safe by :func:`wsbench.site.markup.safe_name`).

    Raises:
        ValueError: ``ext`` is not one of :data:`FORMATS`.
    """
    if ext not in FORMATS:
        raise ValueError(f"unknown download format {ext!r} (known: {', '.join(FORMATS)})")
    return f"{DOWNLOADS_DIR}/{safe_name(machine)}/{safe_name(run_id)}.{ext}"


def download_links(machine: str, run_id: str, prefix: str = "") -> str:
    """Markdown links to the run's JSON and CSV files, ``"[JSON](…) · [CSV](…)"``;
    ``prefix`` leads from the linking page to the docs dir (``""`` for a page at its root,
    ``"../"`` one folder down)."""
    return " · ".join(
        f"[{ext.upper()}]({prefix}{download_path(machine, run_id, ext)})" for ext in FORMATS
    )


@dataclass(frozen=True)
class RunDocuments:
    """One run on one machine: every document of the store with that machine and run id.

    Attributes:
        machine: the machine's name.
        run_id: the run's id.
        docs: its documents, in the store's order (by environment name).
    """

    machine: str
    run_id: str
    docs: tuple[Run, ...]


def group_runs(docs: Iterable[Run]) -> list[RunDocuments]:
    """``docs`` grouped by (machine, run id), sorted by machine then run id (oldest
    first); each group keeps the documents' order."""
    groups: dict[tuple[str, str], list[Run]] = {}
    for doc in docs:
        groups.setdefault((doc.machine.name, doc.run_id), []).append(doc)
    return [RunDocuments(m, r, tuple(groups[m, r])) for m, r in sorted(groups)]


def bundle(docs: Sequence[Run]) -> bytes:
    """The JSON download of a run: a JSON array of ``docs``, each as
    :func:`wsbench.results.runformat.encode` writes it (UTF-8 bytes)."""
    parts = [runformat.encode(doc).rstrip(b"\n") for doc in docs]
    return b"[\n" + b",\n".join(parts) + b"\n]\n"


def decode_bundle(data: bytes | str, *, source: str = "<download>") -> list[Run]:
    """Read a JSON download (:func:`bundle`) back into run documents, each validated by
    :func:`wsbench.results.runformat.decode`.

    Raises:
        FormatError: not a JSON array, or an element that is not a valid run document (the
            message names ``source`` and the element's index).
    """
    try:
        items = msgspec.json.decode(data, type=list[msgspec.Raw])
    except msgspec.DecodeError as exc:  # ValidationError (not an array) is a DecodeError
        raise FormatError(f"{source}: not a JSON array of run documents: {exc}") from exc
    return [runformat.decode(bytes(item), source=f"{source}[{i}]") for i, item in enumerate(items)]


@dataclass(frozen=True)
class Record:
    """What one CSV row describes: a sample of a benchmark of a document, a benchmark
    without samples (``index`` and ``sample`` None), or a document without benchmarks
    (``benchmark`` None too: an environment that did not install)."""

    doc: Run
    benchmark: Benchmark | None = None
    index: int | None = None
    sample: Sample | None = None


Value = str | int | float | bool | None


@dataclass(frozen=True)
class Column:
    """One CSV column.

    Attributes:
        name: its header.
        unit: the unit of its values (``"messages/s"``, ``"s"``, ``"bytes"``, ``"%"``...),
            ``""`` for text, identifiers and flags.
        meaning: what it holds, for the column list on the site.
        value: its value in a row (None: an empty cell).
    """

    name: str
    unit: str
    meaning: str
    value: Callable[[Record], Value]


def _sample_field(get: Callable[[Sample], Value]) -> Callable[[Record], Value]:
    return lambda r: get(r.sample) if r.sample is not None else None


def _bench_field(get: Callable[[Benchmark], Value]) -> Callable[[Record], Value]:
    return lambda r: get(r.benchmark) if r.benchmark is not None else None


def _param(name: str) -> Callable[[Record], Value]:
    return _bench_field(lambda b: b.params.get(name))


def _metric(metric: Metric) -> Callable[[Record], Value]:
    return _sample_field(metric.of)


def _metric_meaning(metric: Metric) -> str:
    better = "higher" if metric.higher_is_better else "lower"
    names = list(metric.scenarios)
    listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    only = f", {listed} only" if len(names) <= 3 else ""
    if metric.name == "errors":
        return (
            f"{metric.label} ({better} is better{only}); the site shows its total over the "
            "windows, by kind (errors_by_kind)"
        )
    # How the site's figures come from the windows: raw_results' note (environment.py).
    return f"{metric.label} ({better} is better{only})"


def _latency(key: str) -> Callable[[Record], Value]:
    return _sample_field(lambda s: getattr(s.latency_s, key) if s.latency_s else None)


def _handshake(key: str) -> Callable[[Record], Value]:
    return _sample_field(lambda s: getattr(s.handshake_s, key) if s.handshake_s else None)


def _errors_by_kind(sample: Sample) -> Value:
    if sample.errors is None:
        return None
    return json.dumps(dict(sorted(sample.errors.items())), separators=(",", ":"))


COLUMNS: tuple[Column, ...] = (
    Column("machine", "", "the machine's name", lambda r: r.doc.machine.name),
    Column("run_id", "", "the run's id (its start time in UTC and a random suffix)",
           lambda r: r.doc.run_id),
    Column("started_at", "", "when the document's measurements started (ISO 8601)",
           lambda r: r.doc.started_at),
    Column("commit", "", "the harness commit that measured", lambda r: r.doc.harness.commit),
    Column("environment", "", "the asv environment's name", lambda r: r.doc.environment.env_name),
    Column("python", "", "the environment's Python version", lambda r: r.doc.environment.python),
    Column("implementation", "", "the implementation's folder name (impls/<name>)",
           lambda r: r.doc.impl.name),
    Column("configuration", "", "the configuration id", lambda r: r.doc.impl.config),
    Column("version", "", "the framework's version (the native reference: the load "
           "generator's)", lambda r: r.doc.impl.version),
    Column("row_name", "", "the row's name on the site", lambda r: r.doc.impl.row_name),
    Column("protocol", "", "websocket or socketio", lambda r: r.doc.impl.protocol),
    Column("reference", "", "true for the native reference server (the yardstick)",
           lambda r: r.doc.impl.reference),
    Column("install_error", "", "why the environment did not install (empty when it did)",
           lambda r: r.doc.environment.install_error),
    Column("scenario", "", "the scenario: " + ", ".join(SCENARIOS),
           _bench_field(lambda b: b.scenario)),
    *(Column(name, *PARAM_MEANINGS.get(name, ("", f"parameter {name}")), _param(name))
      for name in PARAM_NAMES),
    Column("params", "", "the whole parameter set as a JSON object",
           _bench_field(lambda b: json.dumps(b.params, separators=(",", ":")))),
    Column("benchmark_status", "", "ok, or failed when any window of the parameter set failed",
           _bench_field(lambda b: b.status)),
    Column("benchmark_error", "", "why the parameter set failed (its first reason)",
           _bench_field(lambda b: b.error)),
    Column("sample", "", "the sample's index among the parameter set's samples (0-based; "
           "empty for a failure without samples)", lambda r: r.index),
    Column("process", "", "the server process it was measured in (0-based)",
           _sample_field(lambda s: s.process)),
    Column("window", "", "the window within that process (0-based; a window measured again "
           "after a disturbed one gets the next index)", _sample_field(lambda s: s.window)),
    Column("status", "", "the window's status: ok or failed", _sample_field(lambda s: s.status)),
    Column("error", "", "why the window failed", _sample_field(lambda s: s.error)),
    Column("disturbed", "", "true when other work competed for the measured CPUs: the "
           "sample is left out of every figure", _sample_field(lambda s: s.disturbed)),
    Column("usable", "", "true when the sample counts in the figures (ok and not disturbed)",
           _sample_field(lambda s: s.usable)),
    *(Column(m.name, m.unit, _metric_meaning(m), _metric(m)) for m in METRICS),
    Column("messages_received", "messages", "messages received in the window",
           _sample_field(lambda s: s.messages_received)),
    Column("window_s", "s", "the window's length", _sample_field(lambda s: s.window_s)),
    Column("latency_p90", "s", "round trip p90 (the scenarios with round trips)",
           _latency("p90")),
    Column("connections_ok", "connections", "connections established (connect: cycles "
           "completed in the window)", _sample_field(lambda s: s.connections_ok)),
    Column("errors_by_kind", "count", "failed connections and lost messages by kind, as a "
           "JSON object, e.g. {\"timeout\":90,\"lost\":0} (the many-connection scenarios; "
           "errors is their total)", _sample_field(_errors_by_kind)),
    Column("handshake_p90", "s", "handshake (TCP connect + WebSocket upgrade) p90",
           _handshake("p90")),
    Column("handshake_p99_9", "s", "handshake p99.9", _handshake("p99_9")),
    Column("handshake_max", "s", "handshake maximum", _handshake("max")),
    Column("other_cpu_percent", "%", "CPU other work used on the measured CPUs (percent of "
           "one core)", _sample_field(lambda s: s.other_cpu_percent)),
    Column("steal_percent", "%", "the hypervisor's steal time on the measured CPUs",
           _sample_field(lambda s: s.steal_percent)),
    Column("waited_s", "s", "the wait before the window, when it was a waited retry of a "
           "parameter set with no usable window yet (empty: measured without a wait)",
           _sample_field(lambda s: s.waited_s)),
    Column("open_files", "files", "the open-file limit (RLIMIT_NOFILE) of the server and the "
           "load generator (empty when not recorded)", lambda r: r.doc.settings.open_files),
)  # fmt: skip
"""The CSV download's columns, in order; every metric of :data:`wsbench.results.metrics.METRICS`
is one, under its name and in its unit."""
HEADER = tuple(c.name for c in COLUMNS)
"""The CSV download's header row."""


def text(value: Value) -> str:
    """A value as a CSV cell: empty for None, ``true``/``false`` for flags, a float that is
    a whole number without its ``.0``, any other float in full precision (``repr``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def records(doc: Run) -> Iterator[Record]:
    """The CSV rows of one document: each sample of each benchmark, a benchmark without
    samples once, and the document itself once when it has no benchmark but an install
    error (a document without either, e.g. still running, has no row)."""
    if not doc.benchmarks and doc.environment.install_error:
        yield Record(doc)
    for benchmark in doc.benchmarks:
        if not benchmark.samples:
            yield Record(doc, benchmark)
        for index, sample in enumerate(benchmark.samples):
            yield Record(doc, benchmark, index, sample)


def samples_csv(docs: Iterable[Run]) -> str:
    """The CSV download of ``docs``: :data:`HEADER`, then one row per :func:`records` of each
    document, in order."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for doc in docs:
        for record in records(doc):
            writer.writerow([text(c.value(record)) for c in COLUMNS])
    return out.getvalue()


def render_downloads(docs: Iterable[Run]) -> dict[str, str | bytes]:
    """Every run's download files, ``{path relative to the docs dir: content}``: per run
    (:func:`group_runs`) its JSON (:func:`bundle`, bytes) and its CSV (:func:`samples_csv`,
    text); empty for no documents."""
    files: dict[str, str | bytes] = {}
    for run in group_runs(docs):
        files[download_path(run.machine, run.run_id, "json")] = bundle(run.docs)
        files[download_path(run.machine, run.run_id, "csv")] = samples_csv(run.docs)
    return files
