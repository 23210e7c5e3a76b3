"""What happened during the measurement window: the server's CPU and memory, and how busy
the measured CPUs were (both from psutil), so that a window in which other work competed
for those CPUs can be told apart from a quiet one."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from wsbench.cpulist import CpuSetError, cpu_numbers

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
        rss_growth_bytes: the RSS at the window's end minus at its start, bytes (negative
            when memory was returned to the system).
        kernel_cpu_percent: the part of ``cpu_percent`` spent in the kernel (system time:
            system calls, and on loopback the TCP processing of what the server sends), or
            None when not sampled.
    """

    cpu_percent: float
    rss_bytes: int
    samples: int
    rss_growth_bytes: int = 0
    kernel_cpu_percent: float | None = None


@dataclass(frozen=True)
class CpuActivity:
    """How the CPUs a measurement uses were spent during its window, from psutil's per-CPU
    times (:func:`cpu_busy_steal`).

    Attributes:
        cpus: the CPU numbers observed (the server's and the load generator's).
        wall_s: the window's length in seconds.
        busy_s: CPU seconds spent on these CPUs by anyone: user, nice, system, irq and
            softirq time, summed over the CPUs; not guest and guest_nice time, which Linux
            already counts in user and nice. (Interrupt and softirq time counts: the kernel
            charges the loopback packet processing of the measured processes both to their
            own system time and, in the CPUs' times (``/proc/stat``), to softirq; leaving
            it out made the remainder negative.)
        steal_s: CPU seconds the hypervisor gave to other virtual machines (``steal``),
            summed over the CPUs; 0 on bare metal.
    """

    cpus: tuple[int, ...]
    wall_s: float
    busy_s: float
    steal_s: float


ONLINE_CPUS = Path("/sys/devices/system/cpu/online")
"""The online CPUs, a CPU list (:func:`wsbench.cpulist.cpu_numbers`). psutil's per-CPU times
have one entry per online CPU in this order (the ``cpuN`` lines of ``/proc/stat``), so
with a CPU offline (as SMT siblings are with SMT off) the n-th entry is not CPU n."""


def cpu_busy_steal() -> dict[int, tuple[float, float]]:
    """Busy and steal seconds so far of each online CPU, by CPU number, from
    ``psutil.cpu_times(percpu=True)``.

    Busy is ``user + nice + system + irq + softirq`` (see :class:`CpuActivity`); ``guest``
    and ``guest_nice`` are left out because Linux already counts them in ``user`` and
    ``nice``, and ``idle`` and ``iowait`` are not busy. Steal is ``steal``.

    Returns:
        ``{cpu: (busy_s, steal_s)}``; empty when the times cannot be read, or when they do
        not match :data:`ONLINE_CPUS` (a CPU went on or offline in between). Without
        :data:`ONLINE_CPUS` the n-th entry is taken as CPU n.
    """
    try:
        times = psutil.cpu_times(percpu=True)
    except OSError:
        return {}
    try:
        online = cpu_numbers(ONLINE_CPUS.read_text(encoding="ascii"))
    except (OSError, CpuSetError):
        online = tuple(range(len(times)))
    if len(online) != len(times):
        return {}
    return {
        cpu: (t.user + t.nice + t.system + t.irq + t.softirq, t.steal)
        for cpu, t in zip(online, times, strict=True)
    }


def cpu_times(cpus: Sequence[int]) -> tuple[float, float]:
    """Busy and steal seconds so far, summed over ``cpus`` (:func:`cpu_busy_steal`; a CPU
    that is not online counts 0).

    Returns:
        ``(busy_s, steal_s)``; ``(0.0, 0.0)`` when the CPU times cannot be read.
    """
    per_cpu = cpu_busy_steal()
    wanted = [per_cpu.get(cpu, (0.0, 0.0)) for cpu in sorted(set(cpus))]
    return sum((busy for busy, _ in wanted), 0.0), sum((steal for _, steal in wanted), 0.0)


def _tree(pid: int) -> list[psutil.Process]:
    proc = psutil.Process(pid)
    return [proc, *proc.children(recursive=True)]


def _cpu_seconds(procs: list[psutil.Process]) -> tuple[float, float]:
    """User and system CPU seconds of ``procs`` so far (a process that ended counts 0)."""
    user = system = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        user, system = user + times.user, system + times.system
    return user, system


