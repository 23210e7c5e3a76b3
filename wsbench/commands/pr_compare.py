"""``./bench pr-compare``: a pull request against its merge base, interleaved."""

from __future__ import annotations

import argparse

from wsbench.ci import pull_request

NAME = "pr-compare"
HELP = "a pull request against its merge base, interleaved"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``./bench pr-compare``'s options."""
    pull_request.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return pull_request.run(args)
