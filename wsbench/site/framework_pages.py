"""Markdown (and chart SVGs) of the Frameworks index and of one page per framework.

``frameworks/index.md`` lists every implementation; ``frameworks/<name>.md`` shows one:
its metadata and implementation folder, configurations, version matrix, deviations, the
headline figures of its shown results per (configuration, version) as a table (each over
the server processes, with its 95 % interval) and as charts against the version (with
whiskers and the significant changes between consecutive releases), every failure with its
reason, and the headline figures of every run of the store night by night
(:mod:`wsbench.site.history`: charts with the harness changes and untuned runs marked, and
a table of the latest runs). Units: MB =
10^6 bytes, MiB = 2^20 bytes, µs = 10^-6 s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wsbench.results.conformance import newly_failed
from wsbench.results.count_sets import SETS
from wsbench.scenarios import params_key
from wsbench.site import python_page, templates
from wsbench.site.charts import night_labels, render_history_svg, render_svg, render_sweep_svg
from wsbench.site.conformance import (
    CONFORMANCE_PAGE,
    Graded,
    Grades,
    failing,
    grade_badge,
    graded_of,
    relative,
)
from wsbench.site.counts import count_legend, count_text
from wsbench.site.environment import RAW_RESULTS_ANCHOR
from wsbench.site.frameworks import SOCKETIO, Framework
from wsbench.site.headline import HEADLINES, Chart, Headline, chart, chart_data
from wsbench.site.history import (
    History,
    HistoryChart,
    HistoryPoint,
    Night,
    change_notes,
    history_chart,
    history_chart_data,
)
from wsbench.site.interactive import CHART_CLASS, json_script
from wsbench.site.markup import (
    CONFIDENCE_PERCENT,
    DASH,
    EN_DASH,
    NOWRAP,
    SOCKETIO_TAG,
    UNSTABLE,
    UNSTABLE_LEGEND,
    anchor,
    cell,
    code,
    first_line,
    heading,
    link,
    params_title,
    safe_name,
    short_set_title,
    spread,
    table,
    tagged,
)
from wsbench.site.profiles import Profiles
from wsbench.site.profiles_page import profiles_fact
from wsbench.site.profiles_page import render_section as profiles_section
from wsbench.site.python_costs import on_pythons
from wsbench.site.render import SCENARIO_TITLES, chart_block
from wsbench.site.render import unflagged as render_unflagged
from wsbench.site.results import EnvRun, Results, by_environment, natural_key
from wsbench.site.shared_cpu import framework_note
from wsbench.site.sources import date_text, source_line
from wsbench.site.sweeps import (
    FRAMEWORK_CLIENTS_FIGURES,
    X_PARAM,
    chart_json,
    group_slug,
    memory_headline,
    sweep_charts,
)

INDEX_PAGE = "frameworks/index.md"
"""The Frameworks index (URL ``frameworks/``)."""

PROTOCOL_NAMES = {"websocket": "WebSocket", SOCKETIO: "(v5, Engine.IO v4 over WebSocket)"}
SOCKETIO_WHY = (
    "**Socket.IO** (v5 over Engine.IO v4, WebSocket transport only): each message is an "
    "event with Socket.IO's own framing and per-event work, so those figures are not "
    "directly comparable with plain WebSocket servers. A message's size is that of the "
    "event's argument. See [Methodology](../methodology.md#socketio-servers).\n"
)


def page_path(name: str) -> str:
    """The generated page of framework ``name``, relative to the docs dir."""
    return f"frameworks/{name}.md"


def chart_path(name: str, slug: str, machine: str | None = None) -> str:
    """A chart SVG of framework ``name`` (one per machine when there are several)."""
    stem = f"{safe_name(machine)}-{slug}" if machine else slug
    return f"frameworks/{name}/{stem}.svg"


def chart_anchor(slug: str, machine: str | None = None) -> str:
    """The id of the heading of headline ``slug``'s chart on a framework page (prefixed with
    the machine's name when the page has a chart per machine, as :func:`chart_path`)."""
    return anchor(f"{machine} {slug}") if machine else slug


def chart_link(name: str, slug: str, machine: str | None = None) -> str:
    """The chart of headline ``slug`` on framework ``name``'s page, as a link relative to
    the docs dir, e.g. ``"frameworks/starlette.md#echo-throughput-16b"``."""
    return f"{page_path(name)}#{chart_anchor(slug, machine)}"


