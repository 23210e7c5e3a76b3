"""A pull request's changed implementations are graded as each commit's own impls/ defines
them; the comment's table gives both sides' grades per configuration and the cases the head
newly fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runs import run, with_grade
from wsbench.ci.pr_conformance import envs_at, grade_commits, to_markdown
from wsbench.instrument.autobahn import Suite
from wsbench.jobs import commits as commitcompare
from wsbench.jobs.conformance import Outcome
from wsbench.jobs.selection import select_envs
from wsbench.paths import REPO_ROOT
from wsbench.results import store
from wsbench.results.runformat import load


def _outcome(row: str, verdicts: dict[str, str], outcome: str = "graded") -> Outcome:
    doc = with_grade(run([], benchmarks=[]), verdicts, outcome=outcome)
    assert doc.conformance is not None
    return Outcome(row, "1.0", Path("x.json"), doc.conformance)


def test_the_changed_implementations_latest_configurations_of_a_checkout() -> None:
    found = envs_at(REPO_ROOT, ["websockets", "no-such-impl"])
    assert [e.name for e in found] == [e.name for e in select_envs(["websockets"], "latest")]


@pytest.mark.usefixtures("nothing_installs")
def test_each_sides_grades_record_that_sides_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The grading job itself, with environments that do not install here (no server nor
    # suite starts): each side's documents name the side's commit, not this tree's.
    monkeypatch.setattr(commitcompare, "checkout", lambda sha: REPO_ROOT)
    commits = ("a" * 40, "b" * 40)
    suite = Suite(("wstest",), "test", "autobahntestsuite 25.10.1")
    base, head = grade_commits(commits, ["aiohttp"], root=tmp_path, machine="m",
                               log=lambda _: None, find_suite=lambda **_: suite)  # fmt: skip
    for sha, outcomes in zip(commits, (base, head), strict=True):
        assert [o.conformance.outcome for o in outcomes] == ["failed", "failed"]
        assert {o.path.name[:8] for o in outcomes} == {sha[:8]}
        assert {load(o.path).harness.commit for o in outcomes} == {sha}
    assert len(list(store.conformance_store(tmp_path).rglob("*.json"))) == 4


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
