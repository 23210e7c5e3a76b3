"""Figures against a swept quantity: what the charts of the many-connection, fan-out and
fixed-offered-load scenarios plot, and each chart's data as JSON.

A :class:`SweepChart` is one figure (:class:`SweepFigure`: throughput, round-trip p99,
errors, memory per connection, delivery latency...) of one scenario on one machine at one
*group* (the parameter set without the swept ones, e.g. 16 B messages, 1 in flight), with
one :class:`Series` per row (a (configuration, version) on a leaderboard; a version of a
configuration on a framework page) and one :class:`SweepPoint` per measured value of the
x-axis (:class:`XAxis`): a parameter (connections, subscribers) or a measured figure (the
offered load in messages/s, which a percentage of each server's capacity sets apart per
server, as wrk2's latency-against-load curves plot it). Every value comes from the row's
usable samples over its server processes (:func:`wsbench.site.rows.summary_of`: the
geometric mean of the processes' values with its 95 % interval), in the figure's unit;
errors are the total over the row's usable windows (:func:`wsbench.site.rows.error_counts`),
with no interval; a measured x-axis is the median over the windows. The charts are drawn by
:mod:`wsbench.site.charts` (lines against a log-scale x-axis; memory per connection as
bars, one group per connection count), and :func:`chart_json` writes the same data beside
each SVG.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from wsbench.deployment import PROFILE_PARAMS
from wsbench.results.metrics import BY_NAME, Metric
from wsbench.site.headline import Headline, ShowsMetric
from wsbench.site.interactive import TOOLTIP_NUMBERS, point_data
from wsbench.site.markup import PROFILE_SEPARATOR, params_title, profile_title, safe_name
from wsbench.site.results import EnvRun, by_environment
from wsbench.site.rows import Params, Row, error_counts, median_of

X_PARAM = "connections"
"""The parameter on the x-axis of the many-connection scenarios' charts."""
KIB = 1024.0


@dataclass(frozen=True)
class XAxis:
    """What a sweep chart's x-axis is (always on a log scale for lines).

    Attributes:
        name: the parameter whose value is x (e.g. ``"connections"``), or the metric's
            name when ``metric`` is set.
        label: the axis in words, e.g. ``"connections"``, ``"offered messages/s"``.
        replaces: the parameters the axis stands for, left out of a chart's group (a
            parameter axis: itself; the offered load: ``rate`` and ``load_percent``).
        metric: x is the median over the windows of this measured figure, not a parameter
            (a failed row then has no x: it is listed under the chart, not drawn).
    """

    name: str
    label: str
    replaces: tuple[str, ...]
    metric: Metric | None = None

    def at(self, params: Params) -> str:
        """Where a row of ``params`` sits on the axis, in words, e.g. ``"1,000
        connections"``, ``"50% of capacity"``."""
        return params_title(tuple((k, v) for k, v in params if k in self.replaces))


CONNECTIONS = XAxis(X_PARAM, "connections", (X_PARAM,))
SUBSCRIBERS = XAxis("subscribers", "subscribers", ("subscribers",))
OFFERED_LOAD = XAxis(
    "offered_per_s", "offered messages/s", ("rate", "load_percent"), BY_NAME["offered_per_s"]
)


@dataclass(frozen=True)
class SweepFigure(ShowsMetric):
    """What one sweep chart plots.

    Attributes:
        slug: file-name part, e.g. ``"throughput"``.
        title: its name, e.g. ``"Throughput"``.
        metric: the figure (:data:`wsbench.results.metrics.METRICS`).
        unit: the unit it is shown in, e.g. ``"messages/s"``, ``"µs"``, ``"KiB"``.
        scale: the metric's value divided by this is in ``unit``.
        log_y: the y-axis is logarithmic (latencies spread over orders of magnitude).
        total: the value is the total over the row's usable windows (errors), not a
            figure over the server processes with an interval.
    """

    slug: str
    title: str
    metric: Metric
    unit: str
    scale: float = 1.0
    log_y: bool = False
    total: bool = False


