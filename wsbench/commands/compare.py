"""``./bench compare``: two runs, or two versions or commits measured interleaved, figure
by figure."""

from __future__ import annotations

import argparse

from wsbench.jobs import compare as comparejob

NAME = "compare"
HELP = "two runs, or two versions measured interleaved, figure by figure"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``./bench compare``'s options."""
    comparejob.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return comparejob.run(args)
