"""``./bench noise``: the noise study, variance between server processes and between windows
of one process, and the plan that follows (:mod:`wsbench.jobs.noise`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import noise as study
from wsbench.jobs.noise import (
    DEFAULT_OUTPUT,
    DEFAULT_PLAN,
    DEFAULT_SERVERS,
    DEFAULT_WINDOW_LENGTHS_S,
    NOISE_SCENARIOS,
    NoiseOptions,
)

NAME = "noise"
HELP = "the noise study: variance between and within server processes, and the plan it calls for"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The noise study's options (:class:`~wsbench.jobs.noise.NoiseOptions`)."""
    parser.add_argument(
        "--server",
        action="append",
        help="IMPL[:CONFIG] to study (repeatable; default: " + ", ".join(DEFAULT_SERVERS) + ")",
    )
    parser.add_argument("--window", type=float, action="append", help="window s (repeatable)")
    parser.add_argument("--processes", type=int, default=DEFAULT_PLAN.processes)
    parser.add_argument(
        "--windows", type=int, default=DEFAULT_PLAN.windows_per_process, help="windows per process"
    )
    parser.add_argument("--warmup", type=float, default=DEFAULT_PLAN.warmup_s)
    parser.add_argument("--scenario", action="append", choices=NOISE_SCENARIOS)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="run documents")
    parser.add_argument("--machine", default="wsbench-local")
    parser.add_argument(
        "--documents", type=Path,
        help="read the run documents under this folder (MACHINE/RUN_ID/*.json) instead of "
        "measuring",
    )  # fmt: skip
    parser.add_argument(
        "--process-cost", type=float, help="with --documents: seconds a server start and stop cost"
    )
    parser.add_argument(
        "--window-cost", type=float,
        help="with --documents: seconds a window costs (default: warm-up + window)",
    )  # fmt: skip
    parser.add_argument(
        "--sets-per-process", type=int,
        help="parameter sets one server process serves in the plan derived (its start is "
        "shared by them; default: the sets of each studied document)",
    )  # fmt: skip


def options_of(args: argparse.Namespace) -> NoiseOptions:
    """The study's options from the parsed command line."""
    return NoiseOptions(
        servers=tuple(args.server or DEFAULT_SERVERS),
        window_lengths_s=tuple(args.window or DEFAULT_WINDOW_LENGTHS_S),
        plan=SamplingPlan(
            processes=args.processes, windows_per_process=args.windows, warmup_s=args.warmup
        ),
        scenarios=tuple(args.scenario or NOISE_SCENARIOS),
        output=args.output, machine=args.machine, documents=args.documents,
        process_cost_s=args.process_cost, window_cost_s=args.window_cost,
        sets_per_process=args.sets_per_process,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return study.run(options_of(args))
