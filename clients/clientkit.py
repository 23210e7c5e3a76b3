"""The client kit: what every client program under ``clients/`` shares (standard library
only, plus hdrhistogram for the latency summary).

A client program drives the native reference server with one client library, exactly as
the load generator drives a server: same command line (the subset of ``wsbench-loadgen
echo`` and ``stream`` in :func:`parse_args`), same ``traffic starts`` line on stderr, same
JSON report on stdout (``loadgen/README.md``, "The report"), same checks of every message
(sequence numbers, filler bytes, frame type, order). The library-specific part of a
program is only how it connects, sends and receives; everything that decides what is sent
and what counts is here, identical for every library:

- :class:`EchoDriver`: the load generator's echo loop (``--in-flight W``; refill policy:
  send B = max(1, W // 4) messages whenever at most W - B are in flight), one connection;
- :class:`StreamDriver`: one push request, every pushed message checked in order.

A program creates a driver with :func:`driver`, sends what :meth:`Driver.start` returns,
hands every message it receives to :meth:`Driver.received` and sends what that returns,
until :attr:`Driver.done`; a watchdog (:func:`watch_async` or :func:`watch_thread`) closes
the connection when nothing came for ``--timeout`` while something was owed, so a lost
reply ends the run instead of hanging it. :func:`main` parses the arguments, runs the
program's coroutine or function and prints the report.

Timing follows the load generator's duration mode: ``--warmup`` seconds of traffic not
counted, then the measurement window of ``--duration`` seconds; a message sent, and a reply
or push received, counts when its instant falls inside the window. The latency of an echo
is from the instant its burst was handed to the library to the instant the library handed
the reply back. The client's CPU time (``getrusage``, every thread of the process) is read
at the first event inside the window and at the first event after it.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import errno
import json
import os
import resource
import sys
import threading
import time
from array import array
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

TRAFFIC_STARTS = "wsbench-loadgen: traffic starts"
"""The line printed on stderr when the traffic phase starts (the harness opens its window
on the server ``--warmup`` seconds later), as the load generator prints it."""
TOOL = "wsbench-clientkit"
"""The report's ``tool``."""
MAX_SIZE = 2**24
"""The largest message every client accepts, bytes (16 MiB, as every server)."""
UNLIMITED = 2**31
"""The push request's count in duration mode: more than any window receives."""

Message = bytes | str


class UsageError(ValueError):
    """A command-line option the kit does not support (exit status 2, as the load
    generator's usage errors)."""


class Options:
    """The parsed command line.

    Attributes:
        scenario: ``"echo"`` or ``"stream"``.
        url: ``ws://HOST:PORT/PATH[?QUERY]`` (Socket.IO: the server's ``/socket.io/`` URL).
        protocol: ``"websocket"`` or ``"socketio"``.
        in_flight: W, messages kept in flight (echo).
        size: message size S, bytes (at least 16).
        text: text frames (Socket.IO: string arguments) instead of binary.
        warmup_s, duration_s: seconds of warm-up and of the measurement window.
        count: count mode (exactly this many messages, all counted), else None.
        timeout_s: seconds without a message, while one is owed, that end the run.
        loop: ``"asyncio"`` or ``"uvloop"`` (asynchronous clients).
    """

    def __init__(self, ns: argparse.Namespace) -> None:
        self.scenario: str = ns.scenario
        self.url: str = ns.url
        self.protocol: str = ns.protocol
        self.in_flight: int = ns.in_flight
        self.size: int = ns.size
        self.text: bool = ns.text
        self.warmup_s: float = ns.warmup
        self.duration_s: float = ns.duration
        self.count: int | None = ns.count
        self.timeout_s: float = ns.timeout
        self.loop: str = ns.loop

    @property
    def host_port(self) -> tuple[str, int]:
        """The URL's host and port."""
        rest = self.url.split("://", 1)[1]
        authority = rest.split("/", 1)[0]
        host, _, port = authority.rpartition(":")
        return host, int(port)

    @property
    def http_base(self) -> str:
        """``http://HOST:PORT`` (what Socket.IO clients take)."""
        host, port = self.host_port
        return f"http://{host}:{port}"


