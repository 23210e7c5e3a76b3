"""Conformance grades as the site shows them: which document grades which row, where its
grade and its case reports are, and the grade beside a configuration's name.

The documents are the conformance store's (:func:`wsbench.results.store.conformance_store`,
written by ``./bench conformance``); of each environment the newest graded one
(:func:`wsbench.results.conformance.latest_by_env`). A row of a leaderboard is graded by the
document of its environment (:attr:`wsbench.results.runformat.Environment.env_name`: the same
implementation, configuration and version), so a grade always belongs to the version shown
beside it. The grading itself (what passes, the symbol, the counts) is
:mod:`wsbench.results.conformance`'s; this module only places and words it.

Pages: the Conformance page (:data:`CONFORMANCE_PAGE`, a row per configuration at its newest
graded version) and one page of case reports per implementation (:func:`report_page`, a
section per graded (configuration, version) and one per reported case), built by
:mod:`wsbench.site.conformance_page`.
"""

from __future__ import annotations

import html
import logging
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from wsbench.results.conformance import (
    GROUPS,
    VERDICTS,
    Grade,
    failed,
    failed_groups,
    grade,
    group_of,
    latest_by_env,
    unimplemented,
)
from wsbench.results.runformat import Conformance, ConformanceCase, Run
from wsbench.results.store import Store
from wsbench.site.markup import cell
from wsbench.site.results import EnvRun, OfDocument, natural_key

log = logging.getLogger("mkdocs.plugins.wsbench.site")
"""Under ``mkdocs.``: a warning here fails ``mkdocs build --strict``."""

CONFORMANCE_PAGE = "conformance/index.md"
"""The Conformance page, relative to the docs dir."""
REPORTS_DIR = "conformance/reports"
"""The folder of the case report pages (``not_in_nav`` in mkdocs.yml: they are reached
from the grades that link to them)."""
WORST_FIRST = tuple(reversed(VERDICTS))
"""The suite's verdicts, worst first: the order of a cell's counts."""


def report_page(impl_name: str) -> str:
    """The case reports of implementation ``impl_name``, relative to the docs dir:
    ``"conformance/reports/<name>.md"``."""
    return f"{REPORTS_DIR}/{impl_name}.md"


