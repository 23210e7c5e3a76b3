"""Markdown of the Conformance page and of the case report pages.

The Conformance page (``templates/conformance.md.j2``): one row per configuration at its
newest graded version (:attr:`wsbench.site.conformance.Grades.latest`), one column per case
group with its verdicts counted (:func:`wsbench.results.conformance.counts`), the grade and
when it was graded; under it every case that cost a configuration its ✓, linked to its
report, and the configurations the suite does not apply to or could not grade, with why.

A report page per implementation (``templates/conformance_reports.md.j2``,
:func:`wsbench.site.conformance.report_page`): per graded (configuration, version), its
counts and the suite's report of each case :func:`wsbench.results.conformance.reported`
returns (FAILED, UNIMPLEMENTED outside the groups not offered, NON-STRICT), regenerated from
the document: description, expectation, result, the closing handshake's verdict and result,
the close code and reason the server sent, its opening handshake response and the wire log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from wsbench.results.conformance import GROUPS, PASSING, VERDICTS, counts, group_of, reported
from wsbench.results.runformat import ConformanceCase
from wsbench.site import templates
from wsbench.site.conformance import (
    CONFORMANCE_PAGE,
    Graded,
    Grades,
    counts_cell,
    failing,
    grade_words,
    group_title,
    relative,
    report_page,
    verdict_span,
)
from wsbench.site.frameworks import SOCKETIO
from wsbench.site.markup import DASH, cell, code, first_line, heading, table, tagged
from wsbench.site.sources import date_text

NOT_APPLICABLE_ANCHOR = "not-applicable"
NOT_GRADED_ANCHOR = "not-graded"
FAILED_ANCHOR = "failed-cases"
SOURCE = "wsbench/results/conformance.py"
"""The module whose docstring gives the grading's reasons (linked from the page)."""
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


def suite_text(text: str) -> str:
    """One of the suite's texts (a description, an expectation) for a cell: its ``<br>``
    line breaks kept as breaks, everything else escaped (:func:`wsbench.site.markup.cell`)."""
    lines = [cell(line) for line in _BREAK.split(text)]
    return "<br>".join(line for line in lines if line) or DASH


def fenced(lines: Sequence[str]) -> str:
    """``lines`` as a fenced code block (plain text), its fence longer than any run of
    backticks in them."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n" + "\n".join(lines) + f"\n{fence}\n"


def _in_order(groups: set[str]) -> list[str]:
    """``groups`` in the suite's order (those :data:`wsbench.results.conformance.GROUPS`
    does not name after, by number)."""
    named = [group for group in GROUPS if group in groups]
    return named + sorted(groups - set(GROUPS), key=lambda g: (len(g), g))


def _groups(rows: Sequence[Graded]) -> list[str]:
    """The case groups any of ``rows`` ran, in the suite's order."""
    return _in_order({group_of(c.id) for g in rows for c in g.conformance.cases})


def _not_offered_cell(graded: Graded, run: Sequence[str]) -> str:
    """The groups ``graded`` did not offer (muted, e.g. "12, 13"), those of ``run`` (the
    table's columns) left to their column; a dash for none."""
    groups = _in_order(set(graded.conformance.not_offered) - set(run))
    if not groups or graded.conformance.outcome != "graded":
        return DASH
    return f'<span class="wsbench-grade--none">{cell(", ".join(groups))}</span>'


def _name(graded: Graded, link: str | None) -> str:
    return tagged(graded.label, graded.impl.protocol == SOCKETIO, link)


def _group_cell(graded: Graded, group: str) -> str:
    conformance = graded.conformance
    if conformance.outcome != "graded":
        return DASH
    found = counts(conformance).get(group)
    if found:
        return counts_cell(found)
    if group in conformance.not_offered:
        return '<span class="wsbench-grade--none">not offered</span>'
    return DASH


