"""One server subprocess, from start to a clean stop, never left behind."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType

import psutil

from wsbench.instrument import lifetime
from wsbench.instrument.cpus import start_pinned

STOP_GRACE_S = 5.0
"""Seconds a server has to exit after SIGTERM before it is killed (PROTOCOL.md)."""
KILL_WAIT_S = 5.0
"""Seconds to wait for the processes of a server killed with SIGKILL to be gone (they go at
once, unless stuck in the kernel)."""
PROBE_TIMEOUT_S = 1.0
"""Seconds each readiness probe (one WebSocket handshake) may take."""
SERVER_TAG_ENV = "WSBENCH_SERVER_TAG"
"""An environment variable set to a fresh value for each server: every process the server
starts inherits it, so that :meth:`ServerProcess.stop` finds those that left its process
group and were orphaned by its exit."""
UNINHERITED_ENV = ("PYTHONPATH",)
"""Environment variables of this process that a server does not inherit: the pull-request
comparison runs each commit's harness with its tree on ``PYTHONPATH``
(:mod:`wsbench.jobs.commits`), and a folder there, ahead of the standard library and
site-packages, changed the instructions counted per message of a test server
(impls/PROTOCOL.md); a server sees the same ``sys.path`` however the harness was started."""
FIXED_ENV_KEPT = (
    "PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ",
    "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX",
)  # fmt: skip
"""The only variables of this process's environment that a server with a fixed layout
inherits (:class:`ServerProcess`): what a program needs to find its tools, its locale and
its temporary folder, and where Python reads its bytecode from (which moves the count).
Everything else, such as the name of the running test (``PYTEST_CURRENT_TEST``) or a CI
system's variables, is left out: the *content* of one such variable moved the instructions
counted per message of a test server by 1 % (129,885 to 131,164), whatever its length."""
LAYOUT_PAD_ENV = "WSBENCH_LAYOUT_PAD"
"""The environment variable that pads a server's command line and environment to a whole
number of :data:`LAYOUT_BLOCK_BYTES` (:func:`padded_env`)."""
LAYOUT_EVEN_ENV = "WSBENCH_LAYOUT_EVEN"
"""An empty environment variable that :func:`padded_env` adds when the argv and envp pointers
would otherwise be an odd number (:data:`POINTER_BYTES` short of a 16-byte boundary)."""
LAYOUT_BLOCK_BYTES = 4096
"""What the command line and environment of a server with a fixed layout add up to a multiple
of, in bytes: a page."""
POINTER_BYTES = 8
"""The size of one pointer of the argv and envp arrays on the process's first stack (64-bit)."""
STACK_ALIGN_BYTES = 16
"""The boundary the kernel rounds a new process's stack pointer down to (x86-64 and arm64),
twice: below the strings, and below the pointer arrays."""


