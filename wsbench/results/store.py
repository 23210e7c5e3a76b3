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

import contextlib
import errno
import fcntl
import os
import re
import secrets
from collections.abc import Callable, Iterator
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


CONFORMANCE_SUBDIR = "conformance"
"""The folder of a results store that holds the conformance grades (``./bench
conformance``): a store of its own with the same layout, like :data:`CLIENTS_SUBDIR`."""


def conformance_store(root: Path) -> Path:
    """The conformance store of the results store ``root``: ``<root>/conformance``."""
    return root / CONFORMANCE_SUBDIR


PROFILES_SUBDIR = "profiles"
"""The folder of a results store that holds the CPU profiles (``./bench profile``): a store
of its own with the same layout, like :data:`CLIENTS_SUBDIR` (a profiled window is never a
measurement)."""


def profile_store(root: Path) -> Path:
    """The profile store of the results store ``root``: ``<root>/profiles``."""
    return root / PROFILES_SUBDIR


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


class StoreError(Exception):
    """A document could not be written: the message names the path and the system's error,
    e.g. ``cannot write results/m/r/x.json: [Errno 28 ENOSPC] No space left on device``.

    Attributes:
        errno: the system's error number (:mod:`errno`), 0 when there was none.
    """

    def __init__(self, message: str, errno_: int) -> None:
        super().__init__(message)
        self.errno = errno_


def _cannot_write(path: Path, exc: OSError) -> StoreError:
    code = errno.errorcode.get(exc.errno or 0, "?")
    return StoreError(
        f"cannot write {path}: [Errno {exc.errno} {code}] {exc.strerror or exc}", exc.errno or 0
    )


def _remove(path: Path) -> None:
    """Remove ``path`` if it is there; a failure to (the file system gone read-only) is left
    to the error being raised, which names the folder."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def save(run: Run, root: Path) -> Path:
    """Write ``run``'s document atomically: into a temporary file beside it, flushed to the
    disk (``fsync``), then renamed over it. A crash never leaves half a document, and a write
    that fails (a full or read-only file system) removes its temporary file and leaves the
    earlier version of the document as it was.

    Returns:
        The document's path (see :func:`run_path`).

    Raises:
        StoreError: the folder or the file could not be written (path and errno named).
    """
    path = run_path(
        root,
        machine=run.machine.name,
        run_id=run.run_id,
        commit=run.harness.commit,
        env_name=run.environment.env_name,
    )
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as out:
            out.write(encode(run))
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(path)
    except OSError as exc:
        _remove(tmp)
        raise _cannot_write(path, exc) from exc
    return path


FAULTS_ENV = "WSBENCH_FAULTS"
"""Environment variable naming a file, outside the store, where a benchmark process that could
not write its document says why (:func:`report_fault`): the main job sets it, and shows
those lines, since asv does not show what a failed benchmark printed."""


def report_fault(line: str) -> None:
    """Append ``line`` to the file ``$WSBENCH_FAULTS`` names, if it names one; best effort
    (that file's own disk may be full too: the line is on stderr as well)."""
    name = os.environ.get(FAULTS_ENV)
    if name:
        with contextlib.suppress(OSError), open(name, "a", encoding="utf-8") as out:
            out.write(line.rstrip("\n") + "\n")


LOCK_FILE = ".lock"
"""The file, at a store's root, that a run writing to the store holds locked (``flock``)."""


@contextlib.contextmanager
def held(root: Path, holder: str, wait: Callable[[str], None] = lambda _: None) -> Iterator[None]:
    """Hold the store ``root`` for one run: a second run writing to the same store waits until
    the first ends (measuring at the same time would disturb both: their servers and load
    generators would share the CPUs), rather than failing or interleaving its windows.

    The lock is ``flock(2)`` on :data:`LOCK_FILE`: the kernel releases it when the holder
    exits, however it ends (even by SIGKILL), so a killed run never leaves the store locked.
    The file keeps the holder's line (``holder``, e.g. ``"run 2026...-3f9a1c, pid 1234"``)
    for whoever waits.

    Args:
        root: the store's root (created if missing).
        holder: a line naming this run.
        wait: called once with the current holder's line when the store is held by another.

    Raises:
        StoreError: the lock file could not be opened or written.
    """
    path = root / LOCK_FILE
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = path.open("a+", encoding="utf-8")
    except OSError as exc:
        raise _cannot_write(path, exc) from exc
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            wait(lock.read().strip() or "another run")
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            lock.seek(0)
            lock.truncate()
            lock.write(holder + "\n")
            lock.flush()
        except OSError as exc:
            raise _cannot_write(path, exc) from exc
        yield


def check_writable(root: Path, machine: str) -> Path:
    """Check, before a run, that documents can be written under ``root``'s folder for
    ``machine``: create it and write, flush and remove a small probe file.

    Returns:
        The machine's folder.

    Raises:
        StoreError: it could not be created or written (a read-only or full file system,
            a path that is a file); the probe file is never left behind.
    """
    folder = root / machine
    probe = folder / f".probe{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with probe.open("wb") as out:
            out.write(b"wsbench: can this store be written?\n" * 64)
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        _remove(probe)
        raise _cannot_write(probe, exc) from exc
    probe.unlink()
    return folder


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
