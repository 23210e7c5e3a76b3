"""``./bench profile``: servers' CPU profiles during a measurement window, with py-spy
(:mod:`wsbench.jobs.profile`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.commands.options import add_env_arguments, positive_float
from wsbench.instrument.profile import RATE_HZ
from wsbench.instrument.profiled import WARMUP_S, WINDOW_S
from wsbench.jobs import profile as job
from wsbench.jobs.profile import ProfileOptions
from wsbench.scenarios import GRIDS, SCENARIOS

NAME = "profile"
HELP = "CPU profiles of servers during a measurement window (py-spy)"


def _rate(text: str) -> int:
    """A sampling rate: a whole number of samples per second, 1 to 1000."""
    try:
        rate = int(text)
    except ValueError:
        rate = 0
    if not 1 <= rate <= 1000:
        raise argparse.ArgumentTypeError(f"not a rate from 1 to 1000 Hz: {text!r}")
    return rate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The profile job's options (:class:`~wsbench.jobs.profile.ProfileOptions`)."""
    add_env_arguments(parser, "profile")
    parser.add_argument(
        "--scenario", action="append", choices=SCENARIOS,
        help="scenario (repeatable; default: echo); scenarios without windows are refused",
    )  # fmt: skip
    parser.add_argument("--grid", choices=GRIDS, default="default", help="the grid's sets")
    parser.add_argument(
        "--param", action="append", default=[], metavar="NAME=V[,V...]",
        help="only the grid's sets with these values (e.g. size_bytes=16 in_flight=64)",
    )  # fmt: skip
    parser.add_argument(
        "--native", action="store_true",
        help="also the native (C, Rust) frames of extension modules: py-spy then pauses the "
        "server for each sample, which costs it more",
    )  # fmt: skip
    parser.add_argument("--rate", type=_rate, default=RATE_HZ, metavar="HZ",
                        help=f"samples per second ({RATE_HZ})")  # fmt: skip
    parser.add_argument("--warmup", type=positive_float, default=WARMUP_S,
                        help=f"warm-up seconds before each window ({WARMUP_S:g})")  # fmt: skip
    parser.add_argument("--window", type=positive_float, default=WINDOW_S,
                        help=f"window seconds ({WINDOW_S:g})")  # fmt: skip
    parser.add_argument(
        "--results", type=Path,
        help="the results store (default: WSBENCH_RESULTS or results/); documents go to "
        "its profiles/ folder",
    )  # fmt: skip
    parser.add_argument("--machine", help="machine name (default: asv's, else the host name)")
    parser.add_argument("--server-cpus", help="CPU list for the servers (default: 0)")
    parser.add_argument(
        "--loadgen-cpus", help="CPU list for the load generator and py-spy (default: 1)"
    )


def options_of(args: argparse.Namespace) -> ProfileOptions:
    """The profile job's options from the parsed command line."""
    return ProfileOptions(
        impl=args.impl, config=args.config, versions=args.versions,
        environment=args.environment, scenario=args.scenario, grid=args.grid,
        param=args.param, native=args.native, rate_hz=args.rate, warmup_s=args.warmup,
        window_s=args.window,
        results=args.results, machine=args.machine, server_cpus=args.server_cpus,
        loadgen_cpus=args.loadgen_cpus,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(options_of(args))
