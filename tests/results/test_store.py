"""The results store keeps every run: a second run adds files, a bad file is reported and
left in place."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.runs import newer_version, run
from wsbench.results import store


def test_a_second_run_adds_and_loses_nothing(tmp_path: Path) -> None:
    first = run([100.0], run_id=store.new_run_id())
    second = run([200.0], run_id=store.new_run_id())
    assert first.run_id != second.run_id
    p1, p2 = store.save(first, tmp_path), store.save(second, tmp_path)
    assert p1 != p2
    loaded = store.load_store(tmp_path)
    assert sorted(r.run_id for r in loaded.runs) == sorted([first.run_id, second.run_id])
    assert loaded.problems == []


def test_run_ids_sort_by_time() -> None:
    early = store.new_run_id(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    late = store.new_run_id(datetime(2026, 1, 2, 3, 4, 6, tzinfo=UTC))
    assert early.startswith("20260102T030405Z-")
    assert early < late


def test_a_malformed_file_is_reported_and_kept(tmp_path: Path) -> None:
    store.save(run([100.0]), tmp_path)
    bad = tmp_path / "m" / "20260101T000000Z-000000" / "env.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{ not json")
    loaded = store.load_store(tmp_path)
    assert len(loaded.runs) == 1
    assert len(loaded.problems) == 1 and str(bad) in loaded.problems[0]
    assert bad.read_text() == "{ not json"


def test_a_document_of_a_newer_version_is_reported_and_kept(tmp_path: Path) -> None:
    store.save(run([100.0]), tmp_path)
    doc = run([100.0], run_id="20260101T000000Z-000000")
    newer = store.save(doc, tmp_path)
    newer.write_bytes(newer_version(doc))
    loaded = store.load_store(tmp_path)
    assert len(loaded.runs) == 1
    assert loaded.problems == [
        f"{newer}: written in run format version 3 by a newer wsbench; "
        "this wsbench reads versions 1-2"
    ]
    assert newer.read_bytes() == newer_version(doc)


def test_a_missing_store_is_empty(tmp_path: Path) -> None:
    loaded = store.load_store(tmp_path / "nothing")
    assert loaded.runs == [] and loaded.problems == []


def test_a_failed_write_names_the_path_and_errno_and_leaves_the_earlier_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = run([100.0])
    path = store.save(doc, tmp_path)
    before = path.read_bytes()
    real_fsync = os.fsync

    def full(fd: int) -> None:  # the data was written, the disk has no room to keep it
        real_fsync(fd)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(store.StoreError) as caught:
        store.save(run([200.0]), tmp_path)
    assert str(caught.value) == (
        f"cannot write {path}: [Errno {errno.ENOSPC} ENOSPC] No space left on device"
    )
    assert caught.value.errno == errno.ENOSPC
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file


def test_a_folder_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "m").write_text("a file where the machine's folder goes")
    with pytest.raises(store.StoreError, match=r"cannot write .*/m/.*\[Errno 20 ENOTDIR\]"):
        store.save(run([100.0], machine="m"), tmp_path)
    with pytest.raises(store.StoreError, match=r"\[Errno 17 EEXIST\] File exists"):
        store.check_writable(tmp_path, "m")


def test_a_writable_store_passes_the_check_and_keeps_no_probe(tmp_path: Path) -> None:
    assert store.check_writable(tmp_path / "new", "m") == tmp_path / "new" / "m"
    assert list((tmp_path / "new" / "m").iterdir()) == []


def test_a_held_store_makes_the_next_run_wait_and_a_killed_holder_frees_it(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from pathlib import Path\n"
         "from wsbench.results import store\n"
         "with store.held(Path(sys.argv[1]), 'run A, pid 1'):\n"
         "    print('held', flush=True)\n"
         "    time.sleep(600)\n", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        waited: list[str] = []

        def wait(other: str) -> None:
            waited.append(other)
            holder.kill()  # SIGKILL: the kernel releases the lock

        with store.held(tmp_path, "run B, pid 2", wait):
            assert (tmp_path / store.LOCK_FILE).read_text() == "run B, pid 2\n"
        assert waited == ["run A, pid 1"]
    finally:
        holder.kill()
        holder.wait()