FAILURES_ANCHOR = "failures"
"""The id of a framework page's Failures section (present when it has results)."""


def protocol_cell(protocol: str, detail: bool = True) -> str:
    """The protocol's name; Socket.IO as its tag, followed by its version if ``detail``."""
    if protocol != SOCKETIO:
        return cell(PROTOCOL_NAMES.get(protocol, protocol))
    return f"{SOCKETIO_TAG} {cell(PROTOCOL_NAMES[SOCKETIO])}" if detail else SOCKETIO_TAG


def _protocols(framework: Framework) -> list[str]:
    return list(dict.fromkeys(c.protocol for c in framework.configs))


@dataclass(frozen=True)
class FrameworkPage:
    """One framework's generated files.

    Attributes:
        markdown: the page.
        charts: ``{path relative to the docs dir: SVG bytes}``.
    """

    markdown: str
    charts: dict[str, bytes]


RUNS_PAGE = "../environment.md"
"""The Runs and environment page, relative to a framework page."""


def _runs(framework: Framework, results: Results) -> list[EnvRun]:
    return [r for r in results.runs if r.impl.name == framework.name]


def framework_machines(framework: Framework, results: Results) -> list[str]:
    """The machines ``framework`` has shown results on, sorted (its page has a section per
    machine when there are several)."""
    return sorted({r.machine for r in _runs(framework, results)})


def chart_machine(machines: Sequence[str], machine: str) -> str | None:
    """The ``machine`` argument of :func:`chart_path` and :func:`chart_anchor` for a
    framework with results on ``machines``: ``machine`` when there are several, else None."""
    return machine if len(machines) > 1 else None


def _measured_versions(framework: Framework, runs: Sequence[EnvRun]) -> list[str]:
    order = [v.version for v in framework.versions]
    found = {r.impl.version for r in runs if r.impl.version}
    return [v for v in order if v in found] + sorted(found - set(order))


def render_index(frameworks: Sequence[Framework], results: Results) -> str:
    """The Frameworks index (``templates/frameworks.md.j2``): one row per implementation,
    linking to its page."""
    rows = []
    for f in frameworks:
        runs = _runs(f, results)
        name = link(f.display_name, f"{f.name}.md")
        if f.reference:
            name += " (reference)"
        rows.append(
            [
                name,
                ", ".join(protocol_cell(p, detail=False) for p in _protocols(f)),
                cell(f.package or DASH),
                cell(", ".join(dict.fromkeys(c.server for c in f.configs))),
                cell(", ".join(dict.fromkeys(c.event_loop for c in f.configs))),
                str(len(f.configs)),
                cell(", ".join(v.version for v in f.versions) or DASH),
                cell(", ".join(_measured_versions(f, runs)) or DASH),
            ]
        )
    headers = [
        "Framework",
        "Protocol",
        "Package",
        "Server",
        "Event loop",
        "Configurations",
        "Versions (oldest first)",
        "Measured",
    ]
    return templates.render(
        "frameworks.md.j2",
        socketio_tag=SOCKETIO_TAG,
        table=table(headers, rows, align="lllllrll") if rows else "",
    )


def _facts(framework: Framework, runs: Sequence[EnvRun], repo_url: str, profiled: str = "") -> str:
    f = framework
    pypi = f"https://pypi.org/project/{f.package}/" if f.package else None
    base = repo_url.rstrip("/")
    facts = [
        ["Name", code(f.name)],
        ["Package", link(f.package, pypi) if f.package else DASH],
        ["Server", cell(", ".join(dict.fromkeys(c.server for c in f.configs)))],
        ["Event loop", cell(", ".join(dict.fromkeys(c.event_loop for c in f.configs)))],
        ["Protocol", ", ".join(protocol_cell(p) for p in _protocols(f))],
        ["Homepage", link(f.homepage, f.homepage) if f.homepage else DASH],
        ["Implementation", f"[impls/{cell(f.name)}]({base}/tree/main/impls/{f.name})"],
        ["Measured version(s)", cell(", ".join(_measured_versions(f, runs)) or DASH)],
    ]
    if profiled:
        facts.append(["Where the time goes", profiled])
    return table(["", ""], facts)


