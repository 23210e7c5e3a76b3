"""The packages whose locked versions differ between two texts of the project's ``uv.lock``.

``uv.lock`` (TOML) has one ``[[package]]`` table per locked distribution, with its ``name``
(normalized, as uv writes it) and ``version``. A name appears more than once when the
resolver chose different versions for different environments: each such table then lists
the environments it is for in ``resolution-markers`` (e.g. ``numpy`` 2.4.6 for Python 3.11
and 2.5.5 from 3.12 on).

Each name is compared as a whole (:func:`package_changes`): its tables are paired between
the two locks by identical ``resolution-markers`` (the same environments), then the rest in
ascending version order, lowest with lowest. A name is

- *added* or *removed* when only one lock has it;
- *downgraded* when any pair goes to a lower version, or a version only the new lock has is
  lower than every old one (a newly split environment got an older release), or a version
  only the old lock had is higher than every new one (its environments went back);
- *upgraded* when its versions differ otherwise;
- *changed* when they differ but a version is not one PEP 440 can order.

A name locked at the same versions in both is not listed, even if which environment gets
which of them changed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from packaging.version import InvalidVersion, Version

Kind = Literal["downgraded", "upgraded", "added", "removed", "changed"]
KINDS: tuple[Kind, ...] = ("downgraded", "upgraded", "added", "removed", "changed")
"""The kinds of change, in the order they are listed (downgrades first: they are the ones a
reviewer must look at)."""


class LockTextError(ValueError):
    """A text is not a ``uv.lock``: not TOML, or a ``[[package]]`` without a name (the
    message says which)."""


@dataclass(frozen=True)
class Locked:
    """One ``[[package]]`` table of a name.

    Attributes:
        version: the locked version (``""`` when the table has none: uv omits it for a
            source tree whose version is dynamic).
        markers: its ``resolution-markers``, sorted; empty when it is for every environment.
    """

    version: str
    markers: tuple[str, ...]


@dataclass(frozen=True)
class PackageChange:
    """A name whose locked versions differ between the two locks.

    Attributes:
        name: the distribution's name as ``uv.lock`` writes it (normalized).
        kind: how it changed (the module's docstring says when each applies).
        old: its versions in the old lock, distinct, in ascending order; empty when added.
        new: its versions in the new lock, likewise; empty when removed.
    """

    name: str
    kind: Kind
    old: tuple[str, ...]
    new: tuple[str, ...]


def locked_packages(text: str) -> dict[str, tuple[Locked, ...]]:
    """Every name ``text`` (a ``uv.lock``) locks, with its tables in the file's order.

    Raises:
        LockTextError: ``text`` is not TOML, or a ``[[package]]`` table has no name.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LockTextError(f"not a uv.lock (TOML): {exc}") from exc
    found: dict[str, list[Locked]] = {}
    for i, table in enumerate(data.get("package", [])):
        name = table.get("name") if isinstance(table, dict) else None
        if not isinstance(name, str) or not name:
            raise LockTextError(f"the lock's [[package]] number {i + 1} has no name")
        markers = tuple(sorted(str(m) for m in table.get("resolution-markers", [])))
        found.setdefault(name, []).append(Locked(str(table.get("version", "")), markers))
    return {name: tuple(tables) for name, tables in found.items()}


def _parsed(version: str) -> Version | None:
    try:
        return Version(version)
    except InvalidVersion:
        return None


def _ascending(versions: Sequence[str]) -> list[str]:
    """``versions`` by PEP 440 order; those it cannot order after the others, by text."""
    parsed = [(v, _parsed(v)) for v in versions]
    ordered = sorted((p, v) for v, p in parsed if p is not None)
    return [v for _, v in ordered] + sorted(v for v, p in parsed if p is None)


def _kind(old: Sequence[Locked], new: Sequence[Locked]) -> Kind:
    """How a name locked in both changed (both non-empty, their versions differ)."""
    versions = [t.version for t in (*old, *new)]
    if any(_parsed(v) is None for v in versions):
        return "changed"
    # Tables for the same environments first, then the rest lowest with lowest.
    left_old, left_new = list(old), list(new)
    pairs: list[tuple[Version, Version]] = []
    for table in old:
        twin = next((t for t in left_new if t.markers == table.markers), None)
        if twin is not None:
            pairs.append((Version(table.version), Version(twin.version)))
            left_old.remove(table)
            left_new.remove(twin)
    rest_old = sorted(Version(t.version) for t in left_old)
    rest_new = sorted(Version(t.version) for t in left_new)
    pairs += zip(rest_old, rest_new, strict=False)
    lowest_old = min(Version(t.version) for t in old)
    highest_new = max(Version(t.version) for t in new)
    down = (
        any(after < before for before, after in pairs)
        or any(v < lowest_old for v in rest_new[len(rest_old) :])
        or any(v > highest_new for v in rest_old[len(rest_new) :])
    )
    return "downgraded" if down else "upgraded"


def package_changes(old_text: str, new_text: str) -> list[PackageChange]:
    """Every name whose locked versions differ between ``old_text`` and ``new_text`` (two
    ``uv.lock`` texts), by kind (:data:`KINDS`) and then by name.

    Raises:
        LockTextError: either text is not a ``uv.lock`` (:func:`locked_packages`).
    """
    old, new = locked_packages(old_text), locked_packages(new_text)
    changes = []
    for name in sorted(old.keys() | new.keys()):
        before, after = old.get(name, ()), new.get(name, ())
        old_versions = _ascending(sorted({t.version for t in before}))
        new_versions = _ascending(sorted({t.version for t in after}))
        if old_versions == new_versions:
            continue
        kind: Kind
        if not before:
            kind = "added"
        elif not after:
            kind = "removed"
        else:
            kind = _kind(before, after)
        changes.append(PackageChange(name, kind, tuple(old_versions), tuple(new_versions)))
    return sorted(changes, key=lambda c: (KINDS.index(c.kind), c.name))
