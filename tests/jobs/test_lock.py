"""./bench lock (wsbench/jobs/lock.py): which entries it resolves, keeps and drops, and what
the resolver writes."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from wsbench import envlock
from wsbench.impls import ImplError, get_impl
from wsbench.jobs import lock
from wsbench.jobs.lock import LockJobError, LockOptions

UV = shutil.which("uv")
needs_uv = pytest.mark.skipif(UV is None, reason="uv is installed with ./bench")


def fake_resolve(calls: list[tuple[str, tuple[str, ...]]]) -> lock.Resolve:
    def resolve(uv: str, python: str, requires: tuple[str, ...], today: str) -> envlock.LockEntry:
        calls.append((python, requires))
        return envlock.LockEntry(python, requires, today, packages=("x==1",))

    return resolve


@pytest.fixture
def tornado_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tornado's metadata in a folder of its own, so that its lock can be written."""
    folder = tmp_path / "tornado"
    shutil.copytree(get_impl("tornado").directory, folder)
    impl = replace(get_impl("tornado"), directory=folder)
    monkeypatch.setattr(lock, "select", lambda names: [impl])
    return folder


def test_only_what_no_entry_answers_is_resolved_and_unused_entries_go(tornado_copy: Path) -> None:
    path = envlock.lock_path(tornado_copy)
    entries = envlock.load(path)
    kept, gone = entries[0], entries[1]
    unused = envlock.LockEntry("3.11", ("tornado==0.1",), "2026-01-01", ("tornado==0.1",))
    path.write_text(envlock.render("tornado", [e for e in entries if e != gone] + [unused]))
    calls: list[tuple[str, tuple[str, ...]]] = []

    (outcome,) = lock.lock_environments(
        LockOptions(impls=["tornado"]), "uv", "2027-01-02", fake_resolve(calls)
    )

    assert calls == [(gone.python, gone.requires)]
    assert (outcome.resolved, outcome.kept, outcome.dropped) == (1, len(entries) - 1, 1)
    written = envlock.load(path)
    assert kept in written and unused not in written
    assert envlock.find(written, gone.python, gone.requires) == envlock.LockEntry(
        gone.python, gone.requires, "2027-01-02", packages=("x==1",)
    )


def test_upgrade_resolves_every_entry_again(tornado_copy: Path) -> None:
    entries = envlock.load(envlock.lock_path(tornado_copy))
    calls: list[tuple[str, tuple[str, ...]]] = []
    lock.lock_environments(
        LockOptions(impls=["tornado"], upgrade=True), "uv", "2027-01-02", fake_resolve(calls)
    )
    assert sorted(calls) == sorted((e.python, e.requires) for e in entries)
    assert {e.resolved_on for e in envlock.load(envlock.lock_path(tornado_copy))} == {"2027-01-02"}


def test_a_check_writes_nothing_and_names_what_is_missing(tornado_copy: Path) -> None:
    path = envlock.lock_path(tornado_copy)
    before = path.read_text()
    entries = envlock.load(path)
    path.write_text(envlock.render("tornado", entries[1:]))
    (outcome,) = lock.lock_environments(
        LockOptions(impls=["tornado"], check=True), "uv", "2027-01-02", fake_resolve([])
    )
    assert (outcome.resolved, outcome.dropped, outcome.in_sync) == (1, 0, False)
    assert path.read_text() != before and envlock.load(path) == entries[1:]


def test_a_resolver_failure_writes_nothing(tornado_copy: Path) -> None:
    path = envlock.lock_path(tornado_copy)
    path.write_text(envlock.render("tornado", envlock.load(path)[1:]))
    before = path.read_text()

    def offline(uv: str, python: str, requires: tuple[str, ...], today: str) -> envlock.LockEntry:
        raise LockJobError("uv pip compile failed: the registry is out of reach")

    with pytest.raises(LockJobError, match="out of reach"):
        lock.lock_environments(LockOptions(impls=["tornado"]), "uv", "2027-01-02", offline)
    assert path.read_text() == before


def test_an_unknown_name_is_bad_input() -> None:
    with pytest.raises(ImplError, match="unknown implementation 'nosuch'"):
        lock.select(["nosuch"])


def test_the_environments_are_every_version_and_the_latest_on_every_python() -> None:
    envs = lock.environments([get_impl("tornado")])
    tornado = get_impl("tornado")
    pythons = {e.python for e in envs if e.is_default}
    assert pythons == {"3.11", "3.12", "3.13", "3.14", "3.14t"}
    versions = {e.version.version for e in envs if e.version and e.python == "3.11"}
    assert versions == {v.version for v in tornado.versions}


@needs_uv
def test_the_resolver_pins_every_distribution_or_records_why_not() -> None:
    assert UV is not None
    entry = lock.resolve(UV, "3.11", ("websockets==15.0.1",), "2027-01-02")
    assert entry == envlock.LockEntry(
        "3.11", ("websockets==15.0.1",), "2027-01-02", packages=("websockets==15.0.1",)
    )
    missing = lock.resolve(UV, "3.14t", ("websockets==0.0.1",), "2027-01-02")
    assert missing.packages == () and missing.python == "3.14t"
    assert missing.error is not None and "No solution found" in missing.error
