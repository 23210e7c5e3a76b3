"""Draw a headline figure against the framework's version, or night by night, or a figure
against the number of connections, as an SVG (matplotlib, Agg).

One line per configuration through its figures (each over the server processes,
:func:`wsbench.results.stats.summarize`); versions on the x-axis, oldest first; each point
has whiskers from its 95 % interval (``errorbar``); a significant change from the
previous measured release is annotated with its percentage above the point (e.g. "+12 %");
an unstable point is marked ≈; a failed point is an ✕ on the x-axis in its line's colour;
a client-bound point is a hollow marker. The history charts (:func:`render_history_svg`)
put the runs on the x-axis instead, with the same whiskers. The many-connection charts
(:func:`render_sweep_svg`, :func:`render_bars_svg`) put the number of connections on a
log-scale x-axis, one line per row, or draw one bar per row in a group per number of
connections. The output is deterministic
(fixed ``svg.hashsalt``, no date), so a rebuild from the same results gives the same bytes.

matplotlib is imported in the functions that draw, not with this module: a site build whose
charts all come from the cache (:mod:`wsbench.site.chartcache`) draws none, and importing
matplotlib took about 1 s of each such build on a 2-core machine.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from wsbench.results.stats import UNSTABLE_CV
from wsbench.site.chartcache import cached
from wsbench.site.headline import Chart, Headline, Line
from wsbench.site.history import ChartLine, HistoryChart, HistoryPoint, Night
from wsbench.site.markup import CONFIDENCE_PERCENT, UNSTABLE, short_number
from wsbench.site.sweeps import Series, SweepChart, SweepFigure

if TYPE_CHECKING:  # matplotlib is imported where a chart is drawn (see the module's docstring)
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

COLORS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)
"""Line colours, one per configuration in ``meta.toml`` order (matplotlib's tab10)."""
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
"""Point markers, one per configuration (a second cue beside colour)."""
WIDTH_IN = 7.5
"""Chart width in inches (the height grows with the legend)."""
LEGEND_CHARS = 84
"""About how many characters of 10 pt legend text fit across the chart (columns shrink
to fit longer labels)."""


def _fmt(value: float, _pos: object = None) -> str:
    """:func:`wsbench.site.markup.short_number`, as matplotlib's tick formatter calls it."""
    return short_number(value)


class Drawn(Protocol):
    """A point a chart draws: its figure and interval (None when it has none)."""

    @property
    def value(self) -> float | None:
        """The figure over the server processes, in the headline's unit."""

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95 % interval of the figure, in the same unit."""


def _top(point: Drawn) -> float:
    """The highest drawn value of ``point`` (its whisker's end, else its figure)."""
    value = point.value or 0.0
    return max(value, point.interval[1]) if point.interval else value


def _whiskers(point: Drawn) -> tuple[float, float]:
    """The lengths below and above the figure of ``point``'s whisker (0 without interval)."""
    if point.interval is None or point.value is None:
        return (0.0, 0.0)
    low, high = point.interval
    return (max(point.value - low, 0.0), max(high - point.value, 0.0))


def _annotate(ax: Axes, line: Line, index: dict[str, int], color: str) -> None:
    """The significant changes of ``line`` above their points; ≈ beside unstable points."""
    by_version = {p.version: p for p in line.points}
    for change in line.changes:
        head = by_version[change.head]
        ax.annotate(
            change.percent,
            xy=(index[change.head], _top(head)),
            xytext=(0, 5),
            textcoords="offset points",
            ha="center",
            va="bottom",
            color=color,
            fontsize=9,
            fontweight="bold",
        )
    for point in line.points:
        if point.unstable and point.value is not None:
            ax.annotate(
                UNSTABLE,
                xy=(index[point.version], point.value),
                xytext=(7, 0),
                textcoords="offset points",
                ha="left",
                va="center",
                color=color,
                fontsize=11,
            )


WHISKERS = f"whiskers: {CONFIDENCE_PERCENT} % interval"
"""The legend entry of the whiskers."""


def _key(label: str, marker: str, **style: Any) -> Line2D:
    """A legend entry explaining a mark (no line)."""
    from matplotlib.lines import Line2D

    return Line2D([], [], color="#444", marker=marker, linestyle="none", label=label, **style)


def _keys(chart: Chart) -> list[Line2D]:
    """The legend entries explaining the marks ``chart`` uses (after the lines')."""
    points = [p for line in chart.lines for p in line.points]
    keys = []
    if any(p.interval for p in points):
        keys.append(_key(WHISKERS, "|", markersize=10, markeredgewidth=1.2))
    if chart.changes:
        keys.append(_key("+n %: significant change", "$\\%$", markersize=8))
    if any(p.unstable for p in points):
        keys.append(_key(f"unstable (cv above {UNSTABLE_CV * 100:.0f} %)", f"${UNSTABLE}$"))
    if chart.failed:
        keys.append(_key("failed (reason below)", "x", markersize=9, markeredgewidth=2.5))
    if any(p.client_bound for p in points):
        keys.append(_key("hollow: ⚠ client-bound", "o", markerfacecolor="white"))
    return keys


def _errorbars(
    ax: Axes,
    xs: list[int],
    ys: list[float],
    whiskers: list[tuple[float, float]],
    color: str,
    *,
    width: float,
    capsize: float,
) -> None:
    """Whiskers (below, above) around each point ``(xs[i], ys[i])``, without markers."""
    ax.errorbar(
        xs, ys, yerr=[[w[0] for w in whiskers], [w[1] for w in whiskers]], fmt="none",
        ecolor=color, elinewidth=width, capsize=capsize,
    )  # fmt: skip


def _draw_line(ax: Axes, line: Line, index: dict[str, int], n: int) -> Line2D:
    """One configuration's line, whiskers, annotations and marks; returns its legend entry."""
    color, marker = COLORS[n % len(COLORS)], MARKERS[n % len(MARKERS)]
    ok = [p for p in line.points if p.value is not None]
    xs = [index[p.version] for p in ok]
    ys = [p.value or 0.0 for p in ok]
    _errorbars(ax, xs, ys, [_whiskers(p) for p in ok], color, width=1.2, capsize=4)
    _annotate(ax, line, index, color)
    (handle,) = ax.plot(
        xs, ys, color=color, marker=marker, markersize=6, linewidth=1.8, label=line.label
    )
    bound = [(index[p.version], p.value or 0.0) for p in ok if p.client_bound]
    if bound:
        ax.plot(
            [x for x, _ in bound],
            [y for _, y in bound],
            linestyle="none",
            marker=marker,
            markersize=6,
            markerfacecolor="white",
            markeredgecolor=color,
            markeredgewidth=1.5,
        )
    failed = [index[p.version] for p in line.points if p.status != "ok"]
    if failed:
        ax.plot(
            failed,
            [0.0] * len(failed),
            transform=ax.get_xaxis_transform(),
            linestyle="none",
            marker="x",
            markersize=10,
            markeredgewidth=2.5,
            color=color,
            clip_on=False,
            zorder=5,
        )
    return handle


def _style() -> AbstractContextManager[None]:
    """matplotlib's settings for every chart (an ``rc_context``)."""
    import matplotlib

    return matplotlib.rc_context(
        {
            "svg.hashsalt": "wsbench",  # deterministic ids
            "svg.fonttype": "none",  # text stays text (searchable, page fonts)
            "font.family": "sans-serif",
            "font.sans-serif": ["DejaVu Sans", "Helvetica", "Arial", "sans-serif"],
            "font.size": 10.0,
        }
    )


def _finish(ax: Axes, headline: Headline, values: list[float], axis_label: str) -> None:
    """The y-axis from 0 to above the highest of ``values`` (its unit and direction),
    the grid, the x-axis title."""
    from matplotlib.ticker import FuncFormatter

    ax.set_ylim(0, max(values) * 1.18 if values and max(values) > 0 else 1)
    if not values:
        ax.text(0.5, 0.5, "no figure measured", transform=ax.transAxes, ha="center", color="#666")
    ax.yaxis.set_major_formatter(FuncFormatter(_fmt))
    ax.grid(axis="y", color="#ddd", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    arrow = "↑" if headline.higher_is_better else "↓"
    ax.set_ylabel(f"{headline.unit}  ({arrow} {headline.better})")
    ax.set_xlabel(axis_label)


def _save(fig: Figure, handles: list[Artist]) -> bytes:
    """``fig`` with its legend of ``handles`` below, as SVG bytes (no date)."""
    if handles:
        longest = max(len(str(h.get_label())) for h in handles)
        ncols = max(1, min(3, len(handles), LEGEND_CHARS // (longest + 8)))
        fig.legend(handles=handles, loc="outside lower center", ncols=ncols, frameon=False)
    out = io.BytesIO()
    fig.savefig(out, format="svg", metadata={"Date": None}, facecolor="white")
    return out.getvalue()


def _rotate_if_crowded(ax: Axes, labels: Sequence[str], count: int) -> None:
    """Slant the x tick labels when there are more than 7 ticks or the labels are long."""
    if count > 7 or sum(len(v) for v in labels) > 60:
        ax.tick_params(axis="x", labelrotation=40)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")


@cached
def render_svg(chart: Chart, axis_label: str) -> bytes:
    """``chart`` as SVG bytes.

    Args:
        chart: the headline figure's lines (values in its unit).
        axis_label: the x-axis title, e.g. ``"starlette version"``.
    """
    from matplotlib.figure import Figure

    keys = _keys(chart)
    rows = -(-max(len(chart.lines) + len(keys), 1) // 2)
    with _style():
        fig = Figure(figsize=(WIDTH_IN, 3.4 + 0.25 * rows), layout="constrained")
        ax = fig.add_subplot()
        xs = range(len(chart.versions))
        index = {v: i for i, v in enumerate(chart.versions)}
        handles: list[Artist] = [
            _draw_line(ax, line, index, n) for n, line in enumerate(chart.lines)
        ]
        handles += keys
        ax.set_xticks(list(xs), list(chart.versions))
        _rotate_if_crowded(ax, chart.versions, len(chart.versions))
        ax.set_xlim(-0.5, max(len(chart.versions), 1) - 0.5)
        values = [_top(p) for line in chart.lines for p in line.points if p.value is not None]
        _finish(ax, chart.headline, values, axis_label)
        return _save(fig, handles)


MAX_NIGHT_LABELS = 16
"""At most this many nights are labelled on a history chart's x-axis (evenly spread, the
newest always)."""
CHANGE_WORDS = {"harness": "harness", "load generator": "load gen.", "settings": "settings"}
"""How a history chart's marker names each kind of change (short)."""
UNTUNED_COLOR = "#e8e8e8"
"""The band behind a night on an untuned machine."""


def night_labels(nights: Sequence[Night]) -> list[str]:
    """Each night's x-axis label: its date; with its start time when another night has
    the same date, and its harness commit (7 digits) when that is shared too."""
    dates = [n.date for n in nights]
    labels = []
    for night, date in zip(nights, dates, strict=True):
        label = date
        if dates.count(date) > 1:
            label = f"{date} {night.started_at[11:16]}"
            same = [m for m in nights if m.started_at[:16] == night.started_at[:16]]
            if len(same) > 1:
                label += f" {night.harness.commit[:7]}"
        labels.append(label)
    return labels


def _history_keys(chart: HistoryChart) -> list[Artist]:
    """The legend entries explaining the marks of a history chart (after the lines')."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    keys: list[Artist] = []
    if any(p.interval for line in chart.lines for p in line.series.points):
        keys.append(_key(WHISKERS, "|", markersize=10, markeredgewidth=1.2))
    if any(chart.changes):
        keys.append(
            Line2D([], [], color="#555", linestyle="--", linewidth=1, label="harness, load "
                   "generator or settings changed: not comparable across")
        )  # fmt: skip
    if chart.untuned:
        keys.append(Patch(facecolor=UNTUNED_COLOR, label="machine not tuned"))
    return keys


def _draw_series(ax: Axes, line: ChartLine, index: dict[object, int], by_config: bool) -> Line2D:
    """One (configuration, version)'s points night by night, the line broken where the
    harness, load generator or settings changed (no line joins figures that are not
    comparable); returns its legend entry. Colour: the configuration when ``by_config``,
    else the version; marker: the version."""
    color = COLORS[(line.config_index if by_config else line.version_index) % len(COLORS)]
    marker = MARKERS[line.version_index % len(MARKERS)]
    stretches: list[list[HistoryPoint]] = []
    for point in line.series.points:
        if point.changes or not stretches:
            stretches.append([])
        stretches[-1].append(point)
    handles = []
    for stretch in stretches:
        xs = [index[p.night.key()] for p in stretch]
        ys = [p.value for p in stretch]
        _errorbars(ax, xs, ys, [_whiskers(p) for p in stretch], color, width=1.0, capsize=3)
        handles += ax.plot(
            xs, ys, color=color, marker=marker, markersize=5, linewidth=1.5, label=line.label
        )
    return handles[0]


@cached
def render_history_svg(chart: HistoryChart) -> bytes:
    """A headline figure night by night (:class:`wsbench.site.history.HistoryChart`) as SVG
    bytes: the nights on the x-axis (oldest first, labelled by date), one line per
    (configuration, version) through its figures with whiskers from the 95 % intervals
    (colour: the configuration, or the version when there is one configuration; marker:
    the version), a dashed vertical line with what changed before each night whose
    harness, load generator build or settings differ from the previous one (a line does
    not cross it), and a grey band behind each night on an untuned machine."""
    from matplotlib.figure import Figure

    keys = _history_keys(chart)
    rows = -(-max(len(chart.lines) + len(keys), 1) // 2)
    count = len(chart.nights)
    with _style():
        fig = Figure(figsize=(WIDTH_IN, 3.6 + 0.25 * rows), layout="constrained")
        ax = fig.add_subplot()
        index: dict[object, int] = {n.key(): i for i, n in enumerate(chart.nights)}
        for i, night in enumerate(chart.nights):
            if night.tuned is False:
                ax.axvspan(i - 0.5, i + 0.5, color=UNTUNED_COLOR, linewidth=0, zorder=0)
        for i, kinds in enumerate(chart.changes):
            if kinds:
                ax.axvline(i - 0.5, color="#555", linestyle="--", linewidth=1, zorder=1)
                ax.annotate(
                    " + ".join(CHANGE_WORDS[k] for k in kinds),
                    xy=(i - 0.5, 0.98),
                    xycoords=ax.get_xaxis_transform(),
                    xytext=(-3, 0),
                    textcoords="offset points",
                    rotation=90,
                    ha="right",
                    va="top",
                    fontsize=8,
                    color="#444",
                )
        by_config = len({line.config_index for line in chart.lines}) > 1
        handles: list[Artist] = [_draw_series(ax, line, index, by_config) for line in chart.lines]
        handles += keys
        labels = night_labels(chart.nights)
        step = -(-count // MAX_NIGHT_LABELS) if count else 1
        shown = sorted(range(count - 1, -1, -step))
        ax.set_xticks(shown, [labels[i] for i in shown])
        _rotate_if_crowded(ax, [labels[i] for i in shown], len(shown) + 2)
        ax.set_xlim(-0.5, max(count, 1) - 0.5)
        values = [_top(p) for line in chart.lines for p in line.series.points]
        _finish(ax, chart.headline, values, "run (its date, UTC), oldest first")
        return _save(fig, handles)


SOCKETIO_DASHES = (5, 2)
"""The line style of a Socket.IO server's line on a sweep chart (another protocol)."""


def _count(value: float, _pos: object = None) -> str:
    return f"{value:,.0f}"


def _sweep_style(n: int) -> tuple[str, str]:
    """The colour and marker of the ``n``-th series (the pairs repeat after 100 series)."""
    return COLORS[n % len(COLORS)], MARKERS[(n + n // len(COLORS)) % len(MARKERS)]


def _sweep_keys(chart: SweepChart) -> list[Artist]:
    """The legend entries explaining the marks of a sweep chart (after the lines')."""
    from matplotlib.lines import Line2D

    points = [p for s in chart.series for p in s.points]
    keys: list[Artist] = []
    if any(p.interval for p in points):
        keys.append(_key(WHISKERS, "|", markersize=10, markeredgewidth=1.2))
    if any(s.socketio for s in chart.series):
        keys.append(
            Line2D([], [], color="#444", linestyle=(0, SOCKETIO_DASHES), label="dashed: Socket.IO")
        )
    if any(p.unstable for p in points):
        keys.append(_key(f"unstable (cv above {UNSTABLE_CV * 100:.0f} %)", f"${UNSTABLE}$"))
    if any(p.status != "ok" for p in points):
        keys.append(_key("failed (reason on the page)", "x", markersize=9, markeredgewidth=2.5))
    if any(p.client_bound and p.value is not None for p in points):
        keys.append(_key("hollow: ⚠ client-bound", "o", markerfacecolor="white"))
    return keys


def _draw_sweep_series(ax: Axes, series: Series, n: int) -> Line2D:
    """One row's line through its figures, with whiskers, hollow client-bound markers, ≈
    beside unstable points and ✕ on the x-axis at failed points; returns its legend entry."""
    color, marker = _sweep_style(n)
    ok = [p for p in series.points if p.value is not None and p.x is not None]
    xs = [p.x or 0.0 for p in ok]
    ys = [p.value or 0.0 for p in ok]
    if any(p.interval for p in ok):
        whiskers = [_whiskers(_Drawn(p.value, p.interval)) for p in ok]
        ax.errorbar(
            xs, ys, yerr=[[w[0] for w in whiskers], [w[1] for w in whiskers]], fmt="none",
            ecolor=color, elinewidth=1.2, capsize=4,
        )  # fmt: skip
    style = (0, SOCKETIO_DASHES) if series.socketio else "-"
    (handle,) = ax.plot(
        xs, ys, color=color, marker=marker, markersize=6, linewidth=1.8, linestyle=style,
        label=series.label,
    )  # fmt: skip
    bound = [(p.x or 0.0, p.value or 0.0) for p in ok if p.client_bound]
    if bound:
        ax.plot(
            [x for x, _ in bound], [y for _, y in bound], linestyle="none", marker=marker,
            markersize=6, markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.5,
        )  # fmt: skip
    for p in ok:
        if p.unstable:
            ax.annotate(
                UNSTABLE, xy=(p.x or 0.0, p.value or 0.0), xytext=(7, 0),
                textcoords="offset points", ha="left", va="center", color=color, fontsize=11,
            )  # fmt: skip
    # A failed row on a measured axis has no x: it is only listed under the chart.
    failed = [p.x for p in series.points if p.status != "ok" and p.x is not None]
    if failed:
        ax.plot(
            failed, [0.0] * len(failed), transform=ax.get_xaxis_transform(), linestyle="none",
            marker="x", markersize=10, markeredgewidth=2.5, color=color, clip_on=False, zorder=5,
        )  # fmt: skip
    return handle


class _Drawn:
    """A value and its interval (what :func:`_whiskers` reads)."""

    def __init__(self, value: float | None, interval: tuple[float, float] | None) -> None:
        self.value = value
        self.interval = interval


def _y_label(figure: SweepFigure) -> str:
    arrow = "↑" if figure.higher_is_better else "↓"
    log = ", log scale" if figure.log_y else ""
    return f"{figure.unit}  ({arrow} {figure.better}{log})"


def _sweep_y(ax: Axes, chart: SweepChart) -> None:
    """The y-axis of a line chart: from 0 (linear) or around the values (log scale)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    points = [p for s in chart.series for p in s.points if p.value is not None]
    tops = [_top(_Drawn(p.value, p.interval)) for p in points]
    if chart.figure.log_y and any(p.value and p.value > 0 for p in points):
        lows = [
            min(p.value or 0.0, p.interval[0] if p.interval else p.value or 0.0) for p in points
        ]
        positive = [v for v in lows if v > 0] or [1.0]
        ax.set_yscale("log")
        ax.set_ylim(min(positive) / 1.6, max(tops) * 1.6)
        ax.yaxis.set_major_formatter(FuncFormatter(_fmt))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        top = max(tops) if tops else 0.0
        ax.set_ylim(0, top * 1.18 if top > 0 else 1)
        ax.yaxis.set_major_formatter(FuncFormatter(_fmt))
        if not points:
            ax.text(0.5, 0.5, "no figure measured", transform=ax.transAxes, ha="center",
                    color="#666")  # fmt: skip
        elif top == 0 and chart.figure.total:
            ax.text(0.5, 0.5, "none in any window", transform=ax.transAxes, ha="center",
                    color="#666")  # fmt: skip
    ax.set_ylabel(_y_label(chart.figure))


@cached
def render_sweep_svg(chart: SweepChart) -> bytes:
    """A figure against its x-axis (:class:`wsbench.site.sweeps.SweepChart`,
    ``kind == "lines"``) as SVG bytes: the x-axis on a log scale (a parameter's measured
    values as its ticks, e.g. the numbers of connections; a measured axis such as the
    offered load with log-scale ticks), one line per series through its figures (a
    Socket.IO server's dashed) with
    whiskers from the 95 % intervals, a hollow marker where the load generator may have
    limited the figure, ≈ beside an unstable point and ✕ on the x-axis where the row
    failed; the y-axis is logarithmic when the figure says so (latency), else from 0."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, NullLocator

    keys = _sweep_keys(chart)
    rows = -(-max(len(chart.series) + len(keys), 1) // 2)
    with _style():
        fig = Figure(figsize=(WIDTH_IN, 3.4 + 0.25 * rows), layout="constrained")
        ax = fig.add_subplot()
        handles: list[Artist] = [
            _draw_sweep_series(ax, series, n) for n, series in enumerate(chart.series)
        ]
        handles += keys
        ax.set_xscale("log")
        xs = [x for x in chart.xs if x > 0] or [1.0]
        if chart.x.metric is None:
            ax.set_xlim(min(xs) / 2, max(xs) * 2)
            ax.set_xticks(xs, [_count(x) for x in xs])
        else:
            ax.set_xlim(min(xs) / 1.5, max(xs) * 1.5)
            ax.xaxis.set_major_formatter(FuncFormatter(_count))
        ax.xaxis.set_minor_locator(NullLocator())
        _sweep_y(ax, chart)
        ax.grid(axis="y", color="#ddd", linewidth=0.8)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.set_xlabel(f"{chart.x.label} (log scale)")
        return _save(fig, handles)


BAR_COLORS = {"reference": "#7f7f7f", "websocket": COLORS[0], "socketio": COLORS[3]}
"""Bar colours: the reference, plain WebSocket servers, Socket.IO servers."""
BAR_HEIGHT_IN = 0.26
"""The height of one series' row on a bar chart, inches."""


def _bar_kind(series: Series) -> str:
    return "reference" if series.reference else "socketio" if series.socketio else "websocket"


def _bar_order(chart: SweepChart) -> list[Series]:
    """The series best first by their value at the smallest number of connections they
    have a value at; series without any value last (in their order)."""

    def key(item: tuple[int, Series]) -> tuple[int, float, int]:
        n, series = item
        values = [p.value for p in series.points if p.value is not None]
        if not values:
            return (1, 0.0, n)
        first = values[0]
        return (0, -first if chart.figure.higher_is_better else first, n)

    return [s for _, s in sorted(enumerate(chart.series), key=key)]


@cached
def render_bars_svg(chart: SweepChart) -> bytes:
    """A figure per number of connections as horizontal bars (``kind == "bars"``): one
    panel per measured number of connections (a bar group, titled with it, the panels one
    above the other on a shared scale), one bar per series measured at that number, the
    series named on the left in the same order in every panel (best first, by their value
    at the smallest number of connections), whiskers from the 95 % intervals and the value
    at the end of each bar; a failed row says "failed" where its bar would be. Colours: the
    reference grey, Socket.IO servers orange, the rest blue."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter

    order = _bar_order(chart)
    xs = list(chart.xs) or [0]
    panels = [(x, [(s, p) for s in order for p in s.points if p.x == x]) for x in xs]
    used = {_bar_kind(s) for s in order}
    values = [p for s in order for p in s.points if p.value is not None]
    top = max((_top(_Drawn(p.value, p.interval)) for p in values), default=0.0)
    bars = sum(max(len(members), 1) for _, members in panels)
    with _style():
        fig = Figure(
            figsize=(WIDTH_IN, 1.4 + 0.45 * len(panels) + BAR_HEIGHT_IN * bars),
            layout="constrained",
        )
        axes = fig.subplots(
            len(panels), 1, sharex=True, squeeze=False,
            height_ratios=[max(len(m), 1) + 0.6 for _, m in panels],
        )[:, 0]  # fmt: skip
        for ax, (x, members) in zip(axes, panels, strict=True):
            for y, (series, point) in enumerate(members):
                if point.value is None:
                    ax.text(0, y, " failed", va="center", ha="left", fontsize=8, color="#a00")
                    continue
                low, high = _whiskers(_Drawn(point.value, point.interval))
                ax.barh(
                    y, point.value, height=0.7, color=BAR_COLORS[_bar_kind(series)],
                    xerr=[[low], [high]] if point.interval else None,
                    error_kw={"ecolor": "#222", "elinewidth": 1.0, "capsize": 3},
                )  # fmt: skip
                mark = UNSTABLE if point.unstable else ""
                ax.text(point.value + high, y, f"  {mark}{_fmt(point.value)}", va="center",
                        ha="left", fontsize=8)  # fmt: skip
            ax.set_yticks(range(len(members)), [s.label for s, _ in members], fontsize=8)
            ax.set_ylim(max(len(members), 1) - 0.5, -0.5)
            ax.set_title(f"{_count(x)} {chart.x.label}", fontsize=10, loc="left")
            ax.grid(axis="x", color="#ddd", linewidth=0.8)
            ax.set_axisbelow(True)
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
            if not members:
                ax.text(0.5, 0.5, "no figure measured", transform=ax.transAxes, ha="center",
                        color="#666")  # fmt: skip
        last = axes[-1]
        last.set_xlim(0, top * 1.2 if top > 0 else 1)
        last.xaxis.set_major_formatter(FuncFormatter(_fmt))
        last.set_xlabel(_y_label(chart.figure))
        words = {"reference": "reference", "websocket": "WebSocket",
                 "socketio": "Socket.IO"}  # fmt: skip
        handles: list[Artist] = [
            Patch(facecolor=BAR_COLORS[k], label=words[k]) for k in BAR_COLORS if k in used
        ]
        if any(p.interval for p in values):
            handles.append(_key(WHISKERS, "|", markersize=10, markeredgewidth=1.2))
        return _save(fig, handles)
