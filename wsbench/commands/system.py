"""``./bench system check``: the machine's tuning for benchmarking, each item ok or not."""

from __future__ import annotations

import argparse

from wsbench.instrument import system
from wsbench.instrument.cpus import placement_from

NAME = "system"
HELP = "the machine's tuning for benchmarking"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``check`` subcommand and its options."""
    sub = parser.add_subparsers(dest="system_command", required=True)
    chk = sub.add_parser("check", help="governor, turbo, SMT, isolation... each ok or not")
    chk.add_argument("--server-cpus", help="CPU list for the server (default: 0)")
    chk.add_argument("--loadgen-cpus", help="CPU list for the load generator (default: 1)")
    chk.add_argument("--json", action="store_true", help="print the check as JSON")
    chk.add_argument("--require-tuned", action="store_true", help="exit 1 unless every item is ok")


def run(args: argparse.Namespace) -> int:
    """Print the check; 1 when ``--require-tuned`` and an item is not ok, else 0."""
    result = system.check(placement_from(args.server_cpus, args.loadgen_cpus))
    print(system.encode(result) if args.json else system.to_text(result), end="")
    return 1 if args.require_tuned and not result.tuned else 0
