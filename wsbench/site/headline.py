"""The headline figures of a framework against its version: what its charts plot.

Five figures, from the shown figures of each environment (each (configuration, version);
each figure from the newest document that measured it, :mod:`wsbench.site.results`): echo
round-trip p50 latency at 16 B / 1 in flight (µs), echo throughput at 16 B / 64 in
flight (messages/s), echo throughput at 64 KiB / 64 in flight (MB/s, 10^6 bytes), push
(stream) throughput at 16 B (messages/s) and the server's peak RSS at echo 16 B / 64 in
flight (MiB, 2^20 bytes). Each is a :mod:`wsbench.results.metrics` figure summarized over the
benchmark's usable samples over its server processes (the geometric mean and its 95 %
interval, :func:`wsbench.results.stats.summarize`). One line per configuration, the
versions in ``meta.toml`` order, with the significant changes between consecutive
releases (:mod:`wsbench.site.changes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.results.metrics import BY_NAME, Metric
from wsbench.results.stats import FrozenGroups, Summary, frozen
from wsbench.site.changes import Change, significant_changes
from wsbench.site.frameworks import Framework
from wsbench.site.interactive import lines_data, point_data
from wsbench.site.results import EnvRun, natural_key
from wsbench.site.rows import Row


class ShowsMetric:
    """Mixin of what a chart or a column shows of one metric (:attr:`metric`): its
    direction, as a flag and in words."""

    metric: Metric

    @property
    def higher_is_better(self) -> bool:
        """The metric's direction: True for throughput, False for latency and memory."""
        return self.metric.higher_is_better

    @property
    def better(self) -> str:
        """``"higher is better"`` or ``"lower is better"``."""
        return self.metric.better


@dataclass(frozen=True)
class Headline(ShowsMetric):
    """One headline figure.

    Attributes:
        slug: file-name stem of its chart, e.g. ``"echo-throughput-16b"``.
        title: what it is, e.g. ``"Echo throughput, 16 B messages, 64 in flight"``.
        column: its short table header, with the unit, e.g. ``"Push messages/s, 16 B"``.
        scenario: ``"echo"`` or ``"stream"``.
        params: the parameter set it is read at, ``{name: value}``.
        unit: the unit it is shown in (``"µs"``, ``"messages/s"``, ``"MB/s"``, ``"MiB"``).
        metric: the figure (:data:`wsbench.results.metrics.METRICS`) it is.
        scale: the metric's value divided by this is in ``unit``.
    """

    slug: str
    title: str
    column: str
    scenario: str
    params: dict[str, int]
    unit: str
    metric: Metric
    scale: float = 1.0

    def matches(self, row: Row) -> bool:
        """True when ``row`` is this figure's scenario and parameter set."""
        return row.scenario == self.scenario and dict(row.params) == self.params

    def summary(self, row: Row) -> Summary | None:
        """This figure's summary over ``row``'s usable samples, in the metric's unit (divide
        by :attr:`scale` for :attr:`unit`); None when not measured."""
        return row.summary(self.metric)


HEADLINES: tuple[Headline, ...] = (
    Headline(
        "echo-latency-p50-16b",
        "Echo round-trip latency p50, 16 B messages, 1 in flight",
        "p50 latency (µs), echo 16 B, 1 in flight",
        "echo",
        {"size_bytes": 16, "in_flight": 1},
        "µs",
        BY_NAME["latency_p50"],
        1e-6,
    ),
    Headline(
        "echo-throughput-16b",
        "Echo throughput, 16 B messages, 64 in flight",
        "Echo messages/s, 16 B, 64 in flight",
        "echo",
        {"size_bytes": 16, "in_flight": 64},
        "messages/s",
        BY_NAME["messages_per_s"],
    ),
    Headline(
        "echo-throughput-64kib",
        "Echo throughput, 64 KiB messages, 64 in flight",
        "Echo MB/s, 64 KiB, 64 in flight",
        "echo",
        {"size_bytes": 65536, "in_flight": 64},
        "MB/s",
        BY_NAME["bytes_per_s"],
        1e6,
    ),
    Headline(
        "push-throughput-16b",
        "Push (stream) throughput, 16 B messages",
        "Push messages/s, 16 B",
        "stream",
        {"size_bytes": 16},
        "messages/s",
        BY_NAME["messages_per_s"],
    ),
    Headline(
        "echo-rss-16b",
        "Server peak RSS, echo 16 B messages, 64 in flight",
        "Peak RSS (MiB), echo 16 B, 64 in flight",
        "echo",
        {"size_bytes": 16, "in_flight": 64},
        "MiB",
        BY_NAME["server_rss_bytes"],
        float(2**20),
    ),
)
"""The figures each framework page charts, in page order."""


@dataclass(frozen=True)
class Point:
    """One (configuration, version) of one headline figure.

    Attributes:
        version: the package version (the x position).
        value: the figure in the headline's unit (over server processes,
            :func:`wsbench.results.stats.summarize`); None when it failed.
        interval: its 95 % interval in the headline's unit, None when failed or from a
            single server process.
        unstable: the server processes vary too much (coefficient of variation above 10 %).
        samples: the figure in each usable sample, in the metric's unit.
        groups: the same grouped by server process (what the release-to-release
            comparison tests, :mod:`wsbench.site.changes`).
        status: ``"ok"`` or ``"failed"``.
        error: why it failed, or None.
        client_bound: the load generator may have limited the figure.
        run_id: the run it comes from.
    """

    version: str
    value: float | None
    status: str
    error: str | None = None
    client_bound: bool = False
    interval: tuple[float, float] | None = None
    unstable: bool = False
    samples: tuple[float, ...] = ()
    groups: FrozenGroups = ()
    run_id: str = ""


