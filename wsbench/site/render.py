"""Markdown for the generated leaderboard and environment pages.

Pure functions from typed data to markdown text (Python-Markdown's ``tables`` syntax and
material's admonitions). Units: MB = 10^6 bytes, MiB = 2^20 bytes, µs = 10^-6 s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from wsbench.measure import CLIENT_BOUND_CPU_PERCENT
from wsbench.site.markup import (
    DASH,
    SOCKETIO_TAG,
    cell,
    code,
    num,
    short_reason,
    table,
    tagged,
)
from wsbench.site.results import Results, Row, Run, natural_key

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
    "    There are no benchmark results to show: no asv result and no wsbench record was "
    "found when this site was built. The pages fill in after the next benchmark run.\n"
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


def _flag(run: Run, row: Row, page: str | None) -> str:
    flags = []
    if run.impl.reference:
        flags.append("reference (ceiling)")
    if row.status != "ok":
        reason = row.error or row.status
        text = f"**{row.status}**: {cell(short_reason(reason, REASON_CHARS))}"
        if page and len(" ".join(reason.split())) > REASON_CHARS:
            text += f" ([full reason]({page}#failures))"
        flags.append(text)
    elif row.client_bound:
        cpu = row.loadgen_cpu_percent
        why = f"load generator CPU {cpu:.0f} %" if cpu is not None else "load generator busy"
        flags.append(f"⚠ client-bound ({why})")
    return "; ".join(flags)


def row_name_cell(run: Run, page: str | None = None) -> str:
    """The row's name (linked to ``page`` when given), bold for the reference, tagged
    Socket.IO for a Socket.IO server."""
    name = tagged(run.impl.label, run.impl.socketio, page)
    return f"**{name}**" if run.impl.reference else name


def _row_cells(run: Run, row: Row, latency: bool, page: str | None) -> list[str]:
    cells = [row_name_cell(run, page), cell(run.impl.version or DASH)]
    if row.status != "ok":
        figures = [row.status] + [DASH] * (5 if latency else 3)
    else:
        figures = [
            num(row.messages_per_s, ",.0f"),
            num(row.bytes_per_s, ",.2f", MB),
            *(
                [num(row.latency_p50_s, ",.1f", 1e-6), num(row.latency_p99_s, ",.1f", 1e-6)]
                if latency
                else []
            ),
            num(row.server_cpu_percent, ".1f"),
            num(row.server_rss_bytes, ",.1f", MIB),
        ]
    return [*cells, *figures, _flag(run, row, page)]


def _sort_key(item: tuple[Run, Row]) -> tuple[object, ...]:
    run, row = item
    return (
        row.status != "ok",
        -(row.messages_per_s or 0.0),
        natural_key(run.impl.label),
        natural_key(run.impl.version or ""),
    )


def _param_sort_key(params: tuple[tuple[str, object], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((k, f"{v:020.6f}" if isinstance(v, int | float) else str(v)) for k, v in params)


def _machines(results: Results) -> list[str]:
    return sorted({run.machine for run in results.runs})


def _machine_heading(results: Results, machine: str, level: str) -> str:
    return f"{level} Machine `{machine}`\n\n" if len(_machines(results)) > 1 else ""


WIDE_PAGE = "---\nhide:\n  - toc\n---\n"
"""Front matter that hides mkdocs-material's table of contents on a page."""
SOCKETIO_SENTENCE = (
    f"Rows marked {SOCKETIO_TAG} are Socket.IO servers: a different protocol (events over "
    "Engine.IO v4 on a WebSocket) with its own framing and per-event work, so they are not "
    "directly comparable with plain WebSocket rows; a message is one event and its size is "
    "that of the event's argument. "
)


