"""``./bench pr-compare``: a pull request against its merge base, interleaved
(:mod:`wsbench.ci.pull_request`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.ci import pull_request
from wsbench.ci.pull_request import PrCompareOptions
from wsbench.commands.options import add_plan_arguments, plan_from_args
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results.compare import CompareError

NAME = "pr-compare"
HELP = "a pull request against its merge base, interleaved"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (:class:`~wsbench.ci.pull_request.PrCompareOptions`)."""
    parser.add_argument("--base", required=True, help="the target branch or commit")
    parser.add_argument("--head", required=True, help="the pull request's head commit")
    parser.add_argument("--markdown", type=Path, required=True, help="write the comment here")
    add_plan_arguments(parser, "rounds: server processes per side and configuration")
    parser.add_argument("--machine", default="wsbench-local")
    parser.add_argument(
        "--instructions-only", action="store_true",
        help="count instructions per message under valgrind instead of timing (any runner)",
    )  # fmt: skip
    parser.add_argument(
        "--python", action="append", default=[], metavar="VERSION",
        help=f"compare on this Python too (repeatable; all: every one found; default "
        f"{DEFAULT_PYTHON} only)",
    )  # fmt: skip


def options_of(args: argparse.Namespace) -> PrCompareOptions:
    """The comparison's options from the parsed command line.

    Raises:
        CompareError: a sampling plan value out of range.
    """
    try:
        plan = plan_from_args(args)
    except ValueError as exc:
        raise CompareError(str(exc)) from exc
    return PrCompareOptions(
        base=args.base, head=args.head, markdown=args.markdown, plan=plan,
        machine=args.machine, instructions_only=args.instructions_only,
        pythons=tuple(args.python) or (DEFAULT_PYTHON,),
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return pull_request.run(options_of(args))
