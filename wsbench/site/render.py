"""Markdown of the generated leaderboard pages.

Pure functions from typed data to markdown text (Python-Markdown's ``tables`` syntax and
material's admonitions). Every figure is the median of a benchmark's usable samples; the
throughput and latency cells add its 95 % interval, and a Rank column ties rows whose
throughput intervals overlap (:func:`wsbench.stats.ties`). Units: MB = 10^6 bytes,
MiB = 2^20 bytes, µs = 10^-6 s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wsbench.measure import CLIENT_BOUND_CPU_PERCENT, SCENARIOS
from wsbench.site.markup import (
    DASH,
    SOCKETIO_TAG,
    TIMES,
    UNSTABLE_LEGEND,
    anchor,
    cell,
    heading,
    num,
    short_reason,
    spread,
    table,
    tagged,
)
from wsbench.site.results import EnvRun, Results, natural_key
from wsbench.site.rows import Row
from wsbench.site.sources import source_line
from wsbench.stats import ties

LEADERBOARD_PAGES: dict[str, str] = {
    scenario: f"leaderboards/{scenario}.md" for scenario in SCENARIOS
}
"""Scenario -> its generated leaderboard page (relative to the docs dir)."""
SCENARIO_TITLES = {"echo": "Echo", "stream": "Stream (server push)"}
SCENARIO_INTROS = {
    "echo": (
        "The load generator sends messages to `/echo` and checks every echo. *In flight* is "
        "how many messages each connection keeps outstanding (1 = ping-pong). Latency is the "
        "round-trip time of each message."
    ),
    "stream": (
        "The load generator asks `/push` for an endless stream of messages and checks every "
        "one; the server sends as fast as its flow control allows."
    ),
}
NO_RESULTS = (
    '!!! note "No results yet"\n\n'
    "    There are no benchmark results to show: the results store held no run document "
    "when this site was built. The pages fill in after the next benchmark run.\n"
)
MB = 1e6
MIB = float(2**20)


def params_title(params: tuple[tuple[str, object], ...]) -> str:
    """A parameter set in words, e.g. ``"16 B messages, 64 in flight per connection"``."""
    named = dict(params)
    parts = []
    size = named.get("size_bytes")
    if size is not None:
        parts.append(f"{size:,} B messages" if isinstance(size, int) else f"{size} B messages")
    if "in_flight" in named:
        parts.append(f"{named['in_flight']} in flight per connection")
    parts += [f"{k} = {v}" for k, v in params if k not in ("size_bytes", "in_flight")]
    return ", ".join(parts) or "No parameters"


REASON_CHARS = 200
"""Longer failure reasons are shortened in leaderboard cells; the framework page has them
in full."""
RUNS_PAGE = "../environment.md"
"""The Runs and environment page, relative to a leaderboard page."""
RANK_LEGEND = (
    "**Rank** is by messages/s; a row whose 95 % interval overlaps that of the first row of "
    "a rank shares its rank: rows with the same rank are not significantly different. The "
    "reference (the ceiling) and failed rows are not ranked"
)
"""The sentence that explains the Rank column."""


def _flag(run: EnvRun, row: Row, page: str | None) -> str:
    flags = []
    if run.impl.reference:
        flags.append("reference (ceiling)")
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


def _row_cells(
    run: EnvRun, row: Row, rank: int | None, latency: bool, page: str | None
) -> list[str]:
    cells = [str(rank) if rank else DASH, row_name_cell(run, page), cell(run.impl.version or DASH)]
    if not row.ok:
        figures = [row.status] + [DASH] * (5 if latency else 3)
    else:
        figures = [
            spread(row.messages_per_s, ",.0f"),
            num(row.bytes_per_s, ",.2f", MB),
            *(
                [spread(row.latency_p50_s, ",.1f", 1e-6), spread(row.latency_p99_s, ",.1f", 1e-6)]
                if latency
                else []
            ),
            num(row.server_cpu_percent, ".1f"),
            num(row.server_rss_bytes, ",.1f", MIB),
        ]
    return [*cells, *figures, _flag(run, row, page)]


def _sort_key(item: tuple[EnvRun, Row]) -> tuple[object, ...]:
    run, row = item
    return (
        not row.ok,
        -(row.messages_per_s.median if row.messages_per_s else 0.0),
        natural_key(run.label),
        natural_key(run.impl.version or ""),
    )


def ranks(group: Sequence[tuple[EnvRun, Row]]) -> list[int | None]:
    """The rank of each (run, row) of one table by messages/s (:func:`wsbench.stats.ties`,
    higher is better); None for the reference and for failed rows."""
    ranked = [
        i for i, (run, row) in enumerate(group) if row.messages_per_s and not run.impl.reference
    ]
    summaries = [s for i in ranked if (s := group[i][1].messages_per_s) is not None]
    out: list[int | None] = [None] * len(group)
    for i, rank in zip(ranked, ties(summaries, higher_is_better=True), strict=True):
        out[i] = rank
    return out


def _param_sort_key(params: tuple[tuple[str, object], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((k, f"{v:020.6f}" if isinstance(v, int | float) else str(v)) for k, v in params)


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


WIDE_PAGE = "---\nhide:\n  - toc\n---\n"
"""Front matter that hides mkdocs-material's table of contents on a page."""
SOCKETIO_SENTENCE = (
    f"Rows marked {SOCKETIO_TAG} are Socket.IO servers: a different protocol (events over "
    "Engine.IO v4 on a WebSocket) with its own framing and per-event work, so they are not "
    "directly comparable with plain WebSocket rows; a message is one event and its size is "
    "that of the event's argument. "
)


