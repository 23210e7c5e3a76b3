"""A sampling CPU profile of a server during one measurement window, with py-spy.

py-spy (https://github.com/benfred/py-spy, from PyPI: its wheel carries the binary) reads a
running CPython's frames from outside the process, at :data:`RATE_HZ` samples per second:
by default ``--nonblocking``, so that the server is never paused; with ``native``,
``--native`` adds the C and Rust frames of extension modules under the Python ones, which
py-spy can only read with the process paused for each sample (it refuses ``--nonblocking``
with ``--native``), at a higher cost to the server; ``--subprocesses`` follows a server's workers
(hypercorn, granian and gunicorn serve from a child process). It needs no hardware counters
(this VM has none: ``perf`` says "PMU not available") and runs on hosted runners as root or
with ptrace allowed.

What it sees and misses: a sample of every thread of every process of the server, its
Python stack (file:line) and, with ``--native``, its native stack; by default only the
threads that are running (not waiting in ``epoll``), so that idle time is what is missing
from :data:`RATE_HZ` x the window's seconds (:func:`wsbench.results.folded.idle_share`). It
never sees the kernel's work on the server's behalf (TCP, epoll): that share comes from the
window's own system time (``server_kernel_cpu_percent``); how the shares are then split is
:mod:`wsbench.results.profile_shares`. ``perf`` with Python 3.12's trampolines would see the
kernel too, but needs 3.12 and a kernel that lets it (not here: Python 3.11, no PMU).

py-spy runs on the load generator's CPUs, so that its own reading of the server's memory
(``process_vm_readv``) costs the server as little as possible; a profiled window is never a
measurement sample.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wsbench.instrument.server import ServerError, ServerProcess
from wsbench.results.folded import FoldedError, parse_folded

RATE_HZ = 250
"""Samples per second py-spy takes (its default is 100; 250 gives 250 x 1 s = 250 samples
of a busy server in a one-second window)."""
STOP_MARGIN_S = 10.0
"""Seconds py-spy may take past its ``--duration`` to write its output."""


class ProfileError(RuntimeError):
    """py-spy failed, or wrote no profile (the message says which)."""


class NoProfilerError(ProfileError):
    """py-spy is not installed (``./bench profile`` exits 2 with this message)."""


def py_spy() -> str:
    """The py-spy executable: beside this interpreter (the harness's ``.venv``), else on
    PATH.

    Raises:
        NoProfilerError: none found (``./bench`` installs it with the harness:
            pyproject.toml).
    """
    beside = Path(sys.executable).parent / "py-spy"
    if beside.exists():
        return str(beside)
    found = shutil.which("py-spy")
    if found is None:
        raise NoProfilerError(
            "py-spy is not installed: ./bench installs it with the harness (pyproject.toml), "
            "or `pip install py-spy`"
        )
    return found


def py_spy_version(binary: str) -> str:
    """``"py-spy 0.4.3"`` as ``py-spy --version`` prints it.

    Raises:
        ProfileError: it does not run.
    """
    try:
        proc = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProfileError(f"{binary} --version: {exc}") from exc
    if proc.returncode != 0 or not proc.stdout.strip():
        raise ProfileError(f"{binary} --version failed: {proc.stderr.strip()}")
    return proc.stdout.strip()


@dataclass
class Recording:
    """py-spy recording one server for ``duration_s`` seconds after ``delay_s``, in a
    thread of its own, so that it covers a measurement window that starts after a warm-up.

    Use :meth:`start` before the load generator's run and :meth:`result` after it.

    Attributes:
        pid: the server's process id.
        delay_s: seconds to wait before recording (the window's warm-up).
        duration_s: seconds to record (the window).
        cpus: where py-spy runs (the load generator's CPUs).
        native: also the native frames of extension modules (``--native``; the server is
            then paused for each sample).
        rate_hz: samples per second.
    """

    pid: int
    delay_s: float
    duration_s: float
    cpus: Sequence[int]
    native: bool = False
    rate_hz: int = RATE_HZ
    binary: str = field(default_factory=py_spy)
    _dir: tempfile.TemporaryDirectory[str] = field(
        default_factory=lambda: tempfile.TemporaryDirectory(prefix="wsbench-profile-")
    )
    _thread: threading.Thread | None = None
    _error: str | None = None
    _log: str = ""

    @property
    def output(self) -> Path:
        """Where py-spy writes the folded stacks."""
        return Path(self._dir.name) / "profile.folded"

    def argv(self) -> list[str]:
        """py-spy's command line."""
        argv = [
            self.binary, "record", "--pid", str(self.pid), "--rate", str(self.rate_hz),
            "--duration", f"{max(1, round(self.duration_s))}", "--format", "raw",
            "--output", str(self.output), "--subprocesses", "--full-filenames",
        ]  # fmt: skip
        return [*argv, "--native"] if self.native else [*argv, "--nonblocking"]

    def _record(self) -> None:
        threading.Event().wait(self.delay_s)
        recorder = ServerProcess(self.argv(), cpus=self.cpus, name="py-spy record")
        try:
            recorder.start()
            assert recorder.proc is not None
            code = recorder.proc.wait(timeout=self.duration_s + STOP_MARGIN_S)
            self._log = recorder.log_tail(5)
            if code != 0:
                self._error = f"py-spy exited with {code}: {self._log}"
        except subprocess.TimeoutExpired:
            self._error = f"py-spy did not finish within {self.duration_s + STOP_MARGIN_S:g} s"
        except ServerError as exc:
            self._error = str(exc)
        finally:
            recorder.__exit__(None, None, None)

    def start(self) -> None:
        """Start recording (after :attr:`delay_s`), in the background."""
        self._thread = threading.Thread(target=self._record, name="py-spy", daemon=True)
        self._thread.start()

    def result(self) -> dict[str, int]:
        """Wait for the recording, then its folded stacks (:func:`parse_folded`).

        Raises:
            ProfileError: py-spy failed, wrote nothing, or took no sample (with its
                output's tail).
        """
        if self._thread is not None:
            self._thread.join()
        try:
            if self._error:
                raise ProfileError(self._error)
            try:
                text = self.output.read_text()
            except OSError as exc:
                raise ProfileError(f"py-spy wrote no profile: {exc}") from exc
            try:
                stacks = parse_folded(text)
            except FoldedError as exc:
                raise ProfileError(f"py-spy's output: {exc}") from exc
            if not stacks:
                raise ProfileError(f"py-spy took no sample: {self._log or '(no output)'}")
            return stacks
        finally:
            self._dir.cleanup()
