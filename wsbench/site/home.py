"""The home page: the answer first.

Per family of scenarios (:data:`FAMILIES`: the fastest WebSocket server, the fastest Socket.IO
server, the cost of Socket.IO, memory per connection, fan-out, many connections), the
configurations of the shown runs ranked by that scenario's headline figure
(:data:`wsbench.results.metrics.SCENARIO_HEADLINES`) as a bar chart with the 95 % intervals, the
leader in one sentence with the configurations tied with it (:func:`wsbench.site.render.ranks`:
overlapping intervals), and a link to the leaderboard table it comes from. The page's
outline and prose are the template ``templates/index.md.j2``; this module computes what it
shows. Each chart is a static SVG of the best :data:`TOP` (:func:`wsbench.site.charts.
render_bars_svg`) followed by every configuration's data for the interactive chart
(:mod:`wsbench.site.interactive`).

The cost of Socket.IO is not a leaderboard: one bar per Socket.IO configuration, its
messages/s as a share of its baseline's, the plain WebSocket app on exactly its stack (the
same server build, WebSocket backend and event loop, the thinnest app there:
:func:`wsbench.site.findings.thinness`), with the Socket.IO configurations that no plain
one shares a stack with named (:func:`socketio_cost_answer`).
"""

# The page's typography (en dash in intervals) is as published.
# ruff: noqa: RUF001

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results import stats
from wsbench.results.metrics import CLIENT_BOUND_CPU_PERCENT, Metric
from wsbench.results.stats import CONFIDENCE, compare
from wsbench.site import templates
from wsbench.site.charts import render_bars_svg
from wsbench.site.conformance import CONFORMANCE_PAGE, Grades, fastest_grades, graded_of
from wsbench.site.counts import REASON_CHARS
from wsbench.site.deployment_costs import ANSWER_SET, Deployment, deployment_of, headline_set
from wsbench.site.deployment_page import DEPLOYMENT_PAGE, set_anchor
from wsbench.site.deployment_page import TITLE as DEPLOYMENT_TITLE
from wsbench.site.findings import Findings, PairFigure, Pairing, unshared
from wsbench.site.framework_pages import INDEX_PAGE
from wsbench.site.interactive import TOOLTIP_NUMBERS, chart_script
from wsbench.site.markup import (
    COMPARISON_CONFIDENCE_PERCENT,
    CONFIDENCE_PERCENT,
    and_list,
    cell,
    in_tuned,
    params_title,
    safe_name,
    short_number,
    short_reason,
    table,
)
from wsbench.site.python_costs import (
    NOT_COMPARED_ON,
    PYTHON_SETS,
    OnPython,
    OnPythons,
    headline_metric,
    newest_python,
    on_pythons,
)
from wsbench.site.render import (
    LEADERBOARD_PAGES,
    SCENARIO_TITLES,
    checks_fail,
    ranks,
    table_link,
)
from wsbench.site.results import EnvRun, Results, by_environment
from wsbench.site.rows import MESSAGES, Params, Row, headline_of
from wsbench.site.shared_cpu import SharedCpu, threads_sentence
from wsbench.site.sweeps import (
    CONNECTIONS,
    KIB,
    SUBSCRIBERS,
    Series,
    SweepChart,
    SweepFigure,
    SweepPoint,
    XAxis,
    chart_data,
    point_of,
    row_label,
)

HOME_PAGE = "index.md"
TOP = 10
"""The static chart shows the best this many (and the reference); the interactive chart
can show every configuration."""
CONFORMANCE_TOP = 5
"""The conformance question grades this many of the fastest WebSocket configurations."""
CONFORMANCE_FAMILY = "websocket"
"""The family whose ranking the conformance question grades: the fastest WebSocket server
(the suite speaks plain WebSocket)."""


