"""``./bench calibrate``: the verdicts' false-alarm rate (A/A) and power (a server slowed by a
known fraction) on this machine (:mod:`wsbench.jobs.calibrate`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.ci.confirm import CONFIRM_PLAN
from wsbench.ci.pull_request import screening_grids
from wsbench.commands.options import add_plan_arguments, plan_from_args
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import calibrate as job
from wsbench.jobs.calibrate import (
    DEFAULT_OUTPUT,
    DEFAULT_PLAN,
    DEFAULT_SERVERS,
    PR_SERVERS,
    CalibrateOptions,
    PullRequestPlan,
)

PR_PLAN = SamplingPlan()
"""``./bench pr-compare``'s screening plan (its ``--processes``, ``--windows`` defaults)."""

NAME = "calibrate"
HELP = "how often verdicts are wrong (A/A) or find a known slowdown, measured on this machine"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The calibration's options (:class:`~wsbench.jobs.calibrate.CalibrateOptions`)."""
    parser.add_argument(
        "--server", action="append",
        help="IMPL[:CONFIG] of an A/A calibration (repeatable; default: "
        + ", ".join(DEFAULT_SERVERS) + "; with --pr-compare: " + ", ".join(PR_SERVERS) + ")",
    )  # fmt: skip
    parser.add_argument(
        "--pr-compare", action="store_true",
        help="each repeat a pull request's comparison at ./bench pr-compare's plan: the "
        "default grid screened, what moved measured again with the confirmation's plan, "
        "the verdicts decided as one family; reports the comparisons with any false verdict",
    )  # fmt: skip
    parser.add_argument(
        "--slowdown", type=float,
        help="a power calibration instead: the calibration server slowed so that its rate "
        "falls by this fraction (0.2: to 80 %%), against itself unslowed (with "
        "--pr-compare: one more configuration of each comparison, at one set)",
    )  # fmt: skip
    parser.add_argument("--repeats", type=int, default=10, help="interleaved sessions (10)")
    add_plan_arguments(
        parser, "rounds of each session", defaults=DEFAULT_PLAN,
        processes_default=f"{DEFAULT_PLAN.processes}; with --pr-compare {PR_PLAN.processes}",
        windows_default=(f"{DEFAULT_PLAN.windows_per_process}; with --pr-compare "
                         f"{PR_PLAN.windows_per_process}"),
    )  # fmt: skip
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="the documents")
    parser.add_argument("--machine", default="wsbench-local")
    parser.add_argument(
        "--documents", type=Path, help="analyse the sessions under this folder, measure nothing"
    )
    parser.add_argument("--rounds", type=int, help="analyse the first N rounds only")
    parser.add_argument(
        "--analyse-windows", dest="analyse_windows", type=int,
        help="analyse the first N windows of each round only",
    )  # fmt: skip


def options_of(args: argparse.Namespace) -> CalibrateOptions:
    """The calibration's options from the parsed command line: with ``--pr-compare``, a
    pull request's plan (:func:`wsbench.ci.pull_request.screening_grids` of a change of
    implementations, confirmed with :data:`wsbench.ci.confirm.CONFIRM_PLAN`)."""
    pull_request = None
    if args.pr_compare:
        pull_request = PullRequestPlan(screening_grids(everything=False), CONFIRM_PLAN)
    plan = PR_PLAN if pull_request else DEFAULT_PLAN
    servers = PR_SERVERS if pull_request else DEFAULT_SERVERS
    return CalibrateOptions(
        servers=tuple(args.server or servers), slowdown=args.slowdown, repeats=args.repeats,
        plan=plan_from_args(
            args, validate=False,
            processes=plan.processes if args.processes is None else args.processes,
            windows=plan.windows_per_process if args.windows is None else args.windows,
        ),
        output=args.output, machine=args.machine, documents=args.documents, rounds=args.rounds,
        windows=args.analyse_windows, pull_request=pull_request,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(options_of(args))
