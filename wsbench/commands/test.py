"""``./bench test``: the tests, what CI runs (:mod:`wsbench.ci.devtest`)."""

from __future__ import annotations

import argparse

from wsbench.ci import devtest

NAME = "test"
HELP = "ruff, mypy, cargo fmt, clippy and test, pytest (what CI runs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    """Run every step; 0 when all passed."""
    return devtest.run()