@dataclass(frozen=True)
class Family:
    """One question the home page answers.

    Attributes:
        slug: its anchor and file name, e.g. ``"websocket"``.
        title: its heading, e.g. ``"The fastest WebSocket server"``.
        question: the question in a visitor's words.
        scenario: the scenario whose leaderboard answers it.
        axis: the parameter the chart names (its panel's title, e.g. ``"1,000 connections"``).
        prefer: the parameter set shown when it was measured (a subset of the set's
            parameters); otherwise the set with the most figures.
        protocol: only WebSocket (``"websocket"``) or Socket.IO (``"socketio"``) servers;
            None for both.
        unit: the unit shown, and ``scale``: the headline's value divided by it is in it.
    """

    slug: str
    title: str
    question: str
    scenario: str
    axis: XAxis
    prefer: Params = ()
    protocol: str | None = None
    unit: str = "messages/s"
    scale: float = 1.0

    @property
    def metric(self) -> Metric:
        """What the bars show: the scenario's headline figure."""
        return headline_of(self.scenario)

    @property
    def figure(self) -> SweepFigure:
        """The chart's figure (its title, unit and scale)."""
        return SweepFigure(
            self.slug, self.metric.label.capitalize(), self.metric, self.unit, self.scale
        )


IN_FLIGHT = XAxis("in_flight", "in flight per connection", ("in_flight",))
ECHO_16_64: Params = (("size_bytes", 16), ("in_flight", 64))
DEPLOYMENT_COST = "deployment-cost"
"""The family drawn from the costs of the deployment profiles
(:mod:`wsbench.site.deployment_costs`: each configuration's messages/s in a profile over its
tuned messages/s), not from one leaderboard's rows."""
NEWER_PYTHON = "newer-python"
"""The family drawn from each configuration's latest release on the newest Python measured
against the default Python (:mod:`wsbench.site.python_costs`), not from one leaderboard's
rows."""
SOCKETIO_COST = "socketio-cost"
"""The family drawn from the Socket.IO configurations and their baselines, the plain
WebSocket app on the same server build, WebSocket backend and event loop
(:class:`wsbench.site.findings.Pairing`), not from one leaderboard's rows."""
FAMILIES = (
    Family(
        "websocket",
        "The fastest WebSocket server",
        "Which server answers the most WebSocket echoes per second on one core?",
        "echo",
        IN_FLIGHT,
        ECHO_16_64,
        "websocket",
    ),
    Family(
        "socketio",
        "The fastest Socket.IO server",
        "Which Socket.IO server answers the most events per second on one core?",
        "echo",
        IN_FLIGHT,
        ECHO_16_64,
        "socketio",
    ),
    Family(
        SOCKETIO_COST,
        "The cost of Socket.IO",
        "How much throughput does Socket.IO keep against plain WebSocket on the same server?",
        "echo",
        IN_FLIGHT,
        ECHO_16_64,
        unit="% of WebSocket messages/s",
    ),
    Family(
        DEPLOYMENT_COST,
        "The cost of compression and TLS",
        "What do compression and TLS cost?",
        ANSWER_SET[0],
        IN_FLIGHT,
        ANSWER_SET[1],
        unit="% of tuned messages/s",
    ),
    Family(
        NEWER_PYTHON,
        "Newer Pythons",
        "Does a newer Python make it faster?",
        PYTHON_SETS[0][0],
        IN_FLIGHT,
        PYTHON_SETS[0][1],
        unit=f"% of Python {DEFAULT_PYTHON} messages/s",
    ),
    Family(
        "memory",
        "Memory per connection",
        "Which server holds idle connections in the least memory?",
        "memory",
        CONNECTIONS,
        unit="KiB",
        scale=KIB,
    ),
    Family(
        "fanout",
        "Fan-out",
        "Which server delivers a broadcast to every subscriber soonest (p99)?",
        "broadcast",
        SUBSCRIBERS,
        unit="µs",
        scale=1e-6,
    ),
    Family(
        "many",
        "Many connections",
        "Which server keeps the most round trips going across many connections?",
        "clients",
        CONNECTIONS,
    ),
)
"""The home page's questions, in page order."""
KEPT = Metric(
    "profile_share",
    "share of tuned messages/s kept",
    "%",
    True,
    lambda _sample: None,
)
"""The cost of compression and TLS's figure: a configuration's messages/s in a deployment
profile over its tuned messages/s at the same set (:class:`wsbench.site.deployment_costs.
Cost`), in per cent, with the 99 % interval of Welch's t test over the server processes
(:func:`wsbench.results.stats.compare` at its default
:data:`wsbench.results.stats.COMPARISON_CONFIDENCE`, as the page of the costs shows it)."""
SHARE = Metric(
    "socketio_share",
    "Socket.IO's share of WebSocket messages/s",
    "%",
    True,
    lambda _sample: None,
)
"""The cost of Socket.IO's figure: a Socket.IO configuration's messages/s over its
baseline's, the plain WebSocket app on the same server build, WebSocket backend and event
loop (:attr:`wsbench.site.findings.Pairing.baseline`), in per cent: the ratio of the
geometric means over server processes, with the 95 % interval of Welch's t test over them
(:func:`wsbench.results.stats.compare` at :data:`wsbench.results.stats.CONFIDENCE`, as the
chart's whiskers say; the Findings page gives the test's 99 % interval)."""


