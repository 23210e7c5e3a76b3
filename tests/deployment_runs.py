"""Run documents measured in two deployment profiles, tuned and as shipped (issue 44), for
the site's tests of the profile filter, the What your deployment costs page and the home
page's question: the fixture implementations (``tests/fixtures/site/impls``) on the machine
of :mod:`tests.site_runs`, one run (:data:`RUN`), every window at its rate times
:data:`tests.site_runs.SPREAD` (so that a ratio of two figures is exactly the ratio of
their rates), the server at 99 % CPU in every window (so that the CPU per message, and the
round trip p99 at 1.5 / rate, move as 1 / rate).

==================================  =========  ============================  =====  ========
environment and version             stated     echo 1 KiB JSON x64:          agreed compress
                                               tuned -> as shipped msg/s
==================================  =========  ============================  =====  ========
native (reference) 0.1.0            accepts    100,000 -> 80,000 (0.8)       yes    3.0
aiohttp 3.13.2                      accepts    50,000 -> 30,000 (0.6)        yes    3.2
websockets 15.0.1                   accepts    25,000 -> 10,000 (0.4)        yes    2.8
websockets 14.2 (not the latest)    accepts    20,000 -> 2,000 (0.1)         yes    2.8
starlette ws-uvloop 1.10.0          accepts    50,000 -> 40,000 (0.8)        yes    3.0
starlette ws-asyncio 1.10.0         accepts    25,000 -> failed (:data:`HANDSHAKE`)
starlette wsproto-asyncio 1.10.0    declines   16,000 -> 16,000 (1.0)        no     -
python-socketio 5.14.0              declines   12,500 -> 12,250 (0.98)       no     -
==================================  =========  ============================  =====  ========

Memory per connection at 1,000 connections, tuned -> as shipped: aiohttp 20 -> 60 KiB (3.0),
websockets 15.0.1 40 -> 160 KiB (4.0), python-socketio 60 -> 60 KiB (1.0). Connection setup
(16 workers): aiohttp 3,000 -> 2,000 connections/s. The echo 1 KiB JSON ping-pong (x1) set:
aiohttp only, 20,000 -> 15,000 (0.75).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from tests.runs import benchmark, failed, run
from tests.site_runs import IMPLS, MACHINE, SETTINGS, SPREAD, connect, env_name, memory
from wsbench.deployment import AS_SHIPPED, in_profile
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.results.runformat import Benchmark, Run

RUN = "20261201T031000Z-de0f1a"
"""The one run of every document."""
ECHO_X64 = {"size_bytes": 1024, "in_flight": 64, "corpus": 1}
ECHO_X1 = {"size_bytes": 1024, "in_flight": 1, "corpus": 1}
MEMORY_1000 = {"connections": 1000}
CONNECT_16 = {"workers": 16}
HANDSHAKE = "handshake failed: HTTP 400 (Sec-WebSocket-Extensions)"
"""Why Starlette on websockets and asyncio failed as shipped."""
DEFLATE = "permessage-deflate; client_max_window_bits=15"
"""What most servers agreed to."""
WEBSOCKETS_DEFLATE = "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12"
"""What websockets agreed to."""
ACCEPTS = "accepts: permessage-deflate with its defaults"
DECLINES = "declines: compression is off unless configured"
TLS = "supported: ssl_context"


def shipped(params: dict[str, int]) -> dict[str, int]:
    """``params`` as shipped (the client offers permessage-deflate)."""
    return in_profile(params, AS_SHIPPED)


def deflated(bench: Benchmark, agreed: str | None, compression: float | None) -> Benchmark:
    """``bench`` with each window's agreement (``agreed``; None: declined) and, when
    ``compression`` is given, its wire bytes: the payload (1,024 B per message) over
    ``compression``."""
    samples = []
    for s in bench.samples:
        payload = int(1024 * (s.messages_received or 1000))
        wire = int(payload / compression) if compression else None
        samples.append(
            msgspec.structs.replace(
                s,
                deflate=agreed,
                payload_bytes=payload if compression else None,
                wire_bytes=wire,
            )
        )
    return msgspec.structs.replace(bench, samples=samples)


def echo(params: dict[str, int], rate: float) -> Benchmark:
    """An echo benchmark at ``rate`` messages/s (times :data:`tests.site_runs.SPREAD`)."""
    return benchmark("echo", params, [rate * f for f in SPREAD])


def both(
    params: dict[str, int],
    tuned: float,
    as_shipped: float,
    agreed: str | None,
    compression: float | None,
) -> list[Benchmark]:
    """An echo set tuned at ``tuned`` messages/s and as shipped at ``as_shipped``."""
    return [
        echo(params, tuned),
        deflated(echo(shipped(params), as_shipped), agreed, compression),
    ]


def memory_both(kib: float, as_shipped: float, agreed: str | None) -> list[Benchmark]:
    """Memory per connection at 1,000 connections, ``kib`` KiB tuned, ``as_shipped`` KiB as
    shipped."""
    return [
        memory(MEMORY_1000, kib),
        deflated(memory(shipped(MEMORY_1000), as_shipped), agreed, None),
    ]


def connect_both(tuned: float, as_shipped: float, agreed: str | None) -> list[Benchmark]:
    """Connection setup (16 workers) at ``tuned`` and ``as_shipped`` connections/s."""
    deflate = msgspec.structs.replace(connect(as_shipped), params=shipped(CONNECT_16))
    return [connect(tuned), deflated(deflate, agreed, None)]


def document(
    name: str,
    config: str,
    version: str,
    benchmarks: Sequence[Benchmark],
    statement: str,
) -> Run:
    """One environment's document of :data:`RUN`, its metadata stating ``statement`` of
    compression as shipped and :data:`TLS`."""
    impl = load_impl(IMPLS / name)
    info = impl_info(impl, impl.config(config), version)
    info = msgspec.structs.replace(info, shipped_compression=statement, tls=TLS)
    doc = run(
        [], run_id=RUN, impl_info=info, settings=SETTINGS, machine=MACHINE.name,
        benchmarks=list(benchmarks), env_name=env_name(name, config, version),
    )  # fmt: skip
    return msgspec.structs.replace(doc, machine=MACHINE)


def deployment_runs() -> list[Run]:
    """Every document (see the module's docstring)."""
    st = "starlette"
    return [
        document(
            "native", "default", "0.1.0",
            both(ECHO_X64, 100_000, 80_000, DEFLATE, 3.0), ACCEPTS,
        ),
        document(
            "aiohttp", "default", "3.13.2",
            [
                *both(ECHO_X64, 50_000, 30_000, "permessage-deflate", 3.2),
                *both(ECHO_X1, 20_000, 15_000, "permessage-deflate", 3.2),
                *memory_both(20.0, 60.0, "permessage-deflate"),
                *connect_both(3_000, 2_000, "permessage-deflate"),
            ],
            ACCEPTS,
        ),
        document(
            "websockets", "default", "15.0.1",
            [
                *both(ECHO_X64, 25_000, 10_000, WEBSOCKETS_DEFLATE, 2.8),
                *memory_both(40.0, 160.0, WEBSOCKETS_DEFLATE),
            ],
            ACCEPTS,
        ),
        document(
            "websockets", "default", "14.2",
            both(ECHO_X64, 20_000, 2_000, WEBSOCKETS_DEFLATE, 2.8), ACCEPTS,
        ),
        document(
            st, "websockets-uvloop", "1.10.0",
            both(ECHO_X64, 50_000, 40_000, DEFLATE, 3.0), ACCEPTS,
        ),
        document(
            st, "websockets-asyncio", "1.10.0",
            [echo(ECHO_X64, 25_000), failed("echo", shipped(ECHO_X64), HANDSHAKE)], ACCEPTS,
        ),
        document(
            st, "wsproto-asyncio", "1.10.0",
            both(ECHO_X64, 16_000, 16_000, None, None), DECLINES,
        ),
        document(
            "python-socketio", "default", "5.14.0",
            [*both(ECHO_X64, 12_500, 12_250, None, None), *memory_both(60.0, 60.0, None)],
            DECLINES,
        ),
    ]  # fmt: skip
