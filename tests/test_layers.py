"""The package's layers (``wsbench/__init__.py``, contracts in ``pyproject.toml``): a package
imports only those below it, the site reads the results layer and the core only, and only the
commands parse a command line."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from wsbench.paths import REPO_ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_every_import_goes_down_the_layers() -> None:
    proc = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=REPO_ROOT, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "Contracts: 3 kept, 0 broken." in proc.stdout


def test_the_layers_name_every_package_and_top_level_module() -> None:
    with (REPO_ROOT / "pyproject.toml").open("rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    named = {m.strip() for layer in layers for m in re.split(r"[|:]", layer)}
    top = {
        f"wsbench.{p.stem if p.is_file() else p.name}"
        for p in (REPO_ROOT / "wsbench").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    }
    assert top == named
