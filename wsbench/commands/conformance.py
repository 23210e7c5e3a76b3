"""``./bench conformance``: grade servers by the Autobahn|Testsuite
(:mod:`wsbench.jobs.conformance`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.commands.options import add_env_arguments
from wsbench.jobs import conformance as job
from wsbench.jobs.conformance import CASES, ConformanceOptions
from wsbench.results.conformance import GROUPS

NAME = "conformance"
HELP = "grade servers' conformance to RFC 6455 with the Autobahn|Testsuite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The conformance job's options (:class:`~wsbench.jobs.conformance.ConformanceOptions`)."""
    add_env_arguments(parser, "grade")
    grids = "; ".join(f"{name}: {' '.join(cases)}" for name, cases in CASES.items())
    parser.add_argument(
        "--grid", choices=list(CASES), default="default",
        help=f"the case groups ({grids}); 12-13 (permessage-deflate) are probed and "
        "reported as not offered",
    )  # fmt: skip
    parser.add_argument(
        "--cases", action="append", metavar="PATTERN",
        help="these cases instead of the grid's (repeatable; e.g. 6.* or 7.1.5; groups: "
        f"{', '.join(GROUPS)})",
    )  # fmt: skip
    parser.add_argument(
        "--results", type=Path,
        help="the results store (default: WSBENCH_RESULTS or results/); documents go to "
        "its conformance/ folder",
    )  # fmt: skip
    parser.add_argument("--machine", help="machine name (default: asv's, else the host name)")
    parser.add_argument("--server-cpus", help="CPU list for the servers (default: 0)")
    parser.add_argument("--client-cpus", help="CPU list for the fuzzing client (default: 1)")
    parser.add_argument(
        "--new-releases", action="store_true",
        help="also every release newer than the last listed (as ./bench run --new-releases)",
    )  # fmt: skip
    parser.add_argument("--shard", metavar="I/N", help="only shard I of N (as ./bench run)")
    parser.add_argument("--run-id", help="the documents' run id (default: a new one)")
    parser.add_argument(
        "--at-once", type=int, default=job.AT_ONCE, metavar="N",
        help=f"grade up to N servers at the same time (default {job.AT_ONCE}; 1: one at a "
        "time)",
    )  # fmt: skip
    parser.add_argument(
        "--clients", type=int, default=job.CLIENTS, metavar="N",
        help=f"fuzzing clients per server, each a share of its cases (default {job.CLIENTS})",
    )  # fmt: skip


def options_of(args: argparse.Namespace) -> ConformanceOptions:
    """The conformance job's options from the parsed command line."""
    return ConformanceOptions(
        impl=args.impl, config=args.config, versions=args.versions,
        environment=args.environment, grid=args.grid, cases=args.cases,
        results=args.results, machine=args.machine, server_cpus=args.server_cpus,
        client_cpus=args.client_cpus, new_releases=args.new_releases, shard=args.shard,
        run_id=args.run_id, at_once=args.at_once, clients=args.clients,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(options_of(args))