@dataclass(frozen=True)
class Answer:
    """One family's answer on one machine.

    Attributes:
        confidence_percent: the confidence level of the chart's whiskers in per cent
            (``"95"``; the cost of compression and TLS: ``"99"``, its ratios' test's).
        family: the question.
        machine: the machine measured.
        params: the parameter set shown.
        chart: every configuration's bar, best first (the reference included).
        sentence: the answer in words (Markdown).
        link: the leaderboard table, relative to the docs dir.
        ranked: the configurations of a leaderboard answer as its chart ranks them, best
            first (the reference left out; empty for the cost of Socket.IO).
        link_text: the link's words ("": "Full leaderboard: " and the scenario's title).
    """

    family: Family
    machine: str
    params: Params
    chart: SweepChart
    sentence: str
    link: str
    ranked: tuple[EnvRun, ...] = ()
    confidence_percent: str = CONFIDENCE_PERCENT
    link_text: str = ""


def _protocol_ok(run: EnvRun, family: Family) -> bool:
    if family.protocol is None:
        return True
    return run.socketio == (family.protocol == "socketio")


def _chosen(family: Family, counts: Mapping[Params, int]) -> Params | None:
    """The parameter set a family shows, of those measured with their number of figures
    (``counts``): the preferred one when measured, else the one with the most figures
    (ties: the later in parameter order, e.g. more connections); None when none was."""
    if not counts:
        return None
    wanted = dict(family.prefer)
    for params in counts:
        found = dict(params)
        if wanted and all(found.get(k) == v for k, v in wanted.items()):
            return params
    return max(counts, key=lambda p: (counts[p], p))


def _value(row: Row, metric: Metric) -> float:
    summary = row.summary(metric)
    return summary.value if summary else 0.0


def _best_first(group: Sequence[tuple[EnvRun, Row]], metric: Metric) -> list[tuple[EnvRun, Row]]:
    sign = -1.0 if metric.higher_is_better else 1.0
    return sorted(group, key=lambda item: sign * _value(item[1], metric))


def _fig(value: float, unit: str) -> str:
    return f"{short_number(value)} {unit}"


def _sentence(family: Family, best: Sequence[tuple[EnvRun, Row]]) -> str:
    """The leader, its figure with its interval, and who is tied with it."""
    ranked = [(run, row) for run, row in best if not run.impl.reference]
    if not ranked:
        return "No configuration was measured here yet."
    order = ranks(ranked)
    leader_run, leader_row = ranked[0]
    summary = leader_row.summary(family.metric)
    assert summary is not None
    text = f"**{cell(row_label(leader_run))}**: {_fig(summary.value / family.scale, family.unit)}"
    if summary.interval:
        low, high = (v / family.scale for v in summary.interval)
        text += (
            f" ({CONFIDENCE_PERCENT} % interval {_fig(low, '').strip()}–{_fig(high, family.unit)})"
        )
    tied = [
        row_label(run) for (run, _), rank in zip(ranked[1:], order[1:], strict=True) if rank == 1
    ]
    if tied:
        names = ", ".join(cell(t) for t in tied[:4]) + (
            f" and {len(tied) - 4} more" if len(tied) > 4 else ""
        )
        text += f"; not significantly different (overlapping intervals): {names}"
    text += f". Of {len(ranked)} configurations measured, {family.metric.better}."
    reference = [row for run, row in best if run.impl.reference]
    found = reference[0].summary(family.metric) if reference else None
    if found:
        text += (
            f" The native reference server (Rust, not drawn: for scale): "
            f"{_fig(found.value / family.scale, family.unit)}."
        )
    return text


