"""The main job finds the results a run was to write and did not (wsbench/jobs/written.py)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from tests.runs import benchmark, failed, run
from wsbench.jobs.written import unwritten
from wsbench.results import store
from wsbench.results.runformat import Harness

COMMIT = "c" * 40  # tests.runs' documents are of this commit
GRIDS = {
    "echo": [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 16, "in_flight": 64}],
    "stream": [{"size_bytes": 16}],
}
EVERY_PROCESS = [1.0] * 6  # tests.runs' settings: 3 server processes x 2 windows
WHOLE = [
    benchmark("echo", {"size_bytes": 16, "in_flight": 1}, EVERY_PROCESS),
    failed("echo", {"size_bytes": 16, "in_flight": 64}, "server crashed"),  # failed, written
    benchmark("stream", {"size_bytes": 16}, EVERY_PROCESS),
]


def _run_dir(tmp_path: Path, *docs: object) -> Path:
    for doc in docs:
        store.save(doc, tmp_path)  # type: ignore[arg-type]
    return tmp_path / "m" / "20261123T190000Z-aaaaaa"


def test_every_set_written_even_a_failed_one_is_nothing_missing(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path, run([], env_name="a", benchmarks=WHOLE))
    assert unwritten(run_dir, ["a"], GRIDS, COMMIT) == []


def test_an_environment_without_a_document_is_named(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path, run([], env_name="a", benchmarks=WHOLE))
    assert unwritten(run_dir, ["a", "b"], GRIDS, COMMIT) == ["b: no document"]
    assert unwritten(tmp_path / "nowhere", ["a"], GRIDS, COMMIT) == ["a: no document"]


def test_a_document_cut_short_names_what_it_lacks(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path, run([], env_name="a", benchmarks=WHOLE[:1]))
    assert unwritten(run_dir, ["a"], GRIDS, COMMIT) == [
        "a: cccccccc-a.json has 2 of 3 parameter sets unfinished "
        "(echo in_flight=64,size_bytes=16, stream size_bytes=16)"
    ]


def test_a_malformed_document_is_named(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path, run([], env_name="a", benchmarks=WHOLE))
    (run_dir / "cccccccc-a.json").write_text("{ cut")
    (line,) = unwritten(run_dir, ["a"], GRIDS, COMMIT)
    assert line.startswith(f"a: {run_dir / 'cccccccc-a.json'}")


def test_a_set_short_of_a_process_is_unfinished(tmp_path: Path) -> None:
    # The first four windows: processes 0 and 1 of 3.
    short = [*WHOLE[1:], benchmark("echo", {"size_bytes": 16, "in_flight": 1}, [1.0] * 4)]
    run_dir = _run_dir(tmp_path, run([], env_name="a", benchmarks=short))
    assert unwritten(run_dir, ["a"], GRIDS, COMMIT) == [
        "a: cccccccc-a.json has 1 of 3 parameter sets unfinished (echo in_flight=1,size_bytes=16)"
    ]


def test_documents_of_other_commits_need_only_exist(tmp_path: Path) -> None:
    older = msgspec.structs.replace(
        run([], env_name="a", benchmarks=WHOLE[:1]), harness=Harness(commit="b" * 40)
    )
    run_dir = _run_dir(tmp_path, older)
    assert unwritten(run_dir, ["a"], GRIDS, COMMIT) == []