def _configurations(framework: Framework) -> str:
    rows = [
        [
            NOWRAP.format(code(c.id)),
            tagged(c.row_name, c.protocol == SOCKETIO),
            cell(c.server),
            cell(c.ws_backend or DASH),
            cell(c.event_loop),
            cell(", ".join(c.requires) or DASH),
            cell(", ".join(c.versions) or DASH),
        ]
        for c in framework.configs
    ]
    headers = [
        "Id",
        "Row name",
        "Server",
        "WebSocket backend",
        "Event loop",
        "Extra pins",
        "Versions",
    ]
    intro = (
        "Each configuration is one row per version wherever results are shown; a row's "
        "name adds the server's version where the version matrix pins it.\n"
    )
    threads = framework_note(framework.impl)
    return (
        "## Configurations\n\n"
        + intro
        + "\n"
        + table(headers, rows)
        + ("\n" + threads if threads else "")
    )


def _matrix(framework: Framework) -> str:
    rows = [
        [
            cell(v.version),
            cell(", ".join(v.requires) or DASH),
            cell(", ".join(c.id for c in framework.configs if v.version in c.versions) or DASH),
            cell("; ".join(v.notes) or DASH),
        ]
        for v in framework.versions
    ]
    return (
        "## Version matrix\n\nOldest first; the last is the default. Each configuration "
        "adds its own extra pins.\n\n"
        + table(["Version", "Also installed", "Configurations", "Notes"], rows)
    )


def _deviations(framework: Framework) -> str:
    rows = [[cell(k.replace("_", " ")), cell(v)] for k, v in framework.deviations.items()]
    return "## Deviations\n\nFairness settings as applied.\n\n" + table(
        ["Setting", "As applied"], rows
    )


def _row_label(run: EnvRun) -> str:
    return tagged(run.label, run.socketio)


def figure_format(headline: Headline) -> str:
    """How a table cell formats ``headline`` in its unit: one decimal for µs, KiB, MiB and
    MB/s, none for messages/s."""
    return ",.1f" if headline.unit in ("µs", "KiB", "MiB", "MB/s") else ",.0f"


def flags_client_bound(headline: Headline, client_bound: bool) -> bool:
    """A figure of ``headline`` measured ``client_bound`` is flagged ⚠ (never the server's
    memory, which the load generator cannot limit)."""
    return client_bound and headline.metric.name != "server_rss_bytes"


def run_order(framework: Framework) -> Callable[[EnvRun], tuple[int, str, int, str]]:
    """A sort key of ``framework``'s runs: configuration, then version, in ``meta.toml``
    order (unlisted ones after, by name)."""
    order = {v.version: i for i, v in enumerate(framework.versions)}
    configs = [c.id for c in framework.configs]

    def key(run: EnvRun) -> tuple[int, str, int, str]:
        config = run.impl.config
        pos = configs.index(config) if config in configs else len(configs)
        version = run.impl.version or ""
        return (pos, config or "", order.get(version, len(order)), version)

    return key


LAST_MEASURED = "Last measured"
"""The results table's column: the start of the newest run that measured the row, and its
id."""


def _results_table(framework: Framework, runs: Sequence[EnvRun]) -> str:
    """One row per environment (configuration, version), its figures from whichever of its
    EnvRuns has them, and when and in which run it was last measured (:data:`LAST_MEASURED`:
    the newest of its runs); the line under it names every run."""
    rows = []
    for env in by_environment(sorted(runs, key=run_order(framework))):
        run = env[0]
        figures = []
        for headline in HEADLINES:
            row = next((r for e in env for r in e.rows if headline.matches(r)), None)
            if row is None:
                figures.append(DASH)
            elif not row.ok:
                figures.append(f"[{row.status}](#{FAILURES_ANCHOR})")
            else:
                text = spread(headline.summary(row), figure_format(headline), headline.scale)
                figures.append(
                    text + (" ⚠" if flags_client_bound(headline, row.client_bound) else "")
                )
        newest = max(env, key=lambda e: e.run_id)
        last = f"{date_text(newest.doc.started_at) or DASH}, run {code(newest.run_id)}"
        rows.append([_row_label(run), cell(run.impl.version or DASH), *figures, last])
    headers = ["Row", "Version"] + [h.column for h in HEADLINES] + [LAST_MEASURED]
    return (
        table(headers, rows, align="ll" + "r" * len(HEADLINES) + "l")
        + "\n"
        + source_line(runs, RUNS_PAGE)
    )


