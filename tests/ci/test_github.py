"""The GitHub steps call gh as they should: one issue per title, one comment per pull
request (found by its marker), bodies on standard input; a fork's head is refused."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from wsbench.ci import github

FAKE_GH = """#!{python}
import json, os, sys
log = os.environ["FAKE_GH_LOG"]
answers = json.loads(os.environ.get("FAKE_GH_ANSWERS", "{{}}"))
with open(log, "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "stdin": sys.stdin.read()}}) + "\\n")
key = " ".join(sys.argv[1:3])
if key in answers:
    answer = answers[key]
    if answer == "FAIL":
        sys.exit("gh: failure")
    print(answer)
"""


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    script = tmp_path / "gh"
    script.write_text(FAKE_GH.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_GH_LOG", str(log))
    return str(script), log


def _answers(monkeypatch: pytest.MonkeyPatch, answers: dict[str, object]) -> None:
    """What the fake gh prints for a command (its first two arguments): text, or JSON."""
    encoded = {k: v if isinstance(v, str) else json.dumps(v) for k, v in answers.items()}
    monkeypatch.setenv("FAKE_GH_ANSWERS", json.dumps(encoded))


def _calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_an_open_issue_with_the_same_title_is_updated(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, log = gh
    title = "Benchmark regression: websockets 99.0"
    listed = [{"number": 7, "title": title + " (old)"}, {"number": 5, "title": title}]
    _answers(monkeypatch, {"issue list": listed})
    assert github.upsert_issue(title, "body $(rm -rf /)", repo="o/r", gh=binary) == "updated #5"
    listing, edit = _calls(log)
    assert listing["argv"][:2] == ["issue", "list"]
    assert edit == {"argv": ["issue", "edit", "5", "--repo", "o/r", "--body-file", "-"],
                    "stdin": "body $(rm -rf /)"}  # fmt: skip


def test_without_one_an_issue_is_opened(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, log = gh
    _answers(monkeypatch, {"issue list": [], "issue create": "https://github.com/o/r/issues/9"})
    done = github.upsert_issue("T", "B", repo="o/r", gh=binary)
    assert done == "opened https://github.com/o/r/issues/9"
    assert _calls(log)[1]["argv"] == [
        "issue", "create", "--repo", "o/r", "--title", "T", "--body-file", "-"
    ]  # fmt: skip


def test_the_comment_is_found_by_its_marker_and_edited_then_the_label_removed(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, log = gh
    comments = [{"id": 11, "body": "a human"}, {"id": 12, "body": github.COMMENT_MARKER + "\nold"}]
    _answers(monkeypatch, {"api --paginate": comments})
    assert github.upsert_pr_comment(3, "new", repo="o/r", gh=binary, label="run-benchmark") == (
        "updated"
    )
    _, patch, label = _calls(log)
    assert patch["argv"] == ["api", "--method", "PATCH", "repos/o/r/issues/comments/12",
                             "-F", "body=@-"]  # fmt: skip
    assert patch["stdin"] == github.COMMENT_MARKER + "\nnew"
    assert label["argv"] == ["pr", "edit", "3", "--repo", "o/r", "--remove-label", "run-benchmark"]


def test_a_first_comment_is_posted(gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    binary, log = gh
    _answers(monkeypatch, {"api --paginate": []})
    assert github.upsert_pr_comment(3, "new", repo="o/r", gh=binary) == "posted"
    assert _calls(log)[1]["argv"][:4] == ["api", "--method", "POST", "repos/o/r/issues/3/comments"]


def test_a_forks_head_is_refused_and_ours_gives_its_commits(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, _ = gh

    def answer(head_repo: str) -> None:
        pr = {
            "head": {"sha": "h" * 40, "repo": {"full_name": head_repo}},
            "base": {"sha": "b" * 40},
        }
        _answers(monkeypatch, {"api repos/o/r/pulls/4": pr})

    answer("o/r")
    assert github.pull_request(4, repo="o/r", gh=binary) == {"head": "h" * 40, "base": "b" * 40,
                                                            "pr": "4"}  # fmt: skip
    answer("someone/fork")
    with pytest.raises(github.GitHubError, match="not 'o/r'"):
        github.pull_request(4, repo="o/r", gh=binary)


def test_a_gh_failure_is_an_error_naming_the_command(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, _ = gh
    _answers(monkeypatch, {"issue list": "FAIL"})
    with pytest.raises(github.GitHubError, match="gh issue list"):
        github.upsert_issue("T", "B", repo="o/r", gh=binary)


def test_the_instruction_count_comment_is_a_comment_of_its_own(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, log = gh
    comments = [{"id": 12, "body": github.COMMENT_MARKER + "\nwall-clock"}]
    _answers(monkeypatch, {"api --paginate": comments})
    body = github.COUNTS_MARKER + "\ncounts"
    assert github.upsert_pr_comment(3, body, repo="o/r", gh=binary) == "posted"
    assert _calls(log)[1]["stdin"] == body
    comments.append({"id": 13, "body": body})
    _answers(monkeypatch, {"api --paginate": comments})
    log.write_text("")
    assert github.upsert_pr_comment(3, body + " again", repo="o/r", gh=binary) == "updated"
    assert _calls(log)[1]["argv"][3] == "repos/o/r/issues/comments/13"


def test_a_body_too_long_for_github_is_cut(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, log = gh
    _answers(monkeypatch, {"api --paginate": []})
    github.upsert_pr_comment(3, "x" * 100_000, repo="o/r", gh=binary)
    posted = _calls(log)[1]["stdin"]
    assert len(posted) == github.MAX_COMMENT_CHARS and posted.endswith("in the artifact)\n")


def test_an_artifacts_pr_number_is_trusted_only_when_its_head_is_the_counted_commit(
    gh: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, _ = gh
    _answers(monkeypatch, {"api repos/o/r/pulls/4": {"head": {"sha": "h" * 40}}})
    assert github.pr_of_artifact("4\n", "h" * 40, repo="o/r", gh=binary) == 4
    with pytest.raises(github.GitHubError, match="not cccccccccccc"):
        github.pr_of_artifact("4", "c" * 40, repo="o/r", gh=binary)
    for forged in ("4; rm -rf /", "-1", "", "٤"):
        with pytest.raises(github.GitHubError, match="not a number"):
            github.pr_of_artifact(forged, "h" * 40, repo="o/r", gh=binary)
