"""New releases that are significantly slower than the previous release (the nightly).

In one run, each new release's document (a version its implementation's ``meta.toml``
does not list yet, :mod:`wsbench.jobs.releases`) is compared with the document of the last
listed version of the same configuration (:func:`wsbench.results.compare.compare_runs`). A release
with a *slower* verdict on any wall-clock figure is a candidate; it is measured again,
interleaved (:mod:`wsbench.ci.confirm`), and a figure slower in both is a regression. A set
whose instructions per message rose significantly
(:func:`wsbench.results.instruction_verdicts.compare_counts`, when both releases were counted) is a
regression at once: the counts are deterministic, so measuring again would give the same
verdict. Either gives one report per (framework, release): a title that stays the same from
night to night (the GitHub issue is found again by it) and a Markdown body with the
comparisons of every such configuration.

Each configuration of a report says first what differs between the two releases'
environments besides the framework (:func:`environments`): a slower release whose
transitive dependencies or interpreter also changed says which.

A new release that newly fails a conformance case is reported the same way, by
:mod:`wsbench.results.conformance_regressions`.

Where the night profiled both releases at a slowed set (:mod:`wsbench.ci.nightly_profiles`),
the report shows under the tables the functions whose share of the samples grew most
(:func:`differentials`, :mod:`wsbench.results.profile_diff`), naming both profiles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from wsbench.impls import Impl
from wsbench.results import compare, env_diff, instruction_verdicts, profile_diff
from wsbench.results.env_diff import PairDiff
from wsbench.results.instruction_verdicts import CountLine
from wsbench.results.profile_diff import Differential
from wsbench.results.runformat import Run

TITLE_PREFIX = "Benchmark regression:"


@dataclass(frozen=True)
class Regression:
    """One new release with at least one significantly slower figure.

    Attributes:
        impl: the implementation's name.
        release: the new release.
        previous: the release it was compared with (the last listed one).
        title: the issue's title (see :func:`title`).
        body: the issue's Markdown: the run, then one comparison table per configuration.
    """

    impl: str
    release: str
    previous: str
    title: str
    body: str


def title(display_name: str, release: str) -> str:
    """The issue title for ``release`` of a framework, e.g. ``"Benchmark regression:
    websockets 17.5"``."""
    return f"{TITLE_PREFIX} {display_name} {release}"


@dataclass(frozen=True)
class ReleaseComparison:
    """One new release of one configuration against the last listed release, in one run.

    Attributes:
        impl: the implementation's name.
        release: the new release.
        previous: the last release listed in its ``meta.toml``.
        base: the previous release's document.
        head: the new release's document.
        lines: the comparison, figure by figure (:func:`wsbench.results.compare.compare_runs`).
        counts: the instruction counts' comparison, set by set
            (:func:`wsbench.results.instruction_verdicts.compare_counts`); empty when either
            release was not counted.
        problem: why it was not compared (the previous release not measured in the run,
            or not comparable), or None; ``lines`` is then empty.
    """

    impl: str
    release: str
    previous: str
    head: Run
    base: Run | None
    lines: tuple[compare.Line, ...] = ()
    counts: tuple[CountLine, ...] = ()
    problem: str | None = None

    @property
    def heading(self) -> str:
        """``"<row name>: <previous> → <release>"``."""
        return f"{self.head.impl.row_name}: {self.previous} → {self.release}"

    @property
    def slower(self) -> bool:
        """True when at least one wall-clock figure is significantly slower."""
        return any(line.verdict == "slower" for line in self.lines)

    @property
    def more_instructions(self) -> bool:
        """True when at least one set's instructions per message rose significantly (a
        regression without confirmation: the counts are deterministic)."""
        return any(line.verdict == "slower" for line in self.counts)


