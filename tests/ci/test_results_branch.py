"""The results branch against local bare repositories standing in for GitHub: the first
push creates the branch, a push refused by the remote (a hook standing in for a branch
protection) is reported with git's reason and not retried, a push that lost a race is
retried on top of the other's commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.remotes import bare, branch_files, git, refs, refuse_pushes
from tests.runs import run, with_grade
from wsbench.ci import results_branch as resultsbranch
from wsbench.ci.results_branch import (
    PUSH_ATTEMPTS,
    ResultsBranchError,
    add_documents,
    checkout,
    commit_and_push,
    one_line,
)
from wsbench.results import store
from wsbench.results.runformat import encode

BRANCH = "results"
RUN_A = "20261124T020000Z-aaaaaa"
RUN_B = "20261125T020000Z-bbbbbb"
RUN_C = "20261126T020000Z-cccccc"


def _shard(root: Path, run_id: str) -> Path:
    store.save(run([1000.0] * 6, run_id=run_id), root)
    return root


def _publish(remote: Path, shard: Path, clone: Path) -> str | None:
    checkout(str(remote), BRANCH, clone)
    add_documents([shard], clone)
    return commit_and_push(clone, BRANCH, f"add {shard.name}")


def _branch_runs(remote: Path) -> list[str]:
    """The run ids of the documents on the branch (``<machine>/<run id>/<file>``)."""
    return sorted({name.split("/")[1] for name in branch_files(remote, BRANCH)})


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare(tmp_path / "remote.git")


def test_the_first_push_creates_the_branch(tmp_path: Path, remote: Path) -> None:
    clone = checkout(str(remote), BRANCH, tmp_path / "clone")
    assert git("status", "--short", "--branch", cwd=clone) == f"## No commits yet on {BRANCH}"
    add_documents([_shard(tmp_path / "a", RUN_A)], clone)
    commit = commit_and_push(clone, BRANCH, "first")
    assert commit == git("rev-parse", BRANCH, cwd=remote)
    assert _branch_runs(remote) == [RUN_A]
    assert commit_and_push(clone, BRANCH, "nothing new") is None


def test_a_refused_push_gives_gits_reason_once_and_leaves_the_remote(
    tmp_path: Path, remote: Path
) -> None:
    _publish(remote, _shard(tmp_path / "a", RUN_A), tmp_path / "c1")
    before = git("rev-parse", BRANCH, cwd=remote)
    pushes = refuse_pushes(remote, "results is protected")
    with pytest.raises(ResultsBranchError) as refused:
        _publish(remote, _shard(tmp_path / "b", RUN_B), tmp_path / "c2")
    message = str(refused.value)
    assert message.startswith(f"push to {BRANCH} refused: remote: results is protected / ")
    assert "(pre-receive hook declined)" in message and "\n" not in message
    assert pushes.read_text() == "push\n"  # not retried: another push would be refused too
    assert git("rev-parse", BRANCH, cwd=remote) == before
    assert _branch_runs(remote) == [RUN_A]


def test_a_refused_push_creates_no_branch(tmp_path: Path, remote: Path) -> None:
    refuse_pushes(remote, "no new branches")
    with pytest.raises(ResultsBranchError, match="refused: remote: no new branches / "):
        _publish(remote, _shard(tmp_path / "a", RUN_A), tmp_path / "c")
    assert refs(remote) == ""


@pytest.mark.parametrize("branch_exists", [True, False], ids=["on-the-branch", "new-branch"])
def test_a_lost_race_is_pushed_again_on_top(
    tmp_path: Path, remote: Path, branch_exists: bool
) -> None:
    if branch_exists:
        _publish(remote, _shard(tmp_path / "a", RUN_A), tmp_path / "c0")
    mine = checkout(str(remote), BRANCH, tmp_path / "mine")
    add_documents([_shard(tmp_path / "c", RUN_C)], mine)
    # Another publisher pushes between this one's clone and its push.
    theirs = _publish(remote, _shard(tmp_path / "b", RUN_B), tmp_path / "theirs")
    commit = commit_and_push(mine, BRANCH, "mine")
    assert commit == git("rev-parse", BRANCH, cwd=remote)
    assert git("rev-parse", f"{commit}^", cwd=remote) == theirs
    assert _branch_runs(remote) == [RUN_A, RUN_B, RUN_C][0 if branch_exists else 1 :]


def test_losing_every_race_gives_up_after_the_last_attempt(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _publish(remote, _shard(tmp_path / "a", RUN_A), tmp_path / "c0")
    mine = checkout(str(remote), BRANCH, tmp_path / "mine")
    add_documents([_shard(tmp_path / "c", RUN_C)], mine)
    other = checkout(str(remote), BRANCH, tmp_path / "other")
    real = resultsbranch._git
    raced: list[tuple[str, ...]] = []

    def racing(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        if args[0] == "push" and cwd == mine:  # another push lands first, every time
            store.save(run([1.0] * 6, run_id=f"20261127T02000{len(raced)}Z-dddddd"), other)
            commit_and_push(other, BRANCH, "other")
            raced.append(args)
        return real(*args, cwd=cwd)

    monkeypatch.setattr(resultsbranch, "_git", racing)
    with pytest.raises(ResultsBranchError) as lost:
        commit_and_push(mine, BRANCH, "mine")
    assert len(raced) == PUSH_ATTEMPTS
    assert str(lost.value).startswith(
        f"push to {BRANCH} lost to another push {PUSH_ATTEMPTS} times in a row: "
    )
    assert RUN_C not in _branch_runs(remote)
    assert len(_branch_runs(remote)) == 1 + PUSH_ATTEMPTS  # the first run and the others'
    assert git("status", "--short", cwd=mine) == ""  # not left in the middle of a rebase


def test_gits_lines_are_put_on_one() -> None:
    said = "remote: protected        \nTo /r.git\n ! [remote rejected] HEAD -> results\n\nhint: x\n"
    assert one_line(said) == "remote: protected / To /r.git / ! [remote rejected] HEAD -> results"


def test_conformance_grades_are_published_in_their_folder_never_replaced(
    tmp_path: Path, remote: Path
) -> None:
    shard = _shard(tmp_path / "a", RUN_A)
    grade = with_grade(run([], run_id=RUN_A, benchmarks=[]), {"1.1.1": "OK"})
    saved = store.save(grade, store.conformance_store(shard))
    report = saved.parent / "reports" / "env" / "x_case_1_1_1.html"
    report.parent.mkdir(parents=True)
    report.write_text("<html/>", encoding="utf-8")
    clone = checkout(str(remote), BRANCH, tmp_path / "clone")
    added = add_documents([shard], clone)
    assert [p.as_posix() for p in added] == [
        saved.relative_to(shard).as_posix(),
        *(p.relative_to(shard).as_posix() for p in shard.glob("m/*/*.json")),
    ]
    assert added[0].as_posix().startswith(f"conformance/m/{RUN_A}/")
    commit_and_push(clone, BRANCH, "first")
    assert add_documents([shard], checkout(str(remote), BRANCH, tmp_path / "again")) == []
    other = with_grade(run([], run_id=RUN_A, benchmarks=[]), {"1.1.1": "FAILED"})
    saved.write_bytes(encode(other))
    with pytest.raises(ResultsBranchError, match="a different document of this name exists"):
        add_documents([shard], checkout(str(remote), BRANCH, tmp_path / "third"))
