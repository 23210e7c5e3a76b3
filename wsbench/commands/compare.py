"""``./bench compare``: two runs, or two versions or commits measured interleaved, figure
by figure (:mod:`wsbench.jobs.compare`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.commands.options import add_plan_arguments, plan_from_args
from wsbench.jobs import compare as comparejob
from wsbench.jobs.compare import CompareOptions
from wsbench.scenarios import GRIDS, SCENARIOS

NAME = "compare"
HELP = "two runs, or two versions measured interleaved, figure by figure"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The comparison's options (:class:`~wsbench.jobs.compare.CompareOptions`)."""
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
        help="measure only parameter sets with these values (e.g. size_bytes=16,65536); one "
        "that selects no set of the grid is refused",
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


def options_of(args: argparse.Namespace) -> CompareOptions:
    """The comparison's options from the parsed command line (the plan is checked by the
    job, and only when it measures)."""
    return CompareOptions(
        runs=tuple(args.runs), impl=args.impl, config=args.config,
        versions=tuple(args.versions) if args.versions else None,
        commits=tuple(args.commits) if args.commits else None,
        scenario=args.scenario, grid=args.grid, param=tuple(args.param), metric=args.metric,
        by=args.by, plan=plan_from_args(args, validate=False), markdown=args.markdown,
        instructions=args.instructions, instructions_only=args.instructions_only,
        fail_on_slower=args.fail_on_slower, machine=args.machine,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return comparejob.run(options_of(args))
