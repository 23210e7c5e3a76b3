"""``./bench lock-refresh-body``: the lock refresh's pull request body from the lock before
and after the refresh and ``./bench test``'s log (:mod:`wsbench.ci.lock_refresh`)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from wsbench.ci import devtest_log, lock_refresh
from wsbench.ci.lock_changes import KINDS, LockTextError, package_changes

NAME = "lock-refresh-body"
HELP = "the lock refresh's pull request body: uv.lock's changes and ./bench test's result"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The two locks, the test log and status, the run's address and the output."""
    parser.add_argument("--old", type=Path, required=True, help="uv.lock before the refresh")
    parser.add_argument("--new", type=Path, required=True, help="uv.lock after the refresh")
    parser.add_argument("--test-log", type=Path, required=True,
                        help="./bench test's output (stdout and stderr)")  # fmt: skip
    parser.add_argument("--test-status", type=int, required=True,
                        help="./bench test's exit status")  # fmt: skip
    parser.add_argument("--run-url", default="", help="the workflow run's address")
    parser.add_argument("--output", type=Path, required=True, help="the body (Markdown)")


def run(args: argparse.Namespace) -> int:
    """Write the body; 0, or 2 when a lock is not a ``uv.lock`` (the reason on stderr).

    Raises:
        OSError: a file cannot be read or the body written.
    """
    try:
        changes = package_changes(
            args.old.read_text(encoding="utf-8"), args.new.read_text(encoding="utf-8")
        )
    except LockTextError as exc:
        print(f"wsbench: {exc}", file=sys.stderr)
        return 2
    log = args.test_log.read_text(encoding="utf-8", errors="replace")
    outcome = devtest_log.parse(log, args.test_status)
    args.output.write_text(lock_refresh.body(changes, outcome, args.run_url), encoding="utf-8")
    counts = Counter(c.kind for c in changes)
    moved = ", ".join(f"{counts[k]} {k}" for k in KINDS if counts[k]) or "no version moved"
    tests = "passed" if outcome.passed else f"failed ({len(outcome.failed)} steps)"
    print(f"wsbench: wrote {args.output}: {moved}; tests {tests}")
    return 0
