"""Markdown of the generated leaderboard pages (and the charts of the many-connection
scenarios' pages).

Pure functions from typed data to markdown text (Python-Markdown's ``tables`` syntax and
material's admonitions). The headline, throughput and latency cells (the columns of kind
``"summary"``, :class:`Column`) show a figure over the benchmark's server processes, each
reduced to the geometric mean of its usable windows, with its 95 % interval
(:func:`wsbench.results.stats.summarize`); the other figures are medians over the usable
windows. A Rank column ties rows whose intervals of the scenario's headline figure overlap
(:func:`wsbench.results.stats.ties`; :data:`wsbench.results.metrics.SCENARIO_HEADLINES`:
messages/s, connections/s, memory per connection, RSS growth). Each scenario has its own
columns, notes and sentences, which its module declares
(:class:`wsbench.scenarios.base.ColumnSpec`, :func:`columns_of`). Errors are totals over a
row's usable windows, by kind. The Concurrent clients page charts throughput, round-trip
p99 and errors against the number of connections, the Memory page memory per connection
as bars (:mod:`wsbench.site.sweeps`). Units: MB = 10^6 bytes, KiB = 2^10 bytes,
MiB = 2^20 bytes, µs = 10^-6 s, ms = 10^-3 s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from wsbench.deployment import PROFILE_PARAMS, PROFILES, TUNED, Profile, profile_of
from wsbench.results import stats
from wsbench.results.count_sets import SETS
from wsbench.results.memoryfit import problems, rss_fit
from wsbench.results.metrics import BY_NAME, CLIENT_BOUND_CPU_PERCENT, Metric
from wsbench.results.stats import ties
from wsbench.scenarios import PARAM_DOCS, SCENARIOS, SPECS, in_grid, spec
from wsbench.scenarios.base import CPU_COLUMN, KIB, RSS_COLUMN, ColumnSpec
from wsbench.site import templates
from wsbench.site.charts import render_bars_svg, render_sweep_svg
from wsbench.site.conformance import CONFORMANCE_PAGE, Grades, graded_of, relative, run_badge
from wsbench.site.counts import COUNT_HEADER, count_legend, count_text
from wsbench.site.interactive import PROFILE_END, chart_script, profile_marker, rows_script
from wsbench.site.markup import (
    CONFIDENCE_PERCENT,
    DASH,
    PROFILE_SEPARATOR,
    SOCKETIO_TAG,
    TIMES,
    UNSTABLE_LEGEND,
    anchor,
    cell,
    code,
    first_line,
    heading,
    num,
    params_title,
    profile_changes,
    profile_title,
    safe_name,
    set_words,
    short_reason,
    spread,
    table,
    tagged,
)
from wsbench.site.profiles import Profiles, leaderboard_file, leaderboard_section
from wsbench.site.results import EnvRun, Results, natural_key
from wsbench.site.rows import MESSAGES, Params, Row, error_counts, headline_of
from wsbench.site.shared_cpu import PER_CORE, SharedCpu, mark, notes
from wsbench.site.sources import source_line
from wsbench.site.studies import Study, load_studies, round_trip_section
from wsbench.site.sweeps import (
    BROADCAST_FIGURES,
    CLIENTS_FIGURES,
    CONNECTIONS,
    MARKET_FIGURES,
    MEMORY,
    OFFERED_FIGURES,
    OFFERED_LOAD,
    SUBSCRIBERS,
    Kind,
    SweepChart,
    SweepFigure,
    XAxis,
    chart_data,
    chart_json,
    group_slug,
    row_label,
    sweep_charts,
)

LEADERBOARD_PAGES: dict[str, str] = {
    scenario: f"leaderboards/{scenario}.md" for scenario in SCENARIOS
}
"""Scenario -> its generated leaderboard page (relative to the docs dir)."""
SCENARIO_TITLES: dict[str, str] = {
    name: defined.site_title or defined.title for name, defined in SPECS.items()
}
"""Scenario -> its name on the site (:attr:`wsbench.scenarios.base.ScenarioSpec.site_title`,
else its title)."""
NO_RESULTS = (
    '!!! note "No results yet"\n\n'
    "    There are no benchmark results to show: the results store held no run document "
    "when this site was built. The pages fill in after the next benchmark run.\n"
)
REASON_CHARS = 200
"""Longer failure reasons are shortened in leaderboard cells; the framework page has them
in full."""
RUNS_PAGE = "../environment.md"
"""The Runs and environment page, relative to a leaderboard page."""
RANK_LEGEND = (
    f"**Rank** is by messages/s; a row whose {CONFIDENCE_PERCENT} % interval overlaps that of "
    "the first row of a rank shares its rank: rows with the same rank are not significantly "
    "different. The reference and failed rows are not ranked"
)
"""The sentence that explains the Rank column."""


def rank_legend(metric: Metric) -> str:
    """The sentence that explains the Rank column of a leaderboard ranked by ``metric``:
    :data:`RANK_LEGEND` for messages/s."""
    if metric is MESSAGES:
        return RANK_LEGEND
    return RANK_LEGEND.replace("by messages/s", f"by {metric.label} ({_better(metric)} is better)")


def _better(metric: Metric) -> str:
    return "higher" if metric.higher_is_better else "lower"


def _flag(run: EnvRun, row: Row, page: str | None) -> str:
    flags = []
    if run.impl.reference:
        flags.append("reference")
    if not row.ok:
        reason = row.error or row.status
        text = f"**{row.status}**: {cell(short_reason(reason, REASON_CHARS))}"
        if page and len(" ".join(reason.split())) > REASON_CHARS:
            text += f" ([full reason]({page}#failures))"
        flags.append(text)
    elif row.client_bound:
        cpu = row.loadgen_cpu_percent
        why = f"load generator CPU {cpu:.0f} %" if cpu is not None else "load generator busy"
        flags.append(f"⚠ client-bound ({why})")
    if row.ok and row.disturbed:
        windows = "window" if row.disturbed == 1 else "windows"
        flags.append(f"{row.disturbed} disturbed {windows} left out (n = {row.n})")
    return "; ".join(flags)


def row_name_cell(run: EnvRun, page: str | None = None) -> str:
    """The row's name (linked to ``page`` when given), bold for the reference, tagged
    Socket.IO for a Socket.IO server."""
    name = tagged(run.label, run.socketio, page)
    return f"**{name}**" if run.impl.reference else name


ColumnKind = Literal["summary", "median", "other"]
"""What a column's figure is: over the server processes with its interval
(:func:`wsbench.results.stats.summarize`), the median over the windows, or another (a total,
a count, a check)."""


@dataclass(frozen=True)
class Column:
    """One figure column of a leaderboard.

    Attributes:
        header: its header, with the unit, e.g. ``"p99 latency (µs)"``.
        value: its cell for an ok row.
        kind: what its figure is (:data:`ColumnKind`), for the page's legend.
    """

    header: str
    value: Callable[[Row], str]
    kind: ColumnKind = "other"


def _spread_column(header: str, metric: Metric, fmt: str, scale: float = 1.0) -> Column:
    """``metric`` over the server processes with its interval
    (:func:`wsbench.site.markup.spread`)."""
    return Column(header, lambda row: spread(row.summary(metric), fmt, scale), "summary")


def _median_column(header: str, metric: Metric, fmt: str, scale: float = 1.0) -> Column:
    """The median of ``metric`` over the windows (a dash when no sample has it)."""

    def value(row: Row) -> str:
        found = row.values(metric)
        return num(stats.median(found) if found else None, fmt, scale)

    return Column(header, value, "median")


def errors_text(counts: Mapping[str, int] | None) -> str:
    """Errors for a cell: the total and, in brackets, the non-zero kinds, most first (then
    by name), e.g. ``"93 (timeout 90, closed_early 3)"``; ``"0"`` for none; a dash when not
    recorded (None)."""
    if counts is None:
        return DASH
    kinds = sorted(((k, v) for k, v in counts.items() if v), key=lambda kv: (-kv[1], kv[0]))
    total = sum(v for _, v in kinds)
    if not total:
        return "0"
    return f"{total:,} ({cell(', '.join(f'{k} {v:,}' for k, v in kinds))})"


def _per_connection(row: Row) -> str:
    found = [row.values(BY_NAME[f"per_connection_{k}"]) for k in ("min", "median", "max")]
    if not all(found):
        return DASH
    return " / ".join(f"{stats.median(v):,.0f}" for v in found)


def _connections_ok(row: Row) -> str:
    found = [s.connections_ok for s in row.samples if s.connections_ok is not None]
    if not found:
        return DASH
    asked = dict(row.params).get("connections")
    text = f"{stats.median(found):,.0f}"
    return f"{text} of {asked:,}" if asked is not None else text


def memory_check(row: Row) -> list[str]:
    """Why ``row``'s memory per connection must not be read bare
    (:func:`wsbench.results.memoryfit.problems` over its processes' fits); empty when it passes."""
    fits = [f for s in row.samples if (f := rss_fit(s.memory_steps)) is not None]
    summary = row.summary(BY_NAME["memory_slope_bytes"])
    return problems(fits, summary.value if summary else None)


def _memory_slope(row: Row) -> str:
    text = spread(row.summary(BY_NAME["memory_slope_bytes"]), ",.1f", KIB)
    return f"{text} ⚠" if memory_check(row) else text


def _memory_counts(row: Row) -> str:
    counts = sorted({s.connections for sample in row.samples for s in sample.memory_steps or ()})
    return ", ".join(f"{c:,}" for c in counts) if counts else DASH


SPECIAL_COLUMNS: dict[str, Callable[[Row], str]] = {
    "errors": lambda row: errors_text(error_counts(row.samples)),
    "per_connection": _per_connection,
    "connections_ok": _connections_ok,
    "memory_slope": _memory_slope,
    "memory_counts": _memory_counts,
    "memory_check": lambda row: "; ".join(memory_check(row)) or "ok",
}
"""The cells of the columns the site computes itself, by
:attr:`~wsbench.scenarios.base.ColumnSpec.special` name: errors (failed connections by kind
and lost messages, summed over the row's usable windows), each connection's messages/s in a
window (smallest, median and largest, medians over the windows), connections established
(median over the windows) of those asked for, memory per connection (over the server
processes, with its interval) with its ⚠, the connection counts, and why a memory figure is
flagged (:func:`memory_check`, "ok" when it is not)."""
SPECIAL_KINDS: dict[str, ColumnKind] = {"connections_ok": "median", "memory_slope": "summary"}
"""The :data:`ColumnKind` of the special columns that have one (the others: ``"other"``)."""


@cache
def column(declared: ColumnSpec) -> Column:
    """The leaderboard column a scenario module declares (one object per declaration, so
    that columns compare by identity).

    Raises:
        KeyError: an unknown special column or figure name.
    """
    if declared.special is not None:
        kind = SPECIAL_KINDS.get(declared.special, "other")
        return Column(declared.header, SPECIAL_COLUMNS[declared.special], kind)
    assert declared.figure is not None
    make = _spread_column if declared.interval else _median_column
    return make(declared.header, BY_NAME[declared.figure], declared.fmt, declared.scale)


_CPU = column(CPU_COLUMN)
_RSS = column(RSS_COLUMN)


COUNT_COLUMN = Column(COUNT_HEADER, lambda row: count_text(row.instructions))
"""The server's instructions per message (:mod:`wsbench.site.counts`), beside its CPU in the
scenarios that are counted (:data:`COUNTED_SCENARIOS`), in a table where a row has them."""
COUNTED_SCENARIOS = frozenset(s.scenario for s in SETS)
"""The scenarios with an instruction count (:data:`wsbench.results.count_sets.SETS`)."""


def columns_of(scenario: str) -> tuple[Column, ...]:
    """The figure columns of ``scenario``'s leaderboard (its module's
    :attr:`~wsbench.scenarios.base.ScenarioSpec.columns`; for a scenario without, its
    headline figure with its interval, server CPU and RSS), with :data:`COUNT_COLUMN` after
    the server CPU (else last) in :data:`COUNTED_SCENARIOS`."""
    found = tuple(column(c) for c in SPECS[scenario].columns) if scenario in SPECS else ()
    if not found:
        metric = headline_of(scenario)
        found = (_spread_column(f"{metric.label} ({metric.unit})", metric, ",.2f"), _CPU, _RSS)
    if scenario not in COUNTED_SCENARIOS:
        return found
    at = found.index(_CPU) + 1 if _CPU in found else len(found)
    return (*found[:at], COUNT_COLUMN, *found[at:])


def counted_columns(columns: Sequence[Column], rows: Sequence[Row]) -> tuple[Column, ...]:
    """``columns`` without :data:`COUNT_COLUMN` when no row of ``rows`` has counts."""
    if any(row.instructions for row in rows):
        return tuple(columns)
    return tuple(c for c in columns if c is not COUNT_COLUMN)


def _listed(headers: Sequence[str]) -> str:
    """``headers`` in italics, listed in words: ``"*a*"``, ``"*a* and *b*"``, ``"*a*, *b*
    and *c*"``; "" for none."""
    names = [f"*{cell(h)}*" for h in headers]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def figure_columns(scenario: str) -> dict[str, str]:
    """The figure columns of ``scenario``'s leaderboard by what they show, listed in words
    (:func:`_listed`) for its legend: ``{"summary": the columns over the server processes
    with their interval, "median": the medians over the windows}`` ("" for none)."""
    columns = columns_of(scenario)
    return {kind: _listed([c.header for c in columns if c.kind == kind])
            for kind in ("summary", "median")}  # fmt: skip


POLICY_SCENARIOS = tuple(s for s, defined in SPECS.items() if defined.slow_subscriber_policy)
"""The scenarios whose tables show each row's slow-subscriber policy."""
POLICY_HEADER = "Slow subscriber"


def policy_word(text: str) -> str:
    """A slow-subscriber policy's first word (``"waits"``, ``"buffers"``, ``"drops"``; the
    text before its colon, impls/PROTOCOL.md), or a dash when none is stated."""
    return cell(text.partition(":")[0].strip()) or DASH


def policies(runs: Sequence[EnvRun]) -> str:
    """Markdown: each implementation's slow-subscriber policy in full, one bullet per
    implementation and stated text (its rows' ``slow_subscriber``), sorted by name; "" when
    none states one."""
    stated = sorted(
        {(run.impl.display_name, run.impl.slow_subscriber) for run in runs}, key=lambda t: t[0]
    )
    lines = [f"- **{cell(name)}** {cell(text)}" for name, text in stated if text]
    if not lines:
        return ""
    return (
        "*Slow subscriber*: what each server's broadcast does with a subscriber that reads "
        "slower than the messages come (impls/PROTOCOL.md): **waits** (the relay awaits "
        "each subscriber in turn, so one slow reader slows every other), **buffers** (the "
        "server queues without bound: memory grows) or **drops** (messages past a limit "
        "are lost: they show as lost counts). As each implementation states it:\n\n"
        + "\n".join(lines)
        + "\n"
    )


def _row_cells(
    run: EnvRun,
    row: Row,
    rank: int | None,
    columns: Sequence[Column],
    page: str | None,
    policy: bool = False,
    grade: str = "",
) -> list[str]:
    name = row_name_cell(run, page) + grade
    cells = [str(rank) if rank else DASH, name, cell(run.impl.version or DASH)]
    if policy:
        cells.append(policy_word(run.impl.slow_subscriber))
    if not row.ok:
        figures = [row.status] + [DASH] * (len(columns) - 1)
    else:
        figures = [c.value(row) for c in columns]
    return [*cells, *figures, _flag(run, row, page)]


def checks_fail(row: Row) -> bool:
    """``row``'s figure is flagged by its scenario's checks (memory: :func:`memory_check`):
    shown with the reason, after the rows that pass, unranked."""
    return row.scenario == "memory" and row.ok and bool(memory_check(row))


def _sort_key(item: tuple[EnvRun, Row]) -> tuple[object, ...]:
    run, row = item
    value = row.figure.value if row.figure else 0.0
    return (
        not row.ok,
        checks_fail(row),
        -value if headline_of(row.scenario).higher_is_better else value,
        natural_key(run.label),
        natural_key(run.impl.version or ""),
    )


def ranks(group: Sequence[tuple[EnvRun, Row]]) -> list[int | None]:
    """The rank of each (run, row) of one table (rows of one scenario) by the scenario's
    headline figure (:func:`wsbench.site.rows.headline_of`, its direction;
    :func:`wsbench.results.stats.ties`); None for the reference, for failed rows and for rows whose
    figure the checks flag (:func:`checks_fail`)."""
    ranked = [
        i for i, (run, row) in enumerate(group)
        if row.figure and not run.impl.reference and not checks_fail(row)
    ]  # fmt: skip
    summaries = [s for i in ranked if (s := group[i][1].figure) is not None]
    higher = headline_of(group[0][1].scenario).higher_is_better if group else True
    out: list[int | None] = [None] * len(group)
    for i, rank in zip(ranked, ties(summaries, higher_is_better=higher), strict=True):
        out[i] = rank
    return out


TITLE_ORDER = ("size_bytes", "in_flight", "workers", "seconds", "connections")
"""The order of the parameters tables are sorted by (the number of connections last, so
that the tables of one chart group follow each other)."""


def _param_sort_key(params: tuple[tuple[str, object], ...]) -> tuple[tuple[str, str], ...]:
    def rank(name: str) -> int:
        return TITLE_ORDER.index(name) if name in TITLE_ORDER else len(TITLE_ORDER)

    ordered = sorted(params, key=lambda kv: rank(kv[0]))
    return tuple((k, f"{v:020.6f}" if isinstance(v, int | float) else str(v)) for k, v in ordered)


def table_anchor(results: Results, machine: str, params: tuple[tuple[str, object], ...]) -> str:
    """The id of the leaderboard table of ``params`` on ``machine``: the parameter set in
    words as an anchor (:func:`wsbench.site.markup.anchor`), prefixed with the machine's
    name when the results hold several machines (each has a table per parameter set)."""
    title = params_title(params)
    return anchor(f"{machine} {title}" if len(results.machines) > 1 else title)


def table_link(
    scenario: str, results: Results, machine: str, params: tuple[tuple[str, object], ...]
) -> str:
    """The leaderboard table of (``scenario``, ``machine``, ``params``) as a link relative
    to the docs dir, e.g. ``"leaderboards/echo.md#16-b-messages-64-in-flight-per-connection"``."""
    return f"{LEADERBOARD_PAGES[scenario]}#{table_anchor(results, machine, params)}"


def machine_heading(results: Results, machine: str, level: str) -> str:
    """A heading naming ``machine``, only when the results hold several machines."""
    return f"{level} Machine `{machine}`\n\n" if len(results.machines) > 1 else ""


SOCKETIO_SENTENCE = (
    f"Rows marked {SOCKETIO_TAG} are Socket.IO servers: a different protocol (events over "
    "Engine.IO v4 on a WebSocket) with its own framing and per-event work, so they are not "
    "directly comparable with plain WebSocket rows; a message is one event and its size is "
    "that of the event's argument. "
)


ORDER_SENTENCE = (
    "Sorted by throughput, highest first. Higher messages/s and MB/s are better; lower "
    "latency, CPU and memory are better. MB = 10^6 bytes of payload, MiB = 2^20 bytes. "
)
"""How a leaderboard ranked by messages/s is sorted and which way each figure is better (a
scenario module states its own otherwise:
:attr:`~wsbench.scenarios.base.ScenarioSpec.order_sentence`)."""


def scenario_intro(scenario: str) -> str:
    """The first paragraph of ``scenario``'s leaderboard: its module's hand-written one
    (:attr:`~wsbench.scenarios.base.ScenarioSpec.intro`), else its summary, endpoint and
    parameters."""
    try:
        defined = spec(scenario)
    except ValueError:
        return ""
    if defined.intro is not None:
        return defined.intro
    params = "; ".join(
        f"{code(name)} ({PARAM_DOCS[name][0]}): {PARAM_DOCS[name][1]}"
        if name in PARAM_DOCS
        else code(name)
        for name in defined.axes
    )
    frames = " Text frames." if defined.text else ""
    return (
        f"{defined.summary}{frames} Endpoint {code(defined.endpoint)} (Socket.IO servers: "
        f"their Socket.IO path). Parameters: {params}."
    )


def not_measured(scenario: str) -> str:
    """The note of a leaderboard whose scenario no shown run measured: which grids have it
    (:func:`wsbench.scenarios.in_grid`) and their parameter sets."""
    defined = spec(scenario)
    sets = {
        which: "; ".join(set_words(tuple(p.items())) for p in defined.grid(which)) or "none"
        for which in ("full", "default")
    }
    if scenario in in_grid("default"):
        where = (
            "It is in the default grid of the main job (`./bench run`) and in the full grid "
            "(`./bench run --grid full`, the nightly): the shown runs did not measure it."
        )
    else:
        where = (
            "It is not in the default grid of the main job (`./bench run`): it is measured "
            "by the full grid, `./bench run --grid full`, which the nightly runs."
        )
    return (
        '!!! note "Not measured in the shown runs"\n\n'
        f"    No shown run measured this scenario. {where} Parameter sets of the full "
        f"grid: {sets['full']}; of the default grid: {sets['default']}.\n"
    )


REFERENCE_NOTE = (
    "The reference is a yardstick, not a ceiling: it waits in `epoll` for each message, while "
    "a server that busy-polls answers sooner when one connection's messages come one at a "
    "time (ping-pong) and pays for it in CPU"
)
"""Why a Python server can beat the native reference (:func:`beats_reference`)."""


def beats_reference(group: Sequence[tuple[EnvRun, Row]], column: Column) -> str:
    """A note under a table where a configuration's headline figure is better than the
    reference's of its protocol (by the figures over the server processes), naming them,
    both figures as the table's first ``column`` shows them (its unit, format and
    interval: KiB for memory, not bytes), and :data:`REFERENCE_NOTE` with the
    configuration's own CPU note when its metadata has one; "" where none is."""
    references = {run.socketio: row for run, row in group if run.impl.reference and row.figure}
    lines = []
    for run, row in group:
        ref = references.get(run.socketio)
        if run.impl.reference or ref is None or ref.figure is None or not row.ok:
            continue
        if row.figure is None:
            continue
        metric = headline_of(row.scenario)
        mine, theirs = row.figure.value, ref.figure.value
        if (mine > theirs) if metric.higher_is_better else (mine < theirs):
            cpu = run.impl.deviations.get("cpu", "")
            why = f" ({cell(cpu)})" if cpu else ""
            lines.append(
                f"- **{cell(row_label(run))}**: {column.value(row)} against the reference's "
                f"{column.value(ref)} ({cell(column.header)}){why}"
            )
    if not lines:
        return ""
    return (
        "Better than the native reference here:\n\n"
        + "\n".join(lines)
        + (f"\n\n{REFERENCE_NOTE}.\n")
    )


@dataclass(frozen=True)
class LeaderboardPage:
    """One scenario's generated files.

    Attributes:
        markdown: the page.
        files: its charts, ``{path relative to the docs dir: SVG or JSON bytes}``.
    """

    markdown: str
    files: dict[str, bytes]


@dataclass(frozen=True)
class Charts:
    """A leaderboard's charts: what they plot, against what, and how they read.

    Attributes:
        title: the heading of the charts section.
        intro: the paragraph under it.
        figures: one chart per figure and group.
        x: the x-axis.
        kind: lines or bars.
    """

    title: str
    intro: str
    figures: tuple[SweepFigure, ...]
    x: XAxis = CONNECTIONS
    kind: Kind = "lines"


LINES_INTRO = (
    "One line per row (configuration and version) through its figures, with whiskers from "
    f"their {CONFIDENCE_PERCENT} % intervals; the x-axis on a log scale, latency on a log "
    "scale too. Socket.IO servers' lines are dashed; ✕ on the x-axis marks a failed row, a "
    "hollow marker a client-bound figure. Under each chart, its data as JSON."
)
CHARTS: dict[str, Charts] = {
    "clients": Charts(
        "Throughput, p99 latency and errors against the number of connections",
        f"{LINES_INTRO} Errors are totals over the row's windows.",
        CLIENTS_FIGURES,
    ),
    "memory": Charts(
        "Memory per connection by number of connections",
        "One bar per row (configuration and version), one group per number of idle "
        "connections, best (least memory) first, with whiskers from the "
        f"{CONFIDENCE_PERCENT} % intervals. "
        "Under the chart, its data as JSON.",
        (MEMORY,),
        kind="bars",
    ),
    "broadcast": Charts(
        "Delivery latency and deliveries against the number of subscribers",
        f"{LINES_INTRO} One chart per publishing rate and message size.",
        BROADCAST_FIGURES,
        SUBSCRIBERS,
    ),
    "market": Charts(
        "Order round trip and tick delivery against the number of clients",
        f"{LINES_INTRO} One chart per tick rate.",
        MARKET_FIGURES,
        SUBSCRIBERS,
    ),
    "offered": Charts(
        "Latency against offered load",
        "Latency percentiles against the offered load (wrk2's curves): one line per row "
        "through its figures at each fixed rate, the absolute rates and the percentages of "
        "that server's own capacity together, placed at the offered load each achieved "
        "(messages/s, log scale; latency on a log scale too), with whiskers from the "
        f"{CONFIDENCE_PERCENT} % intervals. Where a line turns up steeply, the server "
        "stopped keeping up. Socket.IO servers' lines are dashed; a hollow marker is a "
        "client-bound figure; failed rows are listed under each chart. Under each chart, its "
        "data as JSON.",
        OFFERED_FIGURES,
        OFFERED_LOAD,
    ),
}
"""The charts of the scenarios that have them."""


def chart_file(scenario: str, chart: SweepChart, several_machines: bool, ext: str) -> str:
    """The file of a leaderboard chart, relative to the docs dir, e.g.
    ``"leaderboards/clients/size-bytes-16-in-flight-1-throughput.svg"``, or
    ``"leaderboards/memory/memory-per-connection.svg"`` for a chart without group (prefixed
    with the machine's name when the results hold several machines); ``ext`` is ``"svg"``
    or ``"json"``."""
    machine = f"{safe_name(chart.machine)}-" if several_machines else ""
    group = f"{group_slug(chart.group)}-" if chart.group else ""
    return f"leaderboards/{scenario}/{machine}{group}{chart.figure.slug}.{ext}"


def _sweeps(scenario: str, runs: Sequence[EnvRun]) -> list[SweepChart]:
    charts = CHARTS.get(scenario)
    if charts is None:
        return []
    return sweep_charts(
        scenario, [unflagged(run) for run in runs], charts.figures, kind=charts.kind, x=charts.x
    )


def unflagged(run: EnvRun) -> EnvRun:
    """``run`` with each row the checks flag (:func:`checks_fail`) turned into a failed
    point of the charts, its reason listed under them, so that no flagged figure is drawn."""
    if not any(checks_fail(row) for row in run.rows):
        return run
    rows = tuple(
        dataclasses.replace(row, status="failed", error="flagged: " + "; ".join(memory_check(row)))
        if checks_fail(row) else row
        for row in run.rows
    )  # fmt: skip
    return dataclasses.replace(run, rows=rows)


def chart_notes(chart: SweepChart) -> str:
    """The failed points of ``chart`` as a list (the start of each reason), "" for none."""
    notes = [
        f"- ✕ {cell(series.label)} at {point.at}: {cell(first_line(point.error or point.status))}"
        for series in chart.series
        for point in series.points
        if point.status != "ok"
    ]
    return "\n".join(notes) + "\n" if notes else ""


def chart_block(chart: SweepChart, svg: str, data: str, runs: Sequence[EnvRun] = ()) -> str:
    """Markdown of one sweep chart: its image (``svg``, relative to the page), its data for
    the interactive chart (:func:`wsbench.site.interactive.chart_script`, with the facets of
    ``runs``), a link to its data file (``data``) and its failed points."""
    f = chart.figure
    alt = f"{chart.title} ({f.unit}, {f.better})"
    script = chart_script(chart_data(chart), runs, row_label)
    return (
        f"![{cell(alt)}]({svg})\n\n{script}Data of this chart: [JSON]({data}).\n\n"
        f"{chart_notes(chart)}"
    )


def _charts_section(
    scenario: str,
    results: Results,
    machine: str,
    runs: Sequence[EnvRun],
    level: str,
    profile: Profile = TUNED,
) -> tuple[str, dict[str, bytes]]:
    """The charts section of ``scenario`` on ``machine`` from ``runs`` (their rows all
    measured in ``profile``; "" when it has none). Its heading, and each chart group's,
    names the profile; the tuned charts keep the ids they had before profiles existed."""
    charts = _sweeps(scenario, runs)
    if not charts:
        return "", {}
    several = len(results.machines) > 1
    prefix = f"{machine} " if several else ""
    tail = "" if profile is TUNED else f" {profile.title}"
    out = [
        heading(
            level,
            f"{CHARTS[scenario].title}{PROFILE_SEPARATOR}{profile.title}",
            anchor(f"{prefix}charts{tail}"),
        ),
        CHARTS[scenario].intro + "\n",
    ]
    files: dict[str, bytes] = {}
    sub = level + "#"
    groups = list(dict.fromkeys(c.group for c in charts))
    for group in groups:
        if any(name not in PROFILE_PARAMS for name, _ in group):
            title = profile_title(group)
            out.append(heading(sub, title, anchor(f"{prefix}charts {params_title(group)}")))
        for c in (c for c in charts if c.group == group):
            svg, data = (chart_file(scenario, c, several, ext) for ext in ("svg", "json"))
            render = render_bars_svg if c.kind == "bars" else render_sweep_svg
            files[svg] = render(c)
            files[data] = chart_json(c)
            out.append(
                chart_block(
                    c, svg.removeprefix("leaderboards/"), data.removeprefix("leaderboards/"), runs
                )
            )
    return "\n".join(out), files


@dataclass(frozen=True)
class _Marks:
    """What a leaderboard table shows beside each row's name and figures: the framework
    pages (``{implementation: link}``), the slow-subscriber policy column, the shared-CPU
    marks, the conformance grades, and the page's own path (for the grades' links)."""

    pages: Mapping[str, str]
    policy: bool
    shared_cpu: SharedCpu
    grades: Grades
    here: str


def _board(
    scenario: str,
    results: Results,
    machine: str,
    members: Sequence[tuple[EnvRun, Row]],
    level: str,
    marks: _Marks,
    profiles: Profiles,
) -> tuple[dict[str, str], dict[str, bytes]]:
    """One parameter set's table on ``machine`` (``members``: its rows, all of one set):
    the template's ``{"heading", "table", "rows", "reference_note", "sources", "cpu"}``
    (the heading names the set and its deployment profile,
    :func:`wsbench.site.markup.profile_title`), and the files of its CPU-per-message
    section."""
    group = sorted(members, key=_sort_key)
    params = group[0][1].params
    columns = counted_columns(columns_of(scenario), [w for _, w in group])
    headers = [
        "Rank", "Framework", "Version", *([POLICY_HEADER] if marks.policy else []),
        *(c.header for c in columns), "Flag",
    ]  # fmt: skip
    align = "rll" + ("l" if marks.policy else "") + "r" * len(columns) + "l"
    cells = (
        _row_cells(
            r,
            w,
            rank,
            columns,
            marks.pages.get(r.impl.name),
            marks.policy,
            mark(r, marks.shared_cpu) + run_badge(r, marks.grades, marks.here),
        )
        for (r, w), rank in zip(group, ranks(group), strict=True)
    )
    table_id = table_anchor(results, machine, params)
    cpu, cpu_files = leaderboard_section(
        profiles,
        profiles.of_set(machine, scenario, dict(params)),
        [r for r, _ in group],
        level + "#",
        f"cpu-{table_id}",
        leaderboard_file(scenario, machine if len(results.machines) > 1 else None, dict(params)),
        marks.pages,
    )
    board = {
        "heading": heading(level, profile_title(params), table_id),
        "table": table(headers, cells, align),
        "rows": rows_script([r for r, _ in group]),
        "reference_note": beats_reference(group, columns[0]),
        "sources": source_line((r for r, _ in group), RUNS_PAGE),
        "cpu": cpu,
    }
    return board, cpu_files


def page_profiles(rows: Sequence[tuple[EnvRun, Row]]) -> list[Profile]:
    """The deployment profiles ``rows`` were measured in, in
    :data:`wsbench.deployment.PROFILES` order (tuned, the default view, first): a profile
    none of them was measured in is left out."""
    found = {profile_of(dict(row.params)) for _, row in rows}
    return [p for p in PROFILES if p in found]


def in_profile_only(run: EnvRun, profile: Profile) -> EnvRun:
    """``run`` with only its rows measured in ``profile``."""
    rows = tuple(r for r in run.rows if profile_of(dict(r.params)) is profile)
    return run if len(rows) == len(run.rows) else dataclasses.replace(run, rows=rows)


METHODOLOGY_PROFILES = "../methodology.md#deployment-profiles"
"""The Methodology page's section on deployment profiles, relative to a leaderboard page."""
DEPLOYMENT_LINK = "../deployment.md"
"""The What your deployment costs page, relative to a leaderboard page
(:data:`wsbench.site.deployment_page.DEPLOYMENT_PAGE`)."""


def profile_note(profile: Profile) -> str:
    """The note that opens a leaderboard's sets measured in ``profile`` (not the tuned
    one): what the profile changes, that tuned is the yardstick, and where the ratios to
    tuned are."""
    return (
        f'!!! note "{profile.title}"\n\n'
        f"    The sets below are measured in the *{profile.in_text}* deployment profile "
        f"([Methodology]({METHODOLOGY_PROFILES})): {profile_changes(profile)}. The tuned "
        "profile, the default view, is the yardstick; "
        f"[What your deployment costs]({DEPLOYMENT_LINK}) gives each configuration's "
        "figures here as ratios to its tuned ones.\n\n"
    )


def profiles_legend(shown: Sequence[Profile]) -> str:
    """The leaderboard legend's bullet on deployment profiles: with several ``shown``, that
    each table and chart names its profile, tuned shown first and the filter bar's
    *Profile* picking another; with tuned alone, that every figure is tuned."""
    if len(shown) <= 1:
        only = shown[0] if shown else TUNED
        return (
            f"Every table and chart here is in the *{only.in_text}* deployment profile "
            f"([Methodology]({METHODOLOGY_PROFILES})): {profile_changes(only)}"
        )
    others = "; ".join(f"*{p.in_text}*: {profile_changes(p)}" for p in shown[1:])
    return (
        "Each table and chart names its deployment profile "
        f"([Methodology]({METHODOLOGY_PROFILES})). The *tuned* sets ({profile_changes(TUNED)}), "
        "the yardstick, are shown first; the filter bar's *Profile* shows the sets measured "
        f"in another profile instead ({others}). "
        f"[What your deployment costs]({DEPLOYMENT_LINK}) compares them with tuned"
    )


def render_leaderboard_page(
    scenario: str,
    results: Results,
    pages: Mapping[str, str] | None = None,
    studies: Sequence[Study] | None = None,
    grades: Grades | None = None,
    profiles: Profiles | None = None,
    shared_cpu: SharedCpu | None = None,
) -> LeaderboardPage:
    """The leaderboard page of ``scenario`` (one of :data:`wsbench.scenarios.SCENARIOS`)
    and its charts.

    One table per machine and parameter set (:data:`TITLE_ORDER`), one row per
    (configuration, version) named by its row name, with the scenario's columns
    (:func:`columns_of`), sorted by its headline figure (best first: highest messages/s or
    connections/s, lowest memory per connection or RSS growth), failed rows last; a Rank
    column (:func:`ranks`); a line under each table naming its run(s) and settings. The
    Concurrent clients page first charts throughput, p99 latency and errors against the
    number of connections per (size, in flight) group, the Memory page memory per
    connection as bars (:mod:`wsbench.site.sweeps`; SVG and JSON files under
    ``leaderboards/<scenario>/``); the fan-out pages chart delivery latency against the
    number of subscribers and the offered-load page latency against the offered load
    (:data:`CHARTS`). The fan-out tables show each row's slow-subscriber policy
    (:data:`POLICY_SCENARIOS`), listed in full under the intro; a study whose closest
    conditions are of this scenario gets its table beside ours (:mod:`wsbench.site.studies`).
    No results at all: :data:`NO_RESULTS`; results, but none of this scenario:
    :func:`not_measured`.

    Args:
        scenario: the scenario.
        results: the current comparison group of every machine.
        pages: ``{implementation name: link to its framework page}`` (relative to the
            leaderboard page); names without a page are not linked.
        studies: the published studies (default: :func:`wsbench.site.studies.load_studies`).
        grades: the conformance grades, shown beside each row's name
            (:func:`wsbench.site.conformance.run_badge`; default none).
        profiles: the CPU profiles: under the table of a parameter set that has some, each
            profiled configuration's CPU per message split by where it goes
            (:func:`wsbench.site.profiles.leaderboard_section`; default none).
        shared_cpu: the configurations whose busy threads share the server's one CPU,
            marked beside their rows' names and listed under the legend
            (:mod:`wsbench.site.shared_cpu`; default none).
    """
    pages = pages or {}
    shared_cpu = shared_cpu or {}
    grades = grades or graded_of(())
    profiles = profiles or Profiles(())
    here = LEADERBOARD_PAGES.get(scenario, f"leaderboards/{scenario}.md")
    mine_studies = [
        s for s in (load_studies() if studies is None else studies) if s.scenario == scenario
    ]
    rows = [(run, row) for run in results.runs for row in run.rows if row.scenario == scenario]
    context: dict[str, object] = {
        "title": SCENARIO_TITLES.get(scenario, scenario),
        "scenario_intro": scenario_intro(scenario),
        "empty_note": "",
    }
    if not rows:
        context["empty_note"] = (
            NO_RESULTS if results.empty or scenario not in SPECS else not_measured(scenario)
        )
        return LeaderboardPage(templates.render("leaderboard.md.j2", **context), {})
    policy = scenario in POLICY_SCENARIOS
    level = "###" if len(results.machines) > 1 else "##"
    files: dict[str, bytes] = {}
    shown = page_profiles(rows)
    machines = []
    for machine in results.machines:
        mine = [run for run in results.runs if run.machine == machine]
        blocks = []
        for profile in shown:
            runs = [in_profile_only(run, profile) for run in mine]
            charts, chart_files = _charts_section(scenario, results, machine, runs, level, profile)
            files.update(chart_files)
            groups: dict[Params, list[tuple[EnvRun, Row]]] = {}
            for run, row in rows:
                if run.machine == machine and profile_of(dict(row.params)) is profile:
                    groups.setdefault(row.params, []).append((run, row))
            tables = []
            for params in sorted(groups, key=_param_sort_key):
                board, board_files = _board(
                    scenario, results, machine, groups[params], level,
                    _Marks(pages, policy, shared_cpu, grades, here), profiles,
                )  # fmt: skip
                files.update(board_files)
                tables.append(board)
            if not (charts or tables):
                continue
            studies = mine_studies if profile is TUNED else []
            blocks.append(
                {
                    "marker": profile_marker(profile) if len(shown) > 1 else "",
                    "intro": profile_note(profile) if profile is not TUNED else "",
                    "charts": charts,
                    "studies": [round_trip_section(study, mine, level) for study in studies],
                    "tables": tables,
                }
            )
        machines.append(
            {
                "heading": machine_heading(results, machine, "##"),
                "blocks": blocks,
                "end": PROFILE_END if len(shown) > 1 else "",
            }
        )
    defined = SPECS.get(scenario)
    context.update(
        order_sentence=(defined.order_sentence if defined else None) or ORDER_SENTENCE,
        client_bound=CLIENT_BOUND_CPU_PERCENT,
        socketio_sentence=SOCKETIO_SENTENCE if any(run.socketio for run, _ in rows) else "",
        rank_legend=rank_legend(headline_of(scenario)),
        figure_columns=figure_columns(scenario),
        unstable_legend=UNSTABLE_LEGEND,
        times=TIMES,
        notes=(
            *(defined.notes if defined else ()),
            *([count_legend("../methodology.md")] if any(w.instructions for _, w in rows) else []),
        ),
        policies=policies([run for run, _ in rows]) if policy else "",
        per_core=PER_CORE,
        shared_cpu=notes([run for run, _ in rows], shared_cpu),
        conformance="" if grades.empty else relative(CONFORMANCE_PAGE, here),
        profiles_note=profiles_legend(shown),
        machines=machines,
    )
    return LeaderboardPage(templates.render("leaderboard.md.j2", **context), files)


def render_leaderboard(
    scenario: str, results: Results, pages: Mapping[str, str] | None = None
) -> str:
    """The markdown of :func:`render_leaderboard_page` (without its charts' files)."""
    return render_leaderboard_page(scenario, results, pages).markdown