def _chart(family: Family, machine: str, params: Params, series: list[Series]) -> SweepChart:
    axis_value = dict(params).get(family.axis.name)
    xs = (float(axis_value),) if isinstance(axis_value, int | float) else ()
    group = tuple((k, v) for k, v in params if k != family.axis.name)
    return SweepChart(
        family.figure, family.scenario, machine, group, xs, tuple(series), "bars", family.axis
    )


def leaderboard_answer(family: Family, results: Results, machine: str) -> Answer | None:
    """``family`` answered from its scenario's leaderboard rows on ``machine`` (ok rows of
    its protocol, measured in the tuned deployment profile; the reference is quoted in the
    sentence, not drawn: its bar would flatten every other); None when none was
    measured."""
    groups: dict[Params, list[tuple[EnvRun, Row]]] = {}
    for run in results.runs:
        if run.machine != machine or not _protocol_ok(run, family):
            continue
        for row in run.rows:
            if not (row.scenario == family.scenario and row.ok and in_tuned(row.params)):
                continue
            if row.summary(family.metric):
                groups.setdefault(row.params, []).append((run, row))
    params = _chosen(family, {p: len(members) for p, members in groups.items()})
    if params is None:
        return None
    flagged = [(run, row) for run, row in groups[params] if checks_fail(row)]
    best = _best_first([m for m in groups[params] if m not in flagged], family.metric)
    series = [
        Series(
            row_label(run),
            run.impl.config,
            run.impl.version,
            run.socketio,
            run.impl.reference,
            (point,),
        )
        for run, row in best
        if not run.impl.reference
        and (point := point_of(family.figure, row, run.run_id, family.axis)) is not None
    ]
    return Answer(
        family,
        machine,
        params,
        _chart(family, machine, params, series),
        _sentence(family, best) + _left_out(flagged),
        table_link(family.scenario, results, machine, params),
        tuple(run for run, _ in best if not run.impl.reference),
    )


def _left_out(flagged: Sequence[tuple[EnvRun, Row]]) -> str:
    """The sentence naming the configurations left out of a ranking for a flagged figure."""
    if not flagged:
        return ""
    names = ", ".join(cell(row_label(run)) for run, _ in flagged)
    return f" Left out, their figures flagged by the checks (see the table): {names}."


def _pair_label(pair: Pairing) -> str:
    """A cost bar's legend: both sides with their versions, then the stack they share once,
    e.g. ``"python-socketio 5.18.1 over Starlette 1.10.0 · uvicorn 0.54 · websockets-sansio ·
    asyncio"``."""
    sio, ws = pair.socketio.impl, pair.websocket
    stack = pair.websocket.label.removeprefix(ws.impl.display_name).removeprefix(" · ")
    sides = f"{sio.display_name} {sio.version or ''}".strip() + " over "
    sides += f"{ws.impl.display_name} {ws.impl.version or ''}".strip()
    return f"{sides} · {stack}" if stack else sides


def _share(pair: Pairing, f: PairFigure) -> tuple[Pairing, float, tuple[float, float] | None, str]:
    """A cost bar: the pair, Socket.IO's share of its baseline's messages/s in per cent
    with its 95 % interval (:data:`SHARE`), and the Socket.IO figure's run id."""
    c = compare(
        f.websocket.groups(MESSAGES),
        f.socketio.groups(MESSAGES),
        higher_is_better=True,
        confidence=CONFIDENCE,
    )
    ci = c.head_over_base_interval
    return (
        pair,
        c.head_over_base * 100,
        (ci[0] * 100, ci[1] * 100) if ci else None,
        f.runs[0].run_id,
    )


def _measured(env: Sequence[EnvRun], scenario: str, params: Params) -> bool:
    """One of the environment's EnvRuns has an ok row of ``scenario`` at ``params``."""
    return any(r.scenario == scenario and r.params == params and r.ok for e in env for r in e.rows)


