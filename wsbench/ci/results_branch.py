"""The durable results store: a git branch of its own (``results`` by default) whose tree is
a results store (``<machine>/<run id>/<commit>-<environment>.json``, :mod:`wsbench.results.store`),
so that the history survives the loss of any runner.

A run's documents are added (never replacing a different document of the same name),
committed and pushed; a push that loses a race with another is retried on top of the
other's commit (documents of different runs never touch the same file).
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from wsbench.results.runformat import FormatError, load

AUTHOR = ("-c", "user.name=wsbench", "-c", "user.email=wsbench@users.noreply.github.com")
PUSH_ATTEMPTS = 3


class ResultsBranchError(RuntimeError):
    """A git step failed, or a document would replace a different one (the message says
    which and why)."""


def _git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def _ok(*args: str, cwd: Path) -> str:
    proc = _git(*args, cwd=cwd)
    if proc.returncode != 0:
        raise ResultsBranchError(f"git {' '.join(args)}: {proc.stderr.strip()}")
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
    """Copy every run document of the stores ``store_roots`` into the store ``into``.

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
        for src in sorted(root.glob("*/*/*.json")):
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
    ``branch``, retrying on top of a concurrent push.

    Returns:
        The new commit's hash, or None when there was nothing to commit.

    Raises:
        ResultsBranchError: git failed, or the push failed :data:`PUSH_ATTEMPTS` times.
    """
    _ok("add", "--all", cwd=path)
    if _git("diff", "--cached", "--quiet", cwd=path).returncode == 0:
        return None
    _ok(*AUTHOR, "commit", "--quiet", "-m", message, cwd=path)
    error = ""
    for _ in range(PUSH_ATTEMPTS):
        push = _git("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}", cwd=path)
        if push.returncode == 0:
            return _ok("rev-parse", "HEAD", cwd=path)
        error = push.stderr.strip()
        _ok("fetch", "--quiet", "origin", branch, cwd=path)
        _ok(*AUTHOR, "rebase", "--quiet", "FETCH_HEAD", cwd=path)
    raise ResultsBranchError(f"push to {branch} failed {PUSH_ATTEMPTS} times: {error}")
