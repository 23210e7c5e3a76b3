"""The test command (``./bench test``, also run by CI): linters (Python, workflows, rustfmt and
clippy), then Rust tests, then pytest
(in parallel, then the tests that need the machine to themselves)."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from wsbench import paths
from wsbench.instrument import loadgen
from wsbench.instrument.cpus import LOADGEN_CPUS_ENV, SERVER_CPUS_ENV
from wsbench.paths import REPO_ROOT

PYTEST = [sys.executable, "-m", "pytest", "-q"]
ALONE = "alone"
"""The marker of the tests that run after the others, with the machine to themselves (its
meaning is in pyproject.toml's ``markers``)."""
PARALLEL_WORKERS = len(os.sched_getaffinity(0)) + 1
"""pytest-xdist workers of the parallel step: one per CPU this process may run on, and one
more. Many tests wait rather than compute (a server starting, a load generator run of a
fixed duration, a fan-out's subscribers joining, a timeout that is the point), which leaves
a CPU idle with one worker per CPU: on this 2-core machine the step took 415.3 s with 2
workers (21.1 % of the CPU time idle) and 348.5 s with 3 (6.4 % idle), for the same work
(601 and 608 CPU-seconds by process accounting)."""

STEPS: list[tuple[str, list[str] | Callable[[], int]]] = [
    ("ruff", [sys.executable, "-m", "ruff", "check", "."]),
    ("ruff format", [sys.executable, "-m", "ruff", "format", "--check", "."]),
    # Its cache is shared by every clone (MYPY_CACHE_DIR, see steps_env): cold, mypy
    # took 13.5 s from a clean clone, warm 0.7 s; mypy checks each cached module's hash.
    ("mypy", [sys.executable, "-m", "mypy", "wsbench", "benchmarks", "tests"]),
    (
        "asv.conf.json in sync",
        [sys.executable, "-m", "wsbench.commands.cli", "asv-conf", "--check"],
    ),
    ("workflow linters", [sys.executable, "-m", "wsbench.commands.cli", "lint-workflows"]),
    ("cargo fmt", loadgen.cargo_fmt_check),
    # In the harness's shared cargo target folder (the dependencies are compiled once per
    # profile); cargo test with the tests profile: see loadgen.cargo_test.
    ("cargo clippy", loadgen.cargo_clippy),
    ("cargo test", loadgen.cargo_test),
    # The tests in PARALLEL_WORKERS workers (pytest-xdist, each takes the next test when
    # free), except those that assert what other work moves (a wall-clock verdict, the
    # machine's kernel memory: marked "alone", pyproject.toml): they run after, with the
    # machine to themselves.
    (
        "pytest",
        [
            *PYTEST,
            *("-m", f"not {ALONE}", f"--numprocesses={PARALLEL_WORKERS}", "--dist=worksteal"),
            "--durations=25",
        ],
    ),
    # Only the test files that may hold such a test are imported (tests/conftest.py,
    # :func:`may_hold_alone_tests`).
    ("pytest, alone", [*PYTEST, "-m", ALONE, "--durations=5"]),
]
"""Each step: a name and its command (run from the repository root) or function, in this
order; either gives an exit code."""


@functools.cache
def may_hold_alone_tests(path: Path) -> bool:
    """Whether the test file ``path`` may hold a test marked :data:`ALONE`: its source says
    ``mark.alone`` (``@pytest.mark.alone`` or ``pytestmark = pytest.mark.alone``, the only
    ways this suite marks a test; tests/conftest.py fails the collection of a marked test in
    a file that does not say so). With ``-m alone`` the other files are not imported: importing
    every test module to deselect all but 8 tests took 7.4 s of the step's 174 s.

    Raises:
        OSError: the file cannot be read.
    """
    return f"mark.{ALONE}".encode() in path.read_bytes()


XDIST_WORKER_ENV = "PYTEST_XDIST_WORKER"
"""The variable pytest-xdist sets in each worker of the parallel step (``gw0``, ``gw1``...)."""


def worker_layout(environ: Mapping[str, str], usable: Sequence[int]) -> dict[str, str]:
    """The runner's-layout variables that place one parallel-step worker's servers and load
    generators (``WSBENCH_SERVER_CPUS``, ``WSBENCH_LOADGEN_CPUS``; every server the harness
    starts without an explicit placement follows them): worker ``k``'s servers on the
    ``k``-th of the ``usable`` CPUs (modulo their number), its load generators on the next.

    With every worker's servers on the first CPU (the default placement), tests of the
    implementations in three workers kept CPU 0 94-100 % busy and CPU 1 18-42 %: the servers
    do most of the work, and a pinned process cannot move to an idle CPU.

    Args:
        environ: the worker's environment (:data:`XDIST_WORKER_ENV` names the worker).
        usable: the CPUs the worker may run on, sorted.

    Returns:
        The variables to set; none outside a worker, with fewer than 2 CPUs, or when the
        environment already has a layout (a runner's own).
    """
    worker = environ.get(XDIST_WORKER_ENV, "")
    if not worker.startswith("gw") or not worker[2:].isdigit() or len(usable) < 2:
        return {}
    if environ.get(SERVER_CPUS_ENV) or environ.get(LOADGEN_CPUS_ENV):
        return {}
    k = int(worker[2:])
    server, loadgen_cpu = usable[k % len(usable)], usable[(k + 1) % len(usable)]
    return {SERVER_CPUS_ENV: str(server), LOADGEN_CPUS_ENV: str(loadgen_cpu)}


def steps_env(environ: dict[str, str]) -> dict[str, str]:
    """The steps' environment: :func:`wsbench.paths.bytecode_env`'s (or ``environ``), with
    mypy's cache in the build cache (``MYPY_CACHE_DIR``, ``~/.cache/wsbench/mypy``) unless
    ``environ`` names one, so that a clean clone does not check every module from scratch."""
    env = paths.bytecode_env(environ) or dict(environ)
    env.setdefault("MYPY_CACHE_DIR", str(paths.cache_dir() / "mypy"))
    return env


def run() -> int:
    """Run every step (all of them, even after a failure); 0 if all passed, else 1."""
    failed = []
    env = steps_env(dict(os.environ))
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