def _not_compared(
    family: Family,
    results: Results,
    machine: str,
    params: Params,
    findings: Findings,
    shown: set[tuple[str, str]],
) -> str:
    """The sentences naming the Socket.IO configurations measured on ``machine`` at
    ``params`` that have no bar (``shown``: the environments with one), with why: no
    plain WebSocket configuration shares their stack (what none runs on:
    :func:`wsbench.site.findings.unshared`), or their baseline has no figure there; ""
    when every one has a bar."""
    lone = {run.env_id: key for run, key in findings.unpaired}
    baselines = {p.socketio.env_id: p.websocket for p in findings.pairings if p.baseline}
    unpaired, missing = [], []
    for env in by_environment(results.runs):
        run = env[0]
        if run.machine != machine or not run.socketio or run.impl.reference:
            continue
        if run.env_id in shown or not _measured(env, family.scenario, params):
            continue
        name = cell(f"{run.label} {run.impl.version or ''}".strip())
        if run.env_id in lone:
            where = unshared(lone[run.env_id], findings.stacks)
            unpaired.append(f"{name} (none runs on {cell(where)})")
        elif run.env_id in baselines:
            base = baselines[run.env_id]
            against = f"{base.label} {base.impl.version or ''}".strip()
            missing.append(f"{name} (against {cell(against)})")
    text = ""
    if unpaired:
        text += (
            " Not compared, as no plain WebSocket configuration shares their stack: "
            f"{and_list(unpaired)}."
        )
    if missing:
        text += f" Not compared here, their baseline having no figure: {and_list(missing)}."
    return text


def socketio_cost_answer(
    family: Family, results: Results, machine: str, findings: Findings
) -> Answer | None:
    """The cost of Socket.IO on ``machine``: each Socket.IO configuration's messages/s as a
    share of its baseline's (:data:`SHARE`), the plain WebSocket app on exactly its stack
    (the same server build, WebSocket backend and event loop, and the thinnest app there:
    no framework in between; :class:`wsbench.site.findings.Pairing`,
    :func:`wsbench.site.findings.thinness`), at the family's parameter set (else the one
    most pairs measured). The Socket.IO configurations measured there without a bar are
    named with why (no plain WebSocket configuration shares their stack, e.g.
    Flask-SocketIO on eventlet). The reference's own pair is quoted in the sentence, not
    drawn; None without a Python pair."""
    figures: dict[Params, list[tuple[Pairing, PairFigure]]] = {}
    for pair in findings.pairings:
        if pair.machine != machine or not pair.baseline:
            continue
        for f in pair.figures:
            if f.scenario == family.scenario and f.comparison is not None and in_tuned(f.params):
                figures.setdefault(f.params, []).append((pair, f))
    python = {
        p: len(found)
        for p, found in figures.items()
        if any(not pair.socketio.impl.reference for pair, _ in found)
    }
    params = _chosen(family, python)
    if params is None:
        return None
    # One bar per Socket.IO configuration (it has one baseline), best first.
    ranked = sorted((_share(pair, f) for pair, f in figures[params]), key=lambda item: -item[1])
    found = [item for item in ranked if not item[0].socketio.impl.reference]
    reference = [item for item in ranked if item[0].socketio.impl.reference]
    figure = replace(family.figure, metric=SHARE, title=SHARE.label)
    where = family.axis.at(params)
    series = [
        Series(
            _pair_label(pair),
            pair.socketio.impl.config,
            pair.socketio.impl.version,
            True,
            False,
            (
                SweepPoint(
                    float(dict(params).get(family.axis.name, 0)),
                    where,
                    share,
                    "ok",
                    interval=interval,
                    run_id=run_id,
                ),
            ),
        )
        for pair, share, interval, run_id in found
    ]
    low, high = f"{found[-1][1]:.0f}", f"{found[0][1]:.0f}"
    share = low if low == high else f"{low}–{high}"
    count = f"{len(found)} Socket.IO configuration" + ("s" if len(found) > 1 else "")
    bases = dict.fromkeys(
        f"{p.websocket.impl.display_name} {p.websocket.impl.version or ''}".strip()
        for p, *_ in found
    )
    sentence = (
        f"Socket.IO keeps **{share} %** of plain WebSocket's throughput on the same server, "
        f"WebSocket backend and event loop ({count}, {params_title(params)}): every event is "
        "framed twice (Engine.IO and Socket.IO packets) and dispatched to a handler. Each "
        "Socket.IO configuration is compared with the thinnest plain WebSocket app on exactly "
        "its stack (the server at the same version), with no framework in between: here "
        f"{cell(and_list(list(bases)))}."
    )
    shown = {pair.socketio.env_id for pair, *_ in found}
    sentence += _not_compared(family, results, machine, params, findings, shown)
    if reference:
        sentence += (
            f" The native reference server keeps {reference[0][1]:.0f} % with its own "
            "Socket.IO (Rust, not drawn): most of the cost is the Python work per event, "
            "not the protocol."
        )
    chart = _chart(family, machine, params, series)
    chart = replace(chart, figure=figure)
    return Answer(
        family,
        machine,
        params,
        chart,
        sentence,
        table_link(family.scenario, results, machine, params),
    )


