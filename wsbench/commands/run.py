"""``./bench run``: the main job (:mod:`wsbench.jobs.main`)."""

from __future__ import annotations

import argparse

from wsbench.commands.options import add_env_arguments, add_plan_arguments, plan_from_args
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import main as mainjob
from wsbench.jobs.main import MainJobOptions, grid_processes, grid_windows
from wsbench.jobs.selection import MainJobError
from wsbench.pythons import DEFAULT_PYTHON, PYTHONS
from wsbench.scenarios import (
    DEFAULT_GRID_PROCESSES,
    DEFAULT_GRID_WINDOWS_PER_PROCESS,
    GRIDS,
    SCENARIOS,
)

NAME = "run"
HELP = "the main job: build, benchmark with asv, build the site"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The main job's options (:class:`~wsbench.jobs.main.MainJobOptions`)."""
    add_env_arguments(parser, "run")
    parser.add_argument(
        "--scenario",
        action="append",
        choices=SCENARIOS,
        help="scenario (repeatable; default: every scenario with a parameter set in the grid)",
    )
    parser.add_argument(
        "--grid",
        choices=GRIDS,
        default="default",
        help="parameter sets: the default grid (the main job's, within its 30-minute budget) "
        "or the full grid (the nightly's); see the Methodology page",
    )
    parser.add_argument(
        "--param", action="append", default=[], metavar="NAME=V[,V...]",
        help="only the grid's parameter sets with these values (e.g. size_bytes=16,65536); "
        "one that selects no set of the grid is refused",
    )  # fmt: skip
    add_plan_arguments(
        parser, "rounds of fresh server processes (memory has its own)",
        windows_default=f"{DEFAULT_GRID_WINDOWS_PER_PROCESS} on the default grid, "
        f"{SamplingPlan().windows_per_process} on the full grid",
        processes_default=f"{DEFAULT_GRID_PROCESSES} on the default grid, "
        f"{SamplingPlan().processes} on the full grid",
    )  # fmt: skip
    parser.add_argument("--server-cpus", help="CPU list for servers (default: 0)")
    parser.add_argument("--loadgen-cpus", help="CPU list for the load generator (default: 1)")
    parser.add_argument("--machine", default="wsbench-local", help="asv machine name")
    parser.add_argument(
        "--commits",
        default=mainjob.THIS_COMMIT,
        help=f"the commits to measure, as asv run takes them (default {mainjob.THIS_COMMIT}: "
        "the last commit; e.g. HEAD~3..HEAD: each commit's own harness, implementations and "
        "load generator)",
    )
    parser.add_argument(
        "--new-releases",
        action="store_true",
        help="also every release on the package index newer than the last listed in "
        "meta.toml, pinned like that version (the nightly)",
    )
    parser.add_argument(
        "--python",
        action="append",
        metavar="VERSION",
        help=f"the Python to measure on (repeatable; default {DEFAULT_PYTHON}): e.g. 3.13 or "
        "3.14t (free-threaded), or all: every one of "
        f"{', '.join(PYTHONS)} this machine has; on a Python other than {DEFAULT_PYTHON}, the "
        "latest releases only. An interpreter is found on PATH, in pyenv, or in "
        "WSBENCH_PYTHONS (./bench list shows them), never downloaded",
    )
    parser.add_argument(
        "--shard", metavar="I/N", help="only shard I of N of the environments (wsbench.jobs.shards)"
    )
    parser.add_argument("--run-id", help="the run's id (default: a new one; shards share one)")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each server's instructions per message under valgrind (about 2 "
        "minutes per environment; the nightly's; README: Instructions per message)",
    )
    parser.add_argument("--no-site", action="store_true", help="skip building the site")
    parser.add_argument(
        "--grid-only", action="store_true",
        help="measure the grid only: no conformance grades, CPU profiles, deployment profiles "
        "or second Python (README: what ./bench run measures)",
    )  # fmt: skip


def plan_of(args: argparse.Namespace) -> SamplingPlan:
    """The sampling plan of :func:`add_arguments`' options: ``--windows`` defaults to
    :data:`~wsbench.scenarios.DEFAULT_GRID_WINDOWS_PER_PROCESS` on the default grid and
    to the plan's default on the full grid.

    Raises:
        MainJobError: a value out of range.
    """
    windows = args.windows if args.windows is not None else grid_windows(args.grid)
    processes = args.processes if args.processes is not None else grid_processes(args.grid)
    try:
        return plan_from_args(args, windows, processes=processes)
    except ValueError as exc:
        raise MainJobError(str(exc)) from exc


def options_of(args: argparse.Namespace) -> MainJobOptions:
    """The main job's options from the parsed command line.

    Raises:
        MainJobError: a value out of range.
    """
    return MainJobOptions(
        impl=args.impl, config=args.config, versions=args.versions,
        environment=args.environment, scenario=args.scenario, grid=args.grid,
        param=tuple(args.param), plan=plan_of(args), server_cpus=args.server_cpus,
        loadgen_cpus=args.loadgen_cpus, machine=args.machine, commits=args.commits,
        new_releases=args.new_releases, python=tuple(args.python or (DEFAULT_PYTHON,)),
        shard=args.shard, run_id=args.run_id,
        instructions=args.instructions, no_site=args.no_site, grid_only=args.grid_only,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run the main job; its exit code."""
    return mainjob.run(options_of(args))