COUNTS_TITLE = "Instructions per message by version"
COUNTS_INTRO = (
    "The server's instructions per message in each counted parameter set, one row per "
    "(configuration, version), from the newest shown run that counted it; the nightly counts "
    "each new release as it measures it, so older versions fill in as releases appear. "
)


def _counts_table(framework: Framework, runs: Sequence[EnvRun], level: str) -> str:
    """The :data:`COUNTS_TITLE` section: one row per environment with counts, one column
    per counted set (in :data:`wsbench.results.count_sets.SETS` order); "" when no shown run of
    ``runs`` counted instructions."""
    envs = by_environment(sorted(runs, key=run_order(framework)))
    counted = [env for env in envs if any(e.doc.instructions for e in env)]
    if not counted:
        return ""
    found = {
        (s.scenario, params_key(s.params))
        for env in counted
        for e in env
        for s in e.doc.instructions
    }
    sets = [s for s in SETS if (s.scenario, params_key(s.params)) in found]
    rows = []
    for env in counted:
        newest = sorted(env, key=lambda e: e.run_id, reverse=True)
        cells = []
        for wanted in sets:
            got = next(
                (
                    s
                    for e in newest
                    for s in e.doc.instructions
                    if s.scenario == wanted.scenario and s.params == wanted.params
                ),
                None,
            )
            cells.append(count_text(got))
        rows.append([_row_label(env[0]), cell(env[0].impl.version or DASH), *cells])
    headers = ["Row", "Version", *(short_set_title(s.scenario, s.params) for s in sets)]
    return (
        heading(level, COUNTS_TITLE, anchor(COUNTS_TITLE))
        + COUNTS_INTRO
        + count_legend("../methodology.md")
        + "\n\n"
        + table(headers, rows, align="ll" + "r" * len(sets))
    )


CHANGES_TITLE = "Significant changes between consecutive releases"


def _changes(c: Chart) -> str:
    """The chart's significant release-to-release changes as a list ("" when none)."""
    if not c.changes:
        return ""
    several = len(c.lines) > 1
    items = [
        f"{code(line.label) + ' ' if several else ''}{cell(change.base)} → "
        f"{cell(change.head)}: **{change.percent}** (p = {change.p_value})"
        for line, change in c.changes
    ]
    return f"{CHANGES_TITLE}: " + "; ".join(items) + ".\n"


def _chart_notes(c: Chart) -> str:
    notes = [
        f"- ✕ {code(line.label)} at {cell(point.version)}: "
        f"{cell(first_line(point.error or point.status))} ([full reason](#{FAILURES_ANCHOR}))"
        for line, point in c.failed
    ]
    if any(p.client_bound for line in c.lines for p in line.points):
        notes.append("- A hollow marker is ⚠ client-bound: the load generator may have limited it.")
    return "\n".join(notes) + "\n" if notes else ""


def _by_version(
    framework: Framework,
    runs: Sequence[EnvRun],
    headline: Headline,
    where: str | None,
    level: str,
    files: dict[str, bytes],
) -> list[str]:
    """One figure by version: its heading, its chart (the SVG and its JSON data added to
    ``files`` under their paths, the data also in the page for the interactive chart,
    :func:`wsbench.site.headline.chart_data`), its significant changes and its notes, as
    Markdown parts. With one version measured, a sentence says the chart compares that
    version's configurations (the interactive chart draws them as bars)."""
    c = chart(framework, runs, headline)
    path = chart_path(framework.name, headline.slug, where)
    data_path = path.removesuffix(".svg") + ".json"
    x_label = f"{framework.package or framework.name} version (oldest first)"
    files[path] = render_svg(c, x_label)
    title = f"{headline.title} ({headline.unit}, {headline.better})"
    data = chart_data(c, title, x_label, runs)
    files[data_path] = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    one = (
        f"One version measured in the shown runs ({cell(c.versions[0])}): this chart compares "
        "its configurations; the nightly's version matrix adds the others.\n"
        if len(c.versions) == 1
        else ""
    )
    return [
        heading(level, title, chart_anchor(headline.slug, where)),
        one,
        f"![{cell(title + ' by version')}]({path.removeprefix('frameworks/')})\n",
        json_script(CHART_CLASS, data)
        + f"Data of this chart: [JSON]({data_path.removeprefix('frameworks/')}).\n",
        _changes(c),
        _chart_notes(c),
    ]


