"""Installing a benchmark environment: exactly its entry in the committed environment lock
(:mod:`wsbench.envlock`), or, for an environment no lock lists (a release newer than
``meta.toml`` lists, found by the nightly), what uv resolves from the registry that day.

Both the asv plugin (:mod:`wsbench.asv.uv`) and the environments outside asv
(:mod:`wsbench.asv.venvs`) install through :func:`install`, so an environment holds the same
distributions whichever made it. Each records where its packages came from in
:data:`wsbench.paths.RESOLUTION_FILE` at its root, which the documents measured in it copy
(:func:`wsbench.instrument.provenance.environment_record`).
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from wsbench import envlock
from wsbench.asv.conf import BenchEnv
from wsbench.asv.requirements import install_failure_summary, requirement_spec
from wsbench.paths import LOCKED_REQUIREMENTS_FILE, RESOLUTION_FILE, repo_relative
from wsbench.results.runformat import Resolution

HARNESS_REQUIREMENTS = ("asv_runner", "psutil", "msgspec", "packaging", "trustme", "cryptography")
"""Installed in every environment besides its framework: asv's runner, the sampler's psutil,
msgspec for the run format and the ``meta.toml`` schema, packaging for the requirement
pins of ``meta.toml`` (:mod:`wsbench.impls`), and trustme with cryptography for the TLS
profiles' throw-away certificates (:mod:`wsbench.instrument.certs`; imported only when a
TLS set is measured). The same in every environment and not part of its name."""
OUTPUT_TAIL_CHARS = 4000
"""How much of uv's output an install error keeps (its end, where the cause is)."""


class InstallError(RuntimeError):
    """An environment's packages did not install (the message starts with the one line
    that says why, then uv's output or the lock's recorded reason)."""


def specs_of(requirements: Mapping[str, str]) -> tuple[str, ...]:
    """What an environment of asv's ``requirements`` (``{name: version}``) installs, as the
    resolver takes it, sorted: those and :data:`HARNESS_REQUIREMENTS`."""
    specs = [requirement_spec(k, v) for k, v in requirements.items()]
    return tuple(sorted({*specs, *HARNESS_REQUIREMENTS}))


def install_specs(env: BenchEnv) -> tuple[str, ...]:
    """What ``env`` installs (:func:`specs_of` its :attr:`BenchEnv.requirements`: its package
    at its version and the version's and configuration's pins)."""
    return specs_of(env.requirements)


@functools.cache
def _entries(path: Path, mtime_ns: int) -> tuple[envlock.LockEntry, ...]:
    return tuple(envlock.load(path))


def locked(lock_file: Path, python: str, specs: tuple[str, ...]) -> envlock.LockEntry | None:
    """The entry of the lock at ``lock_file`` for ``python`` and ``specs``, or None (not
    locked, or stale).

    Raises:
        wsbench.envlock.LockError: the lock file cannot be read.
    """
    try:
        mtime = lock_file.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    return envlock.find(_entries(lock_file, mtime), python, specs)


def lock_entry(env: BenchEnv) -> envlock.LockEntry | None:
    """``env``'s entry in its implementation's lock (:func:`locked`)."""
    return locked(envlock.lock_path(env.impl.directory), env.python, install_specs(env))


def _run(argv: list[str], environ: Mapping[str, str], timeout_s: float | None) -> None:
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, check=False, env=dict(environ),
            timeout=timeout_s,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise InstallError(f"'{' '.join(argv[1:3])}' took over {timeout_s:g} s") from exc
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).strip()
        raise InstallError(
            f"{install_failure_summary(output)}\n'{' '.join(argv[1:3])} ...' failed:\n"
            f"{output[-OUTPUT_TAIL_CHARS:]}"
        )


def install(
    uv: str,
    prefix: Path,
    specs: tuple[str, ...],
    *,
    python: str,
    lock_file: Path | None,
    environ: Mapping[str, str],
    timeout_s: float | None = None,
) -> Resolution:
    """Install an environment of Python ``python`` (a name, ``"3.11"``) that wants ``specs``
    into the virtual environment at ``prefix`` (made by ``uv venv``), and record where its
    packages came from there: the entry of the lock at ``lock_file`` for them, exactly
    (``uv pip sync``: nothing else stays installed), else ``specs`` resolved by uv now
    (also when ``lock_file`` is None). ``environ`` is uv's environment; uv gives up after
    ``timeout_s`` seconds (None: never).

    Raises:
        InstallError: uv failed, or the lock records that the requirements do not resolve.
        wsbench.envlock.LockError: the lock file cannot be read.
    """
    interpreter = str(prefix / "bin" / "python")
    entry = locked(lock_file, python, specs) if lock_file is not None else None
    if entry is not None and lock_file is not None:
        if entry.error is not None:
            raise InstallError(
                f"{install_failure_summary(entry.error)}\ndoes not resolve (locked on "
                f"{entry.resolved_on} in {repo_relative(lock_file)}):\n{entry.error}"
            )
        requirements = prefix / LOCKED_REQUIREMENTS_FILE
        requirements.write_text(envlock.requirements_text(entry), encoding="utf-8")
        _run([uv, "pip", "sync", "--quiet", "--python", interpreter, str(requirements)],
             environ, timeout_s)  # fmt: skip
        resolution = Resolution(
            source="lock", sha256=envlock.entry_sha256(entry), resolved_on=entry.resolved_on,
            lock_file=repo_relative(lock_file),
        )  # fmt: skip
    else:
        _run([uv, "pip", "install", "--quiet", "--python", interpreter, *specs], environ,
             timeout_s)  # fmt: skip
        today = datetime.now(UTC).date().isoformat()
        resolution = Resolution(source="resolved", resolved_on=today)
    (prefix / RESOLUTION_FILE).write_bytes(msgspec.json.encode(resolution))
    return resolution


def install_env(uv: str, prefix: Path, env: BenchEnv, environ: Mapping[str, str]) -> Resolution:
    """:func:`install` ``env`` from its implementation's lock."""
    return install(
        uv, prefix, install_specs(env), python=env.python,
        lock_file=envlock.lock_path(env.impl.directory), environ=environ,
    )  # fmt: skip
