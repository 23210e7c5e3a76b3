"""asv results + wsbench records -> typed rows for the site.

asv stores the headline figures (all lower-is-better): seconds per message, latency in
seconds, server CPU %, server RSS bytes, load generator CPU %. The wsbench record of the same
run (same ``<machine>/<commit8>-<env_name>`` stem, written by the harness) adds what asv
does not keep: environment facts, failure reasons, bytes per second, the client-bound flag
and the framework's display name and version. Each side alone still gives what it can.

For every (machine, environment) only the newest asv result file (by asv's ``date``, the
commit date; then by start time) is used, with the record of the same stem. An environment
with records but no asv result uses its newest record.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wsbench.measure import CLIENT_BOUND_CPU_PERCENT
from wsbench.site.asvfile import (
    NOT_RESULT_FILES,
    AsvFormatError,
    AsvResultFile,
    AsvValue,
    ParamValue,
    load_machine,
    load_param_names,
    load_result_file,
)
from wsbench.site.frameworks import SOCKETIO, Framework

log = logging.getLogger("mkdocs.plugins.wsbench.site")
"""Under ``mkdocs.``: a warning here fails ``mkdocs build --strict``."""


SCENARIOS: dict[str, str] = {"echo": "echo.Echo", "stream": "stream.Stream"}
"""Scenario name -> asv benchmark class (``<module>.<Class>``)."""

PARAM_NAMES: dict[str, tuple[str, ...]] = {
    "echo": ("size_bytes", "in_flight"),
    "stream": ("size_bytes",),
}
"""Parameter names per scenario, used when benchmarks.json is missing."""

IMPL_ENV_VAR = "WSBENCH_IMPL"
"""The asv matrix variable naming the implementation of an environment."""
CONFIG_ENV_VAR = "WSBENCH_CONFIG"
"""The asv matrix variable naming the implementation's configuration."""

METRICS = (
    "seconds_per_message",
    "latency_p50",
    "latency_p99",
    "server_cpu_percent",
    "server_rss_bytes",
    "loadgen_cpu_percent",
)
"""The ``track_<metric>`` benchmarks of each scenario (stream has no latency)."""


@dataclass(frozen=True)
class Impl:
    """What an environment ran: an implementation in one configuration at one version.

    From the environment's record; without one, from asv's ``WSBENCH_IMPL`` and
    ``WSBENCH_CONFIG`` variables and the implementation's ``meta.toml``.

    Attributes:
        name: folder name under ``impls/`` (the env name when nothing names it).
        display_name: the implementation's name.
        version: the measured version of the package (or of the native server), or None.
        package: the PyPI distribution, None for the native reference.
        reference: True for the native reference server (the ceiling).
        config: the configuration id, None when not recorded (runs from before
            configurations existed).
        row_name: the row's name wherever results are shown, e.g.
            ``"Starlette · uvicorn 0.54 · websockets-sansio · uvloop"``; the display name
            when the configuration is not recorded.
        protocol: ``"websocket"`` or ``"socketio"``.
    """

    name: str
    display_name: str
    version: str | None
    package: str | None
    reference: bool
    config: str | None = None
    row_name: str = ""
    protocol: str = "websocket"

    @property
    def socketio(self) -> bool:
        """True for a Socket.IO server (a different protocol, with its own overhead)."""
        return self.protocol == SOCKETIO

    @property
    def label(self) -> str:
        """The row name, or the display name when there is none."""
        return self.row_name or self.display_name


@dataclass(frozen=True)
class Environment:
    """Facts a run recorded about where it ran (from a wsbench record; None when absent).

    Attributes:
        cpu_model: the CPU model string.
        cpu_count: logical CPUs of the machine.
        server_cpus: CPUs the server was pinned to.
        loadgen_cpus: CPUs the load generator was pinned to.
        kernel: the kernel release.
        python: the Python version of the environment.
        loadgen_version: the load generator's version.
        started_at: ISO 8601 start of the run.
        finished_at: ISO 8601 end of the run, None if it never finished.
    """

    cpu_model: str | None
    cpu_count: int | None
    server_cpus: tuple[int, ...]
    loadgen_cpus: tuple[int, ...]
    kernel: str | None
    python: str | None
    loadgen_version: str | None
    started_at: str | None
    finished_at: str | None


