"""``./bench lint-workflows``: actionlint and zizmor over ``.github/workflows``.

- actionlint (:data:`ACTIONLINT`) is built with ``go install`` into the build cache
  (``$WSBENCH_CACHE/bin``) the first time, unless one is on ``PATH``; it reads the runner
  labels from ``.github/actionlint.yaml`` and checks ``run:`` scripts with shellcheck when
  shellcheck is installed.
- zizmor (a dependency of the project's ``.venv``) runs offline, with its default
  ("regular") persona; a finding accepted on purpose carries an inline
  ``# zizmor: ignore[audit]`` comment with the reason beside it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from wsbench import paths
from wsbench.paths import REPO_ROOT

ACTIONLINT = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"
WORKFLOWS = REPO_ROOT / ".github" / "workflows"


class LintSetupError(RuntimeError):
    """A linter is missing and cannot be installed (the message says what to install)."""


def actionlint_binary() -> Path:
    """actionlint: from ``PATH``, else built once into ``$WSBENCH_CACHE/bin``.

    Raises:
        LintSetupError: neither actionlint nor Go is available, or the build failed.
    """
    found = shutil.which("actionlint")
    if found:
        return Path(found)
    bin_dir = paths.cache_dir() / "bin"
    binary = bin_dir / "actionlint"
    if binary.is_file():
        return binary
    go = shutil.which("go")
    if go is None:
        raise LintSetupError("actionlint is not on PATH and Go is not installed to build it")
    env = {**os.environ, "GOBIN": str(bin_dir)}
    proc = subprocess.run(
        [go, "install", ACTIONLINT], env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0 or not binary.is_file():
        raise LintSetupError(f"go install {ACTIONLINT} failed:\n{proc.stderr[-2000:]}")
    return binary


def zizmor_binary() -> str:
    """zizmor, installed beside this interpreter (the project's ``.venv``).

    Raises:
        LintSetupError: it is not installed.
    """
    beside = Path(sys.executable).parent / "zizmor"
    found = str(beside) if beside.is_file() else shutil.which("zizmor")
    if found is None:
        raise LintSetupError("zizmor is not installed (it is in the project's dev extras)")
    return found


def run(folder: Path = WORKFLOWS) -> int:
    """Run both linters over every workflow of ``folder``; 0 when both report nothing,
    else 1.

    Raises:
        LintSetupError: see :func:`actionlint_binary`.
    """
    files = sorted(str(p) for p in folder.glob("*.yml"))
    if not files:
        print("lint-workflows: no workflow")
        return 0
    steps = [
        ("actionlint", [str(actionlint_binary()), *files]),
        ("zizmor", [zizmor_binary(), "--offline", *files]),
    ]
    failed = []
    for name, argv in steps:
        print(f"lint-workflows: {name}", flush=True)
        if subprocess.run(argv, cwd=REPO_ROOT, check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"lint-workflows: findings from {', '.join(failed)}")
        return 1
    print(f"lint-workflows: {len(files)} workflows, no finding")
    return 0
