"""``./bench pr-compare --base REF --head REF``: a pull request against its merge base, on
the environments the change touches, measured interleaved (:mod:`wsbench.jobs.commits`);
the Markdown is what the workflow posts as the pull request's comment.

What is measured follows from the files the change touches (``git diff --name-only``
between the merge base and the head):

- a file of the harness or the load generator (:data:`EVERYTHING`): every configuration
  at a reduced scale (:data:`REDUCED_PARAMS`), since every figure may move;
- otherwise, files under ``impls/<name>/``: those implementations' configurations, at the
  default grid's sets (the main job's, :data:`SCREEN_GRID`);
- nothing else (documentation, tests, workflows): nothing is measured, and the comment
  says so.

That measurement, at the command's plan, is a screening: each configuration and set with a
figure faster or slower is measured again, interleaved, with the nightly's confirmation's
plan (:func:`wsbench.ci.confirm.confirm_commits`), and the confirmation's verdicts are
those sets' final ones, decided as one family with a stated false rate per comparison
(:mod:`wsbench.results.confirmation`); the comment names the sets confirmed.

Each configuration and set whose final verdict reads *slower* is profiled on both sides with
py-spy, a bounded number of them (:mod:`wsbench.ci.pr_profiles`); the comment shows the
functions whose share of the samples grew most, naming both profiles.

Under the verdicts the comment names every difference between the two sides'
environments besides the harness (:mod:`wsbench.results.env_diff`: a package a lock moved,
the interpreter, the kernel...), which a verdict may owe to.

The implementations changed are also graded by the Autobahn|Testsuite on both sides
(:mod:`wsbench.ci.pr_conformance`); the comment shows both grades and any case the head
newly fails.

With ``--instructions-only`` (the hosted-runner job, which any pull request gets, forks
included) nothing is timed: each side's server instructions per message are counted under
valgrind (:mod:`wsbench.instrument.instructions`), every set for the implementations changed, and
:data:`REDUCED_SETS` for every configuration when everything may move; the comment starts
with :data:`wsbench.ci.github.COUNTS_MARKER`, so that it is a comment of its own.

The command line is :mod:`wsbench.commands.pr_compare`'s: :func:`run` takes its values
(:class:`PrCompareOptions`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wsbench.ci import pr_conformance, pr_profiles
from wsbench.ci.confirm import CONFIRM_PLAN, confirm_commits
from wsbench.ci.github import COMMENT_MARKER, COUNTS_MARKER
from wsbench.impls import ImplError
from wsbench.instrument.autobahn import SuiteError
from wsbench.instrument.profile import ProfileError
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import commits as commitcompare
from wsbench.jobs.compare import COMPARISONS, select_grids
from wsbench.jobs.selection import MainJobError, run_pythons
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results import compare, confirmation, env_diff, instruction_verdicts, store
from wsbench.scenarios import Grid, Params, Scenario, in_grid

EVERYTHING = ("wsbench/", "loadgen/", "benchmarks/", "pyproject.toml", "bench")
"""Path prefixes whose change can move every figure."""
SCREEN_GRID: Grid = "default"
"""The grid whose sets a change of implementations is screened at."""
REDUCED_PARAMS = ("size_bytes=1024", "connections=1000")
"""The parameter sets measured when every configuration is (``--param`` syntax, of the full
grid)."""
REDUCED_SETS = ("echo/in_flight=64,size_bytes=16",)
"""The sets counted when every configuration is (``--instructions-only``; keys of
:data:`wsbench.results.count_sets.SETS`)."""


@dataclass(frozen=True)
class Selection:
    """What a change asks to measure.

    Attributes:
        impls: implementation names (empty with ``everything``: all of them).
        everything: the harness or the load generator changed.
        reason: one sentence saying why, for the comment.
    """

    impls: tuple[str, ...]
    everything: bool
    reason: str

    @property
    def empty(self) -> bool:
        """Nothing to measure."""
        return not self.everything and not self.impls


def _under(path: str, entry: str) -> bool:
    """``path`` is the file ``entry`` or lies in the folder ``entry`` (ending in ``/``)."""
    return path.startswith(entry) if entry.endswith("/") else path == entry


def select(paths: Sequence[str]) -> Selection:
    """The selection for a change touching ``paths`` (relative to the repository)."""
    core = sorted(p for p in paths if any(_under(p, e) for e in EVERYTHING))
    if core:
        shown = ", ".join(core[:5]) + (" ..." if len(core) > 5 else "")
        return Selection((), True, f"the harness or load generator changed ({shown})")
    impls = sorted({p.split("/")[1] for p in paths if p.startswith("impls/") and p.count("/") >= 2})
    if impls:
        return Selection(tuple(impls), False, f"implementation(s) changed: {', '.join(impls)}")
    return Selection((), False, "no implementation, harness or load generator file changed")


@dataclass(frozen=True)
class PrCompareOptions:
    """What ``./bench pr-compare`` compares (:mod:`wsbench.commands.pr_compare`).

    Attributes:
        base: the target branch or commit (compared from its merge base with ``head``).
        head: the pull request's head commit.
        markdown: the file the comment's Markdown is written to.
        plan: rounds (server processes per side and configuration), windows, warm-up and
            window.
        machine: the machine's name in the documents.
        instructions_only: count instructions per message under valgrind instead of
            timing (any runner).
        pythons: ``--python`` values: the Pythons each configuration's latest release is
            compared on (names, or ``all``: every one this machine has;
            :func:`wsbench.jobs.selection.run_pythons`); default the default Python only.
        confirm_plan: the plan of the confirmation of what moved in the screening
            (:data:`wsbench.ci.confirm.CONFIRM_PLAN`).
    """

    base: str
    head: str
    markdown: Path
    plan: SamplingPlan = field(default_factory=SamplingPlan)
    machine: str = "wsbench-local"
    instructions_only: bool = False
    pythons: Sequence[str] = (DEFAULT_PYTHON,)
    confirm_plan: SamplingPlan = CONFIRM_PLAN


def screening_grids(everything: bool) -> dict[Scenario, list[Params]]:
    """The parameter sets a change is screened at: the default grid's (:data:`SCREEN_GRID`),
    or, when ``everything`` may move, the full grid's at :data:`REDUCED_PARAMS`."""
    if everything:
        return select_grids(in_grid(SCREEN_GRID), REDUCED_PARAMS, "full")
    return select_grids(in_grid(SCREEN_GRID), (), SCREEN_GRID)