THROUGHPUT = SweepFigure("throughput", "Throughput", BY_NAME["messages_per_s"], "messages/s")
LATENCY_P99 = SweepFigure(
    "latency-p99", "Round-trip latency p99", BY_NAME["latency_p99"], "µs", 1e-6, log_y=True
)
ERRORS = SweepFigure(
    "errors",
    "Errors (failed connections and lost messages, all windows)",
    BY_NAME["errors"],
    "errors",
    total=True,
)
MEMORY = SweepFigure(
    "memory-per-connection", "Memory per connection", BY_NAME["memory_slope_bytes"], "KiB", KIB
)
CLIENTS_FIGURES = (THROUGHPUT, LATENCY_P99, ERRORS)
"""The clients leaderboard's charts against the number of connections, in page order."""
FRAMEWORK_CLIENTS_FIGURES = (THROUGHPUT, LATENCY_P99)
"""A framework page's clients charts (by version)."""
_US = 1e-6
DELIVERY_P99 = SweepFigure(
    "delivery-p99", "Delivery latency p99", BY_NAME["delivery_p99"], "µs", _US, log_y=True
)
BROADCAST_FIGURES = (
    DELIVERY_P99,
    SweepFigure(
        "last-delivery-p99", "Last subscriber's delivery latency p99",
        BY_NAME["last_delivery_p99"], "µs", _US, log_y=True,
    ),
    SweepFigure("deliveries", "Deliveries", BY_NAME["messages_per_s"], "deliveries/s"),
)  # fmt: skip
"""The broadcast leaderboard's charts against the number of subscribers."""
MARKET_FIGURES = (
    SweepFigure(
        "order-round-trip-p99", "Order round trip p99", BY_NAME["order_round_trip_p99"], "µs",
        _US, log_y=True,
    ),
    SweepFigure(
        "tick-delivery-p99", "Tick delivery latency p99", BY_NAME["delivery_p99"], "µs", _US,
        log_y=True,
    ),
)  # fmt: skip
"""The market leaderboard's charts against the number of clients."""
OFFERED_FIGURES = tuple(
    SweepFigure(
        f"latency-{slug}", f"Latency {label} (from the intended send)",
        BY_NAME[f"latency_{key}"], "µs", _US, log_y=True,
    )
    for key, slug, label in (("p50", "p50", "p50"), ("p99", "p99", "p99"),
                             ("p99_9", "p99-9", "p99.9"))
)  # fmt: skip
"""The offered-load leaderboard's latency-against-load curves (p50, p99, p99.9)."""


@dataclass(frozen=True)
class SweepPoint:
    """One row's figure at one value of the x-axis.

    Attributes:
        x: the value of the x-axis (a number of connections or subscribers, an offered
            load in messages/s); None for a failed row on a measured axis.
        at: where the row sits on the axis in words (:meth:`XAxis.at`).
        value: the figure over the server processes (:func:`wsbench.site.rows.summary_of`),
            or the total (:attr:`SweepFigure.total`), in the figure's unit; None when the
            row failed or the figure was not recorded.
        status: ``"ok"`` or ``"failed"``.
        error: why it failed, or None.
        interval: the 95 % interval of the value in the figure's unit; None for a total,
            a failure or a single server process.
        unstable: the server processes' values vary too much (coefficient of variation
            above 10 %).
        client_bound: the load generator may have limited the figure.
        run_id: the run it comes from.
    """

    x: float | None
    at: str
    value: float | None
    status: str
    error: str | None = None
    interval: tuple[float, float] | None = None
    unstable: bool = False
    client_bound: bool = False
    run_id: str = ""


@dataclass(frozen=True)
class Series:
    """One row's points (a line, or a bar per group), in increasing ``x``.

    Attributes:
        label: its legend text.
        config: the configuration id.
        version: the framework's version.
        socketio: a Socket.IO server (drawn dashed: another protocol).
        reference: the native reference server (the yardstick).
        points: one per measured value of the x-axis, in increasing x (a failed row
            without x last).
    """

    label: str
    config: str
    version: str | None
    socketio: bool
    reference: bool
    points: tuple[SweepPoint, ...]


Kind = Literal["lines", "bars"]


