"""The site tests' results store: run documents of the fixture implementations
(``tests/fixtures/site/impls``), built in code with the harness's own naming
(:func:`wsbench.instrument.provenance.impl_info`) and written into a temporary folder by the tests.

Machine ``wsbench-ci``; every benchmark has 6 windows (3 processes x 2 windows) spread
around its rate by :data:`SPREAD` (median = the rate, coefficient of variation 1.5 %).

================================  =======  =======  ======================================
environment and version           echo     stream   notes (echo: every parameter set)
================================  =======  =======  ======================================
native (reference) 0.1.0          100,000  500,000  from :data:`REFERENCE_RUN`
aiohttp 3.13.2                    50,000   200,000  echo 16 B x 64 client-bound; echo 16 B
                                                    x 1 has one more, disturbed, window
websockets 14.2                   20,000   80,000
websockets 15.0.1                 25,000   100,000  echo 64 KiB x 64 failed
starlette ws-asyncio 0.37.2       20,000   80,000
starlette ws-asyncio 0.46.2       25,000   100,000
starlette ws-asyncio 1.10.0       25,400   110,000  echo +1.6 %: not significant
starlette ws-uvloop 0.37.2        -        -        does not install
starlette ws-uvloop 0.46.2        40,000   140,000
starlette ws-uvloop 1.10.0        50,000   160,000  echo 16 B x 64 client-bound
starlette wsproto-asyncio 1.10.0  16,667   66,667   echo unstable (:data:`WIDE`)
python-socketio 5.11.4            10,000   20,000   Socket.IO; stream 64 KiB: every window
                                                    disturbed
python-socketio 5.14.0            12,500   25,000   Socket.IO
================================  =======  =======  ======================================

Besides the current run :data:`CURRENT`: :data:`OLD_RUN` (same settings, websockets 15.0.1
at 2,500 msg/s: superseded, never shown) and :data:`OTHER_RUN` (5 s windows, aiohttp at
77,777 msg/s: another comparison group, listed but never shown).

The many-connection scenarios (:data:`CLIENTS`, :data:`MEMORY`, :data:`CONNECT`), measured by
the shown documents of these environments only (every other scenario has no result):

========================  =============================  ===================  ============
environment and version   clients msg/s at 10/100/1000   memory KiB/conn      connect
                          connections (16 B, 1 in        at 1000 (10000)      conn/s, 16
                          flight)                                             workers
========================  =============================  ===================  ============
native (reference) 0.1.0  60,000 / 120,000 / 110,000     8.0 (8.0)            20,000
aiohttp 3.13.2            30,000 / 40,000 / 35,000 [1]   20.0 [2] (21.0)      3,000
websockets 14.2           20,000 / 22,000 / 18,000       42.5                 -
websockets 15.0.1         24,000 / 26,000 / failed [3]   40.0 (41.0)          4,000
python-socketio 5.14.0    8,000 / 9,000 / 8,500          60.0                 -
========================  =============================  ===================  ============

[1] 93 errors over its 6 windows at 1,000 connections: timeout 15 in each, closed_early 1 in
three of them. [2] 990 of 1,000 connections established, timeout 10 in each window.
[3] :data:`NO_CONNECTION`.

The echo set of the JSON corpus (1,024 B, 64 in flight) in the tuned and the as-shipped
deployment profiles (:func:`tests.deployment_runs.both`), the current run's only: aiohttp
30,000 -> 18,000 msg/s (agreed, compression 3.2), websockets 15.0.1 15,000 -> 6,000 (agreed,
2.8), starlette wsproto-asyncio 1.10.0 10,000 -> 10,000 (declined).

What the shown documents record as installed (:data:`INSTALLED`; every other document is
from before the packages were recorded): aiohttp 3.13.2 its 8 packages from its lock entry
(:data:`AIOHTTP_LOCK`), websockets 15.0.1 its one package resolved on the day
(:data:`RESOLVED`), the reference its 2 from the project's ``uv.lock`` (:data:`PROJECT`).

The conformance store (:func:`conformance_runs`, run :data:`CONFORMANCE_RUN`): the
Autobahn|Testsuite's 301 cases of groups 1-10 (:func:`tests.runs.conformance`; groups 12
and 13 not offered), case 7.1.6 INFORMATIONAL in every graded document:

================================  ==============================================
environment and version           grade
================================  ==============================================
native (reference) 0.1.0          ✓
aiohttp 3.13.2                    ✓
websockets 14.2                   ⚠ 1 failed (5.2.3, which 15.0.1 passes)
websockets 15.0.1                 ✓
starlette ws-asyncio 1.10.0       ✓
starlette ws-uvloop 0.46.2        ✓
starlette ws-uvloop 1.10.0        ⚠ 2 failed (:data:`UTF8_FAILED` 6.4.1, :data:`CLOSE_FAILED`
                                  7.3.1, both newly since 0.46.2), 6.4.3 NON-STRICT
python-socketio 5.14.0            n/a (:data:`SOCKETIO_NOT_APPLICABLE`)
================================  ==============================================

The other environments have no conformance document (not graded).

The profile store (:func:`profile_runs`, run :data:`PROFILE_RUN`): echo 16 B x 64 of three
configurations (each profile's stacks, window and shares at its constant):

================================  ======  ===============================================
environment and version           frames  profile
================================  ======  ===============================================
aiohttp 3.13.2                    Python  :data:`AIOHTTP_STACKS`: 200 samples of 250 at
                                          250 Hz x 1 s (20 % idle); kernel 20 %; 64 %
                                          framework; top ``WebSocketWriter.send_frame``
                                          48 %; 20 µs of CPU per message, cost 0.98
starlette ws-uvloop 1.10.0        native  :data:`STARLETTE_STACKS`: 200 samples at 100 Hz
                                          x 2 s; kernel 50 %, 25 % framework, 12.5 % C
                                          extensions; 25 µs per message, cost 0.5
python-socketio 5.14.0            Python  :data:`SOCKETIO_STACKS`: 100 samples, no kernel
                                          time recorded; 80 µs per message
================================  ======  ===============================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import pytest

from tests.runs import (
    benchmark,
    case,
    conformance,
    conformance_run,
    failed,
    not_graded,
    profile_run,
    profile_set,
    run,
    window,
)
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.jobs import main as mainjob
from wsbench.results import store
from wsbench.results.runformat import (
    Benchmark,
    CheckItem,
    ConformanceCase,
    Latency,
    Machine,
    MemoryStep,
    Resolution,
    Run,
    Sample,
    Settings,
    Spread,
    SystemCheck,
)
from wsbench.scenarios.memory import counts as memory_counts

ROOT = Path(__file__).resolve().parent.parent
IMPLS = ROOT / "tests" / "fixtures" / "site" / "impls"
REFERENCE_META = """
name = "ref"
server = "ref-serve"
event_loop = "tokio"
reference = true
[[configurations]]
id = "websocket"
protocol = "websocket"
[[configurations]]
id = "socketio"
protocol = "socketio"
"""
"""A reference server speaking both protocols, as a ``meta.toml`` (tests that write their
own implementations)."""
STATED = (
    'shipped_compression = "declines: (fixture)"\ntls = "not supported: (fixture)"\n'
    'workers = "not supported: (fixture)"\n'
)
"""The deployment profiles' statements every server's ``meta.toml`` makes (wsbench/impls.py),
at its top level, for the tests that write their own implementations."""
MACHINE = Machine(
    name="wsbench-ci",
    cpu_model="Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz",
    cpu_count=2,
    kernel="6.8.0-1017-azure",
    ram_bytes=8 * 2**30,
)
CURRENT = "20261122T031000Z-c0ffee"
"""The newest run: its settings and load generator build are the current group."""
REFERENCE_RUN = "20261122T020000Z-beef01"
"""An earlier run with the same settings that measured only the reference: still shown."""
OLD_RUN = "20261121T120000Z-01d000"
"""An older run with the same settings, every environment measured again since."""
OTHER_RUN = "20261120T120000Z-0e4e00"
"""An older run with other settings (5 s windows): another comparison group."""
SETTINGS = Settings(
    warmup_s=1.0, window_s=3.0, processes=3, windows_per_process=2, connections=1,
    server_cpus=(0,), loadgen_cpus=(1,), max_other_cpu_percent=10.0, max_steal_percent=5.0,
    retries=2, open_files=65_536,
)  # fmt: skip
OTHER_SETTINGS = msgspec.structs.replace(SETTINGS, window_s=5.0)
SPREAD = (0.98, 0.99, 0.999, 1.001, 1.01, 1.02)
"""Multipliers of a rate giving its 6 windows: median 1, coefficient of variation 1.5 %."""
WIDE = (0.7, 0.8, 0.95, 1.05, 1.2, 1.3)
"""Multipliers of an unstable figure: median 1, coefficient of variation 23 %."""
ECHO = [{"size_bytes": s, "in_flight": w} for s in (16, 1024, 65536) for w in (1, 64)]
STREAM = [{"size_bytes": s} for s in (16, 1024, 65536)]
TOO_BIG = "server closed the connection: 1009 (message too big) after 3 messages | see stderr"
UV_FAILURE = (
    "does not install: 'uv pip install starlette==0.37.2 uvicorn==0.29.0 websockets==12.0 "
    "uvloop==0.23.0' failed (exit status 1):\n"
    + "  Resolved 9 packages in 12ms\n"
    * 6
    + "  x No solution found when resolving dependencies:\n"
    "  ╰─▶ Because only uvloop<=0.21.0 is available and you require uvloop==0.23.0, we can "
    "conclude that your requirements are unsatisfiable."
)


def rates(rate: float, spread: tuple[float, ...] = SPREAD) -> list[float]:
    """The windows of a figure of median ``rate``."""
    return [rate * f for f in spread]


CLIENTS = [{"connections": n, "size_bytes": 16, "in_flight": 1} for n in (10, 100, 1000)]
"""The clients parameter sets of the fixture (the full grid's ping-pong at 16 B, 10 to 1,000
connections)."""
MEMORY = [{"connections": n} for n in (1000, 10000)]
CONNECT = {"workers": 16}
IDLE_RSS = 5 * 2**20
"""The server's RSS before the memory scenario's connections, bytes."""
KERNEL_BASE = 60 * 2**20
"""The kernel's socket memory before the memory scenario's connections, bytes."""
KERNEL_KIB = 4.0
"""The kernel's socket memory per connection in the fixture, KiB (both ends)."""
NO_CONNECTION = "no connection succeeded: timeout=1000"
"""Why websockets 15.0.1's clients benchmark at 1,000 connections failed."""
CLIENT_ERRORS = [
    {"timeout": 15, "closed_early": 1 if i % 2 == 0 else 0, "connection_refused": 0, "lost": 0}
    for i in range(6)
]
"""aiohttp's errors at 1,000 connections, window by window: 93 (timeout 90, closed_early 3)."""


