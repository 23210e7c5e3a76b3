"""``./bench calibrate``: the verdicts' false-alarm rate (A/A) and power (a server slowed by a
known fraction) on this machine (:mod:`wsbench.jobs.calibrate`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.commands.options import add_plan_arguments, plan_from_args
from wsbench.jobs import calibrate as job
from wsbench.jobs.calibrate import DEFAULT_OUTPUT, DEFAULT_PLAN, DEFAULT_SERVERS, CalibrateOptions

NAME = "calibrate"
HELP = "how often verdicts are wrong (A/A) or find a known slowdown, measured on this machine"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The calibration's options (:class:`~wsbench.jobs.calibrate.CalibrateOptions`)."""
    parser.add_argument(
        "--server", action="append",
        help="IMPL[:CONFIG] of an A/A calibration (repeatable; default: "
        + ", ".join(DEFAULT_SERVERS) + ")",
    )  # fmt: skip
    parser.add_argument(
        "--slowdown", type=float,
        help="a power calibration instead: the calibration server slowed so that its rate "
        "falls by this fraction (0.2: to 80 %%), against itself unslowed",
    )  # fmt: skip
    parser.add_argument("--repeats", type=int, default=10, help="interleaved sessions (10)")
    add_plan_arguments(parser, "rounds of each session", defaults=DEFAULT_PLAN)
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
    """The calibration's options from the parsed command line."""
    return CalibrateOptions(
        servers=tuple(args.server or DEFAULT_SERVERS), slowdown=args.slowdown,
        repeats=args.repeats, plan=plan_from_args(args, validate=False), output=args.output,
        machine=args.machine, documents=args.documents, rounds=args.rounds,
        windows=args.analyse_windows,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(options_of(args))