def _charts(
    framework: Framework, runs: Sequence[EnvRun], machine: str | None, level: str
) -> tuple[str, dict[str, bytes]]:
    out: list[str] = []
    files: dict[str, bytes] = {}
    for headline in HEADLINES:
        out += _by_version(framework, runs, headline, machine, level, files)
    return "\n".join(out), files


MANY_ANCHOR = "many-connections"
"""The id of a framework page's Many connections by version section."""


def _version_label(framework: Framework, runs: Sequence[EnvRun]) -> Callable[[EnvRun], str]:
    """A series' legend text on a framework page: the version, prefixed with the
    configuration when the runs have several."""
    several = len({r.impl.config for r in runs}) > 1

    def label(run: EnvRun) -> str:
        version = run.impl.version or DASH
        return f"{run.impl.config} {version}" if several else version

    return label


def memory_counts(runs: Sequence[EnvRun]) -> list[int]:
    """The numbers of idle connections ``runs`` measured memory per connection at."""
    return sorted(
        {
            n
            for run in runs
            for row in run.rows
            if row.scenario == "memory" and (n := dict(row.params).get(X_PARAM)) is not None
        }
    )


def _many_machine(
    framework: Framework, runs: Sequence[EnvRun], where: str | None, level: str
) -> tuple[str, dict[str, bytes]]:
    """One machine's part of the Many connections section ("" when it has no such
    figures)."""
    ordered = sorted(runs, key=run_order(framework))
    label = _version_label(framework, ordered)
    clients = sweep_charts("clients", ordered, FRAMEWORK_CLIENTS_FIGURES, label)
    counts = memory_counts(ordered)
    out: list[str] = []
    files: dict[str, bytes] = {}
    name = framework.name
    for c in clients:
        slug = f"clients-{group_slug(c.group)}-{c.figure.slug}"
        svg = chart_path(name, slug, where)
        data = svg.removesuffix(".svg") + ".json"
        files[svg] = render_sweep_svg(c)
        files[data] = chart_json(c)
        f = c.figure
        title = f"{SCENARIO_TITLES['clients']}: {c.title[0].lower()}{c.title[1:]}"
        out.append(heading(level, f"{title} ({f.unit}, {f.better})", chart_anchor(slug, where)))
        rel = (path.removeprefix("frameworks/") for path in (svg, data))
        out.append(chart_block(c, next(rel), next(rel)))
    unflagged = [render_unflagged(run) for run in ordered]  # no flagged figure drawn
    for count in counts:
        out += _by_version(framework, unflagged, memory_headline(count), where, level, files)
    return "\n".join(out), files


def _many_connections(
    framework: Framework, runs: Sequence[EnvRun], machines: Sequence[str]
) -> tuple[str, dict[str, bytes]]:
    """The Many connections by version section of ``framework``'s page: per machine, the
    Concurrent clients figures (throughput and round-trip p99) against the number of
    connections, one line per version (and configuration), and memory per connection
    against the version per number of idle connections; ("", {}) when the shown runs have
    none of these figures."""
    parts: list[tuple[str, str]] = []
    files: dict[str, bytes] = {}
    for machine in machines:
        where = chart_machine(machines, machine)
        mine = [r for r in runs if r.machine == machine]
        text, charts = _many_machine(framework, mine, where, "####" if where else "###")
        if text:
            parts.append((machine, text))
            files.update(charts)
    if not parts:
        return "", {}
    out = [
        heading("##", "Many connections by version", MANY_ANCHOR),
        "The figures of the many-connection scenarios by version: "
        f"[{SCENARIO_TITLES['clients']}](../leaderboards/clients.md) (throughput and "
        "round-trip p99 against the number of connections, one line per version, on log "
        "scales; each chart's data as JSON under it) and "
        f"[{SCENARIO_TITLES['memory']}](../leaderboards/memory.md) (against the version, "
        "one line per configuration, with the significant changes between consecutive "
        "releases). Each point comes from several fresh server processes: the geometric "
        "mean of the processes' values, each the geometric mean of its measurement windows; "
        f"whiskers from its {CONFIDENCE_PERCENT} % interval.\n",
    ]
    for machine, text in parts:
        if len(machines) > 1:
            out.append(heading("###", f"Machine `{machine}`", anchor(f"many {machine}")))
        out.append(text)
    return "\n".join(out), files