def padded_env(argv: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with :data:`LAYOUT_PAD_ENV` (and :data:`LAYOUT_EVEN_ENV` when needed), whose
    value makes what the kernel copies to a new process's stack a whole number of
    :data:`LAYOUT_BLOCK_BYTES`, so that the process's stack, and the addresses that follow
    from it, do not move with the length of a path or of an environment variable.

    What is counted (Linux's ``create_elf_tables``): the path of the executed file (the
    resolved ``argv[0]``, the ``AT_EXECFN`` string), every argument and ``NAME=value``
    string with its NUL, and the argv and envp pointer arrays, each ended by a null pointer.
    The pointers (with ``argc``) are made an even number, so that both of the kernel's
    roundings to :data:`STACK_ALIGN_BYTES` fall alike whatever the split between strings
    and pointers.

    Without it, the instructions a server counts per message moved by 1 % with the length of
    an environment variable (the name of the running test in ``PYTEST_CURRENT_TEST``) and
    with its arguments, as the size of the environment moves the time a program takes
    (Mytkowicz et al., "Producing wrong data without doing anything obviously wrong!",
    ASPLOS 2009)."""
    base = {k: v for k, v in env.items() if k not in (LAYOUT_PAD_ENV, LAYOUT_EVEN_ENV)}
    pointers = len(argv) + 1 + len(base) + 1 + 1 + 1  # + argc, the pad's pointer
    if pointers % 2:
        base[LAYOUT_EVEN_ENV] = ""
        pointers += 1
    strings = [_executed(argv, env), *argv, *(f"{k}={v}" for k, v in base.items())]
    used = sum(len(os.fsencode(s)) + 1 for s in strings) + len(f"{LAYOUT_PAD_ENV}=") + 1
    used += POINTER_BYTES * pointers
    return {**base, LAYOUT_PAD_ENV: "x" * (-used % LAYOUT_BLOCK_BYTES)}


def _executed(argv: Sequence[str], env: Mapping[str, str]) -> str:
    """The path the kernel is given for ``argv[0]``: as it is with a slash, else where the
    child's ``PATH`` finds it (as :mod:`subprocess` looks it up), else as it is."""
    if not argv:
        return ""
    if os.sep in argv[0]:
        return argv[0]
    return shutil.which(argv[0], path=env.get("PATH", os.defpath)) or argv[0]


class ServerError(RuntimeError):
    """The server did not start, did not become ready, or died; the message ends with its log."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_gone(procs: list[psutil.Process], timeout_s: float) -> None:
    """Wait up to ``timeout_s`` seconds until every process of ``procs`` has exited (a zombie
    has: only its parent's wait remains, and an orphan's is init's)."""
    deadline = time.monotonic() + timeout_s
    while procs and time.monotonic() < deadline:
        procs = [p for p in procs if _running(p)]
        if procs:
            time.sleep(0.01)


def _running(proc: psutil.Process) -> bool:
    """True while ``proc`` runs (not a zombie; False too when it cannot be read)."""
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class ServerProcess:
    """A server started in its own session (process group), pinned to ``cpus``.

    Use it as a context manager: the process group is always stopped on exit, gracefully
    (SIGTERM) and then by force (SIGKILL after :data:`STOP_GRACE_S`), also when a step failed;
    every process the server started goes with it (:meth:`stop`).

    Args:
        argv: the command line.
        cpus: CPU numbers the server is pinned to.
        name: a label for error messages (e.g. ``"websockets 15.0.1"``).
        env: extra environment variables, beside this process's (less
            :data:`UNINHERITED_ENV`).
        stop_grace_s: seconds it has to exit after SIGTERM before it is killed (default
            :data:`STOP_GRACE_S`; longer under valgrind, which writes its counts at exit).
        fixed_layout: for instruction counts: inherit only :data:`FIXED_ENV_KEPT` of this
            process's environment, and pad it so that the process's first stack has the same
            layout whatever the lengths of its arguments and environment
            (:func:`padded_env`).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cpus: Sequence[int],
        name: str,
        env: dict[str, str] | None = None,
        stop_grace_s: float = STOP_GRACE_S,
        fixed_layout: bool = False,
    ) -> None:
        self.argv = list(argv)
        self.stop_grace_s = stop_grace_s
        self.cpus = tuple(cpus)
        self.name = name
        inherited = {
            k: v
            for k, v in os.environ.items()
            if k not in UNINHERITED_ENV and (not fixed_layout or k in FIXED_ENV_KEPT)
        }
        self.env = {**inherited, **(env or {}), SERVER_TAG_ENV: uuid.uuid4().hex}
        if fixed_layout:
            self.env = padded_env(self.argv, self.env)
        self._log_dir = tempfile.TemporaryDirectory(prefix="wsbench-server-")
        self.log_path = Path(self._log_dir.name) / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._stopped = False

    @property
    def pid(self) -> int:
        """The server's process id.

        Raises:
            ServerError: the server was never started.
        """
        if self.proc is None:
            raise ServerError(f"{self.name}: not started")
        return self.proc.pid

    def start(self) -> None:
        """Start the process (its stdout and stderr go to :attr:`log_path`).

        Raises:
            ServerError: the command could not be executed (e.g. a missing interpreter).
        """
        cpus = self.cpus
        with self.log_path.open("wb") as log:
            try:
                self.proc = start_pinned(
                    self.argv,
                    cpus,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=self.env,
                    start_new_session=True,
                )
            except OSError as exc:
                raise ServerError(f"{self.name}: cannot start {self.argv[0]!r}: {exc}") from exc

    def log_tail(self, lines: int = 30) -> str:
        """The last ``lines`` lines of the server's output."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _died(self, when: str) -> ServerError:
        code = self.proc.returncode if self.proc else None
        tail = self.log_tail() or "(no output)"
        return ServerError(
            f"{self.name}: server exited with code {code} {when}.\n"
            f"--- server log (tail) ---\n{tail}"
        )

    def check_alive(self, when: str = "during the run") -> None:
        """Raise :class:`ServerError` (with the log tail) if the server has exited."""
        if self.proc is None or self.proc.poll() is not None:
            raise self._died(when)

    def wait_ready(self, probe: Callable[[float], str | None], *, timeout_s: float) -> float:
        """Wait until ``probe`` completes a WebSocket handshake.

        Args:
            probe: called with a per-attempt timeout in seconds (:data:`PROBE_TIMEOUT_S`);
                returns None on success or the reason of the failure.
            timeout_s: overall seconds to wait (the last attempt may end up to
                :data:`PROBE_TIMEOUT_S` later).

        Returns:
            Seconds from the call until the server was ready.

        Raises:
            ServerError: the server exited, or was not ready within ``timeout_s`` (with the
                last probe failure and the log tail).
        """
        start = time.monotonic()
        reason = "never probed"
        while time.monotonic() - start < timeout_s:
            self.check_alive("before it became ready")
            reason = probe(PROBE_TIMEOUT_S) or ""
            if not reason:
                return time.monotonic() - start
            time.sleep(0.05)
        self.check_alive("before it became ready")
        raise ServerError(
            f"{self.name}: not ready after {timeout_s:g} s: no WebSocket handshake completed "
            f"(last probe: {reason}).\n"
            f"--- server log (tail) ---\n{self.log_tail() or '(no output)'}"
        )

    def stop(self) -> int | None:
        """Stop the server and everything it started: SIGTERM to its process group, SIGKILL
        after :attr:`stop_grace_s` (a server that ignores SIGTERM then exits with -9), then
        SIGKILL to every process it started that is still there, also those that left its
        process group (found as its descendants, or by :data:`SERVER_TAG_ENV` once orphaned),
        waiting up to :data:`KILL_WAIT_S` for them to be gone. A second call does nothing.

        Returns:
            The server's exit code (negative: killed by that signal), None if never started.
        """
        if self.proc is None:
            return None
        if self._stopped:
            return self.proc.returncode
        self._stopped = True
        tree = self._descendants()
        if self.proc.poll() is None:
            self._signal_group(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=self.stop_grace_s)
        # Kill whatever is left in the group (the server itself or a child it started).
        self._signal_group(signal.SIGKILL)
        self.proc.wait()
        left = {p.pid: p for p in [*tree, *self._tagged()]}  # also those out of the group
        for child in left.values():
            with contextlib.suppress(psutil.Error):
                child.kill()
        _wait_gone(list(left.values()), KILL_WAIT_S)
        return self.proc.returncode

    def _tagged(self) -> list[psutil.Process]:
        """The live processes whose environment carries this server's
        :data:`SERVER_TAG_ENV` value (:func:`wsbench.instrument.lifetime.tagged`)."""
        return lifetime.tagged(SERVER_TAG_ENV, self.env[SERVER_TAG_ENV])

    def _descendants(self) -> list[psutil.Process]:
        assert self.proc is not None
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.Error:
            return []

    def _signal_group(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        self._log_dir.cleanup()