@dataclass(frozen=True)
class Row:
    """One measurement: one environment, one scenario, one parameter set.

    Attributes:
        scenario: ``"echo"`` or ``"stream"``.
        params: ``(name, value)`` pairs in the benchmark's order, e.g.
            ``(("size_bytes", 16), ("in_flight", 64))``.
        status: ``"ok"``, ``"failed"`` or ``"skipped"``.
        error: why it failed (from the record), or None.
        messages_per_s: messages per second (1 / asv's seconds per message).
        bytes_per_s: payload bytes per second (record; else messages_per_s * size_bytes).
        latency_p50_s: median round-trip time in seconds (echo only).
        latency_p99_s: 99th percentile round-trip time in seconds (echo only).
        server_cpu_percent: server CPU during the window, 100 = one core.
        server_rss_bytes: server resident memory in bytes.
        loadgen_cpu_percent: load generator CPU during the window, 100 = one core.
        client_bound: the load generator may have been the bottleneck.
    """

    scenario: str
    params: tuple[tuple[str, ParamValue], ...]
    status: str
    error: str | None = None
    messages_per_s: float | None = None
    bytes_per_s: float | None = None
    latency_p50_s: float | None = None
    latency_p99_s: float | None = None
    server_cpu_percent: float | None = None
    server_rss_bytes: float | None = None
    loadgen_cpu_percent: float | None = None
    client_bound: bool = False


