"""The test command (``./bench test``, also run by CI): linters, then Rust tests, then pytest."""

from __future__ import annotations

import subprocess
import sys

from wsbench.paths import LOADGEN_DIR, REPO_ROOT

STEPS: list[tuple[str, list[str]]] = [
    ("ruff", [sys.executable, "-m", "ruff", "check", "."]),
    ("ruff format", [sys.executable, "-m", "ruff", "format", "--check", "."]),
    ("mypy", [sys.executable, "-m", "mypy", "wsbench", "benchmarks", "tests"]),
    ("asv.conf.json in sync", [sys.executable, "-m", "wsbench.cli", "asv-conf", "--check"]),
    ("workflow linters", [sys.executable, "-m", "wsbench.cli", "lint-workflows"]),
    (
        "cargo test",
        ["cargo", "test", "--release", "--manifest-path", str(LOADGEN_DIR / "Cargo.toml")],
    ),
    ("pytest", [sys.executable, "-m", "pytest", "-q"]),
]
"""Each step: a name and its command, run from the repository root in this order."""


def run() -> int:
    """Run every step (all of them, even after a failure); 0 if all passed, else 1."""
    failed = []
    for i, (name, argv) in enumerate(STEPS, 1):
        print(f"\n=== [{i}/{len(STEPS)}] {name}", flush=True)
        if subprocess.run(argv, cwd=REPO_ROOT, check=False).returncode != 0:
            failed.append(name)
    print()
    if failed:
        print(f"wsbench test: FAILED steps: {', '.join(failed)}")
        return 1
    return 0
