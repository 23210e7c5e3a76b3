"""The headline figures of a framework against its version: what its charts plot.

Five figures, from the newest results of each environment (each (configuration, version)):
echo round-trip p50 latency at 16 B / 1 in flight (µs), echo throughput at 16 B / 64 in
flight (messages/s), echo throughput at 64 KiB / 64 in flight (MB/s, 10^6 bytes), push
(stream) throughput at 16 B (messages/s) and the server's peak RSS at echo 16 B / 64 in
flight (MiB, 2^20 bytes). One line per configuration, the versions in ``meta.toml`` order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.site.frameworks import Framework
from wsbench.site.results import Row, Run, natural_key


@dataclass(frozen=True)
class Headline:
    """One headline figure.

    Attributes:
        slug: file-name stem of its chart, e.g. ``"echo-throughput-16b"``.
        title: what it is, e.g. ``"Echo throughput, 16 B messages, 64 in flight"``.
        column: its short table header, with the unit, e.g. ``"Push messages/s, 16 B"``.
        scenario: ``"echo"`` or ``"stream"``.
        params: the parameter set it is read at, ``{name: value}``.
        unit: the unit it is shown in (``"µs"``, ``"messages/s"``, ``"MB/s"``, ``"MiB"``).
        higher_is_better: True for throughput, False for latency and memory.
        field: the :class:`~wsbench.site.results.Row` attribute it comes from.
        scale: the attribute's value divided by this is in ``unit``.
    """

    slug: str
    title: str
    column: str
    scenario: str
    params: dict[str, int]
    unit: str
    higher_is_better: bool
    field: str
    scale: float = 1.0

    @property
    def better(self) -> str:
        """``"higher is better"`` or ``"lower is better"``."""
        return "higher is better" if self.higher_is_better else "lower is better"

    def matches(self, row: Row) -> bool:
        """True when ``row`` is this figure's scenario and parameter set."""
        return row.scenario == self.scenario and dict(row.params) == self.params

    def value(self, row: Row) -> float | None:
        """This figure of ``row`` in :attr:`unit`, None when not measured."""
        raw = getattr(row, self.field)
        return None if raw is None else float(raw) / self.scale


HEADLINES: tuple[Headline, ...] = (
    Headline(
        "echo-latency-p50-16b",
        "Echo round-trip latency p50, 16 B messages, 1 in flight",
        "p50 latency (µs), echo 16 B, 1 in flight",
        "echo",
        {"size_bytes": 16, "in_flight": 1},
        "µs",
        False,
        "latency_p50_s",
        1e-6,
    ),
    Headline(
        "echo-throughput-16b",
        "Echo throughput, 16 B messages, 64 in flight",
        "Echo messages/s, 16 B, 64 in flight",
        "echo",
        {"size_bytes": 16, "in_flight": 64},
        "messages/s",
        True,
        "messages_per_s",
    ),
    Headline(
        "echo-throughput-64kib",
        "Echo throughput, 64 KiB messages, 64 in flight",
        "Echo MB/s, 64 KiB, 64 in flight",
        "echo",
        {"size_bytes": 65536, "in_flight": 64},
        "MB/s",
        True,
        "bytes_per_s",
        1e6,
    ),
    Headline(
        "push-throughput-16b",
        "Push (stream) throughput, 16 B messages",
        "Push messages/s, 16 B",
        "stream",
        {"size_bytes": 16},
        "messages/s",
        True,
        "messages_per_s",
    ),
    Headline(
        "echo-rss-16b",
        "Server peak RSS, echo 16 B messages, 64 in flight",
        "Peak RSS (MiB), echo 16 B, 64 in flight",
        "echo",
        {"size_bytes": 16, "in_flight": 64},
        "MiB",
        False,
        "server_rss_bytes",
        float(2**20),
    ),
)
"""The figures each framework page charts, in page order."""


@dataclass(frozen=True)
class Point:
    """One (configuration, version) of one headline figure.

    Attributes:
        version: the package version (the x position).
        value: the figure in the headline's unit; None when it failed or was skipped.
        status: ``"ok"``, ``"failed"`` or ``"skipped"``.
        error: why it failed, or None.
        client_bound: the load generator may have limited the figure.
    """

    version: str
    value: float | None
    status: str
    error: str | None = None
    client_bound: bool = False


@dataclass(frozen=True)
class Line:
    """One configuration's points, in version-axis order.

    Attributes:
        config: the configuration id, None when the runs did not record one.
        label: the legend's text.
        points: at most one per version; versions not measured have none.
    """

    config: str | None
    label: str
    points: tuple[Point, ...]


@dataclass(frozen=True)
class Chart:
    """One headline figure of one framework on one machine.

    Attributes:
        headline: the figure.
        versions: the x-axis, oldest first (``meta.toml`` order; unlisted versions last).
        lines: one per configuration, in ``meta.toml`` order.
    """

    headline: Headline
    versions: tuple[str, ...]
    lines: tuple[Line, ...]

    @property
    def failed(self) -> list[tuple[Line, Point]]:
        """The points that failed or were skipped, with their line."""
        return [(line, p) for line in self.lines for p in line.points if p.status != "ok"]


def version_axis(framework: Framework, runs: Sequence[Run]) -> tuple[str, ...]:
    """The measured versions of ``runs``, in ``meta.toml`` order; versions the matrix no
    longer lists come after, in version order."""
    measured = {r.impl.version for r in runs if r.impl.version}
    listed = [v.version for v in framework.versions if v.version in measured]
    extra = sorted(measured - set(listed), key=natural_key)
    return (*listed, *extra)


def _line_order(framework: Framework, config: str | None) -> tuple[int, str]:
    ids = [c.id for c in framework.configs]
    return (ids.index(config), "") if config in ids else (len(ids), config or "")


def _point(version: str, headline: Headline, run: Run) -> Point | None:
    row = next((r for r in run.rows if headline.matches(r)), None)
    if row is None:
        return None
    if row.status != "ok":
        return Point(version, None, row.status, row.error)
    value = headline.value(row)
    if value is None:
        return Point(version, None, "failed", f"no {headline.unit} figure recorded")
    return Point(version, value, "ok", client_bound=row.client_bound)


def chart(framework: Framework, runs: Sequence[Run], headline: Headline) -> Chart:
    """``headline`` of ``framework`` from ``runs`` (one machine's runs of this framework)."""
    axis = version_axis(framework, runs)
    by_config: dict[str | None, dict[str, Run]] = {}
    labels: dict[str | None, str] = {}
    for run in runs:
        if run.impl.version:
            by_config.setdefault(run.impl.config, {})[run.impl.version] = run
            labels.setdefault(run.impl.config, run.impl.config or run.impl.label)
    lines = []
    for config in sorted(by_config, key=lambda c: _line_order(framework, c)):
        versions = by_config[config]
        points = [_point(v, headline, versions[v]) for v in axis if v in versions]
        lines.append(Line(config, labels[config], tuple(p for p in points if p is not None)))
    return Chart(headline, axis, tuple(line for line in lines if line.points))