@dataclass(frozen=True)
class Run:
    """The newest results of one environment on one machine.

    Attributes:
        machine: asv machine name.
        env_name: asv environment name.
        stem: ``<commit8>-<env_name>`` of the files used.
        commit: the benchmarked commit hash.
        impl: what ran.
        environment: recorded environment facts, None without a record.
        python: Python version (record, else asv's).
        asv_started_at_ms: earliest asv benchmark start (ms since the epoch), or None.
        has_asv: an asv result file was found.
        has_record: a wsbench record was found.
        rows: one per (scenario, parameter set), asv's order.
    """

    machine: str
    env_name: str
    stem: str
    commit: str
    impl: Impl
    environment: Environment | None
    python: str | None
    asv_started_at_ms: int | None
    has_asv: bool
    has_record: bool
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Results:
    """Everything the site shows from results.

    Attributes:
        runs: one per (machine, environment), sorted by machine, the reference first, then
            by display name, row name and version.
        machines: ``{machine name: machine.json contents}``.
    """

    runs: tuple[Run, ...] = ()
    machines: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """True when there is nothing to show."""
        return not self.runs


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key ordering the numbers inside ``text`` by value (``"0.9" < "0.10"``)."""
    parts = re.split(r"(\d+)", text.lower())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


def _load_record(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("wsbench site: skipping unreadable record %s: %s", path, exc)
        return None
    if not isinstance(data, dict) or data.get("schema") != 1:
        log.warning("wsbench site: skipping %s: not a wsbench record of schema 1", path)
        return None
    return data


def _opt_float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def _impl_from_record(meta: dict[str, Any], env_name: str) -> Impl:
    name = str(meta.get("name") or env_name)
    display_name = str(meta.get("display_name") or name)
    config = _opt_str(meta.get("config"))
    return Impl(
        name=name,
        display_name=display_name,
        version=_opt_str(meta.get("version")),
        package=_opt_str(meta.get("package")),
        reference=bool(meta.get("reference", False)),
        config=config,
        # Records from before configurations have neither: the display name.
        row_name=str(meta.get("row_name") or display_name),
        protocol=str(meta.get("protocol") or "websocket"),
    )


def _impl(
    record: dict[str, Any] | None,
    asv: AsvResultFile | None,
    env_name: str,
    frameworks: dict[str, Framework],
) -> Impl:
    meta = (record or {}).get("impl") or {}
    if meta:
        return _impl_from_record(meta, env_name)
    # No record: the env's WSBENCH_IMPL and WSBENCH_CONFIG variables and meta.toml, else
    # its one requirement.
    requirements = asv.requirements if asv else {}
    env_vars = asv.env_vars if asv else {}
    name = env_vars.get(IMPL_ENV_VAR)
    config_id = env_vars.get(CONFIG_ENV_VAR)
    framework = frameworks.get(name or "")
    if framework is not None:
        version = requirements.get(framework.package) if framework.package else None
        config = framework.config(config_id)
        row_name = framework.row_name(config_id, version) if config_id else None
        return Impl(
            framework.name,
            framework.display_name,
            version,
            framework.package,
            framework.reference,
            config=config_id,
            row_name=row_name or framework.display_name,
            protocol=config.protocol if config else framework.protocol,
        )
    label = name or env_name
    if name and config_id:
        label = f"{name} · {config_id}"
    reqs = sorted(requirements.items())
    if len(reqs) == 1:
        package, version = reqs[0]
        return Impl(
            name or package,
            name or package,
            version or None,
            package,
            False,
            config=config_id,
            row_name=label if name else package,
        )
    return Impl(
        name or env_name, name or env_name, None, None, False, config=config_id, row_name=label
    )


def _environment(record: dict[str, Any] | None) -> Environment | None:
    env = (record or {}).get("environment")
    if not isinstance(env, dict):
        return None
    count = env.get("cpu_count")
    return Environment(
        cpu_model=_opt_str(env.get("cpu_model")),
        cpu_count=count if isinstance(count, int) else None,
        server_cpus=tuple(int(c) for c in env.get("server_cpus") or ()),
        loadgen_cpus=tuple(int(c) for c in env.get("loadgen_cpus") or ()),
        kernel=_opt_str(env.get("kernel")),
        python=_opt_str(env.get("python")),
        loadgen_version=_opt_str(env.get("loadgen_version")),
        started_at=_opt_str(env.get("started_at")),
        finished_at=_opt_str(env.get("finished_at")),
    )


def _params_key(params: dict[str, Any]) -> frozenset[tuple[str, Any]]:
    return frozenset(params.items())


def _row(
    scenario: str,
    params: tuple[tuple[str, ParamValue], ...],
    asv: dict[str, AsvValue],
    rec: dict[str, Any] | None,
) -> Row:
    """Merge asv's figures (``{metric: value}``) with the record's measurement ``rec``."""
    rec = rec or {}
    spm = asv.get("seconds_per_message")
    rec_status = rec.get("status")
    if rec_status == "failed" or (spm is not None and spm.state == "failed"):
        error = _opt_str(rec.get("error")) or "no figure stored by asv (error text not recorded)"
        return Row(scenario, params, "failed", error=error)
    mps: float | None = None
    if spm is not None and spm.value is not None and spm.value > 0:
        mps = 1.0 / spm.value
    elif rec_status == "ok":
        mps = _opt_float(rec.get("messages_per_s"))
    if mps is None:
        if spm is not None and spm.state == "skipped":
            return Row(scenario, params, "skipped", error="skipped")
        return Row(scenario, params, "failed", error="no figure recorded")

    def figure(metric: str, fallback: object) -> float | None:
        value = asv.get(metric)
        if value is not None and value.value is not None:
            return value.value
        return _opt_float(fallback)

    latency = rec.get("latency_s") or {}
    server = rec.get("server") or {}
    size = dict(params).get("size_bytes")
    bps = _opt_float(rec.get("bytes_per_s"))
    if bps is None and isinstance(size, int | float):
        bps = mps * size
    loadgen_cpu = figure("loadgen_cpu_percent", rec.get("loadgen_cpu_percent"))
    return Row(
        scenario,
        params,
        "ok",
        messages_per_s=mps,
        bytes_per_s=bps,
        latency_p50_s=figure("latency_p50", latency.get("p50")),
        latency_p99_s=figure("latency_p99", latency.get("p99")),
        server_cpu_percent=figure("server_cpu_percent", server.get("cpu_percent")),
        server_rss_bytes=figure("server_rss_bytes", server.get("rss_bytes")),
        loadgen_cpu_percent=loadgen_cpu,
        client_bound=bool(rec.get("client_bound"))
        or (loadgen_cpu is not None and loadgen_cpu > CLIENT_BOUND_CPU_PERCENT),
    )


def _rows(
    asv: AsvResultFile | None,
    record: dict[str, Any] | None,
    param_names: dict[str, list[str]],
) -> tuple[Row, ...]:
    measurements = [m for m in (record or {}).get("measurements") or [] if isinstance(m, dict)]
    rows: list[Row] = []
    for scenario, bench in SCENARIOS.items():
        names = tuple(
            param_names.get(f"{bench}.track_seconds_per_message") or PARAM_NAMES[scenario]
        )
        # Parameter sets: asv's (in asv's order), then any only the record has.
        combos: list[tuple[tuple[str, ParamValue], ...]] = []
        per_metric: dict[str, dict[tuple[ParamValue, ...], AsvValue]] = {}
        for metric in METRICS:
            values = asv.values.get(f"{bench}.track_{metric}") if asv else None
            if values is None:
                continue
            per_metric[metric] = values
            for combo in values:
                named = tuple(zip(names, combo, strict=False))
                if named not in combos:
                    combos.append(named)
        by_params = {
            _params_key(m.get("params") or {}): m
            for m in measurements
            if m.get("scenario") == scenario
        }
        for m in measurements:
            if m.get("scenario") != scenario or not isinstance(m.get("params"), dict):
                continue
            named = tuple((n, m["params"][n]) for n in names if n in m["params"])
            if named not in combos:
                combos.append(named)
        for named in combos:
            combo = tuple(v for _, v in named)
            asv_values = {
                metric: values[combo] for metric, values in per_metric.items() if combo in values
            }
            rec = by_params.get(_params_key(dict(named)))
            rows.append(_row(scenario, named, asv_values, rec))
    return tuple(rows)


def _newest(files: list[AsvResultFile]) -> AsvResultFile:
    return max(files, key=lambda f: (f.date_ms, f.started_at_ms or 0, f.commit))


def _record_sort_key(record: dict[str, Any]) -> str:
    env = record.get("environment") or {}
    return str(env.get("finished_at") or env.get("started_at") or "")


def load_results(
    results_dir: Path, records_dir: Path, frameworks: Sequence[Framework] = ()
) -> Results:
    """Load the newest run of every (machine, environment).

    Args:
        results_dir: asv's results directory (``benchmarks.json``, ``<machine>/...``).
            Missing or empty: no asv results.
        records_dir: the wsbench records directory (``<machine>/<commit8>-<env>.json``).
            Missing or empty: no records.
        frameworks: the implementations' metadata, to name an environment that has no
            record (by its ``WSBENCH_IMPL`` variable).

    Returns:
        The runs; ``Results().empty`` when neither directory holds anything.

    Unreadable files are skipped with a warning on the ``mkdocs`` logger (which fails a
    ``--strict`` build): a broken file should not silently vanish from the site.
    """
    machines: dict[str, dict[str, str]] = {}
    asv_files: dict[tuple[str, str], list[AsvResultFile]] = {}
    param_names: dict[str, list[str]] = {}
    if results_dir.is_dir():
        try:
            param_names = load_param_names(results_dir / "benchmarks.json")
        except AsvFormatError as exc:
            log.warning("wsbench site: %s", exc)
        for machine_dir in sorted(p for p in results_dir.iterdir() if p.is_dir()):
            try:
                machines[machine_dir.name] = load_machine(machine_dir / "machine.json")
            except AsvFormatError:
                continue  # asv itself skips a folder without a valid machine.json
            for path in sorted(machine_dir.glob("*.json")):
                if path.name in NOT_RESULT_FILES:
                    continue
                try:
                    result = load_result_file(path)
                except AsvFormatError as exc:
                    log.warning("wsbench site: skipping asv result: %s", exc)
                    continue
                asv_files.setdefault((machine_dir.name, result.env_name), []).append(result)

    records: dict[tuple[str, str], dict[str, Any]] = {}
    records_by_env: dict[tuple[str, str], list[dict[str, Any]]] = {}
    if records_dir.is_dir():
        for path in sorted(records_dir.glob("*/*.json")):
            record = _load_record(path)
            if record is None:
                continue
            machine = path.parent.name
            records[(machine, path.stem)] = record
            env_name = str(record.get("env_name") or path.stem.partition("-")[2])
            record["_stem"] = path.stem
            records_by_env.setdefault((machine, env_name), []).append(record)

    by_name = {f.name: f for f in frameworks}
    runs: list[Run] = []
    for machine, env_name in sorted(set(asv_files) | set(records_by_env)):
        asv = _newest(asv_files[(machine, env_name)]) if (machine, env_name) in asv_files else None
        if asv is not None:
            stem = asv.stem
            record = records.get((machine, stem))
        else:
            record = max(records_by_env[(machine, env_name)], key=_record_sort_key)
            stem = str(record["_stem"])
        environment = _environment(record)
        runs.append(
            Run(
                machine=machine,
                env_name=env_name,
                stem=stem,
                commit=asv.commit if asv else str((record or {}).get("commit") or ""),
                impl=_impl(record, asv, env_name, by_name),
                environment=environment,
                python=(environment.python if environment else None)
                or (asv.python if asv else None),
                asv_started_at_ms=asv.started_at_ms if asv else None,
                has_asv=asv is not None,
                has_record=record is not None,
                rows=_rows(asv, record, param_names),
            )
        )
    runs.sort(
        key=lambda r: (
            r.machine,
            not r.impl.reference,
            r.impl.display_name.lower(),
            natural_key(r.impl.label),
            natural_key(r.impl.version or ""),
        )
    )
    return Results(runs=tuple(runs), machines=machines)
