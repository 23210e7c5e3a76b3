"""The server's CPU and memory during the measurement window, sampled with psutil."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import psutil

SAMPLE_INTERVAL_S = 0.1
"""Seconds between two RSS samples."""


@dataclass(frozen=True)
class ServerUsage:
    """What the server used during the window.

    Attributes:
        cpu_percent: user+system CPU time over wall time, in percent (100 = one core),
            including child processes.
        rss_bytes: peak resident set size seen, in bytes, including child processes.
        samples: how many RSS samples were taken.
    """

    cpu_percent: float
    rss_bytes: int
    samples: int


def _tree(pid: int) -> list[psutil.Process]:
    proc = psutil.Process(pid)
    return [proc, *proc.children(recursive=True)]


def _cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _rss(procs: list[psutil.Process]) -> int:
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total


class WindowSampler:
    """Samples a process tree from ``delay_s`` after :meth:`start` for ``duration_s`` seconds.

    The delay skips the load generator's warm-up so that the figures cover the same window
    as its report (give or take the connection set-up, a few milliseconds).

    Args:
        pid: the server's process id.
        delay_s: seconds to wait before the window opens (the warm-up).
        duration_s: length of the window in seconds.
    """

    def __init__(self, pid: int, *, delay_s: float, duration_s: float) -> None:
        self.pid = pid
        self.delay_s = delay_s
        self.duration_s = duration_s
        self._stop = threading.Event()
        self._result: ServerUsage | None = None
        self._thread = threading.Thread(target=self._run, name="wsbench-sampler", daemon=True)

    def start(self) -> None:
        """Start sampling in a background thread."""
        self._thread.start()

    def _run(self) -> None:
        if self._stop.wait(self.delay_s):
            return
        try:
            procs = _tree(self.pid)
        except psutil.Error:
            return
        wall0, cpu0 = time.monotonic(), _cpu_seconds(procs)
        peak, samples = _rss(procs), 1
        end = wall0 + self.duration_s
        while not self._stop.wait(SAMPLE_INTERVAL_S) and time.monotonic() < end:
            peak, samples = max(peak, _rss(procs)), samples + 1
        wall = time.monotonic() - wall0
        cpu = _cpu_seconds(procs) - cpu0
        self._result = ServerUsage(
            cpu_percent=100.0 * cpu / wall if wall > 0 else 0.0, rss_bytes=peak, samples=samples
        )

    def result(self) -> ServerUsage | None:
        """Stop sampling (if still running) and return the usage, or None if nothing was sampled."""
        self._stop.set()
        self._thread.join()
        return self._result
