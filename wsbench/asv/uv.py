"""An asv environment plugin: ``uv venv`` plus ONE uv install per environment, from the
environment lock (:mod:`wsbench.asv.install`).

asv's own ``virtualenv`` and ``uv`` environments run one ``pip install`` per requirement;
this one installs everything in a single uv call: the environment's entry in its
implementation's ``lock.toml`` exactly, or what uv resolves for a release no lock lists yet.
Enabled in asv.conf.json by ``"plugins": [".wsbench.asv.uv"]`` and
``"environment_type": "uvpip"``.

Every environment also gets what the harness needs at benchmark time
(:data:`wsbench.asv.install.HARNESS_REQUIREMENTS`); those are the same in every environment
and are not part of its name.

The "project" asv installs at each commit is a copy of that commit's tree in the
environment (:func:`snapshot_tree`): the benchmarks import the harness, the implementations
and the load generator's sources from it, so ``asv run A..B`` measures each commit's own
code.

A version that does not install must not stop the run (asv aborts ``asv run`` when one
environment cannot be created) nor vanish from the results: when the install fails, the
environment gets the harness requirements only and a file :data:`INSTALL_ERROR_FILE` with
uv's error, and the benchmarks record every measurement of that environment as failed with
that reason (:func:`wsbench.asv.suite.install_error`). asv recreates every ``uvpip``
environment on each run (its presence check looks for a ``pip`` that uv does not install),
so a failed install is retried next time.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from asv import environment, util
from asv.console import log

from wsbench import envlock
from wsbench.asv.install import HARNESS_REQUIREMENTS, InstallError, install, specs_of
from wsbench.instrument.interpreters import NO_DOWNLOADS, InterpreterNotFound, executable_of
from wsbench.paths import CLIENTS_DIR, IMPLS_DIR, INSTALL_ERROR_FILE, PROJECT_IN_ENV
from wsbench.pythons import parse_python


def snapshot_tree(source: Path, target: Path) -> None:
    """Replace ``target`` with a copy of the project tree ``source``, without its git data
    and build outputs (``.git``, ``target``, ``.asv``, ``.venv``, ``__pycache__``)."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(
        source,
        target,
        ignore=shutil.ignore_patterns(".git", "target", ".asv", ".venv", "__pycache__"),
    )


class UvPip(environment.Environment):  # type: ignore[misc]
    """An asv environment made by ``uv venv`` and filled by one ``uv pip install``."""

    tool_name = "uvpip"

    def __init__(
        self, conf: Any, python: str, requirements: dict[str, str], tagged_env_vars: Any
    ) -> None:
        self._python = python
        self._requirements = requirements
        uv = shutil.which("uv")
        super().__init__(conf, python, requirements, tagged_env_vars)
        if not uv:
            raise environment.EnvironmentUnavailable("uv command not found on PATH")
        self._uv: str = uv

    @property
    def name(self) -> str:
        """asv's environment name, e.g. ``uvpip-py3.11-websockets15.0.1-WSBENCH_IMPLwebsockets``."""
        name: str = environment.get_env_name(
            self.tool_name, self._python, self._requirements, self._tagged_env_vars
        )
        return name

    @classmethod
    def matches(cls, python: str) -> bool:
        """True for a Python as wsbench names it (``MAJOR.MINOR``, ``t`` for the
        free-threaded build) when uv is installed."""
        try:
            parse_python(python)
        except ValueError:
            return False
        return shutil.which("uv") is not None

    def _lock_file(self) -> Path | None:
        """The lock of the implementation (or client library) the environment runs, from its
        build variables; None when they name none."""
        names = {k[1] if isinstance(k, tuple) else k: v for k, v in self._tagged_env_vars.items()}
        if names.get("WSBENCH_IMPL"):
            return envlock.lock_path(IMPLS_DIR / names["WSBENCH_IMPL"])
        if names.get("WSBENCH_CLIENT"):
            return envlock.lock_path(CLIENTS_DIR / names["WSBENCH_CLIENT"])
        return None

    def _setup(self) -> None:
        env = {**os.environ, **self.build_env_vars, **NO_DOWNLOADS}
        try:  # the machine's interpreter (PATH, pyenv, WSBENCH_PYTHONS), never a download
            interpreter = executable_of(self._python)
        except InterpreterNotFound as exc:
            raise environment.EnvironmentUnavailable(str(exc)) from exc
        log.info(f"Creating {self.name} with uv and {interpreter}")
        util.check_call(
            [self._uv, "venv", "--quiet", f"--python={interpreter}", "--no-project", self._path],
            env=env,
        )
        specs = specs_of(self._requirements)
        log.info(f"Installing {' '.join(specs)} into {self.name}")
        try:
            install(
                self._uv, Path(self._path), specs, python=self._python,
                lock_file=self._lock_file(), environ=env, timeout_s=self._install_timeout,
            )  # fmt: skip
        except (InstallError, envlock.LockError) as exc:
            log.warning(f"{self.name} does not install; its benchmarks record why")
            # the harness alone, so that the benchmarks run and record the reason
            install(self._uv, Path(self._path), HARNESS_REQUIREMENTS, python=self._python,
                    lock_file=None, environ=env, timeout_s=self._install_timeout)  # fmt: skip
            error = {"requirements": self._requirements, "error": str(exc)}
            Path(self._path, INSTALL_ERROR_FILE).write_text(json.dumps(error), encoding="utf-8")

    def _install_project(self, repo: Any, commit_hash: str, build_dir: str) -> None:
        """ "Install" the commit being measured: a copy of its tree (asv's checkout of it) at
        :data:`wsbench.paths.PROJECT_IN_ENV` in the environment, from which the benchmarks
        import the harness and run the implementations and the load generator of that
        commit (see ``benchmarks/__init__.py``)."""
        log.info(f"Copying {commit_hash[:8]} into {self.name}")
        snapshot_tree(Path(build_dir), Path(self._path) / PROJECT_IN_ENV)

    def run(self, args: list[str], **kwargs: Any) -> Any:
        """Run the environment's Python with ``args``."""
        log.debug(f"Running '{' '.join(args)}' in {self.name}")
        return self.run_executable("python", args, **kwargs)
