"""Markdown for the generated pages: leaderboards, frameworks, environment.

Pure functions from typed data to markdown text (Python-Markdown's ``tables`` syntax and
material's admonitions). Units: MB = 10^6 bytes, MiB = 2^20 bytes, µs = 10^-6 s.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from wsbench.measure import CLIENT_BOUND_CPU_PERCENT
from wsbench.site.frameworks import Framework
from wsbench.site.results import Results, Row, Run

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
DASH = "—"
MB = 1e6
MIB = float(2**20)
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|])")


def cell(text: str) -> str:
    """``text`` made safe for one table cell: on one line, HTML-escaped, markdown syntax
    backslash-escaped, ``|`` as an HTML entity."""
    one_line = " ".join(text.split())
    escaped = _MD_SPECIAL.sub(r"\\\1", html.escape(one_line, quote=False))
    return escaped.replace("\\|", "&#124;")


def code(text: str) -> str:
    """``text`` as an inline code span (no escaping applies inside one)."""
    return "`" + " ".join(text.split()).replace("`", "'") + "`"


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> str:
    """A markdown table. ``align`` has one letter per column, ``l`` or ``r`` (default ``l``);
    cells are used as given (escape text with :func:`cell`)."""
    aligns = [(align[i] if i < len(align) else "l") for i in range(len(headers))]
    rule = ["---:" if a == "r" else "---" for a in aligns]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _num(value: float | None, fmt: str, scale: float = 1.0) -> str:
    return DASH if value is None else format(value / scale, fmt)


def _params_title(row: Row) -> str:
    params = dict(row.params)
    parts = []
    size = params.get("size_bytes")
    if size is not None:
        parts.append(f"{size:,} B messages" if isinstance(size, int) else f"{size} B messages")
    if "in_flight" in params:
        parts.append(f"{params['in_flight']} in flight per connection")
    parts += [f"{k} = {v}" for k, v in row.params if k not in ("size_bytes", "in_flight")]
    return ", ".join(parts) or "No parameters"


def _flag(run: Run, row: Row) -> str:
    flags = []
    if run.impl.reference:
        flags.append("reference (ceiling)")
    if row.status != "ok":
        flags.append(f"**{row.status}**: {cell(row.error or row.status)}")
    elif row.client_bound:
        cpu = row.loadgen_cpu_percent
        why = f"load generator CPU {cpu:.0f} %" if cpu is not None else "load generator busy"
        flags.append(f"⚠ client-bound ({why})")
    return "; ".join(flags)


def _row_cells(run: Run, row: Row, latency: bool) -> list[str]:
    name = cell(run.impl.display_name)
    if run.impl.reference:
        name = f"**{name}**"
    cells = [name, cell(run.impl.version or DASH)]
    if row.status != "ok":
        figures = [row.status] + [DASH] * (5 if latency else 3)
    else:
        figures = [
            _num(row.messages_per_s, ",.0f"),
            _num(row.bytes_per_s, ",.2f", MB),
            *(
                [_num(row.latency_p50_s, ",.1f", 1e-6), _num(row.latency_p99_s, ",.1f", 1e-6)]
                if latency
                else []
            ),
            _num(row.server_cpu_percent, ".1f"),
            _num(row.server_rss_bytes, ",.1f", MIB),
        ]
    return [*cells, *figures, _flag(run, row)]


def _sort_key(item: tuple[Run, Row]) -> tuple[int, float, str]:
    run, row = item
    return (row.status != "ok", -(row.messages_per_s or 0.0), run.impl.display_name.lower())


def _param_sort_key(params: tuple[tuple[str, object], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((k, f"{v:020.6f}" if isinstance(v, int | float) else str(v)) for k, v in params)


def _machines(results: Results) -> list[str]:
    return sorted({run.machine for run in results.runs})


def _machine_heading(results: Results, machine: str, level: str) -> str:
    return f"{level} Machine `{machine}`\n\n" if len(_machines(results)) > 1 else ""


WIDE_PAGE = "---\nhide:\n  - toc\n---\n"
"""Front matter that hides mkdocs-material's table of contents on a page."""


