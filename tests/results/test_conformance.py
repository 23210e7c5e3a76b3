"""Grades, counts and newly failed cases from conformance verdicts."""

from __future__ import annotations

from collections import Counter

from wsbench.results import conformance as grading
from wsbench.results.runformat import Conformance, ConformanceCase


def _case(case_id: str, behavior: str) -> ConformanceCase:
    return ConformanceCase(case_id, behavior, "OK", 1, 1000, f"case {case_id}", "", "", "")


def _graded(*cases: tuple[str, str], not_offered: dict[str, str] | None = None) -> Conformance:
    return Conformance(
        "autobahntestsuite 25.10.1", "test", ["1.*"], "graded", None, 1.0,
        [_case(i, b) for i, b in cases], not_offered or {},
    )  # fmt: skip


def test_counts_are_per_group_in_the_suite_s_order() -> None:
    graded = _graded(
        ("10.1.1", "OK"), ("1.1.1", "OK"), ("1.1.2", "NON-STRICT"), ("6.3.1", "FAILED")
    )
    assert grading.counts(graded) == {
        "1": Counter({"OK": 1, "NON-STRICT": 1}),
        "6": Counter({"FAILED": 1}),
        "10": Counter({"OK": 1}),
    }


def test_non_strict_and_informational_pass() -> None:
    graded = _graded(("1.1.1", "OK"), ("6.4.1", "NON-STRICT"), ("7.1.6", "INFORMATIONAL"))
    assert grading.grade(graded) == grading.Grade("✓", 0, 0, 3, "all 3 cases passed")


def test_failed_and_unimplemented_cases_mark_the_grade() -> None:
    graded = _graded(
        ("6.3.1", "FAILED"), ("7.1.5", "FAILED"), ("5.1", "UNIMPLEMENTED"),
        ("12.1.1", "UNIMPLEMENTED"),
        not_offered={"12": "compression off"},
    )  # fmt: skip
    assert [c.id for c in grading.failed(graded)] == ["6.3.1", "7.1.5"]
    assert [c.id for c in grading.unimplemented(graded)] == ["5.1"]  # 12 is not offered
    assert grading.grade(graded) == grading.Grade(
        "⚠", 2, 1, 4, "2 failed and 1 unimplemented of 4 cases"
    )


def test_not_applicable_and_ungraded_have_their_own_symbols() -> None:
    socketio = Conformance("s", "r", ["1.*"], "not applicable", "Socket.IO", 0.0)
    assert grading.grade(socketio).symbol == "n/a"
    broken = Conformance("s", "r", ["1.*"], "failed", "did not start", 0.0)
    assert grading.grade(broken).text == "not graded: did not start"
    assert not grading.grade(broken).conformant


def test_newly_failed_names_only_cases_the_base_ran_and_passed() -> None:
    base = _graded(("6.3.1", "OK"), ("7.1.5", "FAILED"))
    head = _graded(("6.3.1", "FAILED"), ("7.1.5", "FAILED"), ("9.1.1", "FAILED"))
    assert [c.id for c in grading.newly_failed(base, head)] == ["6.3.1"]
    ungraded = Conformance("s", "r", ["1.*"], "failed", "x", 0.0)
    assert grading.newly_failed(ungraded, head) == []