@dataclass(frozen=True)
class Line:
    """One configuration's points, in version-axis order.

    Attributes:
        config: the configuration id.
        label: the legend's text.
        points: at most one per version; versions not measured have none.
        changes: the significant changes between consecutive measured versions.
    """

    config: str | None
    label: str
    points: tuple[Point, ...]
    changes: tuple[Change, ...] = ()


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
        """The points that failed, with their line."""
        return [(line, p) for line in self.lines for p in line.points if p.status != "ok"]

    @property
    def changes(self) -> list[tuple[Line, Change]]:
        """The significant release-to-release changes, with their line."""
        return [(line, c) for line in self.lines for c in line.changes]


def version_axis(framework: Framework, runs: Sequence[EnvRun]) -> tuple[str, ...]:
    """The measured versions of ``runs``, in ``meta.toml`` order; versions the matrix no
    longer lists come after, in version order."""
    measured = {r.impl.version for r in runs if r.impl.version}
    listed = [v.version for v in framework.versions if v.version in measured]
    extra = sorted(measured - set(listed), key=natural_key)
    return (*listed, *extra)


def _line_order(framework: Framework, config: str | None) -> tuple[int, str]:
    ids = [c.id for c in framework.configs]
    return (ids.index(config), "") if config in ids else (len(ids), config or "")


def _point(version: str, headline: Headline, runs: Sequence[EnvRun]) -> Point | None:
    """``headline``'s point at ``version`` from the shown EnvRuns ``runs`` of one
    (configuration, version): from the one that has the figure."""
    found = next(((run, r) for run in runs for r in run.rows if headline.matches(r)), None)
    if found is None:
        return None
    run, row = found
    if not row.ok:
        return Point(version, None, row.status, row.error, run_id=run.run_id)
    summary = headline.summary(row)
    if summary is None:
        return Point(version, None, "failed", f"no {headline.unit} figure", run_id=run.run_id)
    scale = headline.scale
    interval = summary.interval
    return Point(
        version,
        summary.value / scale,
        "ok",
        client_bound=row.client_bound,
        interval=(interval[0] / scale, interval[1] / scale) if interval else None,
        unstable=summary.unstable,
        samples=tuple(row.values(headline.metric)),
        groups=frozen(row.groups(headline.metric)),
        run_id=run.run_id,
    )


def chart(framework: Framework, runs: Sequence[EnvRun], headline: Headline) -> Chart:
    """``headline`` of ``framework`` from ``runs`` (one machine's shown runs of this
    framework), with each line's significant release-to-release changes."""
    axis = version_axis(framework, runs)
    by_config: dict[str | None, dict[str, list[EnvRun]]] = {}
    labels: dict[str | None, str] = {}
    for run in runs:
        if run.impl.version:
            by_config.setdefault(run.impl.config, {}).setdefault(run.impl.version, []).append(run)
            labels.setdefault(run.impl.config, run.impl.config or run.label)
    lines = []
    for config in sorted(by_config, key=lambda c: _line_order(framework, c)):
        versions = by_config[config]
        found = [_point(v, headline, versions[v]) for v in axis if v in versions]
        points = tuple(p for p in found if p is not None)
        changes = significant_changes(
            [(p.version, p.groups) for p in points],
            higher_is_better=headline.higher_is_better,
        )
        lines.append(Line(config, labels[config], points, changes))
    return Chart(headline, axis, tuple(line for line in lines if line.points))


def chart_data(c: Chart, title: str, x_label: str, runs: Sequence[EnvRun]) -> dict[str, object]:
    """``c`` as plain data in the format of :func:`wsbench.site.sweeps.chart_data` (what the
    site's interactive charts draw), the versions as the x-axis's values (strings, oldest
    first) and one series per configuration, with the protocol, server and event loop of
    that configuration in ``runs``::

        {"kind": "lines", "title", "statistics",
         "figure": {"name", "unit", "higher_is_better", "total", "log_y"}, "group": {},
         "x": {"parameter": "version", "label", "measured": false, "log": false,
               "values": [version, ...]},
         "series": [{"label", "configuration", "version": null, "socketio", "reference",
                     "server", "event_loop", "points": [{"x": version, "at", "y",
                     "interval", "status", "error", "unstable", "client_bound",
                     "run_id"}]}]}
    """
    by_config = {run.impl.config: run for run in runs}
    h = c.headline
    series: list[dict[str, object]] = []
    for line in c.lines:
        run = by_config.get(line.config or "")
        series.append(
            {
                "label": line.label,
                "configuration": line.config,
                "version": None,
                "socketio": bool(run and run.socketio),
                "reference": bool(run and run.impl.reference),
                "server": run.impl.server if run else "",
                "event_loop": run.impl.event_loop if run else "",
                "points": [
                    point_data(
                        p.version,
                        f"version {p.version}",
                        p.value,
                        p.interval,
                        p.status,
                        p.error,
                        p.unstable,
                        p.client_bound,
                        p.run_id,
                    )
                    for p in line.points
                ],
            }
        )
    figure = (h.metric.name, h.unit, h.higher_is_better)
    return lines_data(title, figure, ("version", x_label, c.versions), series)
