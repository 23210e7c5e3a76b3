"""The packages a refresh of ``uv.lock`` moved: added, removed, upgraded, and downgraded ones
called out, also when a name is locked at several versions under markers."""

from __future__ import annotations

import json

import pytest

from wsbench.ci.lock_changes import (
    Locked,
    LockTextError,
    PackageChange,
    locked_packages,
    package_changes,
)
from wsbench.paths import REPO_ROOT

OLD_PY = "python_full_version < '3.12'"
NEW_PY = "python_full_version >= '3.12'"


def lock(*tables: tuple[str, str] | tuple[str, str, tuple[str, ...]]) -> str:
    """A ``uv.lock`` text with one ``[[package]]`` per ``(name, version[, markers])``."""
    text = 'version = 1\nrevision = 3\nrequires-python = ">=3.11"\n'
    for name, version, *markers in tables:
        text += f'\n[[package]]\nname = "{name}"\nversion = "{version}"\n'
        if markers:
            text += f"resolution-markers = {json.dumps(list(markers[0]))}\n"
        text += 'source = { registry = "https://pypi.org/simple" }\n'
    return text


def texts(changes: list[PackageChange]) -> list[tuple[str, str, str, str]]:
    return [(c.kind, c.name, ", ".join(c.old), ", ".join(c.new)) for c in changes]


def test_each_kind_is_named_downgrades_first_then_by_name() -> None:
    old = lock(("daphne", "4.2.3"), ("cryptography", "50.0.2"), ("anyio", "4.15.0"),
               ("sniffio", "1.3.1"), ("idna", "3.21"))  # fmt: skip
    new = lock(("daphne", "2.3.0"), ("cryptography", "51.0.0"), ("anyio", "4.16.0"),
               ("pyasn1", "0.6.1"), ("idna", "3.21"))  # fmt: skip
    assert texts(package_changes(old, new)) == [
        ("downgraded", "daphne", "4.2.3", "2.3.0"),
        ("upgraded", "anyio", "4.15.0", "4.16.0"),
        ("upgraded", "cryptography", "50.0.2", "51.0.0"),
        ("added", "pyasn1", "", "0.6.1"),
        ("removed", "sniffio", "1.3.1", ""),
    ]


def test_versions_are_ordered_by_pep_440_not_as_text() -> None:
    old = lock(("a", "1.9.0"), ("b", "2.0.0rc1"), ("c", "10.0"))
    new = lock(("a", "1.10.0"), ("b", "2.0.0"), ("c", "9.0"))
    assert texts(package_changes(old, new)) == [
        ("downgraded", "c", "10.0", "9.0"),
        ("upgraded", "a", "1.9.0", "1.10.0"),
        ("upgraded", "b", "2.0.0rc1", "2.0.0"),
    ]


def test_a_name_under_markers_is_paired_by_its_markers() -> None:
    old = lock(("numpy", "2.4.6", (OLD_PY,)), ("numpy", "2.5.5", (NEW_PY,)))
    up = lock(("numpy", "2.5.6", (NEW_PY,)), ("numpy", "2.4.6", (OLD_PY,)))
    assert texts(package_changes(old, up)) == [
        ("upgraded", "numpy", "2.4.6, 2.5.5", "2.4.6, 2.5.6")
    ]
    # One environment's version went up, the other's down: a downgrade, though the highest
    # version rose.
    mixed = lock(("numpy", "2.4.1", (OLD_PY,)), ("numpy", "2.6.0", (NEW_PY,)))
    assert texts(package_changes(old, mixed)) == [
        ("downgraded", "numpy", "2.4.6, 2.5.5", "2.4.1, 2.6.0")
    ]


def test_a_name_split_or_merged_under_new_markers_is_compared_by_its_bounds() -> None:
    one = lock(("django", "5.2.20"))
    # Split: Python 3.11 kept back at an older release than every environment had.
    split_down = lock(("django", "5.1.0", (OLD_PY,)), ("django", "6.1.3", (NEW_PY,)))
    split_up = lock(("django", "5.2.20", (OLD_PY,)), ("django", "6.1.3", (NEW_PY,)))
    assert texts(package_changes(one, split_down)) == [
        ("downgraded", "django", "5.2.20", "5.1.0, 6.1.3")
    ]
    assert texts(package_changes(one, split_up)) == [
        ("upgraded", "django", "5.2.20", "5.2.20, 6.1.3")
    ]
    # Merged: the environments that had 6.1.3 now get 5.2.21.
    merged = lock(("django", "5.2.21"))
    assert texts(package_changes(split_up, merged)) == [
        ("downgraded", "django", "5.2.20, 6.1.3", "5.2.21")
    ]
    assert texts(package_changes(split_up, lock(("django", "6.1.4")))) == [
        ("upgraded", "django", "5.2.20, 6.1.3", "6.1.4")
    ]


def test_the_same_versions_under_other_markers_are_no_change() -> None:
    old = lock(("numpy", "2.4.6", (OLD_PY,)), ("numpy", "2.5.5", (NEW_PY,)))
    new = lock(("numpy", "2.4.6", (OLD_PY, "python_full_version == '3.12.*'")),
               ("numpy", "2.5.5", ("python_full_version >= '3.13'",)))  # fmt: skip
    assert package_changes(old, new) == []


def test_a_version_pep_440_cannot_order_is_changed() -> None:
    old, new = lock(("odd", "1.0")), lock(("odd", "not-a-version"))
    assert texts(package_changes(old, new)) == [("changed", "odd", "1.0", "not-a-version")]


def test_the_repositorys_lock_parses_and_equals_itself() -> None:
    text = (REPO_ROOT / "uv.lock").read_text(encoding="utf-8")
    packages = locked_packages(text)
    assert "uv" in packages and all(t.version for ts in packages.values() for t in ts)
    assert package_changes(text, text) == []


def test_a_table_lists_its_markers_sorted() -> None:
    text = lock(("numpy", "2.5.5", (NEW_PY, OLD_PY)))
    assert locked_packages(text) == {"numpy": (Locked("2.5.5", (OLD_PY, NEW_PY)),)}


def test_what_is_not_a_lock_says_why() -> None:
    with pytest.raises(LockTextError, match=r"not a uv\.lock \(TOML\)"):
        package_changes("[[package]\n", lock())
    with pytest.raises(LockTextError, match=r"\[\[package\]\] number 2 has no name"):
        locked_packages(lock(("a", "1.0")) + '\n[[package]]\nversion = "1.0"\n')