def _intro(socketio: bool) -> str:
    return (
        "One row per configuration and version of each framework (its name says the server, "
        "WebSocket backend and event loop); *Version* is the framework's. "
        "Sorted by throughput, highest first. Higher messages/s and MB/s are better; lower "
        "latency, CPU and memory are better. MB = 10^6 bytes of payload, MiB = 2^20 bytes. "
        f"⚠ marks a run whose load generator used more than {CLIENT_BOUND_CPU_PERCENT:.0f} % "
        "of its CPU: the figure may be limited by the client, not the server. The bold "
        "**reference** rows are the native Rust server (plain WebSocket, and Socket.IO "
        "where it has that configuration): the ceiling on this machine. "
        f"{SOCKETIO_SENTENCE if socketio else ''}See [Methodology](../methodology.md) for how "
        "each figure is measured.\n\n"
        "- Every figure is the median of the measurement windows of several fresh server "
        "processes; in brackets, the 95 % confidence interval of that median (bootstrap). "
        "Windows disturbed by other work on the measured CPUs are left out.\n"
        f"- {RANK_LEGEND}.\n"
        f"- {UNSTABLE_LEGEND}.\n"
        "- Under each table: the run(s) its figures come from, and their settings "
        f"(processes {TIMES} windows per process {TIMES} window length, warm-up).\n"
    )


def render_leaderboard(
    scenario: str, results: Results, pages: Mapping[str, str] | None = None
) -> str:
    """The leaderboard page of ``scenario`` (``"echo"`` or ``"stream"``).

    One table per machine and parameter set, one row per (configuration, version) named by
    its row name, sorted by median messages/s (highest first), failed rows last; a Rank
    column (:func:`ranks`); a line under each table naming its run(s) and settings.

    Args:
        scenario: ``"echo"`` or ``"stream"``.
        results: the current comparison group of every machine.
        pages: ``{implementation name: link to its framework page}`` (relative to the
            leaderboard page); names without a page are not linked.
    """
    pages = pages or {}
    title = SCENARIO_TITLES.get(scenario, scenario)
    # The tables are wide: hide the table of contents to give them the page's full width.
    out = [WIDE_PAGE, f"# {title} leaderboard\n", SCENARIO_INTROS.get(scenario, "") + "\n"]
    rows = [(run, row) for run in results.runs for row in run.rows if row.scenario == scenario]
    if not rows:
        out.append(NO_RESULTS)
        return "\n".join(out)
    latency = scenario == "echo"
    out.append(_intro(any(run.socketio for run, _ in rows)))
    headers = ["Rank", "Framework", "Version", "Messages/s", "MB/s"]
    if latency:
        headers += ["p50 latency (µs)", "p99 latency (µs)"]
    headers += ["Server CPU (%)", "Server RSS (MiB)", "Flag"]
    align = "rll" + "r" * (len(headers) - 4) + "l"
    level = "###" if len(results.machines) > 1 else "##"
    for machine in results.machines:
        out.append(machine_heading(results, machine, "##"))
        groups: dict[tuple[tuple[str, object], ...], list[tuple[EnvRun, Row]]] = {}
        for run, row in rows:
            if run.machine == machine:
                groups.setdefault(row.params, []).append((run, row))
        for params in sorted(groups, key=_param_sort_key):
            group = sorted(groups[params], key=_sort_key)
            anchor_id = table_anchor(results, machine, params)
            out.append(heading(level, params_title(params), anchor_id))
            cells = (
                _row_cells(r, w, rank, latency, pages.get(r.impl.name))
                for (r, w), rank in zip(group, ranks(group), strict=True)
            )
            out.append(table(headers, cells, align))
            out.append(source_line((r for r, _ in group), RUNS_PAGE))
    return "\n".join(out)
