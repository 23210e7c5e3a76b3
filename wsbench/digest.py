"""SHA-256 of a set of files: the identity of the code that measured (the load generator's
sources, the harness and implementations)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def files_sha256(root: Path, files: Iterable[Path]) -> str:
    """SHA-256 (hex) over ``files``, each as its path relative to ``root`` and its bytes, in
    path order; a file that does not exist is skipped.

    Raises:
        ValueError: a file is not below ``root``.
    """
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def tree_files(root: Path, patterns: Iterable[str]) -> list[Path]:
    """The files below ``root`` matching any glob pattern (e.g. ``"wsbench/**/*.py"``),
    without ``__pycache__`` folders."""
    found = {p for pattern in patterns for p in root.glob(pattern)}
    return [p for p in found if p.is_file() and "__pycache__" not in p.parts]
