"""The environment lock format (wsbench/envlock.py), and the repository's locks."""

from __future__ import annotations

from pathlib import Path

import pytest

from wsbench import envlock
from wsbench.jobs.lock import LockOptions, lock_environments

ENTRY = envlock.LockEntry(
    python="3.11", requires=("asv_runner", "websockets==15.0.1"), resolved_on="2026-12-07",
    packages=("asv-runner==0.3.2", "websockets==15.0.1"),
)  # fmt: skip
FAILED = envlock.LockEntry(
    python="3.14", requires=("robyn==0.72.2",), resolved_on="2026-12-07",
    error='error: No solution found\n  cause: no "cp314" wheel',
)  # fmt: skip


def test_a_lock_reads_back_as_written(tmp_path: Path) -> None:
    path = envlock.lock_path(tmp_path)
    path.write_text(envlock.render("demo", [FAILED, ENTRY]), encoding="utf-8")
    assert envlock.load(path) == [ENTRY, FAILED]  # sorted by Python, then requirements
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# The exact distributions each environment of demo installs")
    assert '    "websockets==15.0.1",\n' in text  # one package a line


def test_an_entry_is_found_by_its_python_and_requirements_in_any_order() -> None:
    entries = [ENTRY, FAILED]
    assert envlock.find(entries, "3.11", ["websockets==15.0.1", "asv_runner"]) == ENTRY
    assert envlock.find(entries, "3.12", ENTRY.requires) is None
    assert envlock.find(entries, "3.11", ["websockets==15.0.0", "asv_runner"]) is None  # stale


def test_the_hash_covers_what_is_installed_and_nothing_else() -> None:
    same = envlock.LockEntry("3.11", ("websockets==15.0.1",), "2027-01-01", ENTRY.packages)
    other = envlock.LockEntry("3.11", ENTRY.requires, "2026-12-07", ("websockets==15.0.1",))
    assert envlock.entry_sha256(same) == envlock.entry_sha256(ENTRY)
    assert envlock.entry_sha256(other) != envlock.entry_sha256(ENTRY)
    assert len(envlock.entry_sha256(ENTRY)) == 64


def test_a_missing_lock_has_no_entries(tmp_path: Path) -> None:
    assert envlock.load(tmp_path / "lock.toml") == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[environment]\n", "lock.toml: "),
        ('[[environment]]\npython = "3.11"\n', "run ./bench lock"),
        ('[[environment]]\npython = "3.11"\nrequires = []\nresolved_on = "x"\nextra = 1\n',
         "extra"),
    ],
)  # fmt: skip
def test_a_malformed_lock_is_named(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "lock.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(envlock.LockError, match=problem):
        envlock.load(path)


def test_every_environment_the_metadata_can_make_is_locked_and_nothing_else() -> None:
    outcomes = lock_environments(LockOptions(check=True, project=False), uv="uv", today="")
    stale = [o for o in outcomes if not o.in_sync]
    assert not stale, f"run ./bench lock: {stale}"
    assert all(o.lock_file.exists() for o in outcomes)
