"""``./bench list``: the implementations and client libraries, their configurations and
versions."""

from __future__ import annotations

import argparse

from wsbench.impls import all_impls
from wsbench.paths import CLIENTS_DIR

NAME = "list"
HELP = "implementations, their configurations and versions"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    """Print them; 0."""
    for impl in [*all_impls(), *all_impls(CLIENTS_DIR)]:
        versions = ", ".join(v.version for v in impl.versions) or "(built from loadgen/)"
        print(f"{impl.name}: {versions}")
        for config in impl.configs:
            only = f"  (versions {', '.join(config.versions)})" if config.versions else ""
            print(f"  --config {config.id:26} {impl.row_name(config)}{only}")
    return 0
