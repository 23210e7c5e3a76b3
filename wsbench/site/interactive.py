"""The data the site's script (``assets/wsbench.js``) reads from a page: each chart's figures
and each leaderboard table's rows, as ``<script type="application/json">`` elements placed
right after the static chart or the table they belong to.

The script draws the interactive chart from a chart's data (the static SVG before it stays
for readers without JavaScript), and filters charts and tables by each row's *facets*: its
protocol, server and event loop (from the run document's implementation). The data sits in
the page itself, not in a file fetched at run time, so a copy of the site opened from a
folder draws its charts too.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from wsbench.deployment import Profile
from wsbench.site.markup import CONFIDENCE_PERCENT, UNSTABLE_PERCENT
from wsbench.site.results import EnvRun

TOOLTIP_NUMBERS: dict[str, str] = {
    "confidence_percent": CONFIDENCE_PERCENT,
    "unstable_percent": UNSTABLE_PERCENT,
}
"""The numbers a chart's tooltips quote (every chart's ``"statistics"``): the confidence
level of a figure's interval and the unstable threshold, in percent (``"95"``, ``"10"``),
from :mod:`wsbench.site.markup`, so that the script types none of them."""

CHART_CLASS = "wsbench-chart"
"""The class of a chart's data element (wsbench.js draws each)."""
ROWS_CLASS = "wsbench-rows"
"""The class of a leaderboard table's rows element (wsbench.js filters and pins them)."""
PROFILE_CLASS = "wsbench-profile"
"""The class of the element that opens a page's block of one deployment profile: the
script shows the blocks of the profile picked in the filter bar (tuned by default) and
hides the others."""
PROFILE_END = '<div class="wsbench-profile-end"></div>\n\n'
"""Closes the last deployment profile's block of a machine (what follows is every
profile's)."""


def json_script(css_class: str, data: object, table: str = "") -> str:
    """``data`` as a block of raw HTML: ``<script type="application/json" class=...>``
    with compact JSON (``</`` escaped so that no text ends the element early), followed by
    a blank line (a block of its own in Markdown); ``table``, when given, as its
    ``data-table`` attribute (:func:`rows_script`)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    kind = f' data-table="{html.escape(table)}"' if table else ""
    return f'<script type="application/json" class="{css_class}"{kind}>{text}</script>\n\n'


def facets(run: EnvRun) -> dict[str, object]:
    """What a row is filtered by: ``{"label", "socketio", "reference", "server",
    "event_loop"}`` (the row's name, and its implementation's protocol, server and event
    loop as its run document states them)."""
    return {
        "label": run.label,
        "socketio": run.socketio,
        "reference": run.impl.reference,
        "server": run.impl.server,
        "event_loop": run.impl.event_loop,
    }


LEADERBOARD_TABLE = "leaderboard"
"""A leaderboard's table: its first two columns (rank and name) stay in view while it
scrolls sideways."""
COSTS_TABLE = "costs"
"""A table of ratios to tuned (:mod:`wsbench.site.deployment_page`): its first column (the
configuration) stays in view while it scrolls sideways."""


def rows_script(runs: Sequence[EnvRun], table: str = LEADERBOARD_TABLE) -> str:
    """The facets of a table's rows, in the table's order (:func:`json_script`); ``table``:
    what kind of table it follows (:data:`LEADERBOARD_TABLE`, :data:`COSTS_TABLE`), which
    says which columns stay in view (the leaderboard's is the default and left out)."""
    kind = "" if table == LEADERBOARD_TABLE else table
    return json_script(ROWS_CLASS, [facets(run) for run in runs], kind)


def profile_marker(profile: Profile) -> str:
    """The raw HTML that opens a page's block of ``profile``'s sets, e.g. ``<div
    class="wsbench-profile" data-profile="as-shipped" data-title="As shipped"></div>``: the
    block runs to the next such element or :data:`PROFILE_END` (without JavaScript every
    block shows, each heading naming its profile)."""
    return (
        f'<div class="{PROFILE_CLASS}" data-profile="{html.escape(profile.name)}" '
        f'data-title="{html.escape(profile.title)}"></div>\n\n'
    )


def chart_script(
    data: Mapping[str, Any], runs: Sequence[EnvRun], label: Callable[[EnvRun], str]
) -> str:
    """A chart's data (the format of :func:`wsbench.site.sweeps.chart_data`) with each
    series' ``server`` and ``event_loop`` added from the run it was drawn from (``runs``,
    matched by ``label``, the function that named the series), as :func:`json_script`."""
    by_label = {label(run): run for run in runs}
    series = []
    for item in data.get("series", []):
        run = by_label.get(item.get("label", ""))
        extra = {"server": run.impl.server, "event_loop": run.impl.event_loop} if run else {}
        series.append({**item, **extra})
    return json_script(CHART_CLASS, {**data, "series": series})


def point_data(
    x: object,
    at: str,
    y: float | None,
    interval: tuple[float, float] | None,
    status: str = "ok",
    error: str | None = None,
    unstable: bool = False,
    client_bound: bool = False,
    run_id: str = "",
) -> dict[str, object]:
    """One point of a chart's data: ``{"x", "at" (where, in words), "y" (the figure over the
    server processes in the chart's unit, or a total; null when failed), "interval" ([low,
    high] or null), "status", "error", "unstable", "client_bound", "run_id"}``."""
    return {
        "x": x,
        "at": at,
        "y": y,
        "interval": list(interval) if interval else None,
        "status": status,
        "error": error,
        "unstable": unstable,
        "client_bound": client_bound,
        "run_id": run_id,
    }


def lines_data(
    title: str,
    figure: tuple[str, str, bool],
    x: tuple[str, str, Sequence[object]],
    series: list[dict[str, object]],
) -> dict[str, object]:
    """A chart of lines over a categorical x-axis (versions, nights) in the format of
    :func:`wsbench.site.sweeps.chart_data`: ``figure`` is (metric name, unit, higher is
    better), ``x`` (parameter, label, values in order)."""
    name, unit, higher = figure
    parameter, label, values = x
    return {
        "kind": "lines",
        "title": title,
        "statistics": dict(TOOLTIP_NUMBERS),
        "figure": {
            "name": name,
            "unit": unit,
            "higher_is_better": higher,
            "total": False,
            "log_y": False,
        },
        "group": {},
        "x": {
            "parameter": parameter,
            "label": label,
            "measured": False,
            "log": False,
            "values": list(values),
        },
        "series": series,
    }