def _windows(make: Callable[[int, float], Sample], rate: float) -> list[Sample]:
    """Six windows (3 processes x 2) at ``rate`` times :data:`SPREAD`."""
    return [make(i, rate * f) for i, f in enumerate(SPREAD)]


def clients(
    params: dict[str, int], rate: float, errors: list[dict[str, int]] | None = None
) -> Benchmark:
    """A clients benchmark at ``rate`` messages/s over all connections: closed-loop latency
    p50 = connections / rate, p99 = 1.5 x that; each connection at rate / connections
    (min 0.8 x, max 1.2 x); handshakes p50 100 µs, p99 = connections x 10 µs; errors
    window by window (default none)."""
    n = params["connections"]

    def window(i: int, r: float) -> Sample:
        each = r / n
        return Sample(
            process=i // 2, window=i % 2, status="ok", messages_per_s=r, bytes_per_s=16 * r,
            messages_received=int(r), window_s=3.0,
            latency_s=Latency(p50=n / r, p90=1.2 * n / r, p99=1.5 * n / r, p99_9=2 * n / r,
                              max=4 * n / r),
            server_cpu_percent=99.0, server_rss_bytes=40_000_000, loadgen_cpu_percent=40.0,
            other_cpu_percent=1.0, steal_percent=0.0, connections_ok=n,
            connections_per_s=5_000.0,
            handshake_s=Latency(p50=1e-4, p90=2e-4, p99=n * 1e-5, p99_9=n * 2e-5, max=n * 3e-5),
            per_connection_messages_per_s=Spread(min=0.8 * each, median=each, max=1.2 * each),
            errors=(errors[i] if errors else {"timeout": 0, "lost": 0}),
        )  # fmt: skip

    return Benchmark("clients", dict(params), "ok", None, _windows(window, rate))


