"""``./bench crosscheck``: a run's instructions per message against its CPU time per message."""

from __future__ import annotations

import argparse

from wsbench.jobs import crosscheck as job

NAME = "crosscheck"
HELP = "a run's instructions per message against its CPU time per message"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``./bench crosscheck``'s options."""
    job.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(args)
