"""``./bench site``: build the site from a results store."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.jobs import main as mainjob
from wsbench.paths import SITE_DIR
from wsbench.results import store

NAME = "site"
HELP = "build the site from a results store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--results``."""
    parser.add_argument(
        "--results", type=Path, help="the store (default: WSBENCH_RESULTS or results/)"
    )


def run(args: argparse.Namespace) -> int:
    """Build it; 0."""
    mainjob.build_site(args.results or store.root_from_env())
    print(f"wsbench: site built in {SITE_DIR}")
    return 0