def memory(
    params: dict[str, int],
    kib: float,
    ok: int | None = None,
    timeouts: int = 0,
    bend: float = 0.0,
) -> Benchmark:
    """A memory benchmark: ``kib`` KiB per established connection (times :data:`SPREAD`),
    on a straight line through the staircase's counts (:func:`memory_counts`, scaled to the
    ``ok`` connections established, default all) from :data:`IDLE_RSS`, the kernel's
    memory rising :data:`KERNEL_KIB` KiB per connection; ``timeouts`` failed connections in
    each window; ``bend``: the first step's rise is taken off it as a fraction of the
    whole rise (memory the allocator already held)."""
    n = params["connections"]
    held = ok if ok is not None else n
    counts = [round(c * held / n) for c in memory_counts(n)]

    def window(i: int, per: float) -> Sample:
        steps = tuple(
            MemoryStep(
                c,
                IDLE_RSS
                + round(c * per * 1024 - (bend * held * per * 1024 if c == counts[1] else 0)),
                KERNEL_BASE + round(c * KERNEL_KIB * 1024),
            )
            for c in counts
        )
        return Sample(
            process=i // 2, window=i % 2, status="ok", connections_ok=held,
            connections_per_s=4_000.0, handshake_s=Latency(1e-4, 2e-4, 3e-4, 4e-4, 5e-4),
            errors={"timeout": timeouts, "lost": 0}, rss_idle_bytes=IDLE_RSS,
            rss_held_bytes=steps[-1].rss_bytes, memory_steps=steps,
        )  # fmt: skip

    return Benchmark("memory", dict(params), "ok", None, _windows(window, kib))


