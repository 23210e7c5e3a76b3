"""``./bench``'s command line: the parser is built from the command modules
(:data:`COMMANDS`, each with its ``NAME``, ``HELP``, ``add_arguments`` and ``run``), and the
errors that mean bad input exit with 2, the other known failures with 1, each with one line
naming the problem."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from wsbench import paths
from wsbench.asv.venvs import VenvError
from wsbench.ci.github import GitHubError
from wsbench.ci.nightly import NightlyError
from wsbench.ci.workflow_lint import LintSetupError
from wsbench.commands import (
    asv_conf,
    calibrate,
    clients,
    compare,
    conformance,
    crosscheck,
    lint_workflows,
    list_impls,
    lock,
    lock_refresh,
    measure,
    nightly,
    noise,
    pr_comment,
    pr_compare,
    pr_info,
    profile,
    run,
    site,
    system,
    test,
)
from wsbench.cpulist import CpuSetError
from wsbench.envlock import LockError
from wsbench.impls import ImplError
from wsbench.instrument.autobahn import NoSuiteError, SuiteError
from wsbench.instrument.lifetime import (
    INTERRUPTED_EXIT_CODE,
    TERMINATED_EXIT_CODE,
    unwind_on_signals,
)
from wsbench.instrument.loadgen import LoadgenError
from wsbench.instrument.measure import ConfigError
from wsbench.instrument.profile import NoProfilerError, ProfileError
from wsbench.jobs.calibrate import CalibrateError
from wsbench.jobs.conformance import ConformanceError
from wsbench.jobs.crosscheck import CrossCheckError
from wsbench.jobs.lock import LockJobError
from wsbench.jobs.noise import NoiseError
from wsbench.jobs.profile import ProfileJobError
from wsbench.jobs.selection import MainJobError
from wsbench.results.compare import CompareError
from wsbench.results.store import StoreError
from wsbench.scenarios.selection import ParamError

COMMANDS: tuple[ModuleType, ...] = (
    run, test, measure, compare, crosscheck, noise, calibrate, conformance, profile,
    lint_workflows, pr_compare, pr_info, pr_comment, nightly, site, system, clients,
    list_impls, asv_conf, lock, lock_refresh,
)  # fmt: skip
"""Every command, in ``./bench --help``'s order."""
BAD_INPUT = (
    ConfigError, ImplError, CpuSetError, MainJobError, CompareError, NightlyError,
    CrossCheckError, NoiseError, CalibrateError, ConformanceError, NoSuiteError,
    ProfileJobError, NoProfilerError, ParamError, LockError,
)  # fmt: skip
"""Errors that name bad input: exit code 2."""
FAILURES = (
    LoadgenError, VenvError, GitHubError, LintSetupError, StoreError, SuiteError, ProfileError,
    LockJobError,
)  # fmt: skip
"""Errors of a tool or a step that failed: exit code 1."""


def parser() -> argparse.ArgumentParser:
    """``./bench``'s parser, one subcommand per command module."""
    top = argparse.ArgumentParser(
        prog="./bench", description="wsbench: " + " | ".join(c.NAME for c in COMMANDS)
    )
    sub = top.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_arguments(sub.add_parser(command.NAME, help=command.HELP))
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code: 2 for bad input and 1 for a failed step
    (with a message), 130 when interrupted (SIGINT); SIGTERM, once
    :func:`~wsbench.instrument.lifetime.unwind_on_signals` is in place, ends it with 143
    after the same clean-up."""
    args = parser().parse_args(argv)
    # by the command's name: an option's value never stands in for the command (crosscheck's
    # positional ``run``)
    command = next(c for c in COMMANDS if args.command == c.NAME)
    try:
        code: int = command.run(args)
        return code
    except BAD_INPUT as exc:
        print(f"wsbench: {exc}", file=sys.stderr)
        return 2
    except FAILURES as exc:
        print(f"wsbench: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("wsbench: interrupted (SIGINT): what was measured is in the store", file=sys.stderr)
        return INTERRUPTED_EXIT_CODE
    except SystemExit as exc:
        if exc.code == TERMINATED_EXIT_CODE:
            print("wsbench: terminated (SIGTERM): what was measured is in the store",
                  file=sys.stderr)  # fmt: skip
        raise


def console(argv: Sequence[str] | None = None) -> int:
    """``./bench``'s entry point: :func:`main` with SIGINT and SIGTERM unwinding it (no
    server or load generator left) however the process was started, also with SIGINT
    ignored, as a shell starts a background job
    (:func:`~wsbench.instrument.lifetime.unwind_on_signals`). Call it from the main thread."""
    unwind_on_signals()
    bytecode = paths.bytecode_env(os.environ)
    if bytecode is not None:  # for every process it starts: the servers, asv's, the tests'
        os.environ.pop("PYTHONDONTWRITEBYTECODE")
        os.environ.update(bytecode)
    return main(argv)


if __name__ == "__main__":
    sys.exit(console())
