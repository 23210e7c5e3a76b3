"""Markdown of the What your deployment costs page (:mod:`wsbench.site.deployment_costs` in
words and tables).

The answer first (:func:`wsbench.site.deployment_costs.answer`, per machine); then per
machine, profile other than tuned and profiled set, a table with one row per configuration
(its latest release): the tuned headline figure for scale (with its 95 % interval), each
figure's ratio to tuned with the 99 % interval of Welch's t test over the server processes
(:func:`wsbench.site.findings_page.ratio_text`, bold where significant), and in a profile
that offers compression what the server agreed to and the compression ratio; sorted most
costly first (:func:`wsbench.site.deployment_costs.cost_order`), the configurations not
compared listed under it with why; last, what each configuration's ``meta.toml`` states of
compression as shipped and of TLS. The page's outline and prose are the template
``templates/deployment.md.j2``.
"""

# The page's typography (multiplication sign and en dash) is as published.
# ruff: noqa: RUF002

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wsbench.deployment import MULTI_SERVER_CPUS_ENV, PROFILES, TUNED
from wsbench.results.metrics import Metric
from wsbench.scenarios import SPECS
from wsbench.site import templates
from wsbench.site.deployment_costs import (
    FIGURE_WORDS,
    Cost,
    CostSet,
    Deployment,
    agreed_words,
    figures_of,
    profiled_sets,
)
from wsbench.site.interactive import COSTS_TABLE, rows_script
from wsbench.site.markup import (
    DASH,
    PROFILE_SEPARATOR,
    TIMES,
    anchor,
    and_list,
    cell,
    folded,
    heading,
    params_title,
    profile_changes,
    ratio_text,
    spread,
    table,
    tagged,
)
from wsbench.site.render import NO_RESULTS, SCENARIO_TITLES, table_link
from wsbench.site.results import EnvRun, Results
from wsbench.site.rows import headline_of
from wsbench.site.sources import source_line

DEPLOYMENT_PAGE = "deployment.md"
"""The page, relative to the docs dir (at its root: links from it need no prefix)."""
TITLE = "What your deployment costs"
RUNS_PAGE = "environment.md"
"""The Runs and environment page, relative to this page."""
DECLINED = "declined: uncompressed"
"""The Agreed cell of a server that declined the offer of compression."""
MISMATCH = "⚠"
"""Marks an agreement that differs from what the configuration's ``meta.toml`` states."""


def figure_words(metric: Metric) -> str:
    """A figure's name in a column header, e.g. ``"Messages/s"``, ``"p99 latency"``."""
    found = FIGURE_WORDS.get(metric.name)
    return found[0] if found else metric.label.capitalize()


def configuration(run: EnvRun, pages: Mapping[str, str]) -> str:
    """A configuration and its version for a cell, linked to its framework page, bold for
    the reference, tagged for Socket.IO."""
    name = tagged(run.label, run.socketio, pages.get(run.impl.name))
    text = f"{name} {cell(run.impl.version or '')}".strip()
    return f"**{text}**" if run.impl.reference else text


def ratio_cell(cost: Cost, metric: Metric) -> str:
    """``metric``'s ratio to tuned with its 99 % interval, bold where significant; a dash
    where it has none."""
    found = next((r for r in cost.ratios if r.metric is metric), None)
    if found is None or found.comparison is None:
        return DASH
    text = ratio_text(found.comparison)
    return f"**{text}**" if found.comparison.significant else text


def agreed_cell(cost: Cost) -> str:
    """What the server agreed to (:func:`wsbench.site.deployment_costs.agreed_words`, each
    distinct agreement once), :data:`DECLINED`, or a dash where no window says; with
    :data:`MISMATCH` where it differs from what its ``meta.toml`` states."""
    if cost.declined:
        text = DECLINED
    elif cost.agreed:
        text = "; ".join(cell(agreed_words(a)) for a in cost.agreed)
    else:
        text = DASH
    return f"{text} {MISMATCH}" if cost.mismatch else text


def compression_cell(cost: Cost) -> str:
    """The compression ratio (payload over wire bytes), e.g. ``"3.0×"``; a dash when no
    window recorded it."""
    return DASH if cost.compression is None else f"{cost.compression:.1f}{TIMES}"


def headers(cost_set: CostSet) -> tuple[list[str], str]:
    """A set's table headers and alignment letters: the configuration, each figure's ratio
    to tuned (the answer first, in view on a phone), the tuned headline figure for scale,
    and in a profile that offers compression what its metadata states, what was agreed and
    the compression ratio."""
    metrics = figures_of(cost_set.scenario)
    deflate = cost_set.profile.offers_deflate
    names = ["Configuration", *(f"{figure_words(m)} ÷ tuned" for m in metrics)]
    names.append(f"{figure_words(metrics[0])}, tuned")
    names += ["Stated", "Agreed", "Compression"] if deflate else []
    align = "l" + "r" * (len(metrics) + 1) + ("llr" if deflate else "")
    return names, align


def cost_row(cost: Cost, pages: Mapping[str, str]) -> list[str]:
    """One compared configuration's cells, in :func:`headers`' order."""
    metrics = figures_of(cost.scenario)
    head = metrics[0]
    words = FIGURE_WORDS.get(head.name, ("", ",.2f", 1.0))
    assert cost.tuned is not None
    cells = [configuration(cost.run, pages), *(ratio_cell(cost, m) for m in metrics)]
    cells.append(spread(cost.tuned.summary(head), words[1], words[2]))
    if cost.profile.offers_deflate:
        cells += [cost.stated or DASH, agreed_cell(cost), compression_cell(cost)]
    return cells


