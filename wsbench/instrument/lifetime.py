"""No process of a run outlives it: the harness's processes die with their parent, and a
terminated one cleans up as an interrupted one does.

The chain of a main job (``./bench run``) is: the main job, asv, asv's benchmark server (its
``forkserver``), the benchmark process that measures (``setup_cache``), then the servers and
the load generator. Each link asks Linux to signal it when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, prctl(2)): the servers and the load generator get SIGKILL
(:func:`wsbench.instrument.cpus.start_pinned`), the others SIGTERM, which a wsbench process
turns into :class:`SystemExit` (:func:`exit_on_sigterm`) so that its ``finally`` blocks and
context managers stop its servers (with their process groups) before it exits. So a main job
killed with SIGKILL still leaves no process behind; one interrupted with SIGINT or SIGTERM
stops asv, which sets the chain off. Linux clears the setting across ``fork``, so each link
sets it itself. ``./bench`` sets its SIGINT handler itself too (:func:`unwind_on_signals`):
a process started with SIGINT ignored (a shell's background job) would not get Python's.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Callable
from types import FrameType

import psutil

PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal a process receives when its parent thread exits."""

TERMINATED_EXIT_CODE = 128 + signal.SIGTERM
"""The exit code of a wsbench process ended by SIGTERM (the shell's convention: 143)."""
INTERRUPTED_EXIT_CODE = 128 + signal.SIGINT
"""The exit code of a wsbench process interrupted with SIGINT (Ctrl-C; the shell's
convention: 130)."""


def set_parent_death_signal(sig: int) -> None:
    """Ask Linux to send ``sig`` to this process when its parent exits; when the parent has
    already gone (the process was re-parented before the call), act on it now.

    Raises:
        OSError: prctl(2) refused.
    """
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_PDEATHSIG): {os.strerror(code)}")
    if parent == 1 or os.getppid() != parent:
        os.kill(os.getpid(), sig)


def _exit(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(TERMINATED_EXIT_CODE)


def exit_on_sigterm() -> None:
    """Make SIGTERM raise ``SystemExit(143)`` in this process's main thread, so that it
    unwinds (stopping what it started) instead of ending on the spot. Call it from the main
    thread."""
    signal.signal(signal.SIGTERM, _exit)


def unwind_on_signals() -> None:
    """Make SIGINT raise :class:`KeyboardInterrupt` and SIGTERM ``SystemExit(143)``
    (:func:`exit_on_sigterm`) in this process's main thread, whatever dispositions it
    started with. Python installs its SIGINT handler only over the default disposition: a
    shell starts a background job (``./bench test &`` in a script) with SIGINT ignored, and
    such a process would otherwise ignore ``kill -INT`` and measure on. The processes it
    starts afterwards get the default disposition again (exec resets a handler, not an
    ignored signal). Call it from the main thread.

    Raises:
        ValueError: called from another thread than the main one.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    exit_on_sigterm()


def die_with_parent() -> None:
    """This process ends, cleaning up, when its parent does: :func:`exit_on_sigterm` and
    SIGTERM as the parent-death signal."""
    exit_on_sigterm()
    set_parent_death_signal(signal.SIGTERM)


def child_dies_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` giving the child SIGTERM when this process (its parent) exits."""

    def setup() -> None:
        set_parent_death_signal(signal.SIGTERM)

    return setup


def tagged(name: str, value: str) -> list[psutil.Process]:
    """The live processes whose environment has ``name`` set to ``value``: a run's (or a
    server's) processes found by a variable they all inherit, whoever their parent is now
    (one that left its process group, or was orphaned). Zombies and processes this one may
    not read are left out."""
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE and proc.environ().get(name) == value:
                found.append(proc)
    return found
