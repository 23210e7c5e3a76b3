"""``./bench lint-workflows``: actionlint and zizmor over ``.github/workflows``."""

from __future__ import annotations

import argparse

from wsbench.ci import workflow_lint

NAME = "lint-workflows"
HELP = "actionlint and zizmor over .github/workflows"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    """Run both linters; 0 when both passed."""
    return workflow_lint.run()
