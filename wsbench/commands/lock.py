"""``./bench lock``: write the project's lock and the environment locks, or check them
(:mod:`wsbench.jobs.lock`)."""

from __future__ import annotations

import argparse
import shutil

from wsbench.jobs.lock import LockJobError, LockOptions
from wsbench.jobs.lock import run as run_lock

NAME = "lock"
HELP = "write uv.lock and the environment locks (impls/*/lock.toml), or --check them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--upgrade``, ``--check``, ``--project`` / ``--environments``, ``--impl``."""
    parser.add_argument(
        "--upgrade", action="store_true",
        help="resolve again from today's releases, not only what is missing",
    )  # fmt: skip
    parser.add_argument(
        "--check", action="store_true",
        help="write nothing; exit 1 naming what is not locked or stale",
    )  # fmt: skip
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--project", action="store_true", help="only uv.lock")
    only.add_argument("--environments", action="store_true",
                      help="only the environment locks")  # fmt: skip
    parser.add_argument("--impl", action="append", default=[], metavar="NAME",
                        help="only this implementation's or client library's lock "
                             "(repeatable; ./bench list)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run :func:`wsbench.jobs.lock.run` with the options given.

    Raises:
        wsbench.jobs.lock.LockJobError: uv is not on PATH, or a resolution failed.
    """
    uv = shutil.which("uv")
    if uv is None:
        raise LockJobError("uv is not on PATH (./bench installs it into .venv)")
    options = LockOptions(
        upgrade=args.upgrade, check=args.check, project=not args.environments,
        environments=not args.project, impls=tuple(args.impl),
    )  # fmt: skip
    return run_lock(options, uv)
