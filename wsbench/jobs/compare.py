"""``./bench compare``: two stored runs, or two versions of one configuration measured
interleaved now, compared figure by figure (:mod:`wsbench.results.compare`).

- ``./bench compare RUN_A RUN_B``: run ids from the results store (or folders of run
  documents); environments are paired by implementation, configuration and version
  (``--by configuration`` pairs them whatever the version).
- ``./bench compare --impl NAME [--config ID] --versions OLD NEW``: both versions installed
  in environments of their own (:mod:`wsbench.asv.venvs`), measured base, head, base, head ...
  (:mod:`wsbench.instrument.interleave`).
- ``./bench compare --commits BASE HEAD [--impl NAME ...] [--config ID ...]``: each commit's
  own harness, implementations and load generator, measured base, head, base, head ...
  (:mod:`wsbench.jobs.commits`); every configuration at its newest version by default.

Measured comparisons keep their documents under ``<results>/comparisons/`` (not part of the
published runs); ``--param NAME=V[,V...]`` measures only the matching parameter sets.

Prints an aligned table, and under its verdicts every difference between the two sides'
environments (:mod:`wsbench.results.env_diff`: packages, interpreter build, load generator
build, kernel, CPU model); ``--markdown FILE`` also writes it as Markdown (the pull-request
comment). Exit code 0, or 1 with ``--fail-on-slower`` when any figure is significantly
slower.

The options are :class:`CompareOptions` (the command line is :mod:`wsbench.commands.compare`'s).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from wsbench.asv.conf import bench_envs, listed_env
from wsbench.impls import ImplError, get_impl
from wsbench.instrument import instructions
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.interleave import Arm, measure_interleaved
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import commits as commitcompare
from wsbench.results import compare, env_diff, instruction_verdicts, store
from wsbench.results.count_sets import CountSet
from wsbench.results.runformat import FormatError, Run, load
from wsbench.scenarios import Grid, Params, Scenario, selection

COMPARISONS = "comparisons"
"""The store's sub-folder for interleaved comparisons' documents."""


@dataclass(frozen=True)
class CompareOptions:
    """What ``./bench compare`` compares (its options, :mod:`wsbench.commands.compare`): two
    stored runs (``runs``), or two versions (``versions``) or commits (``commits``) measured
    interleaved now.

    Attributes:
        runs: two run ids (or folders of run documents): base and head; empty with
            ``versions`` or ``commits``.
        impl: the implementations (None: all); exactly one with ``versions``.
        config: the configuration ids (None: all).
        versions: the base and head versions of ``impl`` to measure, e.g. ``("13.1",
            "15.0.1")``.
        commits: the base and head commits to measure (anything ``git rev-parse`` takes).
        scenario: the scenarios (None: every scenario with a parameter set in the grid;
            stored runs: every scenario they hold).
        grid: the parameter sets measured: ``"default"`` or ``"full"``.
        param: ``NAME=V[,V...]`` filters of the grid's parameter sets (e.g.
            ``"size_bytes=16,65536"``).
        metric: the figures to compare, by name (None:
            :data:`wsbench.results.compare.DEFAULT_METRICS`).
        by: how environments are paired (:data:`wsbench.results.compare.Match`):
            ``"environment"`` (implementation, configuration and version) or
            ``"configuration"`` (whatever the version); None: by environment for stored
            runs, by configuration for measured sides.
        plan: the sampling plan of measured sides; ``plan.processes`` is the rounds (server
            processes per side and configuration). Checked only when measuring.
        markdown: also write the table as Markdown to this file (None: not).
        instructions: with ``versions`` or ``commits``, also count each side's instructions
            per message under valgrind.
        instructions_only: with ``commits``, count instructions only, no wall-clock rounds.
        fail_on_slower: exit with 1 when any figure is significantly slower.
        machine: the machine's name in the measured documents.
    """

    runs: Sequence[str] = ()
    impl: Sequence[str] | None = None
    config: Sequence[str] | None = None
    versions: tuple[str, str] | None = None
    commits: tuple[str, str] | None = None
    scenario: Sequence[Scenario] | None = None
    grid: Grid = "default"
    param: Sequence[str] = ()
    metric: Sequence[str] | None = None
    by: compare.Match | None = None
    plan: SamplingPlan = field(default_factory=SamplingPlan)
    markdown: Path | None = None
    instructions: bool = False
    instructions_only: bool = False
    fail_on_slower: bool = False
    machine: str = "wsbench-local"


def stored_run(ref: str, root: Path) -> list[Run]:
    """The documents of run ``ref``: a folder of documents, or a run id in the store (under
    any machine, also among comparisons). Every ``*.json`` of the run's folder is read, and
    only those: a file of another run is not looked at.

    Raises:
        compare.CompareError: no such run, or a file of the run that is not a run document
            this wsbench reads (the message names the file and why: e.g. malformed, or
            written by a newer wsbench); nothing is compared then.
    """
    folders = [Path(ref)] if Path(ref).is_dir() else []
    folders += sorted(root.glob(f"*/{ref}")) + sorted(root.glob(f"{COMPARISONS}/*/{ref}"))
    files = [f for folder in folders[:1] for f in sorted(folder.glob("*.json"))]
    if not files:
        raise compare.CompareError(f"no run {ref!r} (neither a folder nor a run id in {root})")
    try:
        return [load(f) for f in files]
    except FormatError as exc:
        raise compare.CompareError(str(exc)) from exc


def select_grids(
    scenarios: Sequence[Scenario], params: Sequence[str], which: Grid = "default"
) -> dict[Scenario, list[Params]]:
    """Each scenario's parameter sets in the ``which`` grid (:mod:`wsbench.scenarios`) that
    match the ``--param`` filters ``params`` (:func:`wsbench.scenarios.selection.select`;
    no scenarios: every one with a set in the grid).

    Raises:
        compare.CompareError: a malformed filter or one that selects nothing.
    """
    try:
        return selection.select(which, scenarios, params)
    except ValueError as exc:
        raise compare.CompareError(str(exc)) from exc


def _progress(line: str) -> None:
    print(f"compare: {line}", file=sys.stderr)


def _version_arms(
    impls: Sequence[str] | None, configs: Sequence[str] | None, versions: tuple[str, str]
) -> tuple[list[Arm], list[Arm]]:
    from wsbench.asv import venvs

    if len(impls or []) != 1:
        raise compare.CompareError("--versions needs exactly one --impl")
    assert impls is not None
    impl = get_impl(impls[0])
    base_v, head_v = versions
    for v in (base_v, head_v):
        impl.version(v)  # raises ImplError naming the listed versions
    envs = [e for e in bench_envs([impl]) if not configs or e.config.id in configs]
    if configs:
        known = {e.config.id for e in bench_envs([impl])}
        unknown = sorted(set(configs) - known)
        if unknown:
            raise ImplError(f"{impl.name} has no configuration {unknown} (known: {sorted(known)})")
    sides: tuple[list[Arm], list[Arm]] = ([], [])
    for config in {e.config.id: e.config for e in envs}.values():
        pair = [listed_env(impl, config.id, v) for v in (base_v, head_v)]
        if None in pair:
            continue  # the configuration does not exist at one of the versions
        for side, env in zip(sides, pair, strict=True):
            assert env is not None and env.version is not None
            print(f"compare: preparing {env.row_name} {env.version.version}", file=sys.stderr)
            python = venvs.ensure(env)
            side.append(Arm(impl, config.id, str(python), env.name, env.version.version))
    if not sides[0]:
        raise ImplError(f"no configuration of {impl.name} exists at both {base_v} and {head_v}")
    return sides


def run(options: CompareOptions) -> int:
    """Compare (see :class:`CompareOptions`); returns the exit code.

    Raises:
        compare.CompareError, ImplError, wsbench.asv.venvs.VenvError: bad input, a version
            that does not install, or sides that cannot be compared.
    """
    root = store.root_from_env()
    by = options.by
    skipped: list[str] = []
    if options.versions and options.commits:
        raise compare.CompareError("give --versions or --commits, not both")
    if options.versions or options.commits:
        if options.runs:
            raise compare.CompareError("--versions and --commits take no run ids")
        plan = options.plan
        try:
            plan.validate()
        except ValueError as exc:
            raise compare.CompareError(str(exc)) from exc
        grids = select_grids(options.scenario or (), options.param, options.grid)
        scenarios: list[Scenario] = list(grids)
        if options.versions:
            if options.instructions_only:
                raise compare.CompareError("--instructions-only goes with --commits")
            base_arms, head_arms = _version_arms(options.impl, options.config, options.versions)
            base, head = measure_interleaved(
                [base_arms, head_arms], scenarios, plan,
                placement=placement_from(None, None), machine_name=options.machine,
                grids=grids, log=_progress,
            )  # fmt: skip
            if options.instructions:
                sets = instructions.sets_of(options.scenario or [], options.param)
                base = _counted(base, base_arms, sets)
                head = _counted(head, head_arms, sets)
            assert options.impl is not None  # _version_arms: exactly one
            title = f"{options.impl[0]} {options.versions[0]} → {options.versions[1]} (interleaved)"
        else:
            assert options.commits is not None
            counting = options.instructions or options.instructions_only
            sides = commitcompare.measure_commits(
                options.commits[0], options.commits[1], impls=options.impl or [],
                configs=options.config or [], grid=grids, plan=plan,
                machine_name=options.machine, log=_progress,
                count=(options.scenario or []) if counting else None,
                wall_clock=not options.instructions_only,
            )  # fmt: skip
            base, head, skipped = sides.base, sides.head, sides.skipped
            title = (
                f"{options.commits[0]} ({sides.commits[0][:8]}) → "
                f"{options.commits[1]} ({sides.commits[1][:8]}) (interleaved)"
            )
        for doc in [*base, *head]:
            store.save(doc, root / COMPARISONS)
        by = by or "configuration"
        print(f"compare: documents in {root / COMPARISONS / options.machine}", file=sys.stderr)
    elif len(options.runs) == 2:
        base, head = (stored_run(ref, root) for ref in options.runs)
        if options.scenario:
            base = [_only(r, options.scenario) for r in base]
            head = [_only(r, options.scenario) for r in head]
        title = f"{options.runs[0]} → {options.runs[1]}"
    else:
        raise compare.CompareError(
            "give two run ids, --impl NAME --versions BASE HEAD, or --commits BASE HEAD"
        )
    counted = instruction_verdicts.compare_counts(base, head, match=by or "environment")
    environments = env_diff.diff_pairs(base, head, match=by or "environment")
    if options.instructions_only:
        if not counted:
            raise compare.CompareError("the two sides have no instruction count in common")
        lines: list[compare.Line] = []
        text = f"{title}\n\n" + instruction_verdicts.to_text(counted)
        markdown = f"### {title}\n\n" + instruction_verdicts.to_markdown(counted)
        text += "".join(f"{line}\n" for line in env_diff.to_text(environments))
        markdown += "\n" + env_diff.to_markdown(environments)
        text += "".join(f"not compared: {s}\n" for s in skipped)
        markdown += "".join(f"\n- not compared: {s}" for s in skipped)
    else:
        try:
            lines = compare.compare_runs(
                base,
                head,
                match=by or "environment",
                metric_names=options.metric or compare.DEFAULT_METRICS,
            )
        except KeyError as exc:
            raise compare.CompareError(f"unknown figure {exc}") from exc
        text = compare.to_text(lines, title, skipped, env_diff.to_text(environments))
        markdown = compare.to_markdown(lines, title, skipped, env_diff.to_markdown(environments))
        if counted:
            text += "\n" + instruction_verdicts.to_text(counted)
            markdown += "\n" + instruction_verdicts.to_markdown(counted)
    print(text)
    if options.markdown:
        options.markdown.write_text(markdown, encoding="utf-8")
    verdicts = [line.verdict for line in lines] + [line.verdict for line in counted]
    slower = "slower" in verdicts
    return 1 if options.fail_on_slower and slower else 0


def _counted(docs: list[Run], arms: list[Arm], sets: Sequence[CountSet]) -> list[Run]:
    """``docs`` (one per arm, in the arms' order) with each arm's instruction counts of
    ``sets``."""
    placement = placement_from(None, None)
    out = []
    for doc, arm in zip(docs, arms, strict=True):
        _progress(f"counting instructions: {arm.env_name}")
        found = instructions.count_all(
            arm.impl, arm.config_id, sets, python=arm.python, placement=placement
        )
        out.append(
            msgspec.structs.replace(doc, counting=found.counting, instructions=found.instructions)
        )
    return out


def _only(run: Run, scenarios: Sequence[str]) -> Run:
    return msgspec.structs.replace(
        run,
        benchmarks=[b for b in run.benchmarks if b.scenario in scenarios],
        instructions=[s for s in run.instructions if s.scenario in scenarios],
    )