def connect(rate: float) -> Benchmark:
    """A connect benchmark (16 workers) at ``rate`` completed cycles per second."""

    def window(i: int, r: float) -> Sample:
        return Sample(
            process=i // 2, window=i % 2, status="ok", window_s=3.0, server_cpu_percent=99.0,
            server_rss_bytes=30_000_000, loadgen_cpu_percent=30.0, other_cpu_percent=1.0,
            steal_percent=0.0, connections_ok=int(3 * r), connections_per_s=r,
            handshake_s=Latency(p50=16 / r, p90=20 / r, p99=32 / r, p99_9=40 / r, max=50 / r),
            errors={"timeout": 0, "lost": 0},
        )  # fmt: skip

    return Benchmark("connect", dict(CONNECT), "ok", None, _windows(window, rate))


def env_name(name: str, config: str, version: str | None) -> str:
    """An asv environment name in the harness's shape."""
    return f"uvpip-py3.11-{name}{version or ''}-WSBENCH_CONFIG{config}-WSBENCH_IMPL{name}"


def environment(
    name: str,
    config: str,
    version: str | None,
    echo: float,
    stream: float,
    *,
    run_id: str = CURRENT,
    settings: Settings = SETTINGS,
    special: dict[tuple[str, int, int], Benchmark] | None = None,
    echo_spread: tuple[float, ...] = SPREAD,
    install_error: str | None = None,
    extra: Sequence[Benchmark] = (),
) -> Run:
    """One environment's document: every echo benchmark at ``echo`` msg/s and every stream
    benchmark at ``stream``, except those ``special`` names by (scenario, size, in flight)
    (in flight 0 for stream), then the ``extra`` benchmarks."""
    impl = load_impl(IMPLS / name)
    info = impl_info(impl, impl.config(config), version)
    special = special or {}
    if install_error:
        benchmarks = [failed("echo", p, install_error) for p in ECHO]
        benchmarks += [failed("stream", p, install_error) for p in STREAM]
    else:
        benchmarks = (
            [
                special.get(("echo", p["size_bytes"], p["in_flight"]))
                or benchmark("echo", p, rates(echo, echo_spread))
                for p in ECHO
            ]
            + [
                special.get(("stream", p["size_bytes"], 0)) or benchmark("stream", p, rates(stream))
                for p in STREAM
            ]
            + list(extra)
        )
    doc = run(
        [], run_id=run_id, impl_info=info, settings=settings, machine=MACHINE.name,
        benchmarks=benchmarks, env_name=env_name(name, config, version),
        install_error=install_error,
    )  # fmt: skip
    return msgspec.structs.replace(
        doc,
        machine=MACHINE,
        environment=msgspec.structs.replace(doc.environment, python="3.11.10"),
    )