def not_compared(costs: Sequence[Cost]) -> str:
    """The configurations of a set that have no ratio, with why (a failure, a flagged
    figure, no tuned figure), as a sentence; "" when every one has one."""
    lone = [
        f"{cell(c.run.label)} {cell(c.run.impl.version or '')} ({cell(c.problem)})"
        for c in costs
        if not c.compared
    ]
    return f"Not compared: {and_list(lone)}.\n" if lone else ""


def set_anchor(cost_set: CostSet, several_machines: bool) -> str:
    """The id of a set's table, e.g. ``"echo-1024-b-messages-the-json-corpus-64-in-flight-
    per-connection-as-shipped"`` (the machine's name first when there are several)."""
    machine = f"{cost_set.machine} " if several_machines else ""
    return anchor(f"{machine}{cost_set.title} {cost_set.profile.title}")


def set_section(cost_set: CostSet, results: Results, pages: Mapping[str, str], level: str) -> str:
    """One set's heading (its title and profile), its leaderboard tables linked, its
    table of ratios with the rows' facets (the filter bar, :mod:`wsbench.site.interactive`),
    the configurations not compared and where the figures come from."""
    several = len(results.machines) > 1
    compared = cost_set.compared
    title = f"{cell(cost_set.title)}{PROFILE_SEPARATOR}{cost_set.profile.title} against tuned"
    out = [heading(level, title, set_anchor(cost_set, several))]
    tuned = table_link(cost_set.scenario, results, cost_set.machine, cost_set.params)
    params = tuple(cost_set.costs[0].other.params)
    other = table_link(cost_set.scenario, results, cost_set.machine, params)
    board = SCENARIO_TITLES.get(cost_set.scenario, cost_set.scenario)
    out.append(
        f"Leaderboard tables: [{TUNED.in_text}]({tuned}) · "
        f"[{cost_set.profile.in_text}]({other}) ({cell(board)}).\n"
    )
    if compared:
        names, align = headers(cost_set)
        out.append(table(names, (cost_row(c, pages) for c in compared), align))
        out.append(rows_script([c.run for c in compared], COSTS_TABLE))
    out.append(not_compared(cost_set.costs))
    runs = {id(run): run for c in cost_set.costs for run in c.runs}
    out.append(source_line(runs.values(), RUNS_PAGE))
    return "\n".join(part for part in out if part)


def statements_table(runs: Sequence[EnvRun], pages: Mapping[str, str]) -> str:
    """What each configuration's ``meta.toml`` states of compression as shipped, of TLS and
    of worker processes (:attr:`wsbench.results.runformat.ImplInfo.shipped_compression`,
    ``tls``, ``workers``), each folded behind its gist (:func:`wsbench.site.markup.folded`),
    one row per configuration's latest release, by name; "" when none states any."""
    stated = [r for r in runs if r.impl.shipped_compression or r.impl.tls or r.impl.workers]
    if not stated:
        return ""
    # Each statement folds behind its gist: at 40 to 80 words a cell, the table was wider
    # than the page.
    rows = [
        [
            configuration(run, pages),
            folded(run.impl.shipped_compression) or DASH,
            folded(run.impl.tls) or DASH,
            folded(run.impl.workers) or DASH,
        ]
        for run in stated
    ]
    headers = ["Configuration", "Compression as shipped", "TLS", "Worker processes"]
    return table(headers, rows, "llll")


def not_measured() -> str:
    """Which sets the full grid measures in which profiles, for a page without costs."""
    sets = "".join(
        f"    - {cell(SCENARIO_TITLES[s])}: {cell(params_title(p))}\n"
        for s, p in profiled_sets()
        if s in SPECS
    )
    single = and_list([p.title for p in PROFILES if p is not TUNED and not p.multi_cpu])
    multi = and_list([p.title for p in PROFILES if p.multi_cpu])
    return (
        '!!! note "Not measured in the shown runs"\n\n'
        "    No shown run measured a set in a deployment profile other than tuned. The full "
        f"grid (`./bench run --grid full`, the nightly) measures these in the {single} "
        f"profiles as well as in Tuned, and in {multi} on a runner that gives the server "
        f"two CPUs or more (`{MULTI_SERVER_CPUS_ENV}`, `./bench system layout`):\n\n{sets}"
    )


def render_deployment(
    deployment: Deployment, results: Results, pages: Mapping[str, str] | None = None
) -> str:
    """The page (:data:`DEPLOYMENT_PAGE`) from ``deployment`` (:func:`wsbench.site.
    deployment_costs.deployment_of` of ``results``, the same figures the home page quotes);
    ``pages``: ``{implementation name: its framework page}`` relative to the docs dir."""
    pages = pages or {}
    several = len(deployment.machines) > 1
    level = "###" if several else "##"
    machines = []
    for machine in deployment.machines:
        sets = [s for s in deployment.sets if s.machine == machine]
        machines.append(
            {
                "name": machine,
                "answer": deployment.answer_of(machine),
                "sections": [set_section(s, results, pages, level) for s in sets],
            }
        )
    heads = {headline_of(s) for s, _ in profiled_sets()}
    higher = sorted({h.unit for h in heads if h.higher_is_better})
    lower = sorted({h.label for h in heads if not h.higher_is_better})
    return templates.render(
        "deployment.md.j2",
        title=TITLE,
        empty=results.empty,
        no_results=NO_RESULTS,
        not_measured="" if not deployment.empty or results.empty else not_measured(),
        several_machines=several,
        machines=machines,
        profiles=[(p.title, profile_changes(p)) for p in PROFILES],
        higher=and_list(higher),
        lower=and_list(lower),
        declined=DECLINED,
        mismatch=MISMATCH,
        times=TIMES,
        statements=statements_table(deployment.statements, pages),
    )