def render_leaderboard(
    scenario: str, results: Results, pages: Mapping[str, str] | None = None
) -> str:
    """The leaderboard page of ``scenario`` (``"echo"`` or ``"stream"``).

    One table per machine and parameter set, one row per (configuration, version) named by
    its row name, sorted by messages/s (highest first), failed and skipped rows last.

    Args:
        scenario: ``"echo"`` or ``"stream"``.
        results: the newest results of every environment.
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
    socketio = SOCKETIO_SENTENCE if any(run.impl.socketio for run, _ in rows) else ""
    out.append(
        "One row per configuration and version of each framework (its name says the server, "
        "WebSocket backend and event loop); *Version* is the framework's. "
        "Sorted by throughput, highest first. Higher messages/s and MB/s are better; lower "
        "latency, CPU and memory are better. MB = 10^6 bytes of payload, MiB = 2^20 bytes. "
        f"⚠ marks a run whose load generator used more than {CLIENT_BOUND_CPU_PERCENT:.0f} % "
        "of its CPU: the figure may be limited by the client, not the server. The bold "
        "**reference** rows are the native Rust server (plain WebSocket, and Socket.IO "
        "where it has that configuration): the ceiling on this machine. "
        f"{socketio}See [Methodology](../methodology.md) for how each figure is measured.\n"
    )
    headers = ["Framework", "Version", "Messages/s", "MB/s"]
    if latency:
        headers += ["p50 latency (µs)", "p99 latency (µs)"]
    headers += ["Server CPU (%)", "Server RSS (MiB)", "Flag"]
    align = "ll" + "r" * (len(headers) - 3) + "l"
    for machine in _machines(results):
        out.append(_machine_heading(results, machine, "##"))
        level = "###" if len(_machines(results)) > 1 else "##"
        groups: dict[tuple[tuple[str, object], ...], list[tuple[Run, Row]]] = {}
        for run, row in rows:
            if run.machine == machine:
                groups.setdefault(row.params, []).append((run, row))
        for params in sorted(groups, key=_param_sort_key):
            group = sorted(groups[params], key=_sort_key)
            out.append(f"{level} {params_title(params)}\n")
            cells = (_row_cells(r, w, latency, pages.get(r.impl.name)) for r, w in group)
            out.append(table(headers, cells, align))
    return "\n".join(out)


def _distinct(values: Iterable[object | None]) -> str:
    seen: list[str] = []
    for value in values:
        if value is None or value == "" or value == ():
            continue
        text = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)
        if text not in seen:
            seen.append(text)
    return cell("; ".join(seen)) if seen else "not recorded"


def _parse_iso(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _run_span(runs: Sequence[Run]) -> str | None:
    """When ``runs`` ran, in UTC: from the records' start and finish times, else from
    asv's benchmark start times; None when neither was recorded."""
    starts = [_parse_iso(r.environment.started_at) for r in runs if r.environment]
    ends = [_parse_iso(r.environment.finished_at) for r in runs if r.environment]
    starts += [
        datetime.fromtimestamp(r.asv_started_at_ms / 1000, UTC)
        for r in runs
        if r.asv_started_at_ms is not None and r.environment is None
    ]
    start = min((s for s in starts if s), default=None)
    end = max((e for e in ends if e), default=None)

    def fmt(moment: datetime) -> str:
        return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")

    if start is None:
        return None
    return f"{fmt(start)} to {fmt(end)}" if end else f"started {fmt(start)}"


def render_environment(results: Results) -> str:
    """The Environment page: what the newest runs recorded about the machine and software.

    Every value comes from the wsbench records (and asv's ``machine.json`` and result
    files); anything not recorded says so.
    """
    out = [
        "# Environment\n",
        "Where and with what the results on this site were measured, as the runs recorded "
        "it (generated from the wsbench records and asv's `machine.json`).\n",
    ]
    if results.empty:
        out.append(NO_RESULTS)
        return "\n".join(out)
    level = "###" if len(_machines(results)) > 1 else "##"
    for machine in _machines(results):
        out.append(_machine_heading(results, machine, "##"))
        runs = [r for r in results.runs if r.machine == machine]
        envs = [r.environment for r in runs if r.environment is not None]
        info = results.machines.get(machine, {})
        date = _run_span(runs)
        facts = [
            ["asv machine name", code(machine)],
            ["CPU model", _distinct([e.cpu_model for e in envs] or [info.get("cpu")])],
            ["CPU count", _distinct([e.cpu_count for e in envs] or [info.get("num_cpu")])],
            ["CPUs used by the server", _distinct(e.server_cpus for e in envs)],
            ["CPUs used by the load generator", _distinct(e.loadgen_cpus for e in envs)],
            ["Kernel", _distinct(e.kernel for e in envs)],
            ["Operating system (asv)", _distinct([info.get("os")])],
            ["Architecture (asv)", _distinct([info.get("arch")])],
            ["RAM (asv)", _distinct([info.get("ram")])],
            ["Python", _distinct(r.python for r in runs)],
            ["Load generator version", _distinct(e.loadgen_version for e in envs)],
            ["Benchmarked commit(s)", _distinct(r.commit[:12] for r in runs)],
            ["Date of the run", _distinct([date])],
        ]
        out.append(f"{level} Machine and software\n")
        out.append(table(["", ""], facts))
        out.append(f"{level} Framework versions measured\n")
        versions = [
            [
                row_name_cell(r) + (" (reference)" if r.impl.reference else ""),
                cell(r.impl.version or DASH),
                code(r.env_name),
                _sources(r),
            ]
            for r in runs
        ]
        out.append(table(["Framework", "Version", "asv environment", "Sources"], versions))
    return "\n".join(out)


def _sources(run: Run) -> str:
    if run.has_asv and run.has_record:
        return "asv result + wsbench record"
    return "asv result only (no record)" if run.has_asv else "wsbench record only (no asv result)"