@dataclass(frozen=True)
class SweepChart:
    """One figure against the x-axis.

    Attributes:
        figure: what is plotted.
        scenario: the scenario (``"clients"``, ``"memory"``, ``"broadcast"``...).
        machine: the machine the figures were measured on.
        group: the parameters every point shares (all but the axis's
            :attr:`XAxis.replaces`).
        xs: every measured value of the x-axis, increasing.
        series: one per row, in the page's order.
        kind: ``"lines"`` (x on a log scale) or ``"bars"`` (one group per x).
        x: the x-axis (default: the number of connections).
    """

    figure: SweepFigure
    scenario: str
    machine: str
    group: Params
    xs: tuple[float, ...]
    series: tuple[Series, ...]
    kind: Kind = "lines"
    x: XAxis = CONNECTIONS

    @property
    def title(self) -> str:
        """E.g. ``"Throughput against connections, 16 B messages, 1 in flight per
        connection · Tuned"``, ``"Memory per connection against connections · As shipped"``:
        the group in words with its deployment profile
        (:func:`wsbench.site.markup.profile_title`)."""
        words = profile_title(self.group)
        named = any(name not in PROFILE_PARAMS for name, _ in self.group)
        between = ", " if named else PROFILE_SEPARATOR
        return f"{self.figure.title} against {self.x.label}{between}{words}"


def group_of(params: Params, x: XAxis = CONNECTIONS) -> Params:
    """``params`` without the parameters ``x`` stands for (the chart group it belongs to)."""
    return tuple((k, v) for k, v in params if k not in x.replaces)


def group_slug(group: Params) -> str:
    """A file-name part for a group, e.g. ``"size-bytes-16-in-flight-1"``; ``"all"`` for
    the empty group."""
    parts = [f"{k.replace('_', '-')}-{v}" for k, v in group]
    return safe_name("-".join(parts)) if parts else "all"


def x_of(row: Row, x: XAxis = CONNECTIONS) -> float | None:
    """``row``'s value on the axis ``x``: its parameter, or the median over the windows of
    the axis's metric (None when the row failed or did not record it); None when the row
    has no such parameter."""
    if x.metric is None:
        value = dict(row.params).get(x.name)
        return None if value is None else value
    # The median over the windows: x has no interval.
    return median_of(x.metric, row.samples) if row.ok else None


def point_of(
    figure: SweepFigure, row: Row, run_id: str, x: XAxis = CONNECTIONS
) -> SweepPoint | None:
    """``figure`` of ``row`` as a point on the axis ``x``; None when the row is not on it
    (no such parameter; on a measured axis, an ok row without the figure)."""
    where = x_of(row, x)
    on_axis = where is not None or (x.metric is not None and not row.ok)
    if not on_axis:
        return None
    at = x.at(row.params)
    if not row.ok:
        return SweepPoint(where, at, None, row.status, row.error, run_id=run_id)
    bound = row.client_bound
    if figure.total:
        counts = error_counts(row.samples)
        value = None if counts is None else float(sum(counts.values())) / figure.scale
        return SweepPoint(where, at, value, "ok", client_bound=bound, run_id=run_id)
    summary = row.summary(figure.metric)
    if summary is None:
        return SweepPoint(where, at, None, "ok", client_bound=bound, run_id=run_id)
    low_high = summary.interval
    scale = figure.scale
    return SweepPoint(
        where,
        at,
        summary.value / scale,
        "ok",
        interval=(low_high[0] / scale, low_high[1] / scale) if low_high else None,
        unstable=summary.unstable,
        client_bound=row.client_bound,
        run_id=run_id,
    )


def row_label(run: EnvRun) -> str:
    """A leaderboard row's legend text: its name and version, ``(reference)`` for the
    native reference server, ``(Socket.IO)`` for a Socket.IO server (whose row name does
    not say so)."""
    name = run.label.removesuffix(" · Socket.IO")
    text = f"{name} {run.impl.version or ''}".strip()
    tags = [t for t, on in (("reference", run.impl.reference), ("Socket.IO", run.socketio)) if on]
    return f"{text} ({', '.join(tags)})" if tags else text


