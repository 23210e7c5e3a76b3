"""Local git repositories standing in for GitHub in the results branch's tests: a bare
repository as ``origin``, and a hook in it refusing pushes as a branch protection does."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(*args: str, cwd: Path) -> str:
    """``git ARGS`` in ``cwd``; its stdout, stripped.

    Raises:
        subprocess.CalledProcessError: git failed.
    """
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def bare(path: Path) -> Path:
    """A new empty bare repository at ``path`` (no branch yet); returns ``path``."""
    git("init", "--quiet", "--bare", str(path), cwd=path.parent)
    return path


def refs(remote: Path) -> str:
    """Every ref of ``remote`` with its commit, one per line (empty: no branch)."""
    return git("for-each-ref", cwd=remote)


def branch_files(remote: Path, branch: str) -> dict[str, bytes]:
    """Every file on ``branch`` of ``remote``: its path and its bytes."""
    names = git("ls-tree", "-r", "--name-only", branch, cwd=remote).splitlines()
    return {
        name: subprocess.run(
            ["git", "show", f"{branch}:{name}"], cwd=remote, capture_output=True, check=True
        ).stdout
        for name in names
    }


def refuse_pushes(remote: Path, reason: str) -> Path:
    """A pre-receive hook in ``remote`` refusing every push with ``reason`` on stderr (as a
    branch protection does); returns the file the hook appends one line to per push."""
    pushes = remote / "pushes.log"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f'#!/bin/sh\necho push >> "{pushes}"\necho "{reason}" >&2\nexit 1\n')
    hook.chmod(0o755)
    return pushes
