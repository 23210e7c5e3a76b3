"""Environments for measuring a given version outside asv (``./bench compare --versions``):
one virtual environment per asv environment name, made with ``uv venv`` and installed as asv's
are, from the environment lock (:func:`wsbench.asv.install.install_env`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from wsbench import envlock
from wsbench.asv.conf import BenchEnv
from wsbench.asv.install import InstallError, install_env, install_specs, lock_entry
from wsbench.instrument.interpreters import NO_DOWNLOADS, InterpreterNotFound, executable_of
from wsbench.paths import REPO_ROOT

ENVS_DIR = REPO_ROOT / ".wsbench" / "envs"
"""Where the environments live (ignored by git); each is reused while it installed fine from
the lock entry it was made from."""
DONE = ".wsbench-installed"
"""Written last in an environment: what it was installed from (:func:`installed_from`)."""


class VenvError(RuntimeError):
    """An environment could not be made: uv is missing, the requirements did not install
    (the message starts with uv's cause), or the lock cannot be read."""


def installed_from(env: BenchEnv) -> str:
    """What ``env``'s environment is made from today: its lock entry's hash, or its
    requirements when no lock lists it. An environment made from anything else (an entry
    since refreshed) is made again.

    Raises:
        wsbench.envlock.LockError: the lock file cannot be read.
    """
    entry = lock_entry(env)
    if entry is not None:
        return f"lock {envlock.entry_sha256(entry)}\n"
    return f"resolved {' '.join(install_specs(env))}\n"


def ensure(env: BenchEnv, root: Path = ENVS_DIR) -> Path:
    """The Python interpreter of ``env``'s environment, made and installed when needed (made
    again over what an unfinished earlier attempt left, or over one made from another lock
    entry).

    Raises:
        VenvError: see the class, or the environment's Python is not on this machine.
    """
    uv = shutil.which("uv")
    if uv is None:
        raise VenvError("uv is not on PATH (./bench installs it into .venv)")
    path = root / env.name
    python = path / "bin" / "python"
    try:
        identity = installed_from(env)
    except envlock.LockError as exc:
        raise VenvError(f"{env.row_name}: {exc}") from exc
    done = path / DONE
    if done.exists() and done.read_text(encoding="utf-8") == identity:
        return python
    try:  # the machine's interpreter of the environment's Python, never a download
        interpreter = executable_of(env.python)
    except InterpreterNotFound as exc:
        raise VenvError(f"{env.row_name}: {exc}") from exc
    environ = {**os.environ, **NO_DOWNLOADS}
    # --clear: a folder without the DONE mark is what an interrupted or failed install left.
    venv = [uv, "venv", "--quiet", "--clear", f"--python={interpreter}", "--no-project"]
    proc = subprocess.run([*venv, str(path)], capture_output=True, text=True, check=False,
                          env=environ)  # fmt: skip
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).strip()
        raise VenvError(f"{env.row_name}: 'uv venv' failed:\n{output[-2000:]}")
    try:
        install_env(uv, path, env, environ)
    except (InstallError, envlock.LockError) as exc:
        raise VenvError(f"{env.row_name}: {exc}") from exc
    done.write_text(identity, encoding="utf-8")
    return python