def _grade_cell(graded: Graded) -> str:
    """The grade in words (:func:`wsbench.site.conformance.grade_words`), linked to why
    when it is not ✓."""
    symbol, words = graded.grade.symbol, cell(grade_words(graded))
    target = {"n/a": NOT_APPLICABLE_ANCHOR, "?": NOT_GRADED_ANCHOR, "⚠": graded.failed_anchor}
    found = f"[{words}](#{target[symbol]})" if symbol in target else words
    kind = {"✓": "pass", "⚠": "warn", "?": "unknown"}.get(symbol, "na")
    return f'<span class="wsbench-grade wsbench-grade--{kind}">{found}</span>'


def _combos(rows: Sequence[Graded]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((g.conformance.suite, g.conformance.route) for g in rows))


def grade_table(grades: Grades) -> str:
    """The Conformance page's table: a row per configuration of :attr:`Grades.latest` (its
    name linked to its case reports), a column per case group any row ran, the groups not
    offered, the grade, and the suite and route when the rows were not all graded alike."""
    rows = list(grades.latest)
    groups = _groups(rows)
    several = len(_combos(rows)) > 1
    headers = ["Configuration", "Version", *(cell(group_title(g)) for g in groups)]
    headers += ["Not offered", "Grade", *(["Suite", "Route"] if several else [])]
    cells = []
    for graded in rows:
        link = relative(graded.report(), CONFORMANCE_PAGE)
        name = f'<span id="{graded.row_anchor}"></span>{_name(graded, link)}'
        suite = [cell(graded.conformance.suite), code(graded.conformance.route)]
        cells.append(
            [
                name,
                cell(graded.version or DASH),
                *(_group_cell(graded, g) for g in groups),
                _not_offered_cell(graded, groups),
                _grade_cell(graded),
                *(suite if several else []),
            ]
        )
    return table(headers, cells)


def suite_sentence(grades: Grades) -> str:
    """When the rows were graded, and by which suite run how when every row was graded
    alike (else the table has columns for them): e.g. "Every row was graded by
    autobahntestsuite 25.10.1, run as `Python 2.7.18 virtualenv`, on 2026-11-22 (UTC)."; ""
    without rows."""
    days = sorted({g.doc.started_at[:10] for g in grades.latest})
    if not days:
        return ""
    when = f"on {days[0]}" if len(days) == 1 else f"between {days[0]} and {days[-1]}"
    combos = _combos(grades.latest)
    if len(combos) != 1:
        return f"The rows were graded {when} (UTC)."
    suite, route = combos[0]
    return f"Every row was graded by {cell(suite)}, run as {code(route)}, {when} (UTC)."


def not_offered_sentence(grades: Grades) -> str:
    """The groups the rows did not run and why, one sentence per reason, e.g. "Groups 12
    (permessage-deflate) and 13 (...) are not run: compression is off in every
    configuration."."""
    reasons: dict[str, list[str]] = {}
    for graded in grades.latest:
        for group, why in graded.conformance.not_offered.items():
            if group not in reasons.setdefault(why, []):
                reasons[why].append(group)
    sentences = []
    for why, groups in reasons.items():
        named = [f"{g} ({GROUPS[g]})" if g in GROUPS else g for g in groups]
        if len(named) > 1:
            listed = "Groups " + ", ".join(named[:-1]) + " and " + named[-1] + " are"
        else:
            listed = f"Group {named[0]} is"
        sentences.append(f"{cell(listed)} not run, as not offered: {cell(why)}.")
    return " ".join(sentences)


def case_line(graded: Graded, case: ConformanceCase, page: str) -> str:
    """A list item naming ``case`` (linked to its report, from ``page``): its group, its
    verdict, its closing handshake's and the start of its description."""
    link = relative(graded.report(case.id), page)
    description = first_line(_BREAK.split(case.description)[0], 120)
    return (
        f"- [Case {cell(case.id)}]({link}) · {cell(group_title(group_of(case.id)))}: "
        f"{verdict_span(case.behavior, case.behavior)} (closing handshake: "
        f"{cell(case.behavior_close)}). {cell(description)}"
    )