def parse_args(argv: list[str]) -> Options:
    """The load generator's ``echo`` and ``stream`` options that apply to one connection.

    Raises:
        UsageError: more than one connection, a size below 16, an unknown option.
    """
    parser = argparse.ArgumentParser(prog="client", add_help=False)
    parser.add_argument("scenario", choices=["echo", "stream"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--connections", type=int, default=1)
    parser.add_argument("--in-flight", type=int, default=1)
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--text", action="store_true")
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--count", type=int)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--protocol", choices=["websocket", "socketio"], default="websocket")
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    ns, unknown = parser.parse_known_args(argv)
    if unknown:
        raise UsageError(f"unsupported options {unknown}")
    if ns.connections != 1:
        raise UsageError("a client program drives exactly one connection (--connections 1)")
    if ns.size < 16 or ns.in_flight < 1 or ns.duration <= 0 or ns.warmup < 0:
        raise UsageError("--size must be >= 16, --in-flight >= 1, --duration > 0")
    if ns.count is not None and ns.count < 1:
        raise UsageError("--count must be at least 1")
    return Options(ns)


_FILLERS: dict[int, bytes] = {}


def filler(size: int) -> bytes:
    """Bytes 16 to ``size`` of every message: byte ``k`` is ``ord("a") + k % 26``."""
    found = _FILLERS.get(size)
    if found is None:
        found = _FILLERS[size] = bytes(97 + k % 26 for k in range(16, size))
    return found


def message(seq: int, size: int) -> bytes:
    """Message ``seq`` of ``size`` bytes (impls/PROTOCOL.md): ``"%016x" % seq`` + filler."""
    return b"%016x" % seq + filler(size)


_HEX = frozenset(b"0123456789abcdef")


def sequence_of(data: bytes, size: int) -> int | None:
    """The sequence number of a received message, or None when it is not a valid message
    of ``size`` bytes (length, 16 lowercase hex digits, filler)."""
    if len(data) != size or not _HEX.issuperset(data[:16]) or data[16:] != filler(size):
        return None
    return int(data[:16], 16)


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Driver:
    """What is sent and what counts, for one connection (see the module docstring).

    Attributes:
        done: True once the run is over (the program stops receiving and closes).
        opts: the options.
    """

    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self.done = False
        self.errors: dict[str, int] = {}
        self.integrity = {"lost": 0, "corrupted": 0, "duplicated": 0, "out_of_order": 0}
        self.sent = self.received_count = self.bytes_sent = self.bytes_received = 0
        self.latencies = array("q")
        self.handshake_ns: int | None = None
        self.connect_s = 0.0
        self.last_progress = time.monotonic()
        self._connect_start = 0.0
        self._window: tuple[int, int] | None = None
        self._cpu: list[tuple[int, float]] = []
        self._traffic_start = 0

    # connection ------------------------------------------------------------------------
    def connecting(self) -> None:
        """Call just before the library connects (the handshake is timed from here)."""
        self._connect_start = time.perf_counter()

    def connected(self) -> None:
        """Call once the library reports the connection open (handshake done)."""
        elapsed = time.perf_counter() - self._connect_start
        self.handshake_ns = int(elapsed * 1e9)
        self.connect_s = elapsed

    def connect_failed(self, exc: BaseException) -> None:
        """Call when connecting failed: the run ends with the error counted by kind."""
        self.connect_s = time.perf_counter() - self._connect_start
        refused = isinstance(exc, ConnectionRefusedError) or (
            getattr(exc, "errno", None) == errno.ECONNREFUSED  # e.g. aiohttp's connector error
        )
        kind = "connection_refused" if refused else "other"
        self.errors[kind] = self.errors.get(kind, 0) + 1
        self.done = True

    def closed(self, exc: BaseException | None = None) -> None:
        """Call when the connection ended before :attr:`done` (the server closed, the
        watchdog closed it, or the library raised): what is still owed is lost."""
        if not self.done:
            timed_out = self.stalled()
            kind = "timeout" if timed_out else "closed_early"
            self.errors[kind] = self.errors.get(kind, 0) + 1
            self._finish()

    # timing ----------------------------------------------------------------------------
    def _begin_traffic(self) -> None:
        now = time.perf_counter_ns()
        self._traffic_start = now
        if self.opts.count is None:
            start = now + int(self.opts.warmup_s * 1e9)
            self._window = (start, start + int(self.opts.duration_s * 1e9))
        else:
            self._cpu.append((now, _cpu_s()))
        print(f"{TRAFFIC_STARTS} (1 connections)", file=sys.stderr, flush=True)

    def _in_window(self, now: int) -> bool:
        """True when ``now`` is inside the window (count mode: always); reads the CPU time
        at the first event inside and the first after."""
        window = self._window
        if window is None:
            return True
        if now < window[0]:
            return False
        if not self._cpu:
            self._cpu.append((now, _cpu_s()))
        if now < window[1]:
            return True
        if len(self._cpu) == 1:
            self._cpu.append((now, _cpu_s()))
        return False

    def _after_window(self, now: int) -> bool:
        window = self._window
        return window is not None and now >= window[1]

    def stalled(self) -> bool:
        """True when nothing came for ``--timeout`` seconds while a message is owed."""
        return self.owed() and time.monotonic() - self.last_progress > self.opts.timeout_s

    def owed(self) -> bool:
        """True when a reply or pushed message is still expected."""
        raise NotImplementedError

    @property
    def close_gracefully(self) -> bool:
        """False when the program should drop the connection without its closing handshake
        once the run is done: after a push in duration mode the server is still sending,
        and a library that waits for the server's close frame would read on until its own
        close timeout (10 s for several). The load generator drops the connection then too;
        the server must stop quietly (impls/PROTOCOL.md, "/push"). Leaving the program
        without closing drops it: :func:`main` ends the process."""
        return not (self.opts.scenario == "stream" and self.opts.count is None)

    def start(self) -> list[Message]:
        """The first messages to send; starts the traffic phase."""
        raise NotImplementedError

    def received(self, data: Message) -> list[Message]:
        """Check and count one received message; returns the messages to send next."""
        raise NotImplementedError

    def _finish(self) -> None:
        if len(self._cpu) == 1:  # the run ended before an event after the window was seen
            self._cpu.append((time.perf_counter_ns(), _cpu_s()))
        self.done = True

    # report ----------------------------------------------------------------------------
    def window_s(self) -> float:
        """The seconds measured: the window (count mode: the traffic phase)."""
        if self._window is not None:
            return self.opts.duration_s
        if len(self._cpu) == 2:
            return (self._cpu[1][0] - self._cpu[0][0]) / 1e9
        return 0.0

    def report(self, library: str, version: str, api: str) -> dict[str, Any]:
        """The run's report, in the load generator's format (``loadgen/README.md``), with
        ``client`` = ``{"library", "version", "api", "loop"}`` added."""
        opts = self.opts
        window_s = self.window_s()
        rate = self.received_count / window_s if window_s else 0.0
        cpu_s = cpu_percent = None
        if len(self._cpu) == 2:
            (t0, c0), (t1, c1) = self._cpu
            cpu_s = c1 - c0
            cpu_percent = 100.0 * cpu_s / ((t1 - t0) / 1e9) if t1 > t0 else None
        echo = opts.scenario == "echo"
        ok = 1 if self.handshake_ns is not None else 0
        return {
            "tool": TOOL,
            "version": version,
            "scenario": opts.scenario,
            "config": {
                "url": opts.url,
                "protocol": opts.protocol,
                "connections": 1,
                "in_flight": opts.in_flight if echo else None,
                "burst": max(1, opts.in_flight // 4) if echo else None,
                "size_bytes": opts.size,
                "message_type": "text" if opts.text else "binary",
                "warmup_s": opts.warmup_s,
                "duration_s": opts.duration_s,
                "count": opts.count,
                "threads": 1,
                "source_addresses": 1,
            },
            "client": {"library": library, "version": version, "api": api, "loop": opts.loop},
            "window_s": window_s,
            "messages_sent": self.sent,
            "messages_received": self.received_count,
            "bytes_sent": self.bytes_sent,
            "bytes_received": self.bytes_received,
            "messages_per_s": rate,
            "bytes_per_s": self.bytes_received / window_s if window_s else 0.0,
            "per_connection_messages_per_s": (
                {"min": rate, "median": rate, "max": rate} if ok else None
            ),
            "latency_us": summary_us(self.latencies) if echo else None,
            "handshake_us": summary_us(
                array("q", [self.handshake_ns] if self.handshake_ns is not None else [])
            ),
            "connect_s": self.connect_s,
            "connections_ok": ok,
            "connections_per_s": ok / self.connect_s if self.connect_s else 0.0,
            "errors": self.errors,
            "integrity": self.integrity,
            "loadgen_cpu_s": cpu_s,
            "loadgen_cpu_percent": cpu_percent,
            "client_bound": cpu_percent is not None and cpu_percent > 80.0,
            "rlimit_nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        }


class EchoDriver(Driver):
    """The load generator's echo loop on one connection (``loadgen/README.md``, ``echo``):
    W messages first, then B = max(1, W // 4) whenever at most W - B are in flight; replies
    matched by sequence number (in order, overtaken, duplicated, never sent)."""

    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.burst = max(1, opts.in_flight // 4)
        self.in_flight: collections.OrderedDict[int, int] = collections.OrderedDict()
        self.overtaken: set[int] = set()
        self.answered_max = -1
        self.next_seq = 0
        self.stopped = False

    def owed(self) -> bool:
        return bool(self.in_flight)

    def _burst(self, n: int) -> list[Message]:
        now = time.perf_counter_ns()
        if self.opts.count is not None:
            n = min(n, self.opts.count - self.next_seq)
        elif self._after_window(now):
            self.stopped = True
            return []
        counted = self._in_window(now)
        size = self.opts.size
        out: list[Message] = []
        for _ in range(n):
            seq = self.next_seq
            self.next_seq += 1
            self.in_flight[seq] = now
            data = message(seq, size)
            out.append(data.decode("ascii") if self.opts.text else data)
        if counted:
            self.sent += len(out)
            self.bytes_sent += len(out) * size
        return out

    def start(self) -> list[Message]:
        self._begin_traffic()
        self.last_progress = time.monotonic()
        return self._burst(self.opts.in_flight)

    def received(self, data: Message) -> list[Message]:
        now = time.perf_counter_ns()
        self.last_progress = time.monotonic()
        size = self.opts.size
        raw = data.encode("ascii", "replace") if isinstance(data, str) else data
        seq = sequence_of(raw, size)
        corrupted = seq is None or isinstance(data, str) != self.opts.text
        if corrupted:
            # Still matched by its number when that is readable (so not also lost).
            self.integrity["corrupted"] += 1
            if seq is None and len(raw) >= 16 and _HEX.issuperset(raw[:16]):
                seq = int(raw[:16], 16)
            if seq is None:
                seq = next(iter(self.in_flight), None)  # unreadable: the oldest in flight
        sent_at = self.in_flight.pop(seq, None) if seq is not None else None
        if sent_at is None or seq is None:
            if seq is not None and seq in self.overtaken:
                self.overtaken.discard(seq)
                self.integrity["out_of_order"] += 1
            elif seq is not None and seq < self.next_seq:
                self.integrity["duplicated"] += 1
            elif not corrupted:
                self.integrity["corrupted"] += 1  # a number never sent
        else:
            while self.in_flight:
                oldest = next(iter(self.in_flight))
                if oldest >= seq:
                    break
                del self.in_flight[oldest]
                self.overtaken.add(oldest)
            if self._in_window(now):
                self.received_count += 1
                self.bytes_received += len(raw)
                self.latencies.append(now - sent_at)
        return self._refill()

    def _refill(self) -> list[Message]:
        out: list[Message] = []
        all_sent = self.opts.count is not None and self.next_seq >= self.opts.count
        room = len(self.in_flight) <= self.opts.in_flight - self.burst
        if room and not self.stopped and not all_sent:
            out = self._burst(self.burst)
        if not self.in_flight and not out and (self.stopped or all_sent):
            self._finish()
        return out

    def _finish(self) -> None:
        self.integrity["lost"] += len(self.in_flight) + len(self.overtaken)
        self.in_flight.clear()
        self.overtaken.clear()
        super()._finish()


class StreamDriver(Driver):
    """One push request (``{"count": C, "size": S, "binary": B}``; C = 2**31 in duration
    mode), then every pushed message checked in order: a gap counts the missing ones as
    lost, a number below the next expected as out of order (or duplicated)."""

    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.expected = 0
        self.requested = opts.count if opts.count is not None else UNLIMITED
        self.seen_gaps: set[int] = set()

    def owed(self) -> bool:
        return not self.done

    def request(self) -> dict[str, Any]:
        """The push request's object."""
        return {"count": self.requested, "size": self.opts.size, "binary": not self.opts.text}

    def start(self) -> list[Message]:
        """The request as JSON text (a Socket.IO client emits :meth:`request` instead)."""
        self._begin_traffic()
        self.last_progress = time.monotonic()
        self.sent = 1
        return [json.dumps(self.request())]

    def received(self, data: Message) -> list[Message]:
        now = time.perf_counter_ns()
        self.last_progress = time.monotonic()
        raw = data.encode("ascii", "replace") if isinstance(data, str) else data
        seq = sequence_of(raw, self.opts.size)
        if seq is None or isinstance(data, str) != self.opts.text or seq >= self.requested:
            self.integrity["corrupted"] += 1
            seq = None
        if seq is not None:
            if seq == self.expected:
                self.expected += 1
            elif seq > self.expected:
                self.seen_gaps.update(range(self.expected, seq))
                self.integrity["lost"] += seq - self.expected
                self.expected = seq + 1
            elif seq in self.seen_gaps:
                self.seen_gaps.discard(seq)
                self.integrity["lost"] -= 1
                self.integrity["out_of_order"] += 1
            else:
                self.integrity["duplicated"] += 1
        if self._in_window(now):
            self.received_count += 1
            self.bytes_received += len(raw)
        elif self._after_window(now) or self.expected >= self.requested:
            self._finish()
        if self.opts.count is not None and self.expected >= self.requested:
            self._finish()
        return []

    def _finish(self) -> None:
        if self.opts.count is not None and self.expected < self.requested:
            self.integrity["lost"] += self.requested - self.expected
            self.expected = self.requested
        super()._finish()


def driver(opts: Options) -> Driver:
    """The driver of ``opts.scenario``."""
    return EchoDriver(opts) if opts.scenario == "echo" else StreamDriver(opts)


def summary_us(values_ns: array[int]) -> dict[str, float] | None:
    """The load generator's latency summary of ``values_ns`` (nanoseconds): p50, p90, p99,
    p99.9, max, min, mean, stdev in microseconds and ``count``, from an HdrHistogram with
    3 significant digits as the load generator's (hdrhistogram's ``HdrHistogram``, values
    in ns from 1 ns to 1 hour, clamped); None when empty."""
    if not values_ns:
        return None
    from hdrh.histogram import HdrHistogram  # type: ignore[import-untyped]

    hist = HdrHistogram(1, 3_600_000_000_000, 3)
    for value in values_ns:
        hist.record_value(min(max(value, 1), 3_600_000_000_000))

    def us(ns: float) -> float:
        return ns / 1000.0

    return {
        "p50": us(hist.get_value_at_percentile(50.0)),
        "p90": us(hist.get_value_at_percentile(90.0)),
        "p99": us(hist.get_value_at_percentile(99.0)),
        "p99_9": us(hist.get_value_at_percentile(99.9)),
        "max": us(hist.get_max_value()),
        "min": us(hist.get_min_value()),
        "mean": us(hist.get_mean_value()),
        "stdev": us(hist.get_stddev()),
        "count": hist.get_total_count(),
    }


# connecting ------------------------------------------------------------------------------
T = TypeVar("T")


async def open_async(drv: Driver, connect: Callable[[], Awaitable[T]]) -> T | None:
    """``await connect()`` (the library's connect call) with the handshake timed: the
    connection, or None when it failed (the error counted by kind; the run is over)."""
    drv.connecting()
    try:
        conn = await connect()
    except Exception as exc:
        drv.connect_failed(exc)
        return None
    drv.connected()
    return conn


def open_sync(drv: Driver, connect: Callable[[], T]) -> T | None:
    """:func:`open_async` for a blocking library's connect call."""
    drv.connecting()
    try:
        conn = connect()
    except Exception as exc:
        drv.connect_failed(exc)
        return None
    drv.connected()
    return conn


# watchdogs -------------------------------------------------------------------------------
WATCH_INTERVAL_S = 0.05
"""How often a watchdog checks for a stall, seconds."""


async def watch_async(drv: Driver, close: Callable[[], Awaitable[Any] | None]) -> None:
    """Until the run is done: when :meth:`Driver.stalled`, call ``close`` (which makes the
    program's pending receive fail) and stop."""
    while not drv.done:
        await asyncio.sleep(WATCH_INTERVAL_S)
        if drv.stalled():
            result = close()
            if result is not None:
                await result
            return


def watch_thread(drv: Driver, close: Callable[[], Any]) -> threading.Thread:
    """A daemon thread doing :func:`watch_async`'s job for a blocking client."""

    def run() -> None:
        while not drv.done:
            time.sleep(WATCH_INTERVAL_S)
            if drv.stalled():
                close()
                return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


# entry point -----------------------------------------------------------------------------
Program = Callable[[Driver], Awaitable[None] | None]


def run_async(coro: Callable[[], Coroutine[Any, Any, None]], loop: str) -> None:
    """Run ``coro()`` on a fresh event loop: asyncio's, or uvloop's (``--loop uvloop``)."""
    if loop == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(coro())


def main(
    program: Callable[[Driver], Any],
    *,
    library: str,
    version: str,
    api: str,
    argv: list[str] | None = None,
) -> None:
    """Parse the command line, run ``program(driver)`` (a coroutine function runs on the
    event loop ``--loop`` names; a plain function runs as it is), print the report as one
    JSON document on stdout and exit 0 (2 on a usage error, as the load generator).

    Args:
        program: the library-specific part: connects, sends, receives (see the module
            docstring).
        library: the PyPI distribution (e.g. ``"websockets"``).
        version: its installed version.
        api: which of its APIs the program uses (e.g. ``"asyncio client"``).
    """
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        print(f"client: {exc}", file=sys.stderr)
        sys.exit(2)
    drv = driver(opts)
    if asyncio.iscoroutinefunction(program):
        run_async(lambda: program(drv), opts.loop)
    else:
        program(drv)
    if not drv.done:
        drv.closed()
    sys.stdout.write(json.dumps(drv.report(library, version, api)) + "\n")
    sys.stdout.flush()
    os._exit(0)  # library threads (socketio, twisted) must not keep the process alive