TUNING = SystemCheck(
    items=(
        CheckItem("governor", "cpu0: n/a, cpu1: n/a", False, "no cpufreq"),
        CheckItem("ASLR", "2", True),
    ),
    tuned=False,
)
"""The tuning check the current run recorded (the reference run recorded none)."""


AIOHTTP_PACKAGES = (
    "aiohappyeyeballs==2.6.1", "aiohttp==3.13.2", "aiosignal==1.3.2", "attrs==25.3.0",
    "frozenlist==1.5.0", "multidict==6.1.0", "propcache==0.3.1", "yarl==1.18.3",
)  # fmt: skip
AIOHTTP_LOCK = Resolution("lock", "3f" * 32, "2026-11-20", "impls/aiohttp/lock.toml")
RESOLVED = Resolution("resolved", None, "2026-11-22", None)
PROJECT = Resolution("project", "5e" * 32, None, "uv.lock")
INSTALLED = {
    ("aiohttp", "3.13.2", CURRENT): (AIOHTTP_PACKAGES, AIOHTTP_LOCK),
    ("websockets", "15.0.1", CURRENT): (("websockets==15.0.1",), RESOLVED),
    ("native", "0.1.0", REFERENCE_RUN): (("msgspec==0.19.0", "wsbench==0.1.0"), PROJECT),
}
"""The packages and their resolution recorded by these documents, by (implementation,
version, run)."""


def _installed(doc: Run) -> Run:
    found = INSTALLED.get((doc.impl.name, doc.impl.version or "", doc.run_id))
    if found is None:
        return doc
    env = msgspec.structs.replace(doc.environment, packages=found[0], resolution=found[1])
    return msgspec.structs.replace(doc, environment=env)


def site_runs() -> list[Run]:
    """Every document of the site tests' store (see the module's docstring); the current
    run's documents carry :data:`TUNING`, and those :data:`INSTALLED` names their packages."""
    docs = [_installed(d) for d in _site_runs()]
    return [msgspec.structs.replace(d, system=TUNING) if d.run_id == CURRENT else d for d in docs]


