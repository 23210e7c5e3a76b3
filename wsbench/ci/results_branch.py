"""The durable results store: a git branch of its own (``results`` by default) whose tree is
a results store (``<machine>/<run id>/<commit>-<environment>.json``, :mod:`wsbench.results.store`),
so that the history survives the loss of any runner.

The conformance grades go to its ``conformance/`` folder and the CPU profiles to its
``profiles/`` folder, stores of the same layout
(:func:`wsbench.results.store.conformance_store`,
:func:`wsbench.results.store.profile_store`). A run's documents are added (never replacing
a different document of the same name), committed and pushed; a push that loses a race
with another is retried on top of the other's commit (documents of different runs never
touch the same file). A push refused for
any other reason (a hook, a branch protection, no permission) is not retried: the error
gives git's reason. The first push creates the branch when the remote has none yet.
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from wsbench.results.runformat import FormatError, load
from wsbench.results.store import CONFORMANCE_SUBDIR, PROFILES_SUBDIR

AUTHOR = ("-c", "user.name=wsbench", "-c", "user.email=wsbench@users.noreply.github.com")
DOCUMENTS = ("*/*/*.json", f"{CONFORMANCE_SUBDIR}/*/*/*.json", f"{PROFILES_SUBDIR}/*/*/*.json")
"""The documents of a store that are published, relative to its root: the runs', the
conformance store's and the profile store's (``<machine>/<run id>/<file>``). The suite's
HTML reports beside the grades are not (the shard's artifact keeps them; each grade holds
what they are made of)."""
PUSH_ATTEMPTS = 3
"""Pushes of one commit: the first, and a retry on top of each concurrent push it lost to."""


class ResultsBranchError(RuntimeError):
    """A git step failed, or a document would replace a different one (the message says
    which and why)."""


def _git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def one_line(said: str) -> str:
    """What git wrote on stderr, on one line: its non-blank lines stripped (the remote's
    ``remote: ...`` lines come padded) but its advice (``hint: ...``), joined by `` / ``."""
    lines = (line.strip() for line in said.splitlines())
    return " / ".join(line for line in lines if line and not line.startswith("hint:"))


def _ok(*args: str, cwd: Path) -> str:
    proc = _git(*args, cwd=cwd)
    if proc.returncode != 0:
        raise ResultsBranchError(f"git {' '.join(args)}: {one_line(proc.stderr)}")
    return proc.stdout.strip()


def checkout(remote: str, branch: str, path: Path) -> Path:
    """A fresh clone of ``branch`` of ``remote`` at ``path`` (a new orphan branch with no
    files when the remote has none yet); returns ``path``.

    Raises:
        ResultsBranchError: ``path`` exists and is not empty, or git failed.
    """
    if path.exists() and any(path.iterdir()):
        raise ResultsBranchError(f"{path} exists and is not empty: give a new folder")
    path.mkdir(parents=True, exist_ok=True)
    heads = _ok("ls-remote", "--heads", remote, branch, cwd=path)
    if heads:
        _ok("clone", "--quiet", "--branch", branch, "--single-branch", remote, ".", cwd=path)
    else:
        _ok("init", "--quiet", cwd=path)
        _ok("checkout", "--quiet", "--orphan", branch, cwd=path)
        _ok("remote", "add", "origin", remote, cwd=path)
    return path


def add_documents(store_roots: Sequence[Path], into: Path) -> list[Path]:
    """Copy every run document of the stores ``store_roots`` (:data:`DOCUMENTS`, conformance
    grades and profiles included) into the store ``into``, at the same paths.

    A document already there with the same content is left alone; every document is
    validated first (:func:`wsbench.results.runformat.load`).

    Returns:
        The paths added (relative to ``into``), sorted.

    Raises:
        ResultsBranchError: a file is not a valid run document, or a document of the same
            name with different content is already there (nothing is copied then).
    """
    plan: list[tuple[Path, Path]] = []
    for root in store_roots:
        for src in sorted(path for pattern in DOCUMENTS for path in root.glob(pattern)):
            try:
                load(src)
            except FormatError as exc:
                raise ResultsBranchError(f"not added, not a run document: {exc}") from exc
            rel = src.relative_to(root)
            dst = into / rel
            if dst.exists():
                if not filecmp.cmp(src, dst, shallow=False):
                    raise ResultsBranchError(f"{rel}: a different document of this name exists")
                continue
            plan.append((src, rel))
    for src, rel in plan:
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, into / rel)
    return sorted(rel for _, rel in plan)


def commit_and_push(path: Path, branch: str, message: str) -> str | None:
    """Commit everything new in the checkout ``path`` and push it to ``origin``'s
    ``branch`` (created when it does not exist yet). A push that lost a race (``origin``'s
    branch has commits the checkout lacks) is retried on top of them (``git rebase``), up
    to :data:`PUSH_ATTEMPTS` pushes in all; a push refused for another reason is not.

    Returns:
        The new commit's hash, or None when there was nothing to commit.

    Raises:
        ResultsBranchError: git failed; the push was refused (the message gives git's
            reason, on one line); or it lost :data:`PUSH_ATTEMPTS` races. ``origin`` is
            then as the others left it: nothing of this commit is on it.
    """
    _ok("add", "--all", cwd=path)
    if _git("diff", "--cached", "--quiet", cwd=path).returncode == 0:
        return None
    _ok(*AUTHOR, "commit", "--quiet", "-m", message, cwd=path)
    said = ""
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        push = _git("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}", cwd=path)
        if push.returncode == 0:
            return _ok("rev-parse", "HEAD", cwd=path)
        said = one_line(push.stderr)
        if not _behind(path, branch):
            raise ResultsBranchError(f"push to {branch} refused: {said}")
        if attempt < PUSH_ATTEMPTS:
            _ok(*AUTHOR, "rebase", "--quiet", "FETCH_HEAD", cwd=path)
    raise ResultsBranchError(
        f"push to {branch} lost to another push {PUSH_ATTEMPTS} times in a row: {said}"
    )


def _behind(path: Path, branch: str) -> bool:
    """Whether ``origin``'s ``branch`` exists and has commits the checkout ``path``'s
    ``HEAD`` lacks (fetched into ``FETCH_HEAD``): a push refused then lost a race.

    Raises:
        ResultsBranchError: git failed.
    """
    if not _ok("ls-remote", "--heads", "origin", branch, cwd=path):
        return False
    _ok("fetch", "--quiet", "origin", branch, cwd=path)
    check = _git("merge-base", "--is-ancestor", "FETCH_HEAD", "HEAD", cwd=path)
    if check.returncode not in (0, 1):
        raise ResultsBranchError(f"git merge-base --is-ancestor: {one_line(check.stderr)}")
    return check.returncode == 1
