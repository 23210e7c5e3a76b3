"""An asv environment plugin: ``uv venv`` plus ONE ``uv pip install`` per environment.

asv's own ``virtualenv`` and ``uv`` environments run one ``pip install`` per requirement
(about 11 s an environment on a 2-core machine); this one resolves and installs
everything in a single uv call (a second or two with a warm uv cache). Enabled in
asv.conf.json by ``"plugins": [".wsbench.asv.uv"]`` and ``"environment_type": "uvpip"``.

Every environment also gets what the harness needs at benchmark time (asv_runner, psutil,
msgspec, packaging, trustme, cryptography); those are the same in every environment and are
not part of its name.

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

from wsbench.asv.requirements import install_failure_summary, requirement_spec
from wsbench.instrument.interpreters import NO_DOWNLOADS, InterpreterNotFound, executable_of
from wsbench.paths import INSTALL_ERROR_FILE, PROJECT_IN_ENV
from wsbench.pythons import parse_python

HARNESS_REQUIREMENTS = ("asv_runner", "psutil", "msgspec", "packaging", "trustme", "cryptography")
"""Installed in every environment besides its framework: asv's runner, the sampler's psutil,
msgspec for the run format and the ``meta.toml`` schema, packaging for the requirement
pins of ``meta.toml`` (:mod:`wsbench.impls`), and trustme with cryptography for the TLS
profiles' throw-away certificates (:mod:`wsbench.instrument.certs`; imported only when a
TLS set is measured)."""
ERROR_TAIL_CHARS = 4000
"""How much of the installer's output an install error keeps (its end, where the cause is)."""


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
        self._uv = shutil.which("uv")
        super().__init__(conf, python, requirements, tagged_env_vars)
        if not self._uv:
            raise environment.EnvironmentUnavailable("uv command not found on PATH")

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
        specs = [requirement_spec(k, v) for k, v in sorted(self._requirements.items())]
        log.info(f"Installing {' '.join(specs)} into {self.name}")
        try:
            self._uv_install([*specs, *HARNESS_REQUIREMENTS], env)
        except util.ProcessError as exc:
            output = f"{exc.stdout or ''}\n{exc.stderr or ''}".strip()
            reason = (
                f"{install_failure_summary(output)}\n'uv pip install {' '.join(specs)}' "
                f"failed:\n{output[-ERROR_TAIL_CHARS:]}"
            )
            log.warning(f"{self.name} does not install; its benchmarks record why")
            self._uv_install(list(HARNESS_REQUIREMENTS), env)
            error = {"requirements": self._requirements, "error": reason}
            Path(self._path, INSTALL_ERROR_FILE).write_text(json.dumps(error), encoding="utf-8")

    def _uv_install(self, specs: list[str], env: dict[str, str]) -> None:
        """One ``uv pip install`` into this environment.

        Raises:
            asv.util.ProcessError: uv failed (``stdout``/``stderr`` hold its output).
        """
        python = f"{self._path}/bin/python"
        util.check_call(
            [self._uv, "pip", "install", "--quiet", "--python", python, *specs],
            env=env,
            timeout=self._install_timeout,
            display_error=False,
        )

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
