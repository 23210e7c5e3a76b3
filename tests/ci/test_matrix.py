"""Which older versions a night measures: those with no document in the comparison group of
the night's own documents, and those last measured a week ago or more; nothing else."""

from __future__ import annotations

import msgspec

from tests.runs import LOADGEN, SETTINGS, SUITE, impl, run, with_grade
from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.ci.matrix import NEW_GROUP, NO_GRADE, due, grades_due, run_started
from wsbench.policy import MATRIX_PERIOD_DAYS
from wsbench.results.runformat import LoadgenBuild, Run

TONIGHT = "20261126T022300Z-cccccc"
WEBSOCKETS = [e for e in bench_envs() if e.impl.name == "websockets"]
OLDER = [e for e in WEBSOCKETS if not e.is_default]
LATEST = next(e for e in WEBSOCKETS if e.is_default)


def _doc(env: BenchEnv, run_id: str, loadgen: LoadgenBuild = LOADGEN) -> Run:
    assert env.version is not None
    info = impl("websockets", env.version.version, env.config.id)
    return run([1000.0] * 6, run_id=run_id, impl_info=info, env_name=env.name,
               loadgen=loadgen)  # fmt: skip


def test_the_older_versions_of_the_latest_comparison_group_are_not_due() -> None:
    published = [_doc(e, "20261124T022300Z-aaaaaa") for e in OLDER]
    assert len(OLDER) >= 4
    assert due(OLDER, published, [_doc(LATEST, TONIGHT)]) == []


def test_a_changed_load_generator_makes_every_older_version_due() -> None:
    published = [_doc(e, "20261125T022300Z-aaaaaa") for e in OLDER]
    changed = LoadgenBuild(version="0.1.0", source_sha256="cd" * 32, rustc=LOADGEN.rustc)
    found = due(OLDER, published, [_doc(LATEST, TONIGHT, loadgen=changed)])
    assert [(d.env, d.reason) for d in found] == [(e, NEW_GROUP) for e in OLDER]


def test_a_version_new_to_the_matrix_and_a_week_old_one_are_due() -> None:
    week_ago = "20261119T022300Z-bbbbbb"
    assert (run_started(TONIGHT) - run_started(week_ago)).days == MATRIX_PERIOD_DAYS
    published = [_doc(OLDER[0], week_ago), *(_doc(e, "20261120T030000Z-aaaaaa") for e in OLDER[2:])]
    found = due(OLDER, published, [_doc(LATEST, TONIGHT)])
    assert [(d.env, d.reason) for d in found] == [
        (OLDER[0], f"last measured 7 days ago, in run {week_ago}"),
        (OLDER[1], NEW_GROUP),
    ]


def test_the_newest_document_of_a_version_counts_and_other_settings_do_not() -> None:
    old, recent = "20261110T022300Z-aaaaaa", "20261125T022300Z-bbbbbb"
    published = [_doc(OLDER[0], old), _doc(OLDER[0], recent)]
    assert due(OLDER[:1], published, [_doc(LATEST, TONIGHT)]) == []
    one_window = msgspec.structs.replace(SETTINGS, windows_per_process=1)
    other = run([1.0], run_id=recent, env_name=OLDER[1].name, settings=one_window)
    assert [d.reason for d in due(OLDER[1:2], [other], [_doc(LATEST, TONIGHT)])] == [NEW_GROUP]


def test_nothing_is_due_before_the_night_has_a_document() -> None:
    assert due(OLDER, [], []) == []


def test_a_listed_version_without_a_grade_of_tonights_suite_is_graded() -> None:
    graded, older_suite, failed = "20261120T022300Z-aaaaaa", "20261121T022300Z-aaaaaa", TONIGHT
    grades = [
        with_grade(_doc(WEBSOCKETS[0], graded), {"1.1.1": "FAILED"}),
        with_grade(_doc(WEBSOCKETS[1], graded), {"1.1.1": "OK"}),
        with_grade(_doc(WEBSOCKETS[1], older_suite), {}, suite="autobahntestsuite 0.8.2"),
        with_grade(_doc(WEBSOCKETS[2], failed), {}, outcome="failed"),
        with_grade(_doc(WEBSOCKETS[3], graded), {}, outcome="not applicable"),
    ]
    found = grades_due(WEBSOCKETS[:5], grades, SUITE)
    assert [(d.env, d.reason) for d in found] == [
        (WEBSOCKETS[1], f"graded with autobahntestsuite 0.8.2 in run {older_suite}"),
        (WEBSOCKETS[2], NO_GRADE),
        (WEBSOCKETS[4], NO_GRADE),
    ]
