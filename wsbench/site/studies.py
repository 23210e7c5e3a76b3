"""Published studies beside our figures: their own figures as data (``studies.toml`` in this
package), and the tables that set ours, measured under the closest conditions, next to them.

A study's figures are copied as it publishes them, with its stated conditions and where they
are; they are never measured here. Ours are each window's statistic (the mean, max, min
and standard deviation of the order round trip, and its p99, where a study gives one figure
per run) over a row's server processes, as every figure of the site
(:func:`wsbench.site.rows.summary_of`: each process reduced to the geometric mean of its
usable windows, the figure the geometric mean of the processes' values).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from wsbench.results.metrics import BY_NAME
from wsbench.site.markup import DASH, cell, num, params_title, table
from wsbench.site.results import EnvRun
from wsbench.site.rows import Row
from wsbench.site.sweeps import row_label

STUDIES_FILE = Path(__file__).with_name("studies.toml")
"""The studies' data (TOML): ``[[studies]]`` tables, see :class:`Study`."""
MS = 1e-3
OUR_CLIENT = "wsbench-loadgen"
"""What plays the client in our rows (the load generator: every client of a run)."""


class OrderRoundTrip(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One row of a study's order round-trip table, milliseconds."""

    server: str
    client: str
    avg_ms: float
    max_ms: float
    min_ms: float
    stdev_ms: float


class Study(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A published study.

    Attributes:
        id: a short name, e.g. ``"python-websockets-benchmark"``.
        title: its title.
        source: where its figures are published.
        conditions: what it measured, as it states it.
        closest: our parameter set closest to its conditions: ``scenario`` and the
            scenario's parameters, e.g. ``{"scenario": "market", "subscribers": 1,
            "rate": 100}``.
        order_round_trips: its order round-trip table, as published.
    """

    id: str
    title: str
    source: str
    conditions: str
    closest: dict[str, str | int]
    order_round_trips: tuple[OrderRoundTrip, ...] = ()

    @property
    def scenario(self) -> str:
        """The scenario of :attr:`closest`."""
        return str(self.closest["scenario"])

    @property
    def params(self) -> tuple[tuple[str, int], ...]:
        """The parameters of :attr:`closest`, in its order."""
        return tuple((k, int(v)) for k, v in self.closest.items() if k != "scenario")

    def measured_by(self, row: Row) -> bool:
        """``row`` is of :attr:`closest` (its scenario and parameters, in any order)."""
        return row.scenario == self.scenario and dict(row.params) == dict(self.params)


class StudiesError(ValueError):
    """The studies file is missing or malformed (the message names the file)."""


class _File(msgspec.Struct, forbid_unknown_fields=True):
    studies: tuple[Study, ...] = ()
    claims: tuple[dict[str, object], ...] = ()  # read by wsbench.site.claims


def load_studies(path: Path = STUDIES_FILE) -> tuple[Study, ...]:
    """The studies in ``path``.

    Raises:
        StudiesError: the file cannot be read or does not match :class:`Study`.
    """
    try:
        return msgspec.toml.decode(path.read_bytes(), type=_File).studies
    except (OSError, msgspec.ValidationError, msgspec.DecodeError) as e:
        raise StudiesError(f"{path}: {e}") from e


ROUND_TRIP_HEADERS = (
    "Server", "Client", "Figures from", "Avg (ms)", "Max (ms)", "Min (ms)", "Std dev (ms)",
    "p99 (ms)",
)  # fmt: skip
_OURS = tuple(BY_NAME[f"order_round_trip_{key}"] for key in ("mean", "max", "min", "stdev", "p99"))


def _ours(run: EnvRun, row: Row) -> list[str]:
    name = [cell(row_label(run)), OUR_CLIENT, "wsbench"]
    if not row.ok:
        return [*name, cell(row.status), *[DASH] * (len(_OURS) - 1)]
    figures = []
    for metric in _OURS:
        summary = row.summary(metric)
        figures.append(num(summary.value if summary else None, ",.2f", MS))
    return [*name, *figures]


def _avg_key(item: tuple[EnvRun, Row]) -> tuple[bool, float, str]:
    run, row = item
    summary = row.summary(_OURS[0]) if row.ok else None
    return (summary is None, summary.value if summary else 0.0, row_label(run))


def round_trip_table(study: Study, runs: Sequence[EnvRun]) -> str:
    """Markdown: ``study``'s order round-trip table as published, then one row per run of
    ``runs`` (one machine's) that measured the study's closest parameter set, lowest mean
    first (failed rows last, with their status); "" when the study has no such table.
    Our rows' figures are over the server processes (milliseconds, :func:`_ours`)."""
    if not study.order_round_trips:
        return ""
    rows = [
        [cell(r.server), cell(r.client), "the study", *(f"{v:,.2f}" for v in (
            r.avg_ms, r.max_ms, r.min_ms, r.stdev_ms)), DASH]
        for r in study.order_round_trips
    ]  # fmt: skip
    measured = [(run, row) for run in runs for row in run.rows if study.measured_by(row)]
    rows += [_ours(run, row) for run, row in sorted(measured, key=_avg_key)]
    return table(ROUND_TRIP_HEADERS, rows, "lll" + "r" * 5)


def round_trip_section(study: Study, runs: Sequence[EnvRun], level: str) -> str:
    """Markdown: a heading (``level``, e.g. ``"##"``), what the study measured and where
    its figures are, our closest conditions, and :func:`round_trip_table` (or a note that
    no shown run measured those conditions)."""
    closest = params_title(study.params)
    intro = (
        f"{level} Order round trips beside the {study.title} study\n\n"
        f"*{study.title}*, {study.source}: {study.conditions} Its figures are one run's "
        "statistics in milliseconds, as published. Ours are under the closest conditions "
        f"here, the {study.scenario} scenario at {closest}. Each is that statistic of one "
        "measurement window, averaged over several fresh server processes (the geometric "
        "mean of the processes' values, each process the geometric mean of its windows); "
        "p99 is added. The "
        "load generator is every client of our rows; the study's versions and machine are "
        "not ours, so compare the shape (spread, peaks), not the digits.\n"
    )
    found = any(study.measured_by(row) for run in runs for row in run.rows)
    body = round_trip_table(study, runs)
    if not found:
        body += f"\nNo shown run measured {closest}.\n"
    return f"{intro}\n{body}"
