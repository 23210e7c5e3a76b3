"""The nightly grades a shard's new releases every night and its listed versions by
``--matrix`` (auto: those without a grade of tonight's suite), with the night's run id and
machine, into the shard store's conformance folder; a suite that cannot run is named and
leaves the shard's measurements as they are."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.runs import ROUTE, SUITE, impl, run, with_grade
from wsbench.asv.conf import BenchEnv
from wsbench.ci import nightly_grades
from wsbench.ci.matrix import NO_GRADE
from wsbench.ci.nightly import grade
from wsbench.ci.nightly_grades import (
    MATRIX_GRADES_PER_NIGHT,
    NEW_RELEASE,
    grade_shard,
    to_grade,
)
from wsbench.instrument.autobahn import NoSuiteError, Suite
from wsbench.jobs import conformance
from wsbench.jobs.selection import run_envs
from wsbench.results import store

RUN = "20261124T020000Z-bbbbbb"
INDEX: dict[str, object] = {"releases": {"99.0": [{"filename": "x.whl", "yanked": False}]}}


def _index(project: str) -> dict[str, object]:
    return INDEX


def _suite(log: Any = None) -> Suite:
    return Suite(version=SUITE, route=ROUTE, argv=("wstest",))


def test_new_releases_every_night_listed_versions_by_mode() -> None:
    envs = run_envs(["websockets"], "all", ["asyncio"], new_releases=True, fetch=_index)
    new, listed = envs[-1], envs[:-1]
    assert new.version is not None and new.version.version == "99.0"
    assert listed[0].version is not None
    info = impl("websockets", listed[0].version.version, "asyncio")
    graded = with_grade(run([], impl_info=info, env_name=listed[0].name, benchmarks=[]), {})
    assert [(d.env, d.reason) for d in to_grade(envs, "auto", [graded], SUITE)] == [
        (new, NEW_RELEASE),
        *((e, NO_GRADE) for e in listed[1:]),
    ]
    assert [d.env for d in to_grade(envs, "never", [], SUITE)] == [new]
    many = [*envs, *listed * (MATRIX_GRADES_PER_NIGHT // len(listed) + 1)]
    due = to_grade(many, "auto", [], SUITE)  # each listed version due (no grade yet)
    older = [e for e in many if e is not new]
    assert len(older) > MATRIX_GRADES_PER_NIGHT
    assert [d.env for d in due] == [new, *older[:MATRIX_GRADES_PER_NIGHT]]
    assert [d.env for d in to_grade(envs, "always", [graded], SUITE)] == [new, *listed]


def test_a_shard_is_graded_under_the_nights_run_id_and_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.save(run([1000.0] * 6, run_id=RUN, machine="runner-1"), tmp_path)
    calls: list[dict[str, Any]] = []

    def grade_all(envs: Sequence[BenchEnv], suite: Suite, grid: str, **kw: Any) -> list[Any]:
        calls.append({"envs": list(envs), "suite": suite, "grid": grid, **kw})
        return []

    monkeypatch.setattr(conformance, "grade_all", grade_all)
    outcomes = grade_shard("1/2", RUN, tmp_path, mode="always", grades=[], fetch=_index,
                           find_suite=_suite)  # fmt: skip
    assert outcomes == []
    new, listed = calls  # new releases on the full grid, listed versions on the default
    measured = run_envs(["websockets"], "all", ["asyncio"], new_releases=True, fetch=_index)
    assert [e.name for e in new["envs"]] == [measured[-1].name]
    assert new["envs"][0].version.version == "99.0"
    assert [e.name for e in listed["envs"]] == [e.name for e in measured[:-1]]
    assert (new["grid"], listed["grid"]) == ("full", "default")
    for call in calls:
        assert (call["machine"], call["run_id"]) == ("runner-1", RUN)
        assert call["root"] == tmp_path / "conformance"
        assert call["suite"] == _suite()


def test_nothing_is_graded_without_the_nights_documents(tmp_path: Path) -> None:
    def no_suite(log: Any = None) -> Suite:
        raise AssertionError("not looked up")

    assert grade_shard("1/1", RUN, tmp_path, mode="always", grades=[], find_suite=no_suite) == []


def test_a_suite_that_cannot_run_is_named_and_the_shard_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store.save(run([1000.0] * 6, run_id=RUN), tmp_path)

    def no_suite(*args: Any, **kw: Any) -> list[Any]:
        raise NoSuiteError("no Python 2.7 and no Docker")

    monkeypatch.setattr(nightly_grades, "grade_shard", no_suite)
    assert grade("1/1", RUN, tmp_path, mode="never", grades=[]) is False
    assert capsys.readouterr().err == (
        "nightly: shard 1/1: not graded: no Python 2.7 and no Docker\n"
    )
    assert not (tmp_path / "conformance").exists()