def slug(text: str) -> str:
    """``text`` as an anchor id: lower case, every run of other characters than ASCII
    letters and digits a hyphen (``"websockets-uvloop 1.10.0"`` ->
    ``"websockets-uvloop-1-10-0"``; dots are kept apart, unlike
    :func:`wsbench.site.markup.anchor`, so 1.10.0 and 11.0.0 differ)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def relative(target: str, page: str) -> str:
    """``target`` (a page relative to the docs dir, with an optional ``#anchor``) as a link
    from ``page`` (relative to the docs dir too): ``relative("conformance/index.md#x",
    "leaderboards/echo.md")`` -> ``"../conformance/index.md#x"``."""
    path, _, fragment = target.partition("#")
    found = posixpath.relpath(path, posixpath.dirname(page) or ".")
    return f"{found}#{fragment}" if fragment else found


@dataclass(frozen=True)
class Graded(OfDocument):
    """One environment's newest conformance document and its grade.

    Attributes:
        doc: the run document (its ``conformance`` is set).
        grade: :func:`wsbench.results.conformance.grade` of it.
    """

    doc: Run
    grade: Grade

    @property
    def conformance(self) -> Conformance:
        """The document's grade by the suite."""
        assert self.doc.conformance is not None
        return self.doc.conformance

    @property
    def env_anchor(self) -> str:
        """The id of its section on its report page: its configuration and version."""
        return slug(f"{self.impl.config} {self.version}")

    @property
    def row_anchor(self) -> str:
        """The id of its configuration's row on the Conformance page."""
        return "row-" + slug(f"{self.impl.name} {self.impl.config}")

    @property
    def failed_anchor(self) -> str:
        """The id of its list of failed cases on the Conformance page."""
        return "failed-" + slug(f"{self.impl.name} {self.impl.config}")

    def case_anchor(self, case_id: str) -> str:
        """The id of case ``case_id``'s report on its report page."""
        return slug(f"{self.impl.config} {self.version} case {case_id}")

    def report(self, case_id: str | None = None) -> str:
        """Its section on its report page (or case ``case_id``'s report there), relative
        to the docs dir."""
        anchor = self.env_anchor if case_id is None else self.case_anchor(case_id)
        return f"{report_page(self.impl.name)}#{anchor}"


def _sort_key(graded: Graded) -> tuple[object, ...]:
    """Leaderboard order: the reference first, then display name, row name and version."""
    return (
        not graded.impl.reference,
        graded.impl.display_name.lower(),
        natural_key(graded.label),
        natural_key(graded.version),
    )


@dataclass(frozen=True)
class Grades:
    """Every environment's grade the site shows.

    Attributes:
        by_env: ``{asv environment name: its newest graded document}``.
        latest: of each (implementation, configuration), the newest graded version (the
            Conformance page's rows), in leaderboard order (the reference first).
    """

    by_env: Mapping[str, Graded]
    latest: tuple[Graded, ...]

    @property
    def empty(self) -> bool:
        """True when the store holds no conformance document (nothing was graded yet)."""
        return not self.by_env

    def of(self, env_name: str) -> Graded | None:
        """The grade of environment ``env_name``, None when it was not graded."""
        return self.by_env.get(env_name)

    def on_page(self, graded: Graded) -> bool:
        """``graded`` is a row of the Conformance page (its configuration's newest)."""
        return any(g.doc is graded.doc for g in self.latest)

    def of_impl(self, name: str) -> list[Graded]:
        """Implementation ``name``'s graded environments, by configuration then version
        (oldest first, by their numbers)."""
        mine = [g for g in self.by_env.values() if g.impl.name == name]
        return sorted(mine, key=lambda g: (g.impl.config, natural_key(g.version)))

    def row_link(self, graded: Graded) -> str:
        """Where its grade is shown, relative to the docs dir: its row on the Conformance
        page when it is one, else its section on its report page (an older version)."""
        return (
            f"{CONFORMANCE_PAGE}#{graded.row_anchor}" if self.on_page(graded) else graded.report()
        )

    def failed_link(self, graded: Graded) -> str:
        """Where its failed cases are listed, relative to the docs dir: its list on the
        Conformance page when it is a row of it, else its section on its report page."""
        if self.on_page(graded):
            return f"{CONFORMANCE_PAGE}#{graded.failed_anchor}"
        return graded.report()


def graded_of(docs: Iterable[Run]) -> Grades:
    """The grades of conformance documents ``docs`` (the newest graded one of each
    environment; of each configuration, its newest version as :attr:`Grades.latest`)."""
    by_env = {
        env: Graded(doc, grade(doc.conformance))
        for env, doc in latest_by_env(list(docs)).items()
        if doc.conformance is not None
    }
    newest: dict[tuple[str, str], Graded] = {}
    for graded in by_env.values():
        key = (graded.impl.name, graded.impl.config)
        known = newest.get(key)
        if known is None or natural_key(graded.version) > natural_key(known.version):
            newest[key] = graded
    return Grades(by_env, tuple(sorted(newest.values(), key=_sort_key)))


def grades_of(store: Store) -> Grades:
    """The grades of a loaded conformance store (:func:`graded_of` of its documents); each
    of its :attr:`~wsbench.results.store.Store.problems` is a warning on the ``mkdocs``
    logger (which fails a ``--strict`` build), as for the results store."""
    for problem in store.problems:
        log.warning("wsbench site: skipping a file of the conformance store: %s", problem)
    return graded_of(store.runs)


def group_title(group: str) -> str:
    """A case group with what it tests, e.g. ``"6 UTF-8"`` (the number alone for a group
    :data:`wsbench.results.conformance.GROUPS` does not name)."""
    name = GROUPS.get(group)
    return f"{group} {name}" if name else group


def verdict_span(verdict: str, text: str) -> str:
    """``text`` (escaped) coloured as ``verdict`` is (the stylesheet's
    ``wsbench-verdict--<verdict>`` classes; the words say the verdict without colour)."""
    return f'<span class="wsbench-verdict wsbench-verdict--{slug(verdict)}">{cell(text)}</span>'


def counts_cell(found: Mapping[str, int]) -> str:
    """A group's verdict counts for a cell, worst first, e.g. ``"1 failed · 15 ok"``; a
    verdict the suite added since (not in :data:`wsbench.results.conformance.VERDICTS`)
    after them; a dash for none."""
    order = [v for v in WORST_FIRST if found.get(v)] + sorted(
        v for v in found if v not in WORST_FIRST and found[v]
    )
    if not order:
        return "—"
    # The separator ends its verdict's span, so that a narrow cell breaks after it.
    last = len(order) - 1
    return " ".join(
        verdict_span(v, f"{found[v]} {v.lower()}" + ("" if i == last else " ·"))
        for i, v in enumerate(order)
    )


def failing(conformance: Conformance) -> list[ConformanceCase]:
    """The cases that cost the grade its ✓: FAILED, then UNIMPLEMENTED outside the groups
    not offered, each in the suite's order."""
    return failed(conformance) + unimplemented(conformance)


def grade_words(graded: Graded) -> str:
    """The grade's symbol in words for a cell: ``"✓"``, ``"⚠ 2 failed"``,
    ``"⚠ 3 unimplemented"``, ``"n/a"``, ``"? not graded"``."""
    found = graded.grade
    if found.symbol == "⚠":
        if found.failed:
            return f"⚠ {found.failed} failed"
        return f"⚠ {found.unimplemented} unimplemented"
    if found.symbol == "?":
        return "? not graded"
    return found.symbol


NOT_GRADED = '<span class="wsbench-grade wsbench-grade--none">not graded</span>'
"""Beside a row the conformance store has no document of (once it has some)."""


def grade_badge(graded: Graded | None, grades: Grades, page: str) -> str:
    """The grade beside a row's name on ``page`` (relative to the docs dir): ✓ linked to its
    row on the Conformance page, ⚠ with its number of failed (else unimplemented) cases
    linked to their list, a muted n/a (its reason as a tooltip) for a configuration the
    suite does not apply to, "? not graded" linked to why the grade failed,
    :data:`NOT_GRADED` for an environment with no document; "" when the store has no
    conformance document at all."""
    if grades.empty:
        return ""
    if graded is None:
        return NOT_GRADED
    found = graded.grade
    tip = html.escape(found.text, quote=True)
    if found.symbol == "n/a":
        return f'<span class="wsbench-grade wsbench-grade--na" title="{tip}">n/a</span>'
    if found.symbol == "⚠":
        target, kind = grades.failed_link(graded), "warn"
    elif found.symbol == "✓":
        target, kind = grades.row_link(graded), "pass"
    else:
        target, kind = graded.report(), "unknown"
    words = grade_words(graded)
    return (
        f'<span class="wsbench-grade wsbench-grade--{kind}">'
        f'[{words}]({relative(target, page)} "RFC 6455: {tip}")</span>'
    )


def run_badge(run: EnvRun, grades: Grades, page: str) -> str:
    """:func:`grade_badge` of a shown row (``run``'s environment), with the space that
    separates it from the name; "" when there is nothing to show."""
    badge = grade_badge(grades.of(run.env_name), grades, page)
    return f" {badge}" if badge else ""


@dataclass(frozen=True)
class Fastest:
    """The grades of the fastest configurations of a ranking.

    Attributes:
        sentence: the answer, in one sentence (Markdown).
        rows: per configuration, best first: ``(position, row name, version, grade
            badge)`` as Markdown cells.
    """

    sentence: str
    rows: tuple[tuple[str, str, str, str], ...]


def fastest_grades(ranked: Sequence[EnvRun], grades: Grades, page: str, top: int) -> Fastest:
    """How the first ``top`` of ``ranked`` (configurations best first) are graded, on
    ``page``: e.g. "3 of the 5 fastest pass every case; Starlette · … 1.10.0 fails 2
    (UTF-8, close); websockets · asyncio 14.2 is not graded." (the groups of the failed
    cases as :data:`wsbench.results.conformance.GROUPS` names them), and, when the fastest
    does not pass every case, the fastest of the whole ranking that does."""
    first = list(ranked[:top])
    passing, notes = 0, []
    rows = []
    for i, run in enumerate(first, 1):
        graded = grades.of(run.env_name)
        name = f"{run.label} {run.impl.version or ''}".strip()
        rows.append(
            (
                str(i),
                cell(run.label),
                cell(run.impl.version or "—"),
                grade_badge(graded, grades, page),
            )
        )
        if graded is None:
            notes.append(f"{cell(name)} is not graded")
        elif graded.grade.conformant:
            passing += 1
        elif graded.grade.symbol == "⚠":
            notes.append(_fails(name, graded))
        else:
            notes.append(f"{cell(name)}: {cell(graded.grade.text)}")
    several = len(first) != 1
    lead = f"the {len(first)} fastest" if several else "the fastest"
    verb = "pass" if passing != 1 else "passes"
    sentence = f"**{passing} of {lead}** {verb} every case of the suite"
    if passing == len(first):
        sentence = (
            f"**All of {lead}** pass every case of the suite"
            if several
            else ("**The fastest** passes every case of the suite")
        )
    sentence += "".join(f"; {note}" for note in notes) + "."
    first_grade = grades.of(first[0].env_name) if first else None
    if first_grade is None or not first_grade.grade.conformant:
        sentence += _fastest_conformant(ranked, grades)
    return Fastest(sentence, tuple(rows))


def _fastest_conformant(ranked: Sequence[EnvRun], grades: Grades) -> str:
    """`` The fastest that passes every case: **NAME VERSION** (Nth).`` from the whole
    ranking ``ranked``, or that none of those graded does."""
    for i, run in enumerate(ranked, 1):
        graded = grades.of(run.env_name)
        if graded is not None and graded.grade.conformant:
            name = cell(f"{run.label} {run.impl.version or ''}".strip())
            return f" The fastest that passes every case: **{name}** ({_ordinal(i)})."
    return " None of the ranked configurations that were graded passes every case."


def _ordinal(n: int) -> str:
    """``1`` -> ``"1st"``, ``12`` -> ``"12th"``, ``23`` -> ``"23rd"``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _fails(name: str, graded: Graded) -> str:
    """``"<name> fails 2 (UTF-8, close)"``, or ``"... leaves 3 unimplemented (...)"``."""
    found, conformance = graded.grade, graded.conformance
    if found.failed:
        groups = ", ".join(GROUPS.get(g, g) for g in failed_groups(conformance))
        return f"{cell(name)} fails {found.failed} ({cell(groups)})"
    found_groups = dict.fromkeys(group_of(c.id) for c in unimplemented(conformance))
    groups = ", ".join(GROUPS.get(g, g) for g in found_groups)
    return f"{cell(name)} leaves {found.unimplemented} unimplemented ({cell(groups)})"
