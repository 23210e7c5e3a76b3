"""Conformance grades (wsbench.results.conformance): counts per group, the grade, the cases
a reader wants reported, the groups that failed, the newest document per environment."""

from __future__ import annotations

from collections import Counter

import msgspec

from tests.runs import case as suite_case
from tests.runs import conformance, conformance_run, not_graded, run
from wsbench.results.conformance import (
    counts,
    failed_groups,
    grade,
    latest_by_env,
    newly_failed,
    reported,
)


def test_every_passing_verdict_grades_a_check_mark() -> None:
    graded = conformance(suite_case("6.4.3", "NON-STRICT"), suite_case("7.1.6", "INFORMATIONAL"))
    found = grade(graded)
    assert (found.symbol, found.failed, found.cases) == ("✓", 0, 301)
    assert found.text == "all 301 cases passed"
    assert counts(graded)["6"] == Counter({"OK": 144, "NON-STRICT": 1})
    assert list(counts(graded)) == ["1", "2", "3", "4", "5", "6", "7", "9", "10"]


def test_failed_cases_warn_and_name_their_groups() -> None:
    graded = conformance(
        suite_case("6.4.1", "FAILED"),
        suite_case("7.3.1", "FAILED"),
        suite_case("6.4.3", "NON-STRICT"),
    )
    found = grade(graded)
    assert (found.symbol, found.failed, found.text) == ("⚠", 2, "2 failed of 301 cases")
    assert failed_groups(graded) == ["6", "7"]
    assert [c.id for c in reported(graded)] == ["6.4.1", "6.4.3", "7.3.1"]


def test_unimplemented_cases_of_a_group_not_offered_are_not_reported() -> None:
    graded = conformance(suite_case("2.1.1", "UNIMPLEMENTED"))
    offered_not = msgspec.structs.replace(graded, not_offered={"2": "pings are not offered"})
    assert [c.id for c in reported(graded)] == ["2.1.1"]
    assert grade(graded).text == "1 unimplemented of 301 cases"
    assert reported(offered_not) == [] and grade(offered_not).symbol == "✓"
    assert failed_groups(graded) == []


def test_not_applicable_and_failed_documents_are_not_graded() -> None:
    assert grade(not_graded("not applicable", "Socket.IO")).symbol == "n/a"
    assert grade(not_graded("failed", "the server did not start")).text == (
        "not graded: the server did not start"
    )
    assert reported(not_graded("failed", "boom")) == []


def test_a_newer_release_that_breaks_a_case_the_older_passed() -> None:
    base = conformance()
    head = conformance(suite_case("5.2.3", "FAILED"))
    assert [c.id for c in newly_failed(base, head)] == ["5.2.3"]
    assert newly_failed(head, base) == []


def test_the_newest_graded_document_of_each_environment() -> None:
    env = run([], benchmarks=[])
    older = conformance_run(env, conformance(suite_case("1.1.1", "FAILED")), "20261120T000000Z-a")
    newer = conformance_run(env, conformance(), "20261121T000000Z-b")
    found = latest_by_env([newer, older, env])
    assert list(found.values()) == [newer]


def test_failed_and_unimplemented_cases_are_both_in_the_grade() -> None:
    graded = conformance(
        suite_case("6.3.1", "FAILED"), suite_case("7.1.5", "FAILED"),
        suite_case("5.1.1", "UNIMPLEMENTED"),
    )  # fmt: skip
    found = grade(graded)
    assert (found.symbol, found.failed, found.unimplemented) == ("⚠", 2, 1)
    assert found.text == "2 failed and 1 unimplemented of 301 cases"