def _failures(framework: Framework, runs: Sequence[EnvRun], machines: int) -> str:
    out = [heading("##", "Failures", FAILURES_ANCHOR)]
    blocks = []
    for env in by_environment(runs):
        run = env[0]
        shown = [r for e in env for r in e.rows]
        failed = [r for r in shown if not r.ok]
        if not failed:
            continue
        by_error: dict[str, list[str]] = {}
        for row in failed:
            by_error.setdefault(row.error or row.status, []).append(
                f"{row.scenario} {params_title(row.params)}"
            )
        where = f" on `{run.machine}`" if machines > 1 else ""
        for error, places in by_error.items():
            scope = "every measurement" if len(places) == len(shown) else "; ".join(places)
            head = f"**{_row_label(run)}**, version {cell(run.impl.version or DASH)}{where}"
            body = "\n".join("    " + line for line in error.splitlines() or [error])
            blocks.append(f"{head} ({cell(scope)}):\n\n{body}\n")
    if not blocks:
        out.append("None in the shown results.\n")
    else:
        out.append(
            "Every measurement of the shown results that did not produce a figure, with its "
            "reason (a version that did not install says so).\n"
        )
        out += blocks
    return "\n".join(out)


NIGHTS_ANCHOR = "night-by-night"
"""The id of a framework page's Night by night section."""
NIGHTS_TABLE_RUNS = 10
"""The table under each night-by-night chart lists the figures of this many latest runs
(the chart shows every run)."""
NIGHTS_ONE_RUN = (
    "Every configuration has figures from only one run so far: this section charts each "
    "headline figure night by night once a configuration has figures from two runs on the "
    "same machine.\n"
)


def night_chart_path(name: str, slug: str, machine: str | None = None) -> str:
    """The night-by-night chart SVG of headline ``slug`` of framework ``name`` (per
    machine when there are several, as :func:`chart_path`)."""
    return chart_path(name, f"night-{slug}", machine)


def night_anchor(slug: str, machine: str | None = None) -> str:
    """The id of the heading of headline ``slug``'s night-by-night chart."""
    return chart_anchor(f"night-{slug}", machine)


def _nights_intro() -> str:
    return (
        "Every run of the results store, not only the shown comparison group: each headline "
        "figure of each (configuration, version) night by night, oldest first. A point is "
        "the figure of one run over its server processes (the geometric mean of the "
        "processes' values, each the geometric mean of its usable windows) with its "
        f"{CONFIDENCE_PERCENT} % interval (the whiskers). One line "
        "per configuration and version: the same version measured on several nights shows "
        "how much the runner drifts. A **dashed line** marks a run whose harness (its "
        "code), load generator build or settings differ from the run before it, and the "
        "lines break there. The "
        "figures on its two sides are not comparable and are not compared here: a step at "
        "a dashed line is the harness's doing, not the framework's. A **grey band** marks a "
        "run on a machine that was not tuned (`./bench system check`): its figures drift "
        "and spread more. Under each chart, the figures of the last "
        f"{NIGHTS_TABLE_RUNS} runs; every run's figures are in its "
        f"[downloads]({RUNS_PAGE}#{RAW_RESULTS_ANCHOR}).\n"
    )


def _night_label(night: Night) -> str:
    return f"{code(night.run_id)} ({cell(date_text(night.started_at) or night.date)})"


def _night_notes(c: HistoryChart) -> str:
    """What changed at each dashed line, and the untuned runs (shared by the charts of one
    framework on one machine)."""
    notes = [
        f"- Dashed line before {_night_label(night)}: "
        + cell("; ".join(change_notes(c.nights[i - 1], night)))
        + "."
        for i, night in enumerate(c.nights)
        if c.changes[i]
    ]
    if c.untuned:
        runs = ", ".join(_night_label(n) for n in c.untuned)
        notes.append(f"- Grey band, the machine was **not tuned**: {runs}.")
    return "\n".join(notes) + "\n" if notes else ""


def _tuned_cell(night: Night) -> str:
    return {True: "yes", False: "**no**", None: "not recorded"}[night.tuned]


def _history_cell(headline: Headline, point: HistoryPoint) -> str:
    fmt = figure_format(headline)
    text = (UNSTABLE if point.unstable else "") + format(point.value, fmt)
    if point.interval is not None:
        low, high = (format(v, fmt) for v in point.interval)
        text += " " + NOWRAP.format(f"({low}{EN_DASH}{high})")
    return text + (" ⚠" if flags_client_bound(headline, point.client_bound) else "")