def last_listed_before(doc: Run, impls: Mapping[str, Impl]) -> str | None:
    """The last version ``doc``'s implementation lists (``impls``: by name) when ``doc`` is
    a new release (a version its ``meta.toml`` does not list), else None."""
    impl = impls.get(doc.impl.name)
    if impl is None or not impl.versions or doc.impl.version is None:
        return None
    if doc.impl.version in {v.version for v in impl.versions}:
        return None
    return impl.versions[-1].version


def compare_new_releases(
    runs: Sequence[Run], run_id: str, impls: Sequence[Impl]
) -> list[ReleaseComparison]:
    """Every new release's document of run ``run_id`` in ``runs`` (a version its
    implementation's ``meta.toml`` does not list) compared with the document of the last
    listed version of the same configuration in the same run; ordered by implementation,
    release and configuration.
    """
    by_name = {i.name: i for i in impls}
    docs = [r for r in runs if r.run_id == run_id]
    out = []
    for new in docs:
        last = last_listed_before(new, by_name)
        if last is None or new.impl.version is None:
            continue
        previous = next(
            (d for d in docs if d.impl.name == new.impl.name and d.impl.config == new.impl.config
             and d.impl.version == last),
            None,
        )  # fmt: skip
        base = ReleaseComparison(new.impl.name, new.impl.version, last, new, previous)
        if previous is None:
            out.append(replace(base, problem=f"{last} was not measured in run {run_id}"))
            continue
        counts = tuple(
            instruction_verdicts.compare_counts([previous], [new], match="configuration")
        )
        try:
            lines = tuple(compare.compare_runs([previous], [new], match="configuration"))
        except compare.CompareError as exc:
            out.append(replace(base, problem=str(exc), counts=counts))
            continue
        out.append(replace(base, lines=lines, counts=counts))
    return sorted(out, key=lambda c: (c.impl, c.release, c.head.impl.config))


Key = tuple[str, str, str]
"""A new release of one configuration: ``(implementation, release, configuration id)``."""


def key(c: ReleaseComparison) -> Key:
    """``c``'s :data:`Key`."""
    return (c.impl, c.release, c.head.impl.config)


def _figure(line: compare.Line) -> tuple[str, tuple[tuple[str, int], ...], str]:
    return (line.scenario, tuple(sorted(line.params.items())), line.metric.name)


def confirmed_lines(
    candidate: ReleaseComparison, confirmation: Sequence[compare.Line]
) -> list[compare.Line]:
    """The figures slower both in ``candidate`` and in its ``confirmation`` (the same
    scenario, parameter set and figure measured again, interleaved:
    :mod:`wsbench.ci.confirm`)."""
    flagged = {_figure(line) for line in candidate.lines if line.verdict == "slower"}
    return [line for line in confirmation if line.verdict == "slower" and _figure(line) in flagged]


CONFIRM_SUFFIX = "-confirm"
"""A confirmation's run ids are the night's run id with this suffix and a side's label
(``<run id>-confirm-base``, ``-confirm-head``: :data:`wsbench.results.compare.SIDE_LABELS`)."""


def confirmation_sides(c: ReleaseComparison, docs: Sequence[Run]) -> tuple[list[Run], list[Run]]:
    """The documents of ``c``'s configuration among the confirmation documents ``docs``
    (of its run, :mod:`wsbench.ci.confirm`): the previous release's and the new release's
    (either may be empty)."""
    run_id = f"{c.head.run_id}{CONFIRM_SUFFIX}"

    def side(version: str, label: str) -> list[Run]:
        return [
            d for d in docs
            if d.run_id == f"{run_id}-{label}" and d.impl.name == c.impl
            and d.impl.config == c.head.impl.config and d.impl.version == version
        ]  # fmt: skip

    base_label, head_label = compare.SIDE_LABELS
    return side(c.previous, base_label), side(c.release, head_label)


def environments(c: ReleaseComparison, confirmations: Sequence[Run] = ()) -> list[PairDiff]:
    """What differs between the environments of ``c``'s two releases
    (:mod:`wsbench.results.env_diff`): each side is its document of the night and those of
    its confirmation among ``confirmations`` (a release installed again for it may differ
    from the night's, and the side says so); ``[]`` without the previous release's
    document."""
    if c.base is None:
        return []
    base, head = confirmation_sides(c, confirmations)
    return env_diff.diff_pairs([c.base, *base], [c.head, *head], match="configuration")


