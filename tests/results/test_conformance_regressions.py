"""A new release's grade is compared with the last listed release's newest grade of the same
configuration: a case it newly fails gives one report per (framework, release) naming the
case, its description, both verdicts and the suite's result; a case failed by both, or run
by one side only, gives none; a side that is not graded is a problem named, not a report."""

from __future__ import annotations

import msgspec

from tests.runs import ROUTE, SUITE, impl, run, with_grade
from wsbench.impls import get_impl
from wsbench.results.conformance_regressions import compare_new_grades, find, title
from wsbench.results.runformat import Run

WEBSOCKETS = get_impl("websockets")
LAST = WEBSOCKETS.versions[-1].version
RUN = "20261124T020000Z-abcdef"
EARLIER = "20261120T020000Z-000000"
ALL_OK = {"1.1.1": "OK", "6.4.1": "NON-STRICT", "7.1.5": "OK"}


def _graded(
    version: str,
    verdicts: dict[str, str],
    *,
    config: str = "asyncio",
    run_id: str = RUN,
    suite: str = SUITE,
    outcome: str = "graded",
) -> Run:
    info = msgspec.structs.replace(
        impl("websockets", version, config), display_name=WEBSOCKETS.display_name
    )
    doc = run([], run_id=run_id, impl_info=info, env_name=f"ws-{version}-{config}", benchmarks=[])
    return with_grade(doc, verdicts, suite=suite, outcome=outcome)


def test_a_newly_failed_case_is_reported_with_both_versions_and_the_suites_result() -> None:
    docs = [
        _graded(LAST, ALL_OK, run_id=EARLIER),
        _graded("99.0", {**ALL_OK, "7.1.5": "FAILED"}),
        _graded(LAST, ALL_OK, config="uvloop", run_id=EARLIER),
        _graded("99.0", ALL_OK, config="uvloop"),
    ]
    compared = compare_new_grades(docs, RUN, [WEBSOCKETS])
    assert [(c.head.impl.config, [k.id for k in c.cases], c.problem) for c in compared] == [
        ("asyncio", ["7.1.5"], None),
        ("uvloop", [], None),
    ]
    (found,) = find(compared, RUN)
    assert (found.impl, found.release, found.previous) == ("websockets", "99.0", LAST)
    assert found.title == title("websockets", "99.0") == "Conformance regression: websockets 99.0"
    assert found.body == (
        f"The nightly run `{RUN}` on `m` graded **websockets 99.0**, a release newer than the "
        f"last one listed in `impls/websockets/meta.toml` ({LAST}), installed with that "
        f"version's pins, with the Autobahn|Testsuite ({SUITE}, {ROUTE}). It "
        f"fails cases that {LAST} passed (the suite's verdicts are deterministic: no "
        "confirmation run):\n"
        "\n"
        f"#### websockets · asyncio: {LAST} → 99.0\n"
        "\n"
        f"{LAST}: graded in run `{EARLIER}` ({SUITE}); 99.0: in run `{RUN}` ({SUITE}).\n"
        "\n"
        f"| case | description | {LAST} | 99.0 | the suite's result |\n"
        "|---|---|---|---|---|\n"
        "| 7.1.5 | Send case 7.1.5 \\| a pipe | OK | FAILED | Actual events differ in 7.1.5. |\n"
    )


def test_no_report_for_a_case_failed_before_or_run_by_one_side_only() -> None:
    before = _graded(LAST, {**ALL_OK, "7.1.5": "FAILED"}, run_id=EARLIER)
    still = _graded("99.0", {**ALL_OK, "7.1.5": "FAILED", "9.1.1": "FAILED"})
    compared = compare_new_grades([before, still], RUN, [WEBSOCKETS])
    assert [c.cases for c in compared] == [()]
    assert find(compared, RUN) == []


def test_a_side_without_a_grade_is_a_problem_named_not_a_report() -> None:
    alone = compare_new_grades([_graded("99.0", {"7.1.5": "FAILED"})], RUN, [WEBSOCKETS])
    assert [c.problem for c in alone] == [f"{LAST} has no grade"]
    failed = _graded("99.0", {}, outcome="failed")
    broken = compare_new_grades([_graded(LAST, ALL_OK), failed], RUN, [WEBSOCKETS])
    assert [c.problem for c in broken] == ["99.0: not graded: did not start"]
    assert find([*alone, *broken], RUN) == []


def test_only_new_releases_of_the_run_are_compared() -> None:
    docs = [_graded(LAST, {"7.1.5": "FAILED"}), _graded("99.0", {}, run_id=EARLIER)]
    assert compare_new_grades(docs, RUN, [WEBSOCKETS]) == []


def test_the_previous_grade_of_the_same_suite_is_preferred_then_the_newest() -> None:
    newer_suite = "autobahntestsuite 26.1.0"
    older = _graded(LAST, ALL_OK, run_id=EARLIER)
    newest_other_suite = _graded(LAST, {**ALL_OK, "7.1.5": "FAILED"}, suite=newer_suite)
    head = _graded("99.0", {**ALL_OK, "7.1.5": "FAILED"}, run_id="20261125T020000Z-abcdef")
    (c,) = compare_new_grades([older, newest_other_suite, head], head.run_id, [WEBSOCKETS])
    assert c.base is older and [k.id for k in c.cases] == ["7.1.5"]
    same = _graded(LAST, {**ALL_OK, "7.1.5": "FAILED"}, run_id="20261121T020000Z-000000")
    (c,) = compare_new_grades([older, same, head], head.run_id, [WEBSOCKETS])
    assert c.base is same and c.cases == ()
