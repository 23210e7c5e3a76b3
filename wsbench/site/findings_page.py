"""Markdown of the Findings page (:mod:`wsbench.site.findings` in words and tables).

Per machine: the fastest configurations of every scenario and parameter set with their
runner-up, the ratio and the verdict; the significant release-to-release changes; the cost
of Socket.IO over plain WebSocket on the same server; the same app on several servers and
several frameworks on the same server; the outliers, configurations far below the other
configurations of their app, with their CPU profile's top functions; every failure; every
client-bound or unstable figure. Each finding links to the leaderboard table or framework
page that shows it, and names the run(s) and machine it comes from with links to their downloads
(:mod:`wsbench.site.downloads`). Units: messages/s, each figure over the server processes
(:func:`wsbench.site.rows.summary_of`); a ratio is one figure over the other, with the
interval of :func:`wsbench.results.stats.compare` (Welch's t test over the processes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from wsbench.results.metrics import CLIENT_BOUND_CPU_PERCENT, Metric
from wsbench.results.outliers import rule_text
from wsbench.results.profile_diff import TOP, shares
from wsbench.results.stats import TOO_FEW, Comparison
from wsbench.scenarios import params_words
from wsbench.site import templates
from wsbench.site.downloads import download_links
from wsbench.site.environment import ENVIRONMENT_PAGE, RAW_RESULTS_ANCHOR
from wsbench.site.findings import (
    Contest,
    Findings,
    Lineup,
    OutlierFinding,
    Pairing,
    ReleaseChange,
)
from wsbench.site.framework_pages import FAILURES_ANCHOR, chart_link, page_path
from wsbench.site.frameworks import SOCKETIO
from wsbench.site.markup import (
    COMPARISON_CONFIDENCE_PERCENT,
    CONFIDENCE_PERCENT,
    DASH,
    NOWRAP,
    SOCKETIO_TAG,
    TIMES,
    UNSTABLE_LEGEND,
    cell,
    code,
    fold,
    params_title,
    ratio_text,
    short_reason,
    spread,
    table,
    tagged,
)
from wsbench.site.render import (
    NO_RESULTS,
    REASON_CHARS,
    SCENARIO_TITLES,
    table_link,
)
from wsbench.site.results import EnvRun, Results, by_environment
from wsbench.site.rows import Row

FINDINGS_PAGE = "findings.md"
"""The Findings page, relative to the docs dir (at its root: links from it need no prefix)."""
TITLE = "Findings"


def p_text(comparison: Comparison) -> str:
    """The test's p-value, two significant digits, e.g. ``"p = 0.0022"``."""
    return f"p = {comparison.p_value:.2g}"


def _config(run: EnvRun, framework_pages: Mapping[str, str]) -> str:
    """A configuration and version for a cell, linked to its framework page."""
    name = tagged(run.label, run.socketio, framework_pages.get(run.impl.name))
    return f"{name} {cell(run.impl.version or DASH)}"


def _contender(run: EnvRun, framework_pages: Mapping[str, str]) -> str:
    """A contest's configuration and version for a cell, as :func:`_config`, but free to
    break at any space: beside nine other columns, names kept whole on two lines made the
    table wider than the page."""
    name = tagged(run.label, run.socketio, framework_pages.get(run.impl.name), breaks=True)
    return f"{name} {cell(run.impl.version or DASH)}"


def _plain(run: EnvRun) -> str:
    return cell(f"{run.label} {run.impl.version or ''}".strip())


def _figure(row: Row) -> str:
    text = spread(row.messages_per_s, ",.0f")
    return text + (" ⚠" if row.client_bound else "")


def _runs_cell(runs: Iterable[EnvRun]) -> str:
    """The distinct runs (newest first) and machine of ``runs``, with their downloads."""
    by_id = {(r.machine, r.run_id) for r in runs}
    parts = [
        f"run {code(run_id)} on {code(machine)}: {download_links(machine, run_id)}"
        for machine, run_id in sorted(by_id, reverse=True)
    ]
    return "; ".join(parts)