def _site_runs() -> list[Run]:
    # tests.deployment_runs builds on this module: imported when it is loaded.
    from tests.deployment_runs import DEFLATE, ECHO_X64, WEBSOCKETS_DEFLATE, both

    aiohttp = {
        ("echo", 16, 64): benchmark("echo", ECHO[1], rates(50_000), loadgen_cpu=85.0),
        ("echo", 16, 1): benchmark("echo", ECHO[0], rates(50_000), disturbed=[9_000.0]),
    }
    ws_failed = {("echo", 65536, 64): failed("echo", ECHO[5], TOO_BIG)}
    bound = benchmark("echo", ECHO[1], rates(50_000), loadgen_cpu=85.0)
    uvloop_bound = {("echo", 16, 64): bound}
    stream_64k = STREAM[2]
    sio = {("stream", 65536, 0): benchmark("stream", stream_64k, [], disturbed=rates(20_000))}
    st = "starlette"
    c10, c100, c1000 = CLIENTS
    m1000, m10000 = MEMORY
    native = [
        clients(c10, 60_000),
        clients(c100, 120_000),
        clients(c1000, 110_000),
        memory(m1000, 8.0),
        memory(m10000, 8.0),
        connect(20_000),
    ]
    aiohttp_many = [
        clients(c10, 30_000),
        clients(c100, 40_000),
        clients(c1000, 35_000, CLIENT_ERRORS),
        memory(m1000, 20.0, ok=990, timeouts=10),
        memory(m10000, 21.0),
        connect(3_000),
        *both(ECHO_X64, 30_000, 18_000, DEFLATE, 3.2),
    ]
    ws14 = [
        clients(c10, 20_000),
        clients(c100, 22_000),
        clients(c1000, 18_000),
        memory(m1000, 42.5),
    ]
    ws15 = [
        clients(c10, 24_000),
        clients(c100, 26_000),
        failed("clients", c1000, NO_CONNECTION),
        memory(m1000, 40.0),
        memory(m10000, 41.0),
        connect(4_000),
        *both(ECHO_X64, 15_000, 6_000, WEBSOCKETS_DEFLATE, 2.8),
    ]
    sio_many = [
        clients(c10, 8_000),
        clients(c100, 9_000),
        clients(c1000, 8_500),
        memory(m1000, 60.0),
    ]
    return [
        environment(
            "native", "default", "0.1.0", 100_000, 500_000, run_id=REFERENCE_RUN, extra=native
        ),
        environment(
            "aiohttp", "default", "3.13.2", 50_000, 200_000, special=aiohttp, extra=aiohttp_many
        ),
        environment("websockets", "default", "14.2", 20_000, 80_000, extra=ws14),
        environment(
            "websockets", "default", "15.0.1", 25_000, 100_000, special=ws_failed, extra=ws15
        ),
        environment(st, "websockets-asyncio", "0.37.2", 20_000, 80_000),
        environment(st, "websockets-asyncio", "0.46.2", 25_000, 100_000),
        environment(st, "websockets-asyncio", "1.10.0", 25_400, 110_000),
        environment(st, "websockets-uvloop", "0.37.2", 0, 0, install_error=UV_FAILURE),
        environment(st, "websockets-uvloop", "0.46.2", 40_000, 140_000),
        environment(st, "websockets-uvloop", "1.10.0", 50_000, 160_000, special=uvloop_bound),
        environment(
            st,
            "wsproto-asyncio",
            "1.10.0",
            16_667,
            66_667,
            echo_spread=WIDE,
            extra=both(ECHO_X64, 10_000, 10_000, None, None),
        ),
        environment("python-socketio", "default", "5.11.4", 10_000, 20_000, special=sio),
        environment("python-socketio", "default", "5.14.0", 12_500, 25_000, extra=sio_many),
        environment("websockets", "default", "15.0.1", 2_500, 10_000, run_id=OLD_RUN),
        environment(
            "aiohttp",
            "default",
            "3.13.2",
            77_777,
            300_000,
            run_id=OTHER_RUN,
            settings=OTHER_SETTINGS,
        ),
    ]