def render_leaderboard(scenario: str, results: Results) -> str:
    """The leaderboard page of ``scenario`` (``"echo"`` or ``"stream"``).

    One table per machine and parameter set, rows sorted by messages/s (highest first),
    failed and skipped rows last.
    """
    title = SCENARIO_TITLES.get(scenario, scenario)
    # The tables are wide: hide the table of contents to give them the page's full width.
    out = [WIDE_PAGE, f"# {title} leaderboard\n", SCENARIO_INTROS.get(scenario, "") + "\n"]
    rows = [(run, row) for run in results.runs for row in run.rows if row.scenario == scenario]
    if not rows:
        out.append(NO_RESULTS)
        return "\n".join(out)
    latency = scenario == "echo"
    out.append(
        "Sorted by throughput, highest first. Higher messages/s and MB/s are better; lower "
        "latency, CPU and memory are better. MB = 10^6 bytes of payload, MiB = 2^20 bytes. "
        f"⚠ marks a run whose load generator used more than {CLIENT_BOUND_CPU_PERCENT:.0f} % "
        "of its CPU: the figure may be limited by the client, not the server. The "
        "**reference** row is the native Rust server: the ceiling on this machine. See "
        "[Methodology](../methodology.md) for how each figure is measured.\n"
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
            out.append(f"{level} {_params_title(group[0][1])}\n")
            out.append(table(headers, (_row_cells(r, w, latency) for r, w in group), align))
    return "\n".join(out)


def _link(text: str, url: str | None) -> str:
    return f"[{cell(text)}]({url})" if url else cell(text)


def _measured_versions(results: Results) -> dict[str, list[str]]:
    versions: dict[str, list[str]] = {}
    for run in results.runs:
        if run.impl.version and run.impl.version not in versions.get(run.impl.name, []):
            versions.setdefault(run.impl.name, []).append(run.impl.version)
    return versions


def render_frameworks(frameworks: Sequence[Framework], results: Results, repo_url: str) -> str:
    """The Frameworks page: one section per implementation folder with a ``meta.toml``.

    Args:
        frameworks: from :func:`wsbench.site.frameworks.load_frameworks`.
        results: for the versions measured in the newest results.
        repo_url: the repository's web address; links go to ``{repo_url}/tree/main/impls/<name>``.
    """
    out = [
        "# Frameworks\n",
        "Every implementation serves the same [protocol](methodology.md#the-server-protocol) "
        "with the same fairness settings: compression off, keepalive pings off, maximum "
        "message size of at least 16 MiB, TCP_NODELAY on, asyncio event loop, push loops "
        "yielding every 64 messages ([Methodology](methodology.md#fairness-settings)). "
        "*Deviations* shows how each one applies them and anything else it does differently. "
        "This page is generated from each implementation's `meta.toml`.\n",
    ]
    if not frameworks:
        out.append('!!! note "No implementations"\n\n    No `impls/*/meta.toml` was found.\n')
        return "\n".join(out)
    measured = _measured_versions(results)
    base = repo_url.rstrip("/")
    summary = [
        [
            cell(f.display_name) + (" (reference)" if f.reference else ""),
            cell(f.package or DASH),
            cell(f.server),
            cell(f.event_loop),
            cell(f.versions[-1].version if f.versions else DASH),
        ]
        for f in frameworks
    ]
    out.append(table(["Framework", "Package", "Server", "Event loop", "Default version"], summary))
    for f in frameworks:
        out.append(f"## {cell(f.display_name)}\n")
        if f.reference:
            out.append(
                "The native reference server: its figures are the ceiling shown in every "
                "leaderboard, not a Python framework.\n"
            )
        pypi = f"https://pypi.org/project/{f.package}/" if f.package else None
        facts = [
            ["Name", code(f.name)],
            ["Package", _link(f.package, pypi) if f.package else DASH],
            ["Server", cell(f.server)],
            ["Event loop", cell(f.event_loop)],
            ["Protocol", cell(f.protocol)],
            ["Homepage", _link(f.homepage, f.homepage) if f.homepage else DASH],
            ["Implementation", f"[impls/{cell(f.name)}]({base}/tree/main/impls/{f.name})"],
            ["Measured version(s)", cell(", ".join(measured.get(f.name, [])) or DASH)],
        ]
        out.append(table(["", ""], facts))
        if f.versions:
            out.append("**Version matrix** (oldest first; the last is the default):\n")
            out.append(
                table(
                    ["Version", "Also installed"],
                    [[cell(v.version), cell(", ".join(v.requires) or DASH)] for v in f.versions],
                )
            )
        if f.deviations:
            out.append("**Deviations** (fairness settings as applied):\n")
            out.append(
                table(
                    ["Setting", "As applied"],
                    [[cell(k.replace("_", " ")), cell(v)] for k, v in f.deviations.items()],
                )
            )
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
                cell(r.impl.display_name) + (" (reference)" if r.impl.reference else ""),
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