def tree_rss(pid: int) -> int:
    """The resident set size of process ``pid`` and its children now, bytes.

    Raises:
        psutil.Error: no such process.
    """
    return _rss(_tree(pid))


PROC = Path("/proc")


def kernel_socket_memory(proc: Path = PROC) -> int | None:
    """The kernel's memory that grows with sockets, whole machine, bytes: unreclaimable
    slab (``SUnreclaim`` of ``/proc/meminfo``: socket, file, dentry and epoll structures)
    plus TCP socket buffers (``mem`` of the ``TCP:`` line of ``/proc/net/sockstat``, in
    pages of ``os.sysconf("SC_PAGE_SIZE")``); None when either cannot be read. psutil
    gives neither (its ``slab`` includes the reclaimable part)."""
    try:
        meminfo = (proc / "meminfo").read_text(encoding="ascii")
        sockstat = (proc / "net" / "sockstat").read_text(encoding="ascii")
    except OSError:
        return None
    slab_kib = next(
        (int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("SUnreclaim:")),
        None,
    )
    tcp = next((line.split() for line in sockstat.splitlines() if line.startswith("TCP:")), [])
    pages = int(tcp[tcp.index("mem") + 1]) if "mem" in tcp[:-1] else None
    if slab_kib is None or pages is None:
        return None
    return slab_kib * 1024 + pages * os.sysconf("SC_PAGE_SIZE")


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
    as its report. With ``after_traffic_starts``, the delay counts from
    :meth:`traffic_started` (the load generator's connect phase is over) rather than from
    :meth:`start`: with 1,000 connections the connect phase alone can outlast a warm-up.

    Args:
        pid: the server's process id.
        delay_s: seconds to wait before the window opens (the warm-up).
        duration_s: length of the window in seconds.
        cpus: the CPUs whose activity (:class:`CpuActivity`) is observed over the window.
        after_traffic_starts: wait for :meth:`traffic_started` before the delay.
    """

    def __init__(
        self,
        pid: int,
        *,
        delay_s: float,
        duration_s: float,
        cpus: Sequence[int] = (),
        after_traffic_starts: bool = False,
    ) -> None:
        self.pid = pid
        self.delay_s = delay_s
        self.duration_s = duration_s
        self.cpus = tuple(cpus)
        self._traffic = threading.Event()
        if not after_traffic_starts:
            self._traffic.set()
        self._stop = threading.Event()
        self._result: ServerUsage | None = None
        self._activity: CpuActivity | None = None
        self._thread = threading.Thread(target=self._run, name="wsbench-sampler", daemon=True)

    def start(self) -> None:
        """Start sampling in a background thread."""
        self._thread.start()

    def traffic_started(self) -> None:
        """The load generator's traffic phase has started: the delay runs from now."""
        self._traffic.set()

    def _run(self) -> None:
        self._traffic.wait()
        if self._stop.is_set() or self._stop.wait(self.delay_s):
            return
        try:
            procs = _tree(self.pid)
        except psutil.Error:
            return
        busy0, steal0 = cpu_times(self.cpus)
        wall0, cpu0 = time.monotonic(), _cpu_seconds(procs)
        first = last = peak = _rss(procs)
        samples = 1
        end = wall0 + self.duration_s
        while not self._stop.wait(SAMPLE_INTERVAL_S) and time.monotonic() < end:
            last = _rss(procs)
            peak, samples = max(peak, last), samples + 1
        wall = time.monotonic() - wall0
        user1, system1 = _cpu_seconds(procs)
        user, system = user1 - cpu0[0], system1 - cpu0[1]
        busy1, steal1 = cpu_times(self.cpus)
        self._activity = CpuActivity(
            cpus=self.cpus, wall_s=wall, busy_s=busy1 - busy0, steal_s=steal1 - steal0
        )
        self._result = ServerUsage(
            cpu_percent=100.0 * (user + system) / wall if wall > 0 else 0.0,
            rss_bytes=peak,
            samples=samples,
            rss_growth_bytes=last - first,
            kernel_cpu_percent=100.0 * system / wall if wall > 0 else 0.0,
        )

    def result(self) -> ServerUsage | None:
        """Stop sampling (if still running) and return the usage, or None if nothing was sampled."""
        self._stop.set()
        self._traffic.set()
        self._thread.join()
        return self._result

    @property
    def activity(self) -> CpuActivity | None:
        """The observed CPUs' activity over the window (after :meth:`result`), or None."""
        return self._activity