def deployment_cost_answer(family: Family, deployment: Deployment, machine: str) -> Answer | None:
    """The cost of compression and TLS on ``machine``: the answer's paragraphs of the What
    your deployment costs page (:func:`wsbench.site.deployment_costs.answer`, the same
    figures), and a bar per Python configuration (in a profile that offers compression,
    those that agreed to it) of its messages/s in the first profile other than tuned that
    was measured (as shipped) as a share of its tuned messages/s at the set the answer
    quotes (:func:`wsbench.site.deployment_costs.headline_set`), with the 99 % interval of
    the ratio's test (:data:`KEPT`), the most kept first; linked to that set's table on the
    page. None when no profile other than tuned was measured."""
    mine = [s for s in deployment.sets if s.machine == machine]
    chosen = next(
        (
            found
            for profile in deployment.measured()
            if (found := headline_set([s for s in mine if s.profile is profile]))
        ),
        None,
    )
    if chosen is None:
        return None
    # Where compression is offered, the configurations that declined it are not drawn: they
    # send uncompressed, and the answer says what they keep.
    kept = [
        (cost, cost.headline.comparison)
        for cost in chosen.compared
        if cost.headline
        and cost.headline.comparison
        and not cost.run.impl.reference
        and not cost.declined
    ]
    kept.sort(key=lambda item: -item[1].head_over_base)
    where = family.axis.at(chosen.params)
    x = float(dict(chosen.params).get(family.axis.name, 0))
    series = []
    for cost, c in kept:
        interval = c.head_over_base_interval
        point = SweepPoint(
            x,
            where,
            c.head_over_base * 100,
            "ok",
            interval=(interval[0] * 100, interval[1] * 100) if interval else None,
            run_id=cost.other_run.run_id,
        )
        run = cost.run
        series.append(
            Series(row_label(run), run.impl.config, run.impl.version, run.socketio, False, (point,))
        )
    figure = replace(family.figure, metric=KEPT, title=f"{chosen.profile.title}: {KEPT.label}")
    chart = replace(_chart(family, machine, chosen.params, series), figure=figure)
    which = "that agreed to compression" if chosen.profile.offers_deflate else ""
    sentence = "\n\n".join(deployment.answer_of(machine)) + (
        f"\n\nEach bar: a Python configuration{' ' if which else ''}{which}, its messages/s "
        f"{chosen.profile.in_text} as a share of its tuned messages/s "
        f"({cell(chosen.title)}), with the {COMPARISON_CONFIDENCE_PERCENT} % interval of the "
        "ratio."
    )
    several = len(deployment.machines) > 1
    return Answer(
        family,
        machine,
        chosen.params,
        chart,
        sentence,
        f"{DEPLOYMENT_PAGE}#{set_anchor(chosen, several)}",
        confidence_percent=COMPARISON_CONFIDENCE_PERCENT,
        link_text=f"Every configuration and set: {DEPLOYMENT_TITLE}",
    )


ON_PYTHON = Metric(
    "python_share",
    f"share of Python {DEFAULT_PYTHON} messages/s",
    "%",
    True,
    lambda _sample: None,
)
"""Newer Pythons' figure: a configuration's messages/s on the newest Python measured over its
messages/s on the default Python (:func:`wsbench.site.python_costs.OnPythons.ratio`), in per
cent, with the 99 % interval of Welch's t test over the server processes."""


