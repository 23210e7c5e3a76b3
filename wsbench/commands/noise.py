"""``./bench noise``: the noise study, variation within and between server processes."""

from __future__ import annotations

import argparse

from wsbench.jobs import noise as study

NAME = "noise"
HELP = "the noise study: variation within and between server processes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``./bench noise``'s options."""
    study.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return study.run(args)
