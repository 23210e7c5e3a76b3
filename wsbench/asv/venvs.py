"""Environments for measuring a given version outside asv (``./bench compare --versions``):
one virtual environment per asv environment name, made with ``uv venv`` and one
``uv pip install`` of the same requirements asv would install (:class:`BenchEnv`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from wsbench.asv.conf import BenchEnv
from wsbench.asv.requirements import install_failure_summary, requirement_spec
from wsbench.instrument.interpreters import NO_DOWNLOADS, InterpreterNotFound, executable_of
from wsbench.paths import REPO_ROOT

ENVS_DIR = REPO_ROOT / ".wsbench" / "envs"
"""Where the environments live (ignored by git); each is reused while it installed fine."""
DONE = ".wsbench-installed"


class VenvError(RuntimeError):
    """An environment could not be made: uv is missing, or the requirements did not install
    (the message starts with uv's cause)."""


def ensure(env: BenchEnv, root: Path = ENVS_DIR) -> Path:
    """The Python interpreter of ``env``'s environment, made and installed when needed (made
    again over what an unfinished earlier attempt left).

    Raises:
        VenvError: see the class, or the environment's Python is not on this machine.
    """
    uv = shutil.which("uv")
    if uv is None:
        raise VenvError("uv is not on PATH (./bench installs it into .venv)")
    path = root / env.name
    python = path / "bin" / "python"
    if (path / DONE).exists():
        return python
    try:  # the machine's interpreter of the environment's Python, never a download
        interpreter = executable_of(env.python)
    except InterpreterNotFound as exc:
        raise VenvError(f"{env.row_name}: {exc}") from exc
    specs = [requirement_spec(k, v) for k, v in sorted(env.requirements.items())]
    # --clear: a folder without the DONE mark is what an interrupted or failed install left.
    venv = [uv, "venv", "--quiet", "--clear", f"--python={interpreter}", "--no-project"]
    steps = [[*venv, str(path)]]
    if specs:  # the native reference's environment needs no package
        steps.append([uv, "pip", "install", "--quiet", "--python", str(python), *specs])
    for argv in steps:
        proc = subprocess.run(
            argv, capture_output=True, text=True, check=False, env={**os.environ, **NO_DOWNLOADS}
        )
        if proc.returncode != 0:
            output = (proc.stdout + proc.stderr).strip()
            raise VenvError(
                f"{env.row_name}: {install_failure_summary(output)}\n"
                f"'{' '.join(argv[1:3])} ...' failed:\n{output[-2000:]}"
            )
    (path / DONE).touch()
    return python