def _data(what: str, link: str, runs: Iterable[EnvRun]) -> str:
    """A Data cell: the link to ``what`` at ``link``, the runs and their downloads folded
    under it (their ids made the column wide)."""
    return fold(f"[{what}]({link})", _runs_cell(runs))


def _verdict(c: Contest) -> str:
    if c.runner_up is None:
        return "the only configuration with a figure"
    if not c.tied:
        versus = c.runner_up.versus_fastest
        p = f" ({p_text(versus)})" if versus else ""
        return f"**fastest**: significantly faster than every other{p}"
    tied = [c.entries[0], *c.tied]
    names = ", ".join(_plain(e.run) for e in tied)
    undecided = [e for e in c.tied if e.versus_fastest and e.versus_fastest.verdict == TOO_FEW]
    note = f"; {len(undecided)} with {TOO_FEW} to tell" if undecided else ""
    # One line, the list folded: a cell listing the names made the table screens tall and,
    # beside nine other columns, wider than the page.
    return fold(
        f"**tied**: {len(tied)} configurations", f"no significant difference{note}: {names}"
    )


def _contest_row(c: Contest, results: Results, pages: Mapping[str, str]) -> list[str]:
    protocol = SOCKETIO_TAG if c.protocol == SOCKETIO else "WebSocket"
    reference = _figure(c.reference[1]) if c.reference else DASH
    link = table_link(c.scenario, results, c.machine, c.params)
    fastest, runner_up = c.fastest, c.runner_up
    if fastest is None:
        reason = "every configuration failed (see Failures)"
        return [cell(params_title(c.params)), protocol, DASH, DASH, DASH, DASH, DASH, reason,
                reference, _data("leaderboard table", link, [r for r, _ in c.failed])]  # fmt: skip
    versus = runner_up.versus_fastest if runner_up else None
    return [
        cell(params_title(c.params)),
        protocol,
        _contender(fastest.run, pages),
        _figure(fastest.row),
        _contender(runner_up.run, pages) if runner_up else DASH,
        _figure(runner_up.row) if runner_up else DASH,
        ratio_text(versus) if versus else DASH,
        _verdict(c),
        reference,
        _data("leaderboard table", link, c.runs),
    ]


CONTEST_HEADERS = [
    "Parameters",
    "Protocol",
    "Fastest",
    "Fastest messages/s",
    "Runner-up",
    "Runner-up messages/s",
    "Fastest ÷ runner-up",
    "Verdict",
    "Reference messages/s",
    "Data",
]


def _contests(contests: Sequence[Contest], results: Results, pages: Mapping[str, str]) -> str:
    out = []
    for scenario in dict.fromkeys(c.scenario for c in contests):
        mine = [c for c in contests if c.scenario == scenario]
        out.append(f"### Fastest configurations: {SCENARIO_TITLES.get(scenario, scenario)}\n")
        rows = [_contest_row(c, results, pages) for c in mine]
        out.append(table(CONTEST_HEADERS, rows, "lllrlrrlrl"))
    return "\n".join(out)


def _better_words(metric: Metric) -> tuple[str, str]:
    """How a significant change of ``metric`` reads: (better, worse)."""
    if metric.unit == "bytes":
        return "less memory", "more memory"
    if metric.unit == "%":
        return "less CPU", "more CPU"
    return "faster", "slower"


def _change_row(change: ReleaseChange) -> list[str]:
    c = change.change.comparison
    better, worse = _better_words(change.headline.metric)
    name = change.framework.display_name
    link = chart_link(change.framework.name, change.headline.slug, change.chart_machine)
    runs = {change.base_run, change.head_run}
    run_text = "; ".join(
        f"run {code(r)} on {code(change.machine)}: {download_links(change.machine, r)}"
        for r in sorted(runs, reverse=True)
    )
    return [
        f"[{cell(name)}]({page_path(change.framework.name)})",
        code(change.line.config or change.line.label),
        f"{cell(change.change.base)} → {cell(change.change.head)}",
        cell(change.headline.column),
        f"**{change.change.percent}**",
        ratio_text(c),
        f"{better if c.verdict == 'faster' else worse} ({p_text(c)})",
        f"[chart]({link}) · {run_text}",
    ]


