"""``./bench list``: the implementations and client libraries, their configurations and
versions, and the Pythons this machine has of those wsbench measures on."""

from __future__ import annotations

import argparse

from wsbench.impls import all_impls
from wsbench.instrument.interpreters import InterpreterNotFound, find_python, routes
from wsbench.paths import CLIENTS_DIR
from wsbench.pythons import DEFAULT_PYTHON, pythons_of

NAME = "list"
HELP = "implementations, their configurations and versions, and the Pythons found"


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
    print(f"pythons wsbench measures on (the default is {DEFAULT_PYTHON}), on this machine:")
    for name in pythons_of(["all"]):
        try:
            build = find_python(name)
        except InterpreterNotFound:
            print(f"  {name!s:6} not found (looked for {routes(name)})")
            continue
        print(f"  {name!s:6} {build.version} {build.executable}")
    return 0