def _history_table(c: HistoryChart) -> str:
    """The figures of the last :data:`NIGHTS_TABLE_RUNS` runs of ``c``, oldest first."""
    last = {n.key() for n in c.nights[-NIGHTS_TABLE_RUNS:]}
    several = len({line.series.config for line in c.lines}) > 1
    found: list[tuple[tuple[object, ...], list[str]]] = []
    for order, line in enumerate(c.lines):
        for point in line.series.points:
            night = point.night
            if night.key() not in last:
                continue
            since = point.since
            note = "; ".join(change_notes(since, night)) if since and point.changes else ""
            row = [
                code(night.run_id),
                cell(date_text(night.started_at) or night.date),
                cell(night.commit),
                *([code(line.series.config)] if several else []),
                cell(line.series.version or DASH),
                _history_cell(c.headline, point),
                _tuned_cell(night),
                cell(note) or DASH,
            ]
            found.append(((night.key(), order), row))
    headers = [
        "Run",
        "Date",
        "Harness",
        *(["Configuration"] if several else []),
        "Version",
        c.headline.column,
        "Tuned",
        "Changed since its previous run",
    ]
    align = "lll" + ("l" if several else "") + "lrll"
    rows = [row for _, row in sorted(found, key=lambda item: item[0])]
    return table(headers, rows, align=align)


def _nights(framework: Framework, history: History) -> tuple[str, dict[str, bytes]]:
    """The Night by night section of ``framework``'s page and its chart SVGs."""
    out = [heading("##", "Night by night", NIGHTS_ANCHOR)]
    files: dict[str, bytes] = {}
    name = framework.name
    machines = history.machines(name)
    configs = {
        m: sorted({s.config for s in history.of(name, m)}, key=natural_key) for m in machines
    }
    repeated = {m: [c for c in configs[m] if history.runs(name, c, m) > 1] for m in machines}
    if not any(repeated.values()):
        out.append(NIGHTS_ONE_RUN if machines else "No run has measured this framework yet.\n")
        return "\n".join(out), files
    out.append(_nights_intro())
    level = "####" if len(machines) > 1 else "###"
    for machine in machines:
        where = chart_machine(machines, machine)
        if len(machines) > 1:
            out.append(heading("###", f"Machine `{machine}`", anchor(f"night {machine}")))
        if not repeated[machine]:
            out.append(NIGHTS_ONE_RUN)
            continue
        once = [c for c in configs[machine] if c not in repeated[machine]]
        if once:
            listed = ", ".join(code(c) for c in once)
            out.append(f"Figures from only one run so far: {listed}.\n")
        charts = [history_chart(framework, history, machine, h) for h in HEADLINES]
        facets = {
            c.id: {
                "socketio": c.protocol == SOCKETIO,
                "reference": framework.reference,
                "server": c.server,
                "event_loop": c.event_loop,
            }
            for c in framework.configs
        }
        out.append(_night_notes(charts[0]))
        for c in charts:
            h = c.headline
            path = night_chart_path(name, h.slug, where)
            files[path] = render_history_svg(c)
            rel = path.removeprefix("frameworks/")
            title = f"{h.title} ({h.unit}, {h.better}), night by night"
            data = history_chart_data(c, night_labels(c.nights), title, facets)
            files[path.removesuffix(".svg") + ".json"] = (
                json.dumps(data, indent=1, ensure_ascii=False) + "\n"
            ).encode()
            out.append(heading(level, title, night_anchor(h.slug, where)))
            out.append(f"![{cell(title)}]({rel})\n")
            out.append(
                json_script(CHART_CLASS, data)
                + f"Data of this chart: [JSON]({rel.removesuffix('.svg')}.json).\n"
            )
            out.append(_history_table(c))
    return "\n".join(out), files


CONFORMANCE_ANCHOR = "conformance-by-version"
"""The id of a framework page's Conformance by version section."""