def run(options: PrCompareOptions) -> int:
    """Compare; 0 when it measured (the verdicts are in the Markdown).

    Raises:
        compare.CompareError: a commit does not exist or cannot be measured, or the plan
            is invalid.
    """
    base = commitcompare.resolve(options.base)
    head = commitcompare.resolve(options.head)
    merge_base = commitcompare.git("merge-base", base, head)
    paths = commitcompare.git("diff", "--name-only", merge_base, head).splitlines()
    chosen = select(paths)
    title = f"wsbench: {head[:8]} against its merge base {merge_base[:8]}"
    if options.instructions_only:
        title += ", instructions per message"
    marker = COUNTS_MARKER if options.instructions_only else COMMENT_MARKER
    header = [marker, f"### {title}", "", f"Measured because {chosen.reason}."]
    if chosen.empty:
        text = "\n".join([*header, "", "Nothing was measured."]) + "\n"
        options.markdown.write_text(text, encoding="utf-8")
        print(text)
        return 0
    try:
        options.plan.validate()
    except ValueError as exc:
        raise compare.CompareError(str(exc)) from exc
    try:
        pythons = run_pythons(options.pythons, log=lambda line: print(f"pr-compare: {line}"))
    except MainJobError as exc:
        raise compare.CompareError(str(exc)) from exc
    if chosen.everything and pythons != [DEFAULT_PYTHON]:
        # every configuration on every Python would multiply the longest comparison
        header.append(f"Every configuration: on Python {DEFAULT_PYTHON} only.")
        pythons = [DEFAULT_PYTHON]
    elif pythons != [DEFAULT_PYTHON]:
        header.append(f"On Python {', '.join(pythons)}.")
    if options.instructions_only:
        return _count(options, chosen, (merge_base, head), header, title, pythons)
    if chosen.everything:
        header.append(f"Every configuration at a reduced scale: {', '.join(REDUCED_PARAMS)}.")
    else:
        header.append(f"Screened at the {SCREEN_GRID} grid's sets.")
    run_id = store.new_run_id()
    sides = commitcompare.measure_commits(
        merge_base, head, impls=chosen.impls, configs=[],
        grid=screening_grids(chosen.everything), plan=options.plan,
        machine_name=options.machine, run_id=run_id, log=_log, pythons=pythons,
    )  # fmt: skip
    root = store.root_from_env()
    for doc in [*sides.base, *sides.head]:
        store.save(doc, root / COMPARISONS)
    screening = compare.compare_runs(sides.base, sides.head, match="configuration")
    lines, skipped = _confirmed((merge_base, head), screening, sides, run_id, root, options)
    environments = env_diff.diff_pairs(sides.base, sides.head, match="configuration")
    stages = [(p.processes, p.windows_per_process) for p in (options.plan, options.confirm_plan)]
    rule = confirmation.rule(stages[0], stages[1])
    table = compare.to_markdown(
        lines, "Figures, base → head", skipped, env_diff.to_markdown(environments), rule
    )
    text = "\n".join([*header, "", confirmation.to_markdown(screening, stages[1]), "", table])
    slowed = pr_profiles.slowed(lines, sides.base, sides.head)
    if slowed:
        text += "\n" + _profiles((merge_base, head), slowed, root / COMPARISONS, options)
    if chosen.impls:
        text += "\n" + _grades((merge_base, head), chosen.impls, root / COMPARISONS, options)
    options.markdown.write_text(text, encoding="utf-8")
    print(compare.to_text(lines, title, skipped, env_diff.to_text(environments), rule))
    return 0


