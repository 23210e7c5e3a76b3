"""``./bench pr-info``: a pull request's head and base commits, as ``key=value`` lines (gh)."""

from __future__ import annotations

import argparse

from wsbench.ci import github

NAME = "pr-info"
HELP = "a pull request's head and base commits (gh)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--pr`` and ``--repo``."""
    parser.add_argument("--pr", type=int, required=True)
    parser.add_argument("--repo", required=True, help="OWNER/NAME")


def run(args: argparse.Namespace) -> int:
    """Print them; 0."""
    found = github.pull_request(args.pr, repo=args.repo)
    print("".join(f"{k}={v}\n" for k, v in found.items()), end="")
    return 0
