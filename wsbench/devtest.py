"""The test command (``./bench test``, also run by CI): linters, then Rust tests, then pytest."""

from __future__ import annotations

import os
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
    ("pytest", [sys.executable, "-m", "pytest", "-q", "--durations=25"]),
]
"""Each step: a name and its command (run from the repository root) or function, in this
order; either gives an exit code."""


def bytecode_env(environ: dict[str, str]) -> dict[str, str] | None:
    """The steps' environment when ``environ`` forbids writing bytecode
    (``PYTHONDONTWRITEBYTECODE``) and names no bytecode folder: the same with bytecode
    written under the build cache instead (``PYTHONPYCACHEPREFIX``, ``~/.cache/wsbench/pycache``),
    never beside the sources; else None (``environ`` as it is). Without bytecode every Python
    process compiles every module it imports, and the tests start hundreds of them (servers,
    clients, asv's benchmark processes, mkdocs builds, each importing the same frameworks,
    matplotlib or scipy): tests/test_clientlibs.py took 102 s without, 77 s with an empty
    bytecode folder on a 2-core machine."""
    if not environ.get("PYTHONDONTWRITEBYTECODE") or environ.get("PYTHONPYCACHEPREFIX"):
        return None
    env = {k: v for k, v in environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(loadgen.cache_dir() / "pycache")
    return env


def run() -> int:
    """Run every step (all of them, even after a failure); 0 if all passed, else 1."""
    failed = []
    env = bytecode_env(dict(os.environ))
    for i, (name, argv) in enumerate(STEPS, 1):
        print(f"\n=== [{i}/{len(STEPS)}] {name}", flush=True)
        if callable(argv):
            try:
                code = argv()
            except loadgen.LoadgenError as exc:
                print(f"wsbench: {exc}", flush=True)
                code = 1
        else:
            code = subprocess.run(argv, cwd=REPO_ROOT, env=env, check=False).returncode
        if code != 0:
            failed.append(name)
    print()
    if failed:
        print(f"wsbench test: FAILED steps: {', '.join(failed)}")
        return 1
    return 0