def _log(line: str) -> None:
    print(f"pr-compare: {line}", file=sys.stderr)


def _confirmed(
    commits: tuple[str, str],
    screening: Sequence[compare.Line],
    sides: commitcompare.CommitSides,
    run_id: str,
    root: Path,
    options: PrCompareOptions,
) -> tuple[list[compare.Line], list[str]]:
    """The final verdicts (:func:`wsbench.results.confirmation.final`) of ``screening``,
    the comparison of ``sides`` (run ``run_id``), once what moved is measured again
    (:func:`wsbench.ci.confirm.confirm_commits`, the documents saved in ``root``'s
    comparisons), and the configurations not compared, with why. A confirmation that
    cannot measure leaves the moved figures not compared, with its error."""
    skipped = list(sides.skipped)
    missing = confirmation.NOT_MEASURED_AGAIN
    again: list[compare.Line] = []
    try:
        found = confirm_commits(
            commits, screening, sides, plan=options.confirm_plan,
            machine_name=options.machine, run_id=run_id, log=_log,
        )  # fmt: skip
        if found is not None:
            for doc in [*found.base, *found.head]:
                store.save(doc, root / COMPARISONS)
            skipped += [f"{s} (confirmation)" for s in found.skipped]
            again = compare.compare_runs(found.base, found.head, match="configuration")
    except compare.CompareError as exc:
        missing = f"{missing}: {exc}"
    return confirmation.final(screening, again, missing=missing), skipped


def _grades(
    commits: tuple[str, str], impls: Sequence[str], root: Path, options: PrCompareOptions
) -> str:
    """The changed implementations' grades on both sides as Markdown
    (:mod:`wsbench.ci.pr_conformance`); a suite that cannot run, or a side whose
    ``meta.toml`` this harness cannot read, is said in their place."""
    try:
        base, head = pr_conformance.grade_commits(
            commits, impls, root=root, machine=options.machine,
            log=_log,
        )  # fmt: skip
    except (SuiteError, ImplError) as exc:
        return f"#### {pr_conformance.TITLE}\n\nNot graded: {exc}\n"
    text = pr_conformance.to_markdown(base, head)
    print(text)
    return text


def _profiles(
    commits: tuple[str, str],
    slowed: Sequence[pr_profiles.Slowed],
    root: Path,
    options: PrCompareOptions,
) -> str:
    """The slowed sets' differential profiles as Markdown (:mod:`wsbench.ci.pr_profiles`);
    a profiler that cannot run, or a side whose ``meta.toml`` this harness cannot read, is
    said in their place."""
    try:
        base, head = pr_profiles.profile_commits(
            commits, slowed, root=root, machine=options.machine,
            log=_log,
        )  # fmt: skip
    except (ProfileError, ImplError) as exc:
        return f"#### {pr_profiles.TITLE}\n\nNot profiled: {exc}\n"
    text = pr_profiles.to_markdown(slowed, base, head)
    print(text)
    return text


def _count(
    options: PrCompareOptions,
    chosen: Selection,
    commits: tuple[str, str],
    header: list[str],
    title: str,
    pythons: Sequence[str],
) -> int:
    """The ``--instructions-only`` comparison: both commits counted once (no rounds) on each
    of ``pythons``, the instruction verdicts written to ``options.markdown``."""
    if chosen.everything:
        header.append(f"Every configuration, counted at: {', '.join(REDUCED_SETS)}.")
    sides = commitcompare.measure_commits(
        commits[0], commits[1], impls=chosen.impls, configs=[], grid={},
        plan=options.plan, machine_name=options.machine, log=_log,
        count=REDUCED_SETS if chosen.everything else (), wall_clock=False, pythons=pythons,
    )  # fmt: skip
    root = store.root_from_env()
    for doc in [*sides.base, *sides.head]:
        store.save(doc, root / COMPARISONS)
    lines = instruction_verdicts.compare_counts(sides.base, sides.head, match="configuration")
    environments = env_diff.diff_pairs(sides.base, sides.head, match="configuration")
    skipped = [f"- not compared: {s}" for s in sides.skipped]
    table = instruction_verdicts.to_markdown(lines)
    described = env_diff.to_markdown(environments)
    text = "\n".join([*header, "", table, *([described] if described else []), *skipped]) + "\n"
    options.markdown.write_text(text, encoding="utf-8")
    print(title)
    print(instruction_verdicts.to_text(lines), end="")
    print("\n".join(env_diff.to_text(environments)))
    return 0
