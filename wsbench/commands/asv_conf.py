"""``./bench asv-conf``: regenerate ``asv.conf.json`` from ``impls/*/meta.toml``, or check it."""

from __future__ import annotations

import argparse

from wsbench.asv import conf

NAME = "asv-conf"
HELP = "regenerate asv.conf.json from impls/*/meta.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--check``."""
    parser.add_argument("--check", action="store_true", help="only check it is up to date")


def run(args: argparse.Namespace) -> int:
    """Write it (0), or with ``--check`` say whether it is up to date (0) or stale (1)."""
    if args.check:
        ok = conf.is_in_sync()
        print("asv.conf.json is up to date" if ok else "asv.conf.json is stale: ./bench asv-conf")
        return 0 if ok else 1
    conf.write()
    print(f"wrote {conf.CONF_PATH}")
    return 0