CHANGE_HEADERS = [
    "Framework",
    "Configuration",
    "Versions",
    "Figure",
    "Change",
    "Newer ÷ older",
    "Verdict",
    "Data",
]


def _changes(changes: Sequence[ReleaseChange]) -> str:
    out = [
        "### Release-to-release changes\n",
        "The significant changes between consecutive measured releases of each "
        "configuration, on the framework pages' charts: the headline figures (messages/s, "
        "MB/s, round-trip p50 latency in µs, peak RSS in MiB), the ratio of the figures "
        f"newer ÷ older with its {COMPARISON_CONFIDENCE_PERCENT} % interval.\n",
    ]
    if not changes:
        out.append("None: no headline figure changed significantly between consecutive "
                   "releases of a configuration.\n")  # fmt: skip
        return "\n".join(out)
    out.append(table(CHANGE_HEADERS, (_change_row(c) for c in changes), "lllllrll"))
    return "\n".join(out)


def _pair_verdict(comparison: Comparison | None, socketio: Row, websocket: Row) -> str:
    if comparison is None:
        side = "Socket.IO" if not socketio.ok else "WebSocket"
        return f"not compared: the {side} row has no figure"
    if comparison.verdict == "slower":
        return f"Socket.IO significantly slower ({p_text(comparison)})"
    if comparison.verdict == "faster":
        return f"Socket.IO significantly faster ({p_text(comparison)})"
    return comparison.verdict.replace("change", "difference")


PAIR_HEADERS = [
    "Scenario",
    "Parameters",
    "Socket.IO messages/s",
    "WebSocket messages/s",
    "Socket.IO ÷ WebSocket",
    "Verdict",
    "Data",
]


def _pairing(p: Pairing, results: Results, pages: Mapping[str, str]) -> str:
    sio, ws = p.socketio, p.websocket
    backend = ws.impl.ws_backend or "not named (the server's own or default)"
    same = f"{p.server.text}, WebSocket backend {backend}, event loop {ws.impl.event_loop}"
    head = (
        f"#### {_plain(sio)} vs {_plain(ws)}\n\n"
        f"{_config(sio, pages)} against {_config(ws, pages)}: both on {cell(same)}.\n"
    )
    rows = []
    for f in p.figures:
        link = table_link(f.scenario, results, p.machine, f.params)
        rows.append(
            [
                cell(SCENARIO_TITLES.get(f.scenario, f.scenario)),
                cell(params_title(f.params)),
                _figure(f.socketio) if f.socketio.ok else f.socketio.status,
                _figure(f.websocket) if f.websocket.ok else f.websocket.status,
                ratio_text(f.comparison) if f.comparison else DASH,
                _pair_verdict(f.comparison, f.socketio, f.websocket),
                _data("leaderboard table", link, f.runs),
            ]
        )
    return head + "\n" + table(PAIR_HEADERS, rows, "llrrrll")