LISTED_PER_GROUP = 3
"""A group with more cases that did not pass is one line of case links (a server that skips
UTF-8 validation fails some 75 cases of group 6): their descriptions are in the reports."""


def group_line(graded: Graded, group: str, cases: Sequence[ConformanceCase]) -> str:
    """One list item for many cases of one group: its name, how many, and each case's id
    linked to its report."""
    links = ", ".join(
        f"[{cell(c.id)}]({relative(graded.report(c.id), CONFORMANCE_PAGE)})" for c in cases
    )
    verdicts = sorted({c.behavior for c in cases}, key=VERDICTS.index)
    said = " or ".join(verdict_span(v, v) for v in verdicts)
    return f"- {cell(group_title(group))}: {len(cases)} cases {said}: {links}"


def failed_lists(grades: Grades) -> list[str]:
    """Per row of the Conformance page that lost its ✓, its heading and the cases that cost
    it, as Markdown blocks: each case on a line of its own (:func:`case_line`), or a group's
    cases on one line when there are more than :data:`LISTED_PER_GROUP` (:func:`group_line`)."""
    blocks = []
    for graded in grades.latest:
        cases = failing(graded.conformance) if graded.grade.symbol == "⚠" else []
        if not cases:
            continue
        by_group: dict[str, list[ConformanceCase]] = {}
        for case in cases:
            by_group.setdefault(group_of(case.id), []).append(case)
        items = []
        for group, found in by_group.items():
            if len(found) > LISTED_PER_GROUP:
                items.append(group_line(graded, group, found))
            else:
                items.extend(case_line(graded, c, CONFORMANCE_PAGE) for c in found)
        lines = "\n".join(items)
        blocks.append(
            heading("###", f"{cell(graded.title)}: {cell(graded.grade.text)}", graded.failed_anchor)
            + "\n"
            + lines
            + "\n"
        )
    return blocks


def _reasons(grades: Grades, symbol: str) -> list[str]:
    """The rows graded ``symbol`` (``"n/a"``, ``"?"``) as list items with their reason."""
    return [
        f"- **{_name(g, None)}** {cell(g.version)}: {cell(g.conformance.error or DASH)}"
        for g in grades.latest
        if g.grade.symbol == symbol
    ]


def _passing_words() -> str:
    ordered = [v for v in VERDICTS if v in PASSING]
    return ", ".join(f"**{v}**" for v in ordered[:-1]) + f" or **{ordered[-1]}**"


def render_index(grades: Grades, repo_url: str) -> str:
    """The Conformance page (``templates/conformance.md.j2``); without any conformance
    document, it says how to grade."""
    return templates.render(
        "conformance.md.j2",
        source=f"{repo_url.rstrip('/')}/blob/main/{SOURCE}",
        source_name=SOURCE,
        passing=_passing_words(),
        empty=grades.empty,
        table=grade_table(grades) if not grades.empty else "",
        suite=suite_sentence(grades),
        not_offered=not_offered_sentence(grades),
        failed_anchor=FAILED_ANCHOR,
        failed=failed_lists(grades),
        not_applicable_anchor=NOT_APPLICABLE_ANCHOR,
        not_applicable=_reasons(grades, "n/a"),
        not_graded_anchor=NOT_GRADED_ANCHOR,
        not_graded=_reasons(grades, "?"),
    )


def _close(case: ConformanceCase) -> str:
    if case.remote_close_code is None:
        return "none (the connection was not closed with a close frame)"
    reason = case.remote_close_reason
    text = f"code {case.remote_close_code}"
    return cell(text + (f', reason "{reason}"' if reason else ", no reason"))


