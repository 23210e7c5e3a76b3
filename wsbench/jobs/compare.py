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

Prints an aligned table; ``--markdown FILE`` also writes it as Markdown (the pull-request
comment). Exit code 0, or 1 with ``--fail-on-slower`` when any figure is significantly
slower.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec

from wsbench.asv import suite
from wsbench.asv.conf import bench_envs
from wsbench.impls import ImplError, get_impl
from wsbench.instrument import instructions
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.interleave import Arm, measure_interleaved
from wsbench.instrument.sampling import add_plan_arguments, plan_from_args
from wsbench.jobs import commits as commitcompare
from wsbench.results import compare, instruction_verdicts, store
from wsbench.results.runformat import FormatError, Run, load
from wsbench.scenarios import GRIDS, SCENARIOS, Grid, Params, Scenario, in_grid, spec

COMPARISONS = "comparisons"
"""The store's sub-folder for interleaved comparisons' documents."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The compare command's options."""
    parser.add_argument("runs", nargs="*", help="two run ids (or folders): base and head")
    parser.add_argument("--impl", action="append", help="implementation(s) (default: all)")
    parser.add_argument("--config", action="append", help="configuration(s) (default: all)")
    parser.add_argument("--versions", nargs=2, metavar=("BASE", "HEAD"), help="two versions")
    parser.add_argument("--commits", nargs=2, metavar=("BASE", "HEAD"), help="two commits")
    parser.add_argument(
        "--scenario",
        action="append",
        choices=SCENARIOS,
        help="scenario(s) (default: every scenario with a parameter set in the grid)",
    )
    parser.add_argument(
        "--grid",
        choices=GRIDS,
        default="default",
        help="the parameter sets measured: the default grid or the full grid",
    )
    parser.add_argument(
        "--param", action="append", default=[], metavar="NAME=V[,V...]",
        help="measure only parameter sets with these values (e.g. size_bytes=16,1024)",
    )  # fmt: skip
    parser.add_argument("--metric", action="append", help="figure(s) to compare")
    parser.add_argument("--by", choices=["environment", "configuration"])
    add_plan_arguments(parser, "rounds: server processes per side and configuration")
    parser.add_argument("--markdown", type=Path, help="also write the table as Markdown here")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="with --versions or --commits: also count each side's instructions per message "
        "under valgrind (README: Instructions per message)",
    )
    parser.add_argument(
        "--instructions-only",
        action="store_true",
        help="with --commits: count instructions only, no wall-clock rounds (deterministic: "
        "fit for a shared or hosted machine)",
    )
    parser.add_argument("--fail-on-slower", action="store_true")
    parser.add_argument("--machine", default="wsbench-local")