def _conformance(framework: Framework, grades: Grades) -> str:
    """The Conformance by version section: per graded (configuration, version), its grade
    (linked where it is shown) and the cases that cost its ✓, each linked to its report and
    marked *new* when the configuration's previous graded version passed it
    (:func:`wsbench.results.conformance.newly_failed`); "" when the store has no
    conformance document at all."""
    if grades.empty:
        return ""
    page = page_path(framework.name)
    out = [heading("##", "Conformance by version", CONFORMANCE_ANCHOR)]
    mine = grades.of_impl(framework.name)
    if not mine:
        out.append("Not graded yet: the conformance store has no document of this framework.\n")
        return "\n".join(out)
    rows = []
    previous: dict[str, Graded] = {}
    for graded in mine:
        before = previous.get(graded.impl.config)
        new = (
            {c.id for c in newly_failed(before.conformance, graded.conformance)}
            if before
            else set()
        )
        cases = [
            f"[{cell(c.id)}]({relative(graded.report(c.id), page)})"
            + (" *new*" if c.id in new else "")
            for c in failing(graded.conformance)
        ]
        rows.append(
            [
                _row_label_of(graded),
                cell(graded.version or DASH),
                grade_badge(graded, grades, page),
                cell(graded.grade.text),
                ", ".join(cases) or DASH,
            ]
        )
        if graded.conformance.outcome == "graded":
            previous[graded.impl.config] = graded
    out.append(
        f"The [Autobahn|Testsuite]({relative(CONFORMANCE_PAGE, page)})'s grade of each graded "
        "configuration and version, oldest first; each case links to the suite's report of it. "
        "*new*: the configuration's previous graded version passed that case.\n"
    )
    out.append(table(["Row", "Version", "Grade", "Summary", "Failed or unimplemented"], rows))
    return "\n".join(out)


def _row_label_of(graded: Graded) -> str:
    return tagged(graded.label, graded.impl.protocol == SOCKETIO)


def render_page(
    framework: Framework,
    results: Results,
    repo_url: str,
    history: History,
    grades: Grades | None = None,
    profiles: Profiles | None = None,
) -> FrameworkPage:
    """The page of ``framework`` and its chart SVGs.

    Args:
        framework: from :func:`wsbench.site.frameworks.load_frameworks`.
        results: the current comparison group of every machine (the framework's rows
            are used).
        repo_url: the repository's web address; the implementation link goes to
            ``{repo_url}/tree/main/impls/<name>``.
        history: every run's headline figures (:func:`wsbench.site.history.history_of` of
            the whole store), for the Night by night section.
        grades: the conformance grades, for the Conformance by version section (default
            none: no section).
        profiles: the CPU profiles, for the Where the time goes section
            (:mod:`wsbench.site.profiles_page`; default none, and a framework without a
            profile: no section).
    """
    f = framework
    runs = _runs(f, results)
    machines = framework_machines(f, results)
    pythons = [o for o in on_pythons(results) if o.pythons[0].run.impl.name == f.name]
    files: dict[str, bytes] = {}
    sections = []
    for machine in machines:
        level = "####" if len(machines) > 1 else "###"
        mine = [r for r in runs if r.machine == machine]
        charts = ""
        if f.package:
            charts, chart_files = _charts(f, mine, chart_machine(machines, machine), level)
            files.update(chart_files)
        sections.append(
            {
                "heading": f"### Machine `{machine}`\n" if len(machines) > 1 else "",
                "table": _results_table(f, mine),
                "counts": _counts_table(f, mine, level),
                "pythons": python_page.section(pythons, f.name, machine, level),
                "charts": charts,
            }
        )
    many = ""
    if f.package:
        many, many_charts = _many_connections(f, runs, machines)
        files.update(many_charts)
    nights, night_charts = _nights(f, history)
    files.update(night_charts)
    profiled, flame_files = profiles_section(f, profiles or Profiles(()))
    files.update(flame_files)
    protocols = {c.protocol == SOCKETIO for c in f.configs}
    markdown = templates.render(
        "framework.md.j2",
        name=cell(f.display_name),
        protocol="socketio"
        if protocols == {True}
        else "some-socketio"
        if True in protocols
        else "",
        socketio_why=SOCKETIO_WHY,
        reference=f.reference,
        facts=_facts(f, runs, repo_url, profiles_fact(f, profiles or Profiles(()))),
        configurations=_configurations(f),
        has_results=bool(runs),
        unstable_legend=UNSTABLE_LEGEND,
        machines=sections,
        many_connections=many,
        conformance=_conformance(f, grades or graded_of(())),
        profiles=profiled,
        failures=_failures(f, runs, len(machines)) if runs else "",
        nights=nights,
        matrix=_matrix(f) if f.versions else "",
        deviations=_deviations(f) if f.deviations else "",
    )
    return FrameworkPage(markdown, files)