def _socketio(findings: Findings, machine: str, results: Results, pages: Mapping[str, str]) -> str:
    out = [
        "### The cost of Socket.IO over plain WebSocket\n",
        "Each Socket.IO configuration against every plain WebSocket configuration on the same "
        "server build (the server and its version as the implementations' version matrices "
        "pin it), WebSocket backend and event loop, as the run documents and `meta.toml` "
        "record them: the ratio of the figures Socket.IO ÷ WebSocket, messages/s (a "
        f"Socket.IO message is one event), with its {COMPARISON_CONFIDENCE_PERCENT} % "
        "interval.\n",
    ]
    pairs = [p for p in findings.pairings if p.machine == machine]
    lone = [(run, key) for run, key in findings.unpaired if run.machine == machine]
    if not pairs and not lone:
        out.append("No Socket.IO configuration was measured.\n")
    out += [_pairing(p, results, pages) for p in pairs]
    if lone:
        items = [
            f"- {_config(run, pages)}: no WebSocket configuration on {cell(key[1].text)} with "
            f"WebSocket backend {cell(key[2] or 'unnamed')} and event loop {cell(key[3])}."
            for run, key in lone
        ]
        out.append(
            "Socket.IO configurations without a WebSocket counterpart (a configuration "
            "whose metadata names no WebSocket backend matches only another that names "
            "none):\n\n" + "\n".join(items) + "\n"
        )
    return "\n".join(out)


def _lineup_cell(c: Contest, run: EnvRun) -> str:
    """The figure of ``run``'s environment in contest ``c`` (from whichever of its EnvRuns
    has it): its messages/s (over the server processes), its ratio to the fastest's and the
    verdict (**fastest**, tied, slower, or too few server processes to tell); failed, or a
    dash when the environment did not measure it."""
    if any(r.env_id == run.env_id for r, _ in c.failed):
        return "failed"
    entry = next((e for e in c.entries if e.run.env_id == run.env_id), None)
    fastest = c.fastest
    if entry is None or fastest is None:
        return DASH
    figure = _figure(entry.row)
    if entry is fastest:
        return f"**{figure}** fastest"
    mine, best = entry.row.messages_per_s, fastest.row.messages_per_s
    ratio = f"{mine.value / best.value:.2f}{TIMES}" if mine and best and best.value else DASH
    if entry.versus_fastest and entry.versus_fastest.verdict == TOO_FEW:
        return f"{figure} {NOWRAP.format(ratio)} {TOO_FEW} to tell"
    if entry in c.tied:
        return f"**{figure}** {NOWRAP.format(ratio)} tied"
    return f"{figure} {NOWRAP.format(ratio)} slower"


def _lineup(lineup: Lineup, pages: Mapping[str, str]) -> str:
    layer = "servers" if lineup.kind == "servers" else "frameworks"
    configs = [env[0] for env in by_environment(lineup.runs)]
    head = f"#### {cell(lineup.shared)}: {len(configs)} {layer}\n"
    headers = ["Configuration"] + [
        cell(f"{SCENARIO_TITLES.get(c.scenario, c.scenario)}, "
             f"{' · '.join(params_words(dict(c.params), short=True))}")
        for c in lineup.contests
    ]  # fmt: skip
    rows = [
        [_config(run, pages)] + [_lineup_cell(c, run) for c in lineup.contests] for run in configs
    ]
    data = f"Data: {_runs_cell(lineup.runs)}.\n"
    return head + "\n" + table(headers, rows, "l" + "r" * len(lineup.contests)) + "\n" + data


def _lineups(findings: Findings, machine: str, pages: Mapping[str, str]) -> str:
    mine = [lineup for lineup in findings.lineups if lineup.machine == machine]
    out = [
        "### The same app on several servers\n",
        "One implementation at one version served by several servers (for ASGI apps: "
        "uvicorn with each of its WebSocket backends, Hypercorn, Daphne, Granian, "
        "Gunicorn's ASGI worker), plain WebSocket: messages/s with its "
        f"{CONFIDENCE_PERCENT} % interval, its ratio to the fastest's, and the verdict "
        "against the fastest (**bold**: the fastest and the configurations tied with it).\n",
    ]
    servers = [lineup for lineup in mine if lineup.kind == "servers"]
    out += [_lineup(lineup, pages) for lineup in servers] or [
        "No implementation was measured on more than one server.\n"
    ]
    out += [
        "### Several frameworks on the same server\n",
        "Implementations served by the same server build (the server and its version as the "
        "version matrices pin it) on the same event loop: the difference is the framework "
        "layer (and the WebSocket backend where the row names one). Same figures and "
        "verdicts as above.\n",
    ]
    frameworks = [lineup for lineup in mine if lineup.kind == "frameworks"]
    out += [_lineup(lineup, pages) for lineup in frameworks] or [
        "No server build ran more than one implementation.\n"
    ]
    return "\n".join(out)