def newer_python_answer(family: Family, found: Sequence[OnPythons], machine: str) -> Answer | None:
    """Newer Pythons on ``machine``: a bar per configuration measured on both the newest
    Python (:func:`wsbench.site.python_costs.newest_python`) and the default, of its
    messages/s at the family's set on the newest as a share of the default's (:data:`ON_PYTHON`),
    with the 99 % interval, the largest first; the sentence counts the significant changes
    and names the configurations that ran on the default and not on the newest. None when
    no configuration was measured on another Python."""
    python = newest_python(found, machine)
    if python is None:
        return None
    scenario, params = family.scenario, family.prefer
    metric = headline_metric(scenario)
    bars: list[tuple[OnPythons, OnPython, stats.Comparison]] = []
    failed: list[str] = []
    for o in found:
        on = next((p for p in o.pythons if p.python == python), None)
        if o.machine != machine or o.default is None or on is None:
            continue
        ratio = o.ratio(on, metric, scenario, params)
        if ratio is not None and ratio.comparison is not None:
            bars.append((o, on, ratio.comparison))
        elif ratio is not None and ratio.problem.startswith(NOT_COMPARED_ON):
            failed.append(f"{cell(o.label)} ({cell(short_reason(ratio.problem, REASON_CHARS))})")
    if not bars:
        return None
    bars.sort(key=lambda item: -item[2].head_over_base)
    where = family.axis.at(params)
    x = float(dict(params).get(family.axis.name, 0))
    series = []
    for o, on, c in bars:
        interval = c.head_over_base_interval
        point = SweepPoint(
            x, where, c.head_over_base * 100, "ok",
            interval=(interval[0] * 100, interval[1] * 100) if interval else None,
            run_id=on.run.run_id,
        )  # fmt: skip
        run = on.run
        label = f"{o.label} {run.impl.version or ''}".strip()
        series.append(Series(label, run.impl.config, run.impl.version, run.socketio,
                             run.impl.reference, (point,)))  # fmt: skip
    title = f"Python {python}: {ON_PYTHON.label}"
    figure = replace(family.figure, metric=ON_PYTHON, title=title)
    chart = replace(_chart(family, machine, params, series), figure=figure)
    faster = sum(c.significant and c.head_over_base > 1 for *_, c in bars)
    slower = sum(c.significant and c.head_over_base < 1 for *_, c in bars)
    median = stats.median([c.head_over_base for *_, c in bars])
    configurations = f"{len(bars)} configuration" + ("s" if len(bars) > 1 else "")
    sentence = (
        f"On Python **{python}**, of the {configurations} measured on it and on "
        f"Python {DEFAULT_PYTHON} ({params_title(params)}), **{faster}** answer "
        f"significantly more messages per second, **{slower}** significantly fewer, and "
        f"{len(bars) - faster - slower} no significant change; the median keeps "
        f"**{median * 100:.0f} %** of its Python {DEFAULT_PYTHON} messages/s. Each bar: a "
        f"configuration's latest release, its messages/s on Python {python} as a share of "
        f"its messages/s on Python {DEFAULT_PYTHON}, with the "
        f"{COMPARISON_CONFIDENCE_PERCENT} % interval of the ratio over the server processes."
    )
    if failed:
        sentence += f" Not compared: {and_list(failed)}."
    link_text = "Every configuration by Python version: its framework page"
    return Answer(family, machine, params, chart, sentence, link=INDEX_PAGE, link_text=link_text,
                  confidence_percent=COMPARISON_CONFIDENCE_PERCENT)  # fmt: skip


def answers(
    results: Results, findings: Findings, deployment: Deployment | None = None
) -> list[Answer]:
    """Every family's answer on every machine, in :data:`FAMILIES` order (machines sorted);
    a family with nothing measured is left out. ``findings``: the Socket.IO pairs (the
    cost of Socket.IO); ``deployment``: the costs of the deployment profiles (the cost of
    compression and TLS; default: computed from ``results``)."""
    deployment = deployment_of(results) if deployment is None else deployment
    pythons = on_pythons(results)
    out = []
    for family in FAMILIES:
        for machine in results.machines:
            if family.slug == NEWER_PYTHON:
                found = newer_python_answer(family, pythons, machine)
            elif family.slug == SOCKETIO_COST:
                found = socketio_cost_answer(family, results, machine, findings)
            elif family.slug == DEPLOYMENT_COST:
                found = deployment_cost_answer(family, deployment, machine)
            else:
                found = leaderboard_answer(family, results, machine)
            if found is not None:
                out.append(found)
    return out


