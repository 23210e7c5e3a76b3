"""The test command (``./bench test``, also run by CI): linters, then Rust tests, then pytest."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from wsbench import loadgen
from wsbench.paths import REPO_ROOT

STEPS: list[tuple[str, list[str] | Callable[[], int]]] = [
    ("ruff", [sys.executable, "-m", "ruff", "check", "."]),
    ("ruff format", [sys.executable, "-m", "ruff", "format", "--check", "."]),
    ("mypy", [sys.executable, "-m", "mypy", "wsbench", "benchmarks", "tests"]),
    ("asv.conf.json in sync", [sys.executable, "-m", "wsbench.cli", "asv-conf", "--check"]),
    ("workflow linters", [sys.executable, "-m", "wsbench.cli", "lint-workflows"]),
    # In the harness's shared cargo target folder (the dependencies are compiled once for
    # both), keeping the tested binary for the pytest session: see loadgen.cargo_test.
    ("cargo test", loadgen.cargo_test),
    ("pytest", [sys.executable, "-m", "pytest", "-q"]),
]
"""Each step: a name and its command (run from the repository root) or function, in this
order; either gives an exit code."""


def run() -> int:
    """Run every step (all of them, even after a failure); 0 if all passed, else 1."""
    failed = []
    for i, (name, argv) in enumerate(STEPS, 1):
        print(f"\n=== [{i}/{len(STEPS)}] {name}", flush=True)
        if callable(argv):
            try:
                code = argv()
            except loadgen.LoadgenError as exc:
                print(f"wsbench: {exc}", flush=True)
                code = 1
        else:
            code = subprocess.run(argv, cwd=REPO_ROOT, check=False).returncode
        if code != 0:
            failed.append(name)
    print()
    if failed:
        print(f"wsbench test: FAILED steps: {', '.join(failed)}")
        return 1
    return 0