def sweep_charts(
    scenario: str,
    runs: Sequence[EnvRun],
    figures: Sequence[SweepFigure],
    label: Callable[[EnvRun], str] = row_label,
    kind: Kind = "lines",
    x: XAxis = CONNECTIONS,
) -> list[SweepChart]:
    """The charts of ``scenario`` from ``runs`` (one machine's runs, in the page's order)
    against the axis ``x``: per group (:func:`group_of`, in increasing parameter order), one
    chart per figure of ``figures``, one series per environment that measured the group
    (named by ``label`` of its first EnvRun; its points may come from several runs, each
    point naming its own), its points in increasing x.

    Returns:
        ``[SweepChart]``, group by group, the figures of a group in ``figures`` order;
        empty when no run measured ``scenario`` on the axis (a parameter axis: no row has
        the parameter).
    """
    groups: dict[Params, list[tuple[EnvRun, Row]]] = {}
    for run in runs:
        for row in run.rows:
            on_axis = x.metric is not None or x.name in dict(row.params)
            if row.scenario == scenario and on_axis:
                groups.setdefault(group_of(row.params, x), []).append((run, row))
    out = []
    for group in sorted(groups, key=lambda g: tuple((k, v) for k, v in g)):
        members = groups[group]
        xs = tuple(sorted({v for _, row in members if (v := x_of(row, x)) is not None}))
        machine = members[0][0].machine
        for figure in figures:
            series = []
            for env in by_environment(runs):
                run = env[0]
                points = [
                    p
                    for r, row in members
                    if r.env_id == run.env_id
                    and (p := point_of(figure, row, r.run_id, x)) is not None
                ]
                found = sorted(points, key=lambda p: (p.x is None, p.x or 0.0))
                if found:
                    series.append(
                        Series(
                            label(run),
                            run.impl.config,
                            run.impl.version,
                            run.socketio,
                            run.impl.reference,
                            tuple(found),
                        )
                    )
            out.append(SweepChart(figure, scenario, machine, group, xs, tuple(series), kind, x))
    return out


def memory_headline(connections: int) -> Headline:
    """Memory per connection with ``connections`` idle connections, as a headline figure a
    framework page charts against the version (:func:`wsbench.site.headline.chart`), in
    KiB (2^10 bytes)."""
    return Headline(
        f"memory-per-connection-{connections}",
        f"Memory per connection, 0 to {connections:,} idle connections",
        f"KiB per connection, 0 to {connections:,} connections",
        "memory",
        {X_PARAM: connections},
        "KiB",
        MEMORY.metric,
        KIB,
    )


def chart_data(chart: SweepChart) -> dict[str, object]:
    """``chart`` as plain data (what :func:`chart_json` writes)::

        {"kind": "lines" | "bars", "scenario", "machine", "title",
         "statistics": {"confidence_percent", "unstable_percent"} (TOOLTIP_NUMBERS),
         "figure": {"name", "unit", "higher_is_better", "total", "log_y"},
         "group": {parameter: value}, "x": {"parameter": "connections" (or the metric
         of a measured axis, e.g. "offered_per_s"), "label", "measured": bool, "log": bool,
         "values": [...]},
         "series": [{"label", "configuration", "version", "socketio", "reference",
                     "points": [{"x" (null: failed, no measured x), "at", "y",
                                 "interval": [low, high] | null, "status",
                                 "error", "unstable", "client_bound", "run_id"}]}]}

    ``y`` and ``interval`` are in the figure's unit (``figure.unit``).
    """
    f = chart.figure
    return {
        "kind": chart.kind,
        "scenario": chart.scenario,
        "machine": chart.machine,
        "title": chart.title,
        "statistics": dict(TOOLTIP_NUMBERS),
        "figure": {
            "name": f.metric.name,
            "unit": f.unit,
            "higher_is_better": f.higher_is_better,
            "total": f.total,
            "log_y": f.log_y,
        },
        "group": dict(chart.group),
        "x": {
            "parameter": chart.x.name,
            "label": chart.x.label,
            "measured": chart.x.metric is not None,
            "log": chart.kind == "lines",
            "values": list(chart.xs),
        },
        "series": [
            {
                "label": s.label,
                "configuration": s.config,
                "version": s.version,
                "socketio": s.socketio,
                "reference": s.reference,
                "points": [
                    point_data(
                        p.x,
                        p.at,
                        p.value,
                        p.interval,
                        p.status,
                        p.error,
                        p.unstable,
                        p.client_bound,
                        p.run_id,
                    )
                    for p in s.points
                ],
            }
            for s in chart.series
        ],
    }


def chart_json(chart: SweepChart) -> bytes:
    """:func:`chart_data` of ``chart`` as indented JSON (UTF-8 bytes, ending with a
    newline)."""
    return (json.dumps(chart_data(chart), indent=1, ensure_ascii=False) + "\n").encode()