def chart_files(answer: Answer, several_machines: bool) -> tuple[str, str]:
    """The SVG and JSON files of an answer's chart, relative to the docs dir, e.g.
    ``("home/websocket.svg", "home/websocket.json")``."""
    machine = f"{safe_name(answer.machine)}-" if several_machines else ""
    stem = f"home/{machine}{answer.family.slug}"
    return f"{stem}.svg", f"{stem}.json"


def _static(chart: SweepChart) -> SweepChart:
    """The best :data:`TOP` bars of ``chart`` (the static chart)."""
    return replace(chart, series=chart.series[:TOP])


def conformance_answers(found: Sequence[Answer], grades: Grades) -> list[dict[str, object]]:
    """Which of the fastest WebSocket servers pass every conformance case: per machine, the
    first :data:`CONFORMANCE_TOP` of :data:`CONFORMANCE_FAMILY`'s answer with their grades
    (:func:`wsbench.site.conformance.fastest_grades`) as ``{"machine", "fastest",
    "table"}``; empty when nothing was graded."""
    if grades.empty:
        return []
    out: list[dict[str, object]] = []
    for answer in found:
        if answer.family.slug != CONFORMANCE_FAMILY or not answer.ranked:
            continue
        fastest = fastest_grades(answer.ranked, grades, HOME_PAGE, CONFORMANCE_TOP)
        rows = table(["", "Configuration", "Version", "Grade"], fastest.rows, "rlll")
        out.append({"machine": answer.machine, "fastest": fastest, "table": rows})
    return out


def render_home(
    results: Results,
    findings: Findings,
    grades: Grades | None = None,
    deployment: Deployment | None = None,
    shared_cpu: SharedCpu | None = None,
) -> dict[str, str | bytes]:
    """The home page (:data:`HOME_PAGE`, from ``templates/index.md.j2``) and its charts'
    files, ``{path relative to the docs dir: Markdown text or SVG/JSON bytes}``;
    ``findings`` gives the Socket.IO pairs (:func:`socketio_cost_answer`), ``grades`` the
    conformance grades (:func:`conformance_answers`; default none), ``deployment`` the
    costs of the deployment profiles (:func:`deployment_cost_answer`; default: computed
    from ``results``), ``shared_cpu`` the configurations whose ``meta.toml`` states busy
    threads (:func:`wsbench.site.shared_cpu.shared_cpu_of`; default none), for how many of
    the shown ones work in one thread (:func:`wsbench.site.shared_cpu.threads_sentence`)."""

    several = len(results.machines) > 1
    files: dict[str, str | bytes] = {}
    shown = []
    found = answers(results, findings, deployment)
    answered = {answer.family.slug for answer in found}
    for answer in found:
        svg, data = chart_files(answer, several)
        files[svg] = render_bars_svg(_static(answer.chart))
        payload = {**chart_data(answer.chart), "title": answer.family.title}
        payload["statistics"] = {
            **TOOLTIP_NUMBERS,
            "confidence_percent": answer.confidence_percent,
        }
        files[data] = (json.dumps(payload, indent=1, ensure_ascii=False) + "\n").encode()
        alt = f"{answer.family.title}: {answer.chart.figure.unit}, {answer.family.metric.better}"
        shown.append(
            {
                "answer": answer,
                "svg": svg,
                "data": data,
                "alt": cell(alt),
                "script": chart_script(payload, results.runs, row_label),
                "where": params_title(answer.params),
                "link_text": answer.link_text
                or f"Full leaderboard: {SCENARIO_TITLES[answer.family.scenario]}",
            }
        )
    files[HOME_PAGE] = templates.render(
        "index.md.j2",
        answers=shown,
        missing=[f.title for f in FAMILIES if f.slug not in answered],
        empty=results.empty,
        several_machines=several,
        leaderboards=[(SCENARIO_TITLES[s], p) for s, p in LEADERBOARD_PAGES.items()],
        client_bound=CLIENT_BOUND_CPU_PERCENT,
        conformance=conformance_answers(found, grades or graded_of(())),
        conformance_page=CONFORMANCE_PAGE,
        conformance_top=CONFORMANCE_TOP,
        conformance_family=CONFORMANCE_FAMILY,
        threads=threads_sentence(results.runs, shared_cpu or {}),
    )
    return files
