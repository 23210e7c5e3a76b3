"""``./bench clients``: the client libraries (``clients/``) against the native reference server
(:mod:`wsbench.jobs.clients`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.commands.options import add_plan_arguments, plan_from_args
from wsbench.jobs import clients as job
from wsbench.jobs.clients import ClientsOptions
from wsbench.scenarios import CLIENT_GRID

NAME = "clients"
HELP = "the client libraries (clients/) against the native reference server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The client job's options (:class:`~wsbench.jobs.clients.ClientsOptions`)."""
    parser.add_argument(
        "--client", action="append", help="client library (repeatable; default: all)"
    )
    parser.add_argument(
        "--config", action="append", help="configuration id (repeatable; default: all)"
    )
    parser.add_argument(
        "--versions", choices=["latest", "all"], default="latest",
        help="the latest release of each configuration (default) or every version",
    )  # fmt: skip
    parser.add_argument(
        "--scenario", action="append", choices=list(CLIENT_GRID),
        help="echo (ping-pong and pipelined) or stream (push); default both",
    )  # fmt: skip
    parser.add_argument(
        "--results", type=Path,
        help="the results store (default: WSBENCH_RESULTS or results/); documents go to "
        "its clients/ folder",
    )  # fmt: skip
    parser.add_argument("--machine", help="machine name (default: asv's, else the host name)")
    parser.add_argument("--server-cpus", help="CPU list for the reference server (default: 0)")
    parser.add_argument("--client-cpus", help="CPU list for the client (default: 1)")
    add_plan_arguments(parser, "fresh reference-server processes per scenario")


def options_of(args: argparse.Namespace) -> ClientsOptions:
    """The client job's options from the parsed command line (the plan is checked by the
    job, after the clients named)."""
    return ClientsOptions(
        client=args.client, config=args.config, versions=args.versions,
        scenario=args.scenario, results=args.results, machine=args.machine,
        server_cpus=args.server_cpus, client_cpus=args.client_cpus,
        plan=plan_from_args(args, validate=False),
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(options_of(args))
