"""New releases that newly fail a conformance case (the nightly), reported like a slower one.

The nightly grades every new release it measures (:mod:`wsbench.jobs.conformance`) and keeps
the listed versions graded. Each new release's grade of a night's run is compared with the
newest grade of the last listed release of the same configuration, from any run (the
results branch's and the night's documents): a case the new release FAILED that the
previous release ran and passed (:func:`wsbench.results.conformance.newly_failed`) is a
regression at once, without a confirmation: the suite's cases are deterministic. A grade of
the previous release made with the new one's suite version is preferred. The report is one
per (framework, release), with a title of its own (:data:`TITLE_PREFIX`: its GitHub issue
is not the speed regression's) and a body naming each case (id, description, the suite's
result text), in every configuration that fails it, and both versions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from wsbench.impls import Impl
from wsbench.results import conformance as grading
from wsbench.results.regressions import Regression, last_listed_before
from wsbench.results.runformat import Conformance, ConformanceCase, Run

TITLE_PREFIX = "Conformance regression:"


def title(display_name: str, release: str) -> str:
    """The issue title for ``release`` of a framework, e.g. ``"Conformance regression:
    websockets 17.5"``."""
    return f"{TITLE_PREFIX} {display_name} {release}"


@dataclass(frozen=True)
class GradeComparison:
    """One new release's grade in one configuration against the last listed release's.

    Attributes:
        impl: the implementation's name.
        release: the new release.
        previous: the last release listed in its ``meta.toml``.
        head: the new release's document (graded in the night's run).
        base: the previous release's newest graded document, or None.
        cases: the cases ``head`` newly fails, in the suite's order.
        problem: why it was not compared (a side not graded), or None; ``cases`` is then
            empty.
    """

    impl: str
    release: str
    previous: str
    head: Run
    base: Run | None
    cases: tuple[ConformanceCase, ...] = ()
    problem: str | None = None

    @property
    def heading(self) -> str:
        """``"<row name>: <previous> → <release>"``."""
        return f"{self.head.impl.row_name}: {self.previous} → {self.release}"


def _conformance(doc: Run) -> Conformance:
    """``doc``'s grade.

    Raises:
        ValueError: ``doc`` has none (not a conformance store's document).
    """
    if doc.conformance is None:
        raise ValueError(f"{doc.run_id} {doc.environment.env_name}: no conformance grade")
    return doc.conformance


def compare_new_grades(
    grades: Sequence[Run], run_id: str, impls: Sequence[Impl]
) -> list[GradeComparison]:
    """Every new release's grade of run ``run_id`` in ``grades`` (documents of conformance
    stores) compared with the last listed release's newest graded document of the same
    configuration in ``grades`` (of any run; one of the new release's suite version first);
    ordered by implementation, release and configuration.
    """
    by_name = {i.name: i for i in impls}
    graded = [d for d in grades if d.conformance is not None]
    out = []
    for new in (d for d in graded if d.run_id == run_id):
        last = last_listed_before(new, by_name)
        if last is None or new.impl.version is None:
            continue
        head = _conformance(new)
        bases = [
            d for d in graded
            if d.impl.name == new.impl.name and d.impl.config == new.impl.config
            and d.impl.version == last and _conformance(d).outcome == "graded"
        ]  # fmt: skip
        base = max(bases, key=lambda d: (_conformance(d).suite == head.suite, d.run_id),
                   default=None)  # fmt: skip
        found = GradeComparison(new.impl.name, new.impl.version, last, new, base)
        if head.outcome != "graded":
            why = grading.grade(head).text
            out.append(replace(found, problem=f"{new.impl.version}: {why}"))
        elif base is None:
            out.append(replace(found, problem=f"{last} has no grade"))
        else:
            cases = grading.newly_failed(_conformance(base), head)
            out.append(replace(found, cases=tuple(cases)))
    return sorted(out, key=lambda c: (c.impl, c.release, c.head.impl.config))


def _cell(text: str) -> str:
    """``text`` as one cell of a Markdown table: on one line, ``|`` escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def to_markdown(c: GradeComparison) -> str:
    """``c``'s newly failed cases as a Markdown table under a heading: case, description,
    both versions' verdicts, the suite's result text of the new release (the heading and
    :attr:`GradeComparison.problem` when it was not compared)."""
    if c.base is None or c.problem:
        return f"#### {c.heading}\n\nnot compared: {c.problem}\n"
    base, head = _conformance(c.base), _conformance(c.head)
    verdicts = {case.id: case.behavior for case in base.cases}
    lines = [
        f"#### {c.heading}",
        "",
        f"{c.previous}: graded in run `{c.base.run_id}` ({base.suite}); "
        f"{c.release}: in run `{c.head.run_id}` ({head.suite}).",
        "",
        f"| case | description | {c.previous} | {c.release} | the suite's result |",
        "|---|---|---|---|---|",
    ]
    for case in c.cases:
        cells = [case.id, case.description, verdicts[case.id], case.behavior, case.result]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def find(comparisons: Sequence[GradeComparison], run_id: str) -> list[Regression]:
    """The regressions among ``comparisons`` (of run ``run_id``): one per (framework,
    release) with a newly failed case in any configuration, the body giving each such
    configuration's table (:func:`to_markdown`)."""
    found: dict[tuple[str, str], list[GradeComparison]] = {}
    for c in comparisons:
        if c.cases:
            found.setdefault((c.impl, c.release), []).append(c)
    out = []
    for (name, release), parts in sorted(found.items()):
        display = parts[0].head.impl.display_name
        previous = parts[0].previous
        head = _conformance(parts[0].head)
        sections = [
            f"The nightly run `{run_id}` on `{parts[0].head.machine.name}` graded "
            f"**{display} {release}**, a release newer than the last one listed in "
            f"`impls/{name}/meta.toml` ({previous}), installed with that version's pins, "
            f"with the Autobahn|Testsuite ({head.suite}, {head.route}). It fails cases "
            f"that {previous} passed (the suite's verdicts are deterministic: no "
            "confirmation run):",
            "",
            *(to_markdown(c) for c in parts),
        ]
        out.append(Regression(impl=name, release=release, previous=previous,
                              title=title(display, release), body="\n".join(sections)))  # fmt: skip
    return out