def stored_run(ref: str, root: Path) -> list[Run]:
    """The documents of run ``ref``: a folder of documents, or a run id in the store (under
    any machine, also among comparisons).

    Raises:
        compare.CompareError: no such run, or a document that is not valid.
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


def parse_params(specs: Sequence[str]) -> dict[str, set[int]]:
    """``["size_bytes=16,1024", "in_flight=64"]`` -> ``{"size_bytes": {16, 1024}, ...}``
    (:func:`wsbench.asv.suite.parse_params`).

    Raises:
        compare.CompareError: a malformed item, or a name no scenario has.
    """
    try:
        return suite.parse_params(specs)
    except ValueError as exc:
        raise compare.CompareError(str(exc)) from exc


def select_grids(
    scenarios: Sequence[Scenario], wanted: dict[str, set[int]], which: Grid = "default"
) -> dict[str, list[Params]]:
    """Each scenario's parameter sets in the ``which`` grid (:mod:`wsbench.scenarios`) that
    match ``wanted`` (a parameter a scenario does not have does not filter it).

    Raises:
        compare.CompareError: a scenario is left with no parameter set.
    """
    grids: dict[str, list[Params]] = {}
    for scenario in scenarios:
        grid = suite.narrowed(spec(scenario).grid(which), wanted)
        if not grid:
            raise compare.CompareError(f"no parameter set of {scenario} matches --param")
        grids[scenario] = grid
    return grids


def _progress(line: str) -> None:
    print(f"compare: {line}", file=sys.stderr)


def _version_arms(args: argparse.Namespace) -> tuple[list[Arm], list[Arm]]:
    from wsbench.asv import venvs

    if len(args.impl or []) != 1:
        raise compare.CompareError("--versions needs exactly one --impl")
    impl = get_impl(args.impl[0])
    base_v, head_v = args.versions
    for v in (base_v, head_v):
        impl.version(v)  # raises ImplError naming the listed versions
    envs = [e for e in bench_envs([impl]) if not args.config or e.config.id in args.config]
    if args.config:
        known = {e.config.id for e in bench_envs([impl])}
        unknown = sorted(set(args.config) - known)
        if unknown:
            raise ImplError(f"{impl.name} has no configuration {unknown} (known: {sorted(known)})")
    sides: tuple[list[Arm], list[Arm]] = ([], [])
    for config in {e.config.id: e.config for e in envs}.values():
        pair = [
            next((e for e in envs if e.config.id == config.id and e.version
                  and e.version.version == v), None)
            for v in (base_v, head_v)
        ]  # fmt: skip
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


def run(args: argparse.Namespace) -> int:
    """Run the command; returns the exit code.

    Raises:
        compare.CompareError, ImplError, wsbench.asv.venvs.VenvError: bad input, a version
            that does not install, or sides that cannot be compared.
    """
    root = store.root_from_env()
    by = args.by
    skipped: list[str] = []
    if args.versions and args.commits:
        raise compare.CompareError("give --versions or --commits, not both")
    if args.versions or args.commits:
        if args.runs:
            raise compare.CompareError("--versions and --commits take no run ids")
        try:
            plan = plan_from_args(args)
        except ValueError as exc:
            raise compare.CompareError(str(exc)) from exc
        scenarios: list[Scenario] = args.scenario or in_grid(args.grid)
        grids = select_grids(scenarios, parse_params(args.param), args.grid)
        if args.versions:
            if args.instructions_only:
                raise compare.CompareError("--instructions-only goes with --commits")
            base_arms, head_arms = _version_arms(args)
            base, head = measure_interleaved(
                [base_arms, head_arms], scenarios, plan,
                placement=placement_from(None, None), machine_name=args.machine,
                grids=grids, log=_progress,
            )  # fmt: skip
            if args.instructions:
                base = _counted(base, base_arms, args.scenario or [])
                head = _counted(head, head_arms, args.scenario or [])
            title = f"{args.impl[0]} {args.versions[0]} → {args.versions[1]} (interleaved)"
        else:
            counting = args.instructions or args.instructions_only
            sides = commitcompare.measure_commits(
                args.commits[0], args.commits[1], impls=args.impl or [],
                configs=args.config or [], grid=grids, plan=plan,
                machine_name=args.machine, log=_progress,
                count=(args.scenario or []) if counting else None,
                wall_clock=not args.instructions_only,
            )  # fmt: skip
            base, head, skipped = sides.base, sides.head, sides.skipped
            title = (
                f"{args.commits[0]} ({sides.commits[0][:8]}) → "
                f"{args.commits[1]} ({sides.commits[1][:8]}) (interleaved)"
            )
        for doc in [*base, *head]:
            store.save(doc, root / COMPARISONS)
        by = by or "configuration"
        print(f"compare: documents in {root / COMPARISONS / args.machine}", file=sys.stderr)
    elif len(args.runs) == 2:
        base, head = (stored_run(ref, root) for ref in args.runs)
        if args.scenario:
            base = [_only(r, args.scenario) for r in base]
            head = [_only(r, args.scenario) for r in head]
        title = f"{args.runs[0]} → {args.runs[1]}"
    else:
        raise compare.CompareError(
            "give two run ids, --impl NAME --versions BASE HEAD, or --commits BASE HEAD"
        )
    counted = instruction_verdicts.compare_counts(base, head, match=by or "environment")
    if args.instructions_only:
        if not counted:
            raise compare.CompareError("the two sides have no instruction count in common")
        lines: list[compare.Line] = []
        text = f"{title}\n\n" + instruction_verdicts.to_text(counted)
        markdown = f"### {title}\n\n" + instruction_verdicts.to_markdown(counted)
        text += "".join(f"not compared: {s}\n" for s in skipped)
        markdown += "".join(f"\n- not compared: {s}" for s in skipped)
    else:
        try:
            lines = compare.compare_runs(
                base,
                head,
                match=by or "environment",
                metric_names=args.metric or compare.DEFAULT_METRICS,
            )
        except KeyError as exc:
            raise compare.CompareError(f"unknown figure {exc}") from exc
        text = compare.to_text(lines, title, skipped)
        markdown = compare.to_markdown(lines, title, skipped)
        if counted:
            text += "\n" + instruction_verdicts.to_text(counted)
            markdown += "\n" + instruction_verdicts.to_markdown(counted)
    print(text)
    if args.markdown:
        args.markdown.write_text(markdown, encoding="utf-8")
    verdicts = [line.verdict for line in lines] + [line.verdict for line in counted]
    slower = "slower" in verdicts
    return 1 if args.fail_on_slower and slower else 0


def _counted(docs: list[Run], arms: list[Arm], scenarios: list[str]) -> list[Run]:
    """``docs`` (one per arm, in the arms' order) with each arm's instruction counts."""
    sets = instructions.sets_of(scenarios)
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


def _only(run: Run, scenarios: list[str]) -> Run:
    return msgspec.structs.replace(
        run,
        benchmarks=[b for b in run.benchmarks if b.scenario in scenarios],
        instructions=[s for s in run.instructions if s.scenario in scenarios],
    )
