"""The environment locks: the exact distributions each benchmark environment installs.

Each implementation (and client library) keeps a ``lock.toml`` beside its ``meta.toml``,
written by ``./bench lock``: one entry per (requirements, Python) of its environments, with
every distribution the resolver chose for them, so that an environment installs the same
packages on any day (``uv pip sync``), and a refresh of them is a commit.

An entry is keyed by what was resolved: the Python (``"3.11"``, ``"3.14t"``) and the
requirements passed to the resolver (the version's and configuration's pins from
``meta.toml`` and the harness's own, :data:`wsbench.asv.uv.HARNESS_REQUIREMENTS`), so two
configurations with the same requirements share one. A change to either in ``meta.toml``
makes the entry *stale*: it is no longer found, and ``./bench lock`` resolves it again.
A resolution that fails is kept too, with the resolver's reason (``error``), so that the
version is recorded as failing to install, with that reason, on every day alike.

The file (``lock.toml``)::

    # (a comment saying how it was written)
    [[environment]]
    python = "3.11"
    requires = ["asv_runner", "channels==4.3.2", ...]
    resolved_on = "YYYY-MM-DD"
    packages = [
        "asgiref==3.13.0",
        ...
    ]

This module reads and writes that format; resolving is :mod:`wsbench.jobs.lock`'s, and
installing :mod:`wsbench.asv.install`'s.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec

LOCK_FILE = "lock.toml"
"""The lock's name in an implementation's (or client library's) folder."""
HEADER = """\
# The exact distributions each environment of {name} installs (x86-64 Linux), written by
# `./bench lock` from meta.toml: do not edit by hand. `./bench lock --upgrade --impl {name}`
# resolves them again from the registry's releases of the day; refreshing them is a commit.
"""


class LockError(ValueError):
    """A lock file cannot be read: not TOML, or an entry that does not fit the format (the
    message names the file and the problem)."""


class LockEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One environment's resolution.

    Attributes:
        python: the Python it was resolved for (:mod:`wsbench.pythons`' names).
        requires: the requirements resolved, sorted (pip syntax: ``"channels==4.3.2"``).
        resolved_on: the day it was resolved, ``YYYY-MM-DD`` (UTC).
        packages: every distribution to install, ``name==version`` with normalized names,
            sorted (as ``uv pip compile`` and ``uv pip freeze`` print them); empty when the
            resolution failed.
        error: why the requirements do not resolve (the resolver's words), or None.
    """

    python: str
    requires: tuple[str, ...]
    resolved_on: str
    packages: tuple[str, ...] = ()
    error: str | None = None

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """What it is found by: ``(python, requires)``."""
        return (self.python, self.requires)


class _LockFile(msgspec.Struct, forbid_unknown_fields=True):
    environment: list[LockEntry] = msgspec.field(default_factory=list)


def lock_path(directory: Path) -> Path:
    """The lock of the implementation (or client library) in ``directory``."""
    return directory / LOCK_FILE


def key_of(python: str, requires: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    """The key of an environment of ``python`` installing ``requires`` (any order)."""
    return (python, tuple(sorted(requires)))


def load(path: Path) -> list[LockEntry]:
    """The entries of the lock at ``path`` (none when the file does not exist).

    Raises:
        LockError: see the class.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise LockError(f"{path}: {exc}") from exc
    try:
        return msgspec.convert(data, _LockFile).environment
    except msgspec.ValidationError as exc:
        raise LockError(f"{path}: {exc} (run ./bench lock to write it again)") from exc


def find(entries: Sequence[LockEntry], python: str, requires: Iterable[str]) -> LockEntry | None:
    """The entry for ``python`` and ``requires``, or None (not locked, or stale)."""
    wanted = key_of(python, requires)
    return next((e for e in entries if e.key == wanted), None)


def entry_sha256(entry: LockEntry) -> str:
    """The SHA-256 (hex) of what the entry installs: its Python and its packages (or its
    error), in a canonical JSON form. Two environments with the same hash installed the
    same distributions."""
    canonical = json.dumps(
        {"python": entry.python, "packages": list(entry.packages), "error": entry.error},
        sort_keys=True, separators=(",", ":"),
    )  # fmt: skip
    return hashlib.sha256(canonical.encode()).hexdigest()


def _string(text: str) -> str:
    """A TOML basic string (JSON's escapes are a subset of TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def render(name: str, entries: Iterable[LockEntry]) -> str:
    """The text of ``name``'s lock with ``entries``, sorted by Python and requirements, one
    package a line (so that a refresh reads as a diff of versions)."""
    out = [HEADER.format(name=name)]
    for entry in sorted(entries, key=lambda e: (e.python, e.requires)):
        out.append("\n[[environment]]\n")
        out.append(f"python = {_string(entry.python)}\n")
        out.append(f"requires = [{', '.join(_string(r) for r in entry.requires)}]\n")
        out.append(f"resolved_on = {_string(entry.resolved_on)}\n")
        if entry.error is not None:
            out.append(f"error = {_string(entry.error)}\n")
        else:
            out.append("packages = [\n")
            out.extend(f"    {_string(p)},\n" for p in entry.packages)
            out.append("]\n")
    return "".join(out)


def requirements_text(entry: LockEntry) -> str:
    """The entry's packages as a requirements file (``uv pip sync``'s input)."""
    return "".join(f"{p}\n" for p in entry.packages)
