"""Draw a headline figure against the framework's version as an SVG (matplotlib, Agg).

One line per configuration through the medians; versions on the x-axis, oldest first; each
point has whiskers from its 95 % interval (``errorbar``); a significant change from the
previous measured release is annotated with its percentage above the point (e.g. "+12 %");
an unstable point is marked ≈; a failed point is an ✕ on the x-axis in its line's colour;
a client-bound point is a hollow marker. The output is deterministic (fixed
``svg.hashsalt``, no date), so a rebuild from the same results gives the same bytes.
"""

from __future__ import annotations

import io
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from wsbench.site.headline import Chart, Line, Point
from wsbench.site.markup import UNSTABLE
from wsbench.stats import UNSTABLE_CV

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
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:,.3g}"


def _top(point: Point) -> float:
    """The highest drawn value of ``point`` (its whisker's end, else its median)."""
    value = point.value or 0.0
    return max(value, point.interval[1]) if point.interval else value


def _whiskers(point: Point) -> tuple[float, float]:
    """The lengths below and above the median of ``point``'s whisker (0 without interval)."""
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


def _key(label: str, marker: str, **style: Any) -> Line2D:
    """A legend entry explaining a mark (no line)."""
    return Line2D([], [], color="#444", marker=marker, linestyle="none", label=label, **style)


def _keys(chart: Chart) -> list[Line2D]:
    """The legend entries explaining the marks ``chart`` uses (after the lines')."""
    points = [p for line in chart.lines for p in line.points]
    keys = []
    if any(p.interval for p in points):
        keys.append(_key("whiskers: 95 % interval", "|", markersize=10, markeredgewidth=1.2))
    if chart.changes:
        keys.append(_key("+n %: significant change", "$\\%$", markersize=8))
    if any(p.unstable for p in points):
        keys.append(_key(f"unstable (cv above {UNSTABLE_CV * 100:.0f} %)", f"${UNSTABLE}$"))
    if chart.failed:
        keys.append(_key("failed (reason below)", "x", markersize=9, markeredgewidth=2.5))
    if any(p.client_bound for p in points):
        keys.append(_key("hollow: ⚠ client-bound", "o", markerfacecolor="white"))
    return keys


def _draw_line(ax: Axes, line: Line, index: dict[str, int], n: int) -> Line2D:
    """One configuration's line, whiskers, annotations and marks; returns its legend entry."""
    color, marker = COLORS[n % len(COLORS)], MARKERS[n % len(MARKERS)]
    ok = [p for p in line.points if p.value is not None]
    xs = [index[p.version] for p in ok]
    ys = [p.value or 0.0 for p in ok]
    whiskers = [_whiskers(p) for p in ok]
    ax.errorbar(
        xs,
        ys,
        yerr=[[w[0] for w in whiskers], [w[1] for w in whiskers]],
        fmt="none",
        ecolor=color,
        elinewidth=1.2,
        capsize=4,
    )
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


def render_svg(chart: Chart, axis_label: str) -> bytes:
    """``chart`` as SVG bytes.

    Args:
        chart: the headline figure's lines (values in its unit).
        axis_label: the x-axis title, e.g. ``"starlette version"``.
    """
    headline = chart.headline
    keys = _keys(chart)
    rows = -(-max(len(chart.lines) + len(keys), 1) // 2)
    with matplotlib.rc_context(
        {
            "svg.hashsalt": "wsbench",  # deterministic ids
            "svg.fonttype": "none",  # text stays text (searchable, page fonts)
            "font.family": "sans-serif",
            "font.sans-serif": ["DejaVu Sans", "Helvetica", "Arial", "sans-serif"],
            "font.size": 10.0,
        }
    ):
        fig = Figure(figsize=(WIDTH_IN, 3.4 + 0.25 * rows), layout="constrained")
        ax = fig.add_subplot()
        xs = range(len(chart.versions))
        index = {v: i for i, v in enumerate(chart.versions)}
        handles = [_draw_line(ax, line, index, n) for n, line in enumerate(chart.lines)]
        handles += keys
        ax.set_xticks(list(xs), list(chart.versions))
        if len(chart.versions) > 7 or sum(len(v) for v in chart.versions) > 60:
            ax.tick_params(axis="x", labelrotation=40)
            for label in ax.get_xticklabels():
                label.set_horizontalalignment("right")
        ax.set_xlim(-0.5, max(len(chart.versions), 1) - 0.5)
        values = [_top(p) for line in chart.lines for p in line.points if p.value is not None]
        ax.set_ylim(0, max(values) * 1.18 if values and max(values) > 0 else 1)
        if not values:
            ax.text(
                0.5, 0.5, "no figure measured", transform=ax.transAxes, ha="center", color="#666"
            )
        ax.yaxis.set_major_formatter(FuncFormatter(_fmt))
        ax.grid(axis="y", color="#ddd", linewidth=0.8)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        arrow = "↑" if headline.higher_is_better else "↓"
        ax.set_ylabel(f"{headline.unit}  ({arrow} {headline.better})")
        ax.set_xlabel(axis_label)
        if handles:
            longest = max(len(str(h.get_label())) for h in handles)
            ncols = max(1, min(3, len(handles), LEGEND_CHARS // (longest + 8)))
            fig.legend(handles=handles, loc="outside lower center", ncols=ncols, frameon=False)
        out = io.BytesIO()
        fig.savefig(out, format="svg", metadata={"Date": None}, facecolor="white")
    return out.getvalue()
