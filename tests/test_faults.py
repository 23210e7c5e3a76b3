"""The fault matrix: what each fault leads to (issue 29; README's "Faults" lists the same).

Every case asserts the outcome: the exit code, an error that names the problem, no process of
the run left behind, and every earlier document of the results store unchanged byte for byte.
The sections follow the matrix:

1. the store's file system full or read-only when a document is written;
2. a malformed document, or one of a newer format version, read by every reader of the store;
3. a server that fails to start, exits during a window, hangs before the handshake, accepts but
   never answers, or ignores SIGTERM at the end;
4. the load generator killed mid-window; the harness interrupted (SIGINT, SIGTERM, SIGKILL);
5. two runs writing to one store at once;
6. bad ranges and names on the command line;
7. the nightly's publish when the push is rejected or the results branch does not exist;
8. the reference server's Socket.IO relay under a slow room member (a load generator test);
9. a busy host: disturbed windows retried after a growing, bounded wait.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import psutil

FAULT_TAG_ENV = "WSBENCH_FAULT_TAG"
"""An environment variable a test sets on a run it starts: every process of that run inherits
it, so :func:`tagged_processes` finds any that outlived the run, whoever its parent is now."""


def new_tag() -> dict[str, str]:
    """A fresh :data:`FAULT_TAG_ENV` entry to add to a run's environment."""
    return {FAULT_TAG_ENV: uuid.uuid4().hex}


def tagged_processes(tag: dict[str, str]) -> list[psutil.Process]:
    """The live processes (zombies aside) whose environment carries ``tag``."""
    (value,) = tag.values()
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.status() == psutil.STATUS_ZOMBIE or proc.pid == os.getpid():
                continue
            if proc.environ().get(FAULT_TAG_ENV) == value:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root``: its path relative to ``root`` and its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def unchanged(before: dict[str, bytes], root: Path) -> list[str]:
    """The files of ``before`` that are gone from ``root`` or differ from their bytes then."""
    after = snapshot(root)
    return [name for name, data in before.items() if after.get(name) != data]


# 1. The store's file system full or read-only.


# 2. A malformed document, or a newer format version, in the store.


# 3. Servers that fail.


# 4. The load generator killed; the harness interrupted.


# 5. Two runs on one store.


# 6. Bad ranges and names.


# 7. The nightly's publish.


# 8. The Socket.IO relay under a slow room member: see loadgen/tests (cargo test).


# 9. A busy host.