def _failures(
    failures: Sequence[tuple[EnvRun, Row]], results: Results, pages: Mapping[str, str], machine: str
) -> str:
    """The failures on ``machine``: one row per environment and reason ("every
    measurement" when every shown row of the environment failed with it), naming the runs
    of its failed rows."""
    out = ["### Failures\n"]
    mine = [(run, row) for run, row in failures if run.machine == machine]
    if not mine:
        out.append("None: every shown measurement produced a figure.\n")
        return "\n".join(out)
    out.append(
        "Every shown measurement without a figure, with its reason (a version that did not "
        "install, a server that broke the protocol, every window disturbed...).\n"
    )
    shown: dict[tuple[str, str], int] = {}
    for run in results.runs:
        shown[run.env_id] = shown.get(run.env_id, 0) + len(run.rows)
    groups: dict[tuple[tuple[str, str], str], list[tuple[EnvRun, Row]]] = {}
    for run, row in mine:
        groups.setdefault((run.env_id, row.error or row.status), []).append((run, row))
    rows = []
    for (env_id, reason), found in groups.items():
        run = found[0][0]
        failed = [row for _, row in found]
        scope = (
            "every measurement"
            if len(failed) == shown.get(env_id, 0)
            else "; ".join(f"{r.scenario} {params_title(r.params)}" for r in failed)
        )
        page = pages.get(run.impl.name)
        text = cell(short_reason(reason, REASON_CHARS))
        if page and len(" ".join(reason.split())) > REASON_CHARS:
            text += f" ([full reason]({page}#{FAILURES_ANCHOR}))"
        name = _config(run, pages) + (" (reference)" if run.impl.reference else "")
        rows.append([name, cell(scope), text, _runs_cell(r for r, _ in found)])
    out.append(table(["Configuration", "Measurements", "Reason", "Data"], rows))
    return "\n".join(out)


def top_functions_text(found: OutlierFinding, n: int = TOP) -> str:
    """The ``n`` functions with the most self time in the outlier's profile with their
    share of its busy samples (:func:`wsbench.results.profile_diff.shares`), then which
    profile: e.g. ``"98 % `WebSocketProtocol._unmask (gunicorn/asgi/websocket.py)`; ...
    (profile of run R, native frames)"``; a dash without a profile."""
    if found.profile is None:
        return DASH
    top = list(shares(found.profile.profile.stacks).items())[:n]
    listed = "; ".join(f"{share * 100:.0f} % {code(function)}" for function, share in top)
    profiling = found.profile.doc.profiling
    how = ", native frames" if profiling and profiling.native else ""
    return f"{listed} (profile of run {code(found.profile.doc.run_id)}{how})"


OUTLIER_HEADERS = [
    "Configuration",
    "Scenario",
    "Parameters",
    "Messages/s",
    "Peers' median",
    "Of the median",
    "Peers",
    "Top functions (self time)",
    "Data",
]


def _outliers(
    found: Sequence[OutlierFinding], results: Results, pages: Mapping[str, str], machine: str
) -> str:
    out = [
        "### Outliers\n",
        f"A configuration is an outlier at a parameter set when {rule_text()} "
        "(`wsbench/results/outliers.py`): so far below the configurations that run the same "
        "application code that the layer under it, not the framework, is the bottleneck. "
        "Each is shown with the functions its CPU profile at that set spends the most self "
        "time in, from its newest profile when one was taken (`./bench profile`, the "
        "nightly's profiles).\n",
    ]
    mine = [f for f in found if f.run.machine == machine]
    if not mine:
        out.append("None: no configuration is that far below its peers.\n")
        return "\n".join(out)
    rows = [
        [
            _config(f.run, pages),
            cell(SCENARIO_TITLES.get(f.row.scenario, f.row.scenario)),
            cell(params_title(f.row.params)),
            _figure(f.row),
            cell(f"{f.outlier.peers_median:,.0f}"),
            cell(f"{f.outlier.ratio * 100:.1f} %"),
            ", ".join(_plain(p) for p in f.peers),
            top_functions_text(f),
            _data(
                "leaderboard table",
                table_link(f.row.scenario, results, machine, f.row.params),
                [f.run, *f.peers],
            ),
        ]
        for f in mine
    ]
    out.append(table(OUTLIER_HEADERS, rows, "lllrrrlll"))
    return "\n".join(out)


