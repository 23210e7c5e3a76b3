"""``./bench crosscheck``: a run's instructions per message against its CPU time per message
(:mod:`wsbench.jobs.crosscheck`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.jobs import crosscheck as job

NAME = "crosscheck"
HELP = "a run's instructions per message against its CPU time per message"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The run and the store."""
    parser.add_argument("run", help="a run id in the store, or a folder of its documents")
    parser.add_argument("--results", type=Path, help="the store (default: WSBENCH_RESULTS)")


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(args.run, results=args.results)