def case_report(graded: Graded, case: ConformanceCase) -> str:
    """The suite's report of one case, as Markdown: a heading with the case's anchor
    (:meth:`wsbench.site.conformance.Graded.case_anchor`), a table of its texts and
    verdicts, the opening handshake response and the wire log (each as a code block, when
    the document kept them)."""
    facts = [
        ["Group", cell(group_title(group_of(case.id)))],
        ["Verdict", verdict_span(case.behavior, case.behavior)],
        ["Description", suite_text(case.description)],
        ["Expectation", suite_text(case.expectation)],
        ["Result", suite_text(case.result)],
        [
            "Closing handshake (not graded)",
            f"{cell(case.behavior_close)}: {suite_text(case.result_close)}",
        ],
        ["Server's close frame", _close(case)],
        ["Duration", f"{case.duration_ms:,} ms"],
    ]
    out = [
        heading("###", f"Case {cell(case.id)}: {cell(case.behavior)}", graded.case_anchor(case.id)),
        table(["", ""], facts),
    ]
    response = [line for line in case.http_response.replace("\r\n", "\n").split("\n") if line]
    if response:
        out.append("The server's opening handshake response:\n\n" + fenced(response))
    if case.wirelog:
        lines = "line" if len(case.wirelog) == 1 else "lines"
        out.append(f"Wire log ({len(case.wirelog)} {lines}):\n\n" + fenced(case.wirelog))
    return "\n".join(out)


def _summary(graded: Graded, grades: Grades, page: str) -> str:
    """The section's opening line: the grade, where it is shown, the suite, the run."""
    conformance, doc = graded.conformance, graded.doc
    where = relative(grades.row_link(graded), page)
    shown = f" ([Conformance]({where}))" if grades.on_page(graded) else ""
    return (
        f"{graded.grade.symbol} {cell(graded.grade.text)}{shown}. Graded by "
        f"{cell(conformance.suite)}, run as {code(conformance.route)}, in run {code(doc.run_id)} "
        f"({cell(date_text(doc.started_at) or DASH)}; {conformance.wall_s:,.0f} s)."
    )


def env_section(graded: Graded, grades: Grades) -> str:
    """One graded (configuration, version) on its report page: its heading, its summary,
    its counts per group, the groups not offered and every reported case
    (:func:`case_report`)."""
    page = report_page(graded.impl.name)
    conformance = graded.conformance
    out = [
        heading("##", cell(graded.title), graded.env_anchor),
        _summary(graded, grades, page) + "\n",
    ]
    if conformance.outcome != "graded":
        return "\n".join(out)
    rows = [[cell(group_title(g)), counts_cell(found)] for g, found in counts(conformance).items()]
    rows += [
        [cell(group_title(g)), f"not offered: {cell(why)}"]
        for g, why in conformance.not_offered.items()
    ]
    out.append(table(["Group", "Verdicts"], rows))
    cases = reported(conformance)
    if not cases:
        out.append("No case to report: every case was OK or INFORMATIONAL.\n")
    out += [case_report(graded, case) for case in cases]
    return "\n".join(out)


def render_reports(name: str, grades: Grades, framework_page: str | None) -> str:
    """Implementation ``name``'s report page (``templates/conformance_reports.md.j2``): a
    section per graded environment (:func:`env_section`), by configuration and version;
    ``framework_page`` is its framework page relative to the docs dir, None for none."""
    mine = grades.of_impl(name)
    page = report_page(name)
    return templates.render(
        "conformance_reports.md.j2",
        name=cell(mine[0].impl.display_name) if mine else cell(name),
        conformance=relative(CONFORMANCE_PAGE, page),
        framework=relative(framework_page, page) if framework_page else "",
        sections=[env_section(g, grades) for g in mine],
    )


def render_conformance(
    grades: Grades, repo_url: str, framework_pages: Mapping[str, str]
) -> dict[str, str]:
    """The Conformance page and every graded implementation's report page, ``{path
    relative to the docs dir: Markdown}``; ``framework_pages``: ``{implementation name: its
    page relative to the docs dir}``."""
    pages = {CONFORMANCE_PAGE: render_index(grades, repo_url)}
    for name in sorted({g.impl.name for g in grades.by_env.values()}):
        pages[report_page(name)] = render_reports(name, grades, framework_pages.get(name))
    return pages
