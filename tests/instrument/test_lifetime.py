"""A wsbench process unwinds on SIGINT and SIGTERM however it was started (the chain of a
run's processes, :mod:`wsbench.instrument.lifetime`, is tested end to end in
tests/test_faults.py)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from wsbench.instrument import lifetime
from wsbench.paths import REPO_ROOT

WAITS = """
import subprocess, sys, time
from wsbench.instrument import lifetime
lifetime.unwind_on_signals()
started = subprocess.run(["grep", "^SigIgn:", "/proc/self/status"], capture_output=True,
                         text=True, check=True).stdout.split()[1]
try:
    print(started, flush=True)  # the signals a process it starts ignores (hexadecimal mask)
    time.sleep(60)
except KeyboardInterrupt:
    sys.exit(lifetime.INTERRUPTED_EXIT_CODE)
"""
"""A process that installs the handlers, says what a process it starts ignores, then waits."""


def _ignoring_both() -> None:
    """A ``preexec_fn``: SIGINT and SIGTERM ignored, as a non-interactive shell starts a
    background job with SIGINT ignored (``./bench test &`` in a script)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("sig", "code"),
    [
        (signal.SIGINT, lifetime.INTERRUPTED_EXIT_CODE),
        (signal.SIGTERM, lifetime.TERMINATED_EXIT_CODE),
    ],
)
def test_a_process_started_with_the_signals_ignored_still_unwinds_on_them(
    sig: signal.Signals, code: int
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WAITS], cwd=REPO_ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=_ignoring_both,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        ignored = int(proc.stdout.readline() or "-1", 16)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert ignored >= 0, err
    # What it starts afterwards gets the default dispositions back (exec resets a handler).
    assert not ignored & (1 << (signal.SIGINT - 1) | 1 << (signal.SIGTERM - 1))