def differentials(c: ReleaseComparison, profiles: Sequence[Run]) -> list[Differential]:
    """For each set where ``c``'s new release has a significantly slower wall-clock
    figure (each set once, in the comparison's order), the differential profile of the
    new release against the previous one (:func:`wsbench.results.profile_diff.differential`)
    among the profile documents ``profiles``, where both releases were profiled there."""
    out = []
    seen: list[tuple[str, dict[str, int]]] = []
    for line in c.lines:
        if line.verdict != "slower" or (line.scenario, line.params) in seen:
            continue
        seen.append((line.scenario, line.params))
        found = profile_diff.differential(
            profiles, profiles, impl=c.impl, config=c.head.impl.config, scenario=line.scenario,
            params=line.params, base_version=c.previous, head_version=c.release,
        )  # fmt: skip
        if found is not None:
            out.append(found)
    return out


def find(
    comparisons: Sequence[ReleaseComparison],
    run_id: str,
    confirmations: Mapping[Key, Sequence[compare.Line]],
    profiles: Mapping[Key, Sequence[Differential]] | None = None,
    confirmation_docs: Sequence[Run] = (),
) -> list[Regression]:
    """The regressions among ``comparisons`` (of run ``run_id``): one per (framework,
    release) with, in a configuration, a figure significantly slower in its comparison
    *and* in its confirmation (``confirmations[key(c)]``; a wall-clock candidate without
    one is not reported), or significantly more instructions per message (no confirmation
    needed). The body gives every such configuration's differences between the two
    releases' environments (:func:`environments`, the night's documents and the
    confirmation's among ``confirmation_docs``: "identical but for" the framework when
    nothing else changed), its instruction-count table, its confirmation table and the
    nightly's wall-clock table, then its differential profiles (``profiles[key(c)]``,
    :func:`differentials`) when it has some."""
    found: dict[tuple[str, str], list[ReleaseComparison]] = {}
    for c in comparisons:
        confirmed = c.slower and bool(confirmed_lines(c, confirmations.get(key(c), ())))
        if confirmed or c.more_instructions:
            found.setdefault((c.impl, c.release), []).append(c)
    out = []
    for (name, release), parts in sorted(found.items()):
        display = parts[0].head.impl.display_name
        previous = parts[0].previous
        sections = [
            f"The nightly run `{run_id}` on `{parts[0].head.machine.name}` measured "
            f"**{display} {release}**, a release newer than the last one listed in "
            f"`impls/{name}/meta.toml` ({previous}), installed with that version's "
            f"pins, beside {previous} in the same session. It is significantly slower: "
            "its server executes more instructions per message (deterministic counts, "
            "reported without a confirmation run), or wall-clock figures were slower and, "
            "measured again at once, interleaved with the previous release on the same "
            "runner, slower again:",
            "",
        ]
        for c in parts:
            sections.append(f"### {c.heading}: environments\n")
            sections.append(env_diff.to_markdown(environments(c, confirmation_docs)))
            if c.counts:
                sections.append(f"#### {c.heading}: instruction counts\n")
                sections.append(instruction_verdicts.to_markdown(c.counts))
            if confirmations.get(key(c)):
                again = f"{c.heading}: confirmation (interleaved)"
                sections.append(compare.to_markdown(confirmations[key(c)], again))
            if c.lines:
                sections.append(compare.to_markdown(c.lines, f"{c.heading}: the nightly run"))
            for d in (profiles or {}).get(key(c), ()):
                sections.append(profile_diff.to_markdown(d))
        out.append(
            Regression(
                impl=name,
                release=release,
                previous=previous,
                title=title(display, release),
                body="\n".join(sections),
            )
        )
    return out
