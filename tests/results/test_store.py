"""The results store keeps every run: a second run adds files, a bad file is reported and
left in place."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

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