CONFORMANCE_RUN = "20261122T050000Z-a0b1c2"
"""The run of ``./bench conformance`` that graded the environments of the conformance store."""
HANDSHAKE = (
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
)
INFORMATIONAL = case(
    "7.1.6",
    "INFORMATIONAL",
    behavior_close="INFORMATIONAL",
    description="Send 256K message followed by close then a ping",
    expectation="Case outcome depends on implementation defined close behavior.",
    result="Actual events match at least one expected.",
    result_close="Connection was properly closed",
)
UTF8_FAILED = case(
    "6.4.1",
    "FAILED",
    behavior_close="FAILED BY CLIENT",
    description=(
        "Send invalid UTF-8 text message in 3 fragments (frames).<br><br>MESSAGE PARTS:<br>"
        "PART1 = cebae1bdb9cf83cebcceb5<br>PART2 = f4908080<br>PART3 = 656469746564"
    ),
    expectation=(
        "The first frame is accepted, we expect to timeout on the first wait. The 2nd frame "
        "should be rejected immediately (fail fast on UTF-8)."
    ),
    result="Actual events differ from any expected.",
    result_close="The connection was failed by the wrong endpoint",
    close_code=None,
    http_response=HANDSHAKE,
    wirelog=[
        "TX OCTETS: 01 8b 37 fa 21 3d f9 40 c0 80 d6 47 e2 b8 f9 46",
        "TX FRAME : OPCODE=1, FIN=False, RSV=0, PAYLOAD-LEN=11, MASK=37fa213d",
        "TX FRAME : OPCODE=0, FIN=False, RSV=0, PAYLOAD-LEN=4, MASK=5c1a0e77",
        "RX FRAME : OPCODE=1, FIN=True, RSV=0, PAYLOAD-LEN=21",
        "KILL TCP",
    ],
)
"""Starlette on uvloop 1.10.0's failed UTF-8 case: it echoed an invalid message."""
CLOSE_FAILED = case(
    "7.3.1",
    "FAILED",
    behavior_close="WRONG CODE",
    description="Send a close frame with payload length 1",
    expectation="Clean close with protocol error or drop TCP.",
    result="Actual events differ from any expected.",
    result_close="The close code should have been 1002 or empty",
    close_code=1000,
    close_reason="bye | for now",
    http_response=HANDSHAKE,
    wirelog=[
        "TX FRAME : OPCODE=8, FIN=True, RSV=0, PAYLOAD-LEN=1, MASK=0a1b2c3d",
        "RX FRAME : OPCODE=8, FIN=True, RSV=0, PAYLOAD-LEN=14",
        "TCP DROPPED BY PEER",
    ],
)
"""Starlette on uvloop 1.10.0's failed close case (a reason with a ``|``)."""
LATE_UTF8 = case(
    "6.4.3",
    "NON-STRICT",
    description="Send invalid UTF-8 text message in 3 fragments, the 2nd ends mid code point",
    expectation="The 2nd frame should be rejected immediately (fail fast on UTF-8).",
    result="Actual events match at least one expected (the connection failed late).",
    close_code=1007,
    http_response=HANDSHAKE,
    wirelog=["TX FRAME : OPCODE=1, FIN=False, RSV=0, PAYLOAD-LEN=4", "RX FRAME : OPCODE=8"],
)
CONTINUATION_FAILED = case(
    "5.2.3",
    "FAILED",
    description="Send continuation frame with FIN = true, but there is nothing to continue.",
    expectation="The connection is failed immediately, since there is no message to continue.",
    result="Actual events differ from any expected.",
    http_response=HANDSHAKE,
    wirelog=["TX FRAME : OPCODE=0, FIN=True, RSV=0, PAYLOAD-LEN=24", "RX FRAME : OPCODE=0"],
)
"""websockets 14.2's failed case, which 15.0.1 passes."""
SOCKETIO_NOT_APPLICABLE = (
    "Socket.IO: Engine.IO frames every message, and the suite speaks plain WebSocket"
)


def conformance_runs() -> list[Run]:
    """The conformance store's documents (see the module's docstring)."""
    by_env = {
        (d.impl.name, d.impl.config, d.impl.version): d for d in _site_runs() if d.run_id != OLD_RUN
    }

    def graded(name: str, config: str, version: str, *special: ConformanceCase) -> Run:
        doc = by_env[(name, config, version)]
        return conformance_run(doc, conformance(INFORMATIONAL, *special), CONFORMANCE_RUN)

    sio = by_env[("python-socketio", "default", "5.14.0")]
    st = "starlette"
    return [
        graded("native", "default", "0.1.0"),
        graded("aiohttp", "default", "3.13.2"),
        graded("websockets", "default", "14.2", CONTINUATION_FAILED),
        graded("websockets", "default", "15.0.1"),
        graded(st, "websockets-asyncio", "1.10.0"),
        graded(st, "websockets-uvloop", "0.46.2"),
        graded(st, "websockets-uvloop", "1.10.0", UTF8_FAILED, LATE_UTF8, CLOSE_FAILED),
        conformance_run(
            sio, not_graded("not applicable", SOCKETIO_NOT_APPLICABLE), CONFORMANCE_RUN
        ),
    ]


