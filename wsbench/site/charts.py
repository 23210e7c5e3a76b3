"""Draw a headline figure against the framework's version as an SVG (matplotlib, Agg).

One line per configuration; versions on the x-axis, oldest first; a failed or skipped
point is an ✕ on the x-axis in its line's colour; a client-bound point is a hollow marker.
The output is deterministic (fixed ``svg.hashsalt``, no date), so a rebuild from the same
results gives the same bytes.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from wsbench.site.headline import Chart

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


def render_svg(chart: Chart, axis_label: str) -> bytes:
    """``chart`` as SVG bytes.

    Args:
        chart: the headline figure's lines (values in its unit).
        axis_label: the x-axis title, e.g. ``"starlette version"``.
    """
    headline = chart.headline
    n_legend = (
        len(chart.lines)
        + bool(chart.failed)
        + any(p.client_bound for line in chart.lines for p in line.points)
    )
    rows = -(-max(n_legend, 1) // 2)
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
        handles: list[Line2D] = []
        for n, line in enumerate(chart.lines):
            color, marker = COLORS[n % len(COLORS)], MARKERS[n % len(MARKERS)]
            ok = [
                (index[p.version], p.value, p.client_bound)
                for p in line.points
                if p.value is not None
            ]
            handles += ax.plot(
                [x for x, _, _ in ok],
                [y for _, y, _ in ok],
                color=color,
                marker=marker,
                markersize=6,
                linewidth=1.8,
                label=line.label,
            )
            bound = [(x, y) for x, y, client_bound in ok if client_bound]
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
        if chart.failed:
            handles.append(
                Line2D(
                    [],
                    [],
                    color="#444",
                    marker="x",
                    linestyle="none",
                    markersize=9,
                    markeredgewidth=2.5,
                    label="failed (reason below)",
                )
            )
        if any(p.client_bound for line in chart.lines for p in line.points):
            handles.append(
                Line2D(
                    [],
                    [],
                    color="#444",
                    marker="o",
                    linestyle="none",
                    markerfacecolor="white",
                    label="hollow: ⚠ client-bound",
                )
            )
        ax.set_xticks(list(xs), list(chart.versions))
        if len(chart.versions) > 7 or sum(len(v) for v in chart.versions) > 60:
            ax.tick_params(axis="x", labelrotation=40)
            for label in ax.get_xticklabels():
                label.set_horizontalalignment("right")
        ax.set_xlim(-0.5, max(len(chart.versions), 1) - 0.5)
        values = [p.value for line in chart.lines for p in line.points if p.value is not None]
        ax.set_ylim(0, max(values) * 1.12 if values and max(values) > 0 else 1)
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
