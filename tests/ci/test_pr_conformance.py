"""A pull request's changed implementations are graded as each commit's own impls/ defines
them; the comment's table gives both sides' grades per configuration and the cases the head
newly fails."""

from __future__ import annotations

from pathlib import Path

from tests.runs import run, with_grade
from wsbench.ci.pr_conformance import envs_at, to_markdown
from wsbench.jobs.conformance import Outcome
from wsbench.jobs.selection import select_envs
from wsbench.paths import REPO_ROOT


def _outcome(row: str, verdicts: dict[str, str], outcome: str = "graded") -> Outcome:
    doc = with_grade(run([], benchmarks=[]), verdicts, outcome=outcome)
    assert doc.conformance is not None
    return Outcome(row, "1.0", Path("x.json"), doc.conformance)


def test_the_changed_implementations_latest_configurations_of_a_checkout() -> None:
    found = envs_at(REPO_ROOT, ["websockets", "no-such-impl"])
    assert [e.name for e in found] == [e.name for e in select_envs(["websockets"], "latest")]


def test_the_table_gives_both_grades_and_the_newly_failed_cases() -> None:
    ok = {"1.1.1": "OK", "7.1.5": "OK"}
    base = [_outcome("a · x", ok), _outcome("a · y", ok), _outcome("a · gone", ok)]
    head = [
        _outcome("a · x", {**ok, "7.1.5": "FAILED"}),
        _outcome("a · y", {}, outcome="failed"),
        _outcome("a · new", ok),
    ]
    assert to_markdown(base, head) == (
        "#### Conformance (Autobahn|Testsuite)\n"
        "\n"
        "| configuration | base | head | newly failed on head |\n"
        "|---|---|---|---|\n"
        "| a · x | ✓ all 2 cases passed | ⚠ 1 failed of 2 cases | 7.1.5 (FAILED) |\n"
        "| a · y | ✓ all 2 cases passed | ? not graded: did not start | none |\n"
        "| a · new | — | ✓ all 2 cases passed | none |\n"
        "| a · gone | ✓ all 2 cases passed | — | none |\n"
    )
