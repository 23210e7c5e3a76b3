"""``./bench clients``: the client libraries (``clients/``) against the native reference server."""

from __future__ import annotations

import argparse

from wsbench.jobs import clients as job

NAME = "clients"
HELP = "the client libraries (clients/) against the native reference server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``./bench clients``'s options."""
    job.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run it; the exit code."""
    return job.run(args)