def _flag(row: Row) -> str:
    flags = []
    if row.client_bound:
        cpu = row.loadgen_cpu_percent
        flags.append(f"⚠ client-bound (load generator CPU {cpu:.0f} %)" if cpu else "⚠")
    if row.unstable and row.cv is not None:
        flags.append(f"≈ unstable (coefficient of variation {row.cv * 100:.0f} %)")
    return "; ".join(flags)


def _flagged(
    flagged: Sequence[tuple[EnvRun, Row]], results: Results, pages: Mapping[str, str], machine: str
) -> str:
    out = ["### Client-bound and unstable figures\n"]
    mine = [(run, row) for run, row in flagged if run.machine == machine]
    if not mine:
        out.append("None: no shown figure is client-bound or unstable.\n")
        return "\n".join(out)
    out.append(
        f"⚠ client-bound: the load generator used more than {CLIENT_BOUND_CPU_PERCENT:.0f} % "
        "of its CPUs (their average; the median over the windows), so the client, not the "
        "server, may have been "
        f"the bottleneck: the figure is a lower bound for the server. {UNSTABLE_LEGEND}.\n"
    )
    rows = [
        [
            _config(run, pages) + (" (reference)" if run.impl.reference else ""),
            cell(SCENARIO_TITLES.get(row.scenario, row.scenario)),
            cell(params_title(row.params)),
            _figure(row),
            _flag(row),
            _data(
                "leaderboard table",
                table_link(row.scenario, results, machine, row.params),
                [run],
            ),
        ]
        for run, row in mine
    ]
    headers = ["Configuration", "Scenario", "Parameters", "Messages/s", "Flag", "Data"]
    out.append(table(headers, rows, "lllrll"))
    return "\n".join(out)


def render_findings(
    findings: Findings, results: Results, framework_pages: Mapping[str, str]
) -> str:
    """The Findings page.

    Args:
        findings: :func:`wsbench.site.findings.findings_of` of ``results``.
        results: the current comparison group of every machine (for the leaderboards'
            table links).
        framework_pages: ``{implementation name: its framework page}`` relative to the docs
            dir; names without a page are not linked.
    """
    machines = []
    for machine in findings.machines:
        shown = [r for r in results.runs if r.machine == machine]
        contests = [c for c in findings.contests if c.machine == machine]
        machines.append(
            {
                "name": machine,
                "runs": _runs_cell(shown),
                "sections": [
                    _contests(contests, results, framework_pages),
                    _changes([c for c in findings.changes if c.machine == machine]),
                    _socketio(findings, machine, results, framework_pages),
                    _lineups(findings, machine, framework_pages),
                    _outliers(findings.outliers, results, framework_pages, machine),
                    _failures(findings.failures, results, framework_pages, machine),
                    _flagged(findings.flagged, results, framework_pages, machine),
                ],
            }
        )
    return templates.render(
        "findings.md.j2",
        title=TITLE,
        no_results=NO_RESULTS,
        environment_page=ENVIRONMENT_PAGE,
        raw_results_anchor=RAW_RESULTS_ANCHOR,
        times=TIMES,
        socketio_tag=SOCKETIO_TAG,
        unstable_legend=UNSTABLE_LEGEND,
        machines=machines,
    )
