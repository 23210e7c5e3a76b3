"""``./bench nightly``: the nightly workflow's steps."""

from __future__ import annotations

import argparse

from wsbench.ci import nightly as steps

NAME = "nightly"
HELP = "the nightly workflow's steps (see wsbench.ci.nightly)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``./bench nightly``'s options."""
    steps.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return steps.run(args)