PROFILE_RUN = "20261122T060000Z-d0d0d0"
"""The run of ``./bench profile`` that profiled the profile store's configurations."""
_LOOP = (
    "process (server.py);<module> (server.py:10);"
    "BaseEventLoop.run_forever (asyncio/base_events.py:607)"
)
_HANDLE = (
    f"{_LOOP};BaseEventLoop._run_once (asyncio/base_events.py:1922);"
    "Handle._run (asyncio/events.py:80)"
)
AIOHTTP_STACKS = {
    f"{_HANDLE};WebSocketWriter.send_frame (aiohttp/_websocket/writer.py:126)": 120,
    f"{_HANDLE};WebSocketReader.feed_data (aiohttp/_websocket/reader.py:80)": 40,
    f"{_LOOP};BaseEventLoop._run_once (asyncio/base_events.py:1884);"
    "EpollSelector.select (selectors.py:468)": 20,
    f"{_HANDLE};dumps (json/encoder.py:200)": 10,
    f"{_LOOP};BaseEventLoop._run_once (asyncio/base_events.py:1922)": 10,
}
"""aiohttp's profile: 160 samples in the framework, 30 in the event loop, 10 in the Python
runtime (``json``)."""
_UVLOOP = (
    "process (server.py);run (uvicorn/main.py:580);"
    "Loop.run_forever (uvloop/loop.cpython-311-x86_64-linux-gnu.so)"
)
_RECEIVE = (
    f"{_UVLOOP};WebSocketProtocol.data_received "
    "(uvicorn/protocols/websockets/websockets_impl.py:200)"
)
STARLETTE_STACKS = {
    f"{_RECEIVE};Protocol.receive_data (websockets/protocol.py:250);"
    "apply_mask (websockets/speedups.cpython-311-x86_64-linux-gnu.so)": 50,
    f"{_RECEIVE};Protocol.receive_data (websockets/protocol.py:250)": 60,
    f"{_RECEIVE}": 40,
    _UVLOOP: 30,
    f"{_RECEIVE};_PyEval_EvalFrameDefault (libpython3.11.so.1.0)": 20,
}
"""Starlette on uvloop's native profile: 100 samples in the framework, 50 in a C extension,
30 in the event loop (uvloop's library), 20 in the interpreter."""
SOCKETIO_STACKS = {
    f"{_HANDLE};Server._handle_eio_message (socketio/base_server.py:300)": 70,
    f"{_HANDLE};Packet.encode (engineio/packet.py:40)": 30,
}
"""python-socketio's profile: every sample in the framework."""


def profile_runs() -> list[Run]:
    """The profile store's documents (see the module's docstring)."""
    by_env = {
        (d.impl.name, d.impl.config, d.impl.version): d for d in _site_runs() if d.run_id != OLD_RUN
    }
    aiohttp = profile_set(
        AIOHTTP_STACKS,
        profiled=window(49_000, 100.0, 20.0),
        unprofiled=[window(50_000, 100.0, 20.0), window(50_000, 100.0, 20.0)],
    )
    starlette = profile_set(
        STARLETTE_STACKS,
        profiled=window(20_000, 80.0, 40.0),
        unprofiled=[window(40_000, 100.0, 50.0), window(40_000, 100.0, 50.0)],
        rate_hz=100,
        duration_s=2.0,
    )
    sio = profile_set(
        SOCKETIO_STACKS,
        profiled=window(12_000, 96.0, None),
        unprofiled=[window(12_500, 100.0), window(12_500, 100.0)],
        rate_hz=100,
    )
    st = "starlette"
    return [
        profile_run(by_env[("aiohttp", "default", "3.13.2")], [aiohttp], PROFILE_RUN, native=False),
        profile_run(
            by_env[(st, "websockets-uvloop", "1.10.0")], [starlette], PROFILE_RUN, native=True
        ),
        profile_run(
            by_env[("python-socketio", "default", "5.14.0")], [sio], PROFILE_RUN, native=False
        ),
    ]


def write_store(root: Path) -> Path:
    """Save :func:`site_runs` into a results store at ``root``, :func:`conformance_runs`
    into its conformance store and :func:`profile_runs` into its profile store; returns
    ``root``."""
    for doc in site_runs():
        store.save(doc, root)
    for doc in conformance_runs():
        store.save(doc, store.conformance_store(root))
    for doc in profile_runs():
        store.save(doc, store.profile_store(root))
    return root


def build(out: Path, store_root: Path, impls: Path | None = None) -> Path:
    """The site as ``./bench site`` builds it (:func:`wsbench.jobs.main.build_site`:
    ``mkdocs build --strict`` of the repository's mkdocs.yml, which any warning fails) into
    ``out``, from the results store ``store_root`` (and ``impls``, default the repository's
    ``impls/``)."""
    with pytest.MonkeyPatch.context() as env:
        if impls is None:
            env.delenv("WSBENCH_IMPLS_DIR", raising=False)
        else:
            env.setenv("WSBENCH_IMPLS_DIR", str(impls))
        mainjob.build_site(store_root, out)
    return out
