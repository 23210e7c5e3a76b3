"""``./bench noise``: the noise study, variation within and between server processes
(:mod:`wsbench.jobs.noise`)."""

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
HELP = "the noise study: variation within and between server processes"


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


def options_of(args: argparse.Namespace) -> NoiseOptions:
    """The study's options from the parsed command line."""
    return NoiseOptions(
        servers=tuple(args.server or DEFAULT_SERVERS),
        window_lengths_s=tuple(args.window or DEFAULT_WINDOW_LENGTHS_S),
        plan=SamplingPlan(
            processes=args.processes, windows_per_process=args.windows, warmup_s=args.warmup
        ),
        scenarios=tuple(args.scenario or NOISE_SCENARIOS),
        output=args.output, machine=args.machine,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return study.run(options_of(args))
