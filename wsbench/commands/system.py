"""``./bench system check``: the machine's tuning for benchmarking, each item ok or not, and the
layout of its CPUs; ``./bench system layout --cores N``: the layout of a runner with N CPUs
(:mod:`wsbench.results.headroom`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.instrument import system
from wsbench.instrument.cpus import available_cpus, placement_from
from wsbench.results import headroom, store

NAME = "system"
HELP = "the machine's tuning for benchmarking, and the layout of a runner's CPUs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``check`` and ``layout`` subcommands and their options."""
    sub = parser.add_subparsers(dest="system_command", required=True)
    chk = sub.add_parser(
        "check", help="governor, turbo, SMT, isolation... each ok or not; the CPU layout"
    )
    chk.add_argument("--server-cpus", help="CPU list for the server (default: 0)")
    chk.add_argument("--loadgen-cpus", help="CPU list for the load generator (default: 1)")
    chk.add_argument("--json", action="store_true", help="print the check as JSON")
    chk.add_argument("--require-tuned", action="store_true", help="exit 1 unless every item is ok")
    _results_argument(chk)
    lay = sub.add_parser(
        "layout",
        help="which CPUs of a runner with N cores go to the system, the server and the load "
        f"generator, for {headroom.HEADROOM:g}x load generator headroom",
    )
    lay.add_argument(
        "--cores", type=int, help="the runner's CPUs (default: the ones this process may use)"
    )
    _results_argument(lay)


def _results_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results", type=Path, default=None,
        help="the results store whose figures size the load generator (default: "
        "$WSBENCH_RESULTS or results/; the nightly's store has the full grid)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """``check``: print the check, then the layout for this machine's CPUs; 1 when
    ``--require-tuned`` and an item is not ok, else 0. ``layout``: print the layout for
    ``--cores``; 2 for fewer than 1 core."""
    cores = len(available_cpus())
    if args.system_command == "layout":
        cores = args.cores if args.cores is not None else cores
        if cores < 1:
            print(f"wsbench: --cores {cores}: a runner has at least 1 CPU")
            return 2
        print(layout_text(cores, args.results), end="")
        return 0
    result = system.check(placement_from(args.server_cpus, args.loadgen_cpus))
    if args.json:
        print(system.encode(result), end="")
    else:
        print(system.to_text(result), end="")
        print(layout_text(cores, args.results), end="")
    return 1 if args.require_tuned and not result.tuned else 0


def layout_text(cores: int, results: Path | None) -> str:
    """The layout of ``cores`` CPUs sized by the Python servers' figures in the store
    ``results`` (None: :func:`wsbench.results.store.root_from_env`), as text."""
    root = results if results is not None else store.root_from_env()
    found = headroom.demands(headroom.newest_runs(store.load_store(root).runs))
    largest = found[0].demand_percent if found else None
    return headroom.describe(headroom.layout(cores, largest), found)
