"""The results store: every run's documents (:mod:`wsbench.results.runformat`), never overwritten.

Layout: ``<root>/<machine>/<run_id>/<commit8>-<env_name>.json``, one document per (run,
commit, environment): a run over a range of commits (``./bench run --commits A..B``) has one
document per commit and environment.
A run id is unique (its start time in UTC and a random suffix), so a second run writes new
files beside the earlier ones and loses nothing; only the run that owns a file rewrites it
(each scenario of an environment adds its benchmarks to the same document as it goes). The
default root is ``results/`` in the repository (``WSBENCH_RESULTS``), ignored by git; a copy
of the folder is a complete copy of the history, and merging two stores is copying files.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from wsbench.paths import RUNS_DIR
from wsbench.results.runformat import FormatError, Run, encode, load

ROOT_ENV = "WSBENCH_RESULTS"
"""Environment variable naming the store's root folder (default :data:`RUNS_DIR`)."""
RUN_ID_ENV = "WSBENCH_RUN_ID"
"""Environment variable carrying the run id from the main job to the benchmark processes."""


def root_from_env() -> Path:
    """The store's root: ``$WSBENCH_RESULTS``, else :data:`wsbench.paths.RUNS_DIR`."""
    return Path(os.environ.get(ROOT_ENV) or RUNS_DIR)


CLIENTS_SUBDIR = "clients"
"""The folder of a results store that holds the client libraries' documents
(``./bench clients``): a store of its own with the same layout, so that a client run never
becomes the servers' newest run."""


def client_store(root: Path) -> Path:
    """The client store of the results store ``root``: ``<root>/clients``."""
    return root / CLIENTS_SUBDIR


def now_iso() -> str:
    """The current time in UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


RUN_ID_PATTERN = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")
"""What :func:`new_run_id` makes; a run id given by hand must match it (it names a folder,
and run ids sort by time)."""


def check_run_id(run_id: str) -> str:
    """``run_id`` when it has :data:`RUN_ID_PATTERN`'s shape.

    Raises:
        ValueError: it has not (the message shows the expected shape).
    """
    if not RUN_ID_PATTERN.fullmatch(run_id):
        raise ValueError(
            f"run id {run_id!r}: expected e.g. {new_run_id()} (UTC time, 6 hex digits)"
        )
    return run_id


def new_run_id(now: datetime | None = None) -> str:
    """A fresh run id: UTC start time and 6 random hex digits, e.g. ``20261123T190000Z-3f9a1c``
    (sorts by time; two runs started in the same second still differ)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{secrets.token_hex(3)}"


def run_path(root: Path, *, machine: str, run_id: str, commit: str, env_name: str) -> Path:
    """Where the document of (machine, run, commit, environment) lives."""
    return root / machine / run_id / f"{commit[:8]}-{env_name}.json"


def save(run: Run, root: Path) -> Path:
    """Write ``run``'s document atomically (a crash never leaves half a file).

    Returns:
        The document's path (see :func:`run_path`).
    """
    path = run_path(
        root,
        machine=run.machine.name,
        run_id=run.run_id,
        commit=run.harness.commit,
        env_name=run.environment.env_name,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(encode(run))
    tmp.replace(path)
    return path


@dataclass
class Store:
    """Everything under one root: the runs' documents, and the files that could not be read.

    Attributes:
        runs: every valid document, oldest run first.
        problems: one line per file that is not a valid document (``path: reason``).
    """

    runs: list[Run] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load_store(root: Path) -> Store:
    """Read every document under ``root`` (a missing root is an empty store).

    A file that is not a run document this wsbench reads (malformed, or written by a newer
    wsbench: :func:`wsbench.results.runformat.decode`) is listed in :attr:`Store.problems`,
    never fatal here and never deleted: each reader says what it does with them (the site
    fails its strict build, the nightly's steps refuse what they read).
    """
    store = Store()
    if not root.is_dir():
        return store
    for path in sorted(root.glob("*/*/*.json")):
        try:
            store.runs.append(load(path))
        except FormatError as exc:
            store.problems.append(str(exc))
    store.runs.sort(key=lambda r: (r.run_id, r.environment.env_name))
    return store
