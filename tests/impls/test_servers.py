"""Every configuration of every implementation, at the version installed here, speaks the
protocol exactly (plain WebSocket or Socket.IO).

The load generator's count mode sends an exact number of messages and checks each reply
byte for byte (sequence number, filler, frame type, order); these tests assert its counts.

Each configuration runs all its cases against ONE server (the module-scoped ``server``
fixture, parametrized over the configurations): pytest groups the tests by that fixture's
parameter, so a configuration's server starts once, serves the exact-count cases in file
order, then the client that leaves mid-push, and :func:`test_server_stops_cleanly` (last
in this file) stops it and checks its exit code. A case that kills the server makes the
later cases of that configuration fail too, with the server-died message and log tail.

The deployment profiles (wsbench/deployment.py) take one more server per configuration
(:func:`test_the_deployment_profile_serves_what_the_metadata_states`), started with the
profile's flags, probed ready by the load generator, then checked by a Python client (the
websockets library), which offers permessage-deflate as a browser does and shows the
server's answer header by header: the answer is what the configuration's metadata states,
and messages echo back exactly through the negotiated connection (compressed, over TLS, where
the profile has them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from wsbench.deployment import AS_SHIPPED, BROWSER, TlsFiles, server_args
from wsbench.impls import ImplConfig, all_impls, get_impl
from wsbench.instrument import loadgen
from wsbench.instrument.certs import make_tls_files
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.measure import (
    HOST,
    SOCKETIO_PATH,
    STARTUP_TIMEOUT_S,
    MeasureConfig,
    Measurement,
    ServerSession,
)
from wsbench.instrument.server import ServerProcess, free_port
from wsbench.loadreport import Report

CONFIGS = [
    pytest.param((impl.name, config.id), id=f"{impl.name}:{config.id}")
    for impl in all_impls()
    for config in impl.configs
]
SIZES = [16, 1024, 65536]  # 7-bit, 16-bit and 64-bit frame lengths
TEXT = pytest.mark.parametrize("text", [False, True], ids=["binary", "text"])
COUNT = 200
"""Messages per connection in the echo cases (and JSON, offered load)."""
PUSH_COUNT = 1000
"""Messages pushed in the push cases."""
LARGE = 65536
LARGE_COUNT = 20
"""Messages per connection (echo) or pushed (push) at :data:`LARGE` bytes: every message
takes the same 64-bit frame length path, and a slow server makes 200 of them long
(Flask-SocketIO on eventlet or gevent echoed 2 x 200 of 64 KiB in 10 s)."""


def count_of(size: int, count: int) -> int:
    """``count``, or :data:`LARGE_COUNT` at :data:`LARGE` bytes."""
    return LARGE_COUNT if size >= LARGE else count


SUBSCRIBERS = 10
"""Subscribers (market: clients) of the fan-out cases."""
FANOUT_COUNT = 100
"""Messages published in the fan-out cases."""
CLIENTS = 20
"""Connections of the many-connection cases (the 1,000-connection case is
tests/instrument/test_measure_many_connections.py, against one server)."""


class ConfigServer:
    """One configuration's server, shared by all its cases, stopped once by :meth:`stop`."""

    def __init__(self, impl: str, config_id: str, python: str) -> None:
        self.impl = impl
        self.config_id = config_id
        self.label = f"{impl}:{config_id}"
        self.session = ServerSession(get_impl(impl), config_id, label=self.label, python=python)
        self.stopped = False
        self.log_tail = ""

    def start(self) -> None:
        self.session.__enter__()

    def run(self, what: str, **options: Any) -> Measurement:
        """One load generator run against this server; ``what`` names the case."""
        if self.stopped:
            pytest.fail(f"{self.label}: {what} ran after the server was stopped (test order)")
        m = self.session.run(MeasureConfig(impl=self.impl, config=self.config_id, **options))
        assert m.status == "ok", f"{self.label}, {what}: {m.error}"
        assert m.report is not None, f"{self.label}, {what}: no report"
        return m

    def stop(self) -> int | None:
        """Stop the server (once) and return its exit code; keeps the log's tail."""
        if not self.stopped:
            self.stopped = True
            self.session.server.stop()
            self.log_tail = self.session.server.log_tail() or "(no output)"
            self.session.__exit__(None, None, None)
        return self.session.exit_code


@pytest.fixture(scope="module", params=CONFIGS)
def server(request: pytest.FixtureRequest) -> Iterator[ConfigServer]:
    """The configuration's server, started once for all its cases."""
    impl, config_id = request.param
    srv = ConfigServer(impl, config_id, request.config.getoption("--server-python"))
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


def check_counters(report: Report, what: str) -> None:
    """Every integrity and error counter of ``report`` is 0."""
    integrity = {k: v for k, v in report.integrity.items() if v}
    errors = {k: v for k, v in report.errors.items() if v}
    assert not integrity, f"{what}: integrity counters {integrity}"
    assert not errors, f"{what}: error counters {errors}"
    assert report.integrity and report.errors, f"{what}: counters missing from the report"


@TEXT
@pytest.mark.parametrize("size", SIZES)
def test_echo_is_exact(server: ConfigServer, size: int, text: bool) -> None:
    what = f"echo {size} B {'text' if text else 'binary'}"
    count = count_of(size, COUNT)
    m = server.run(
        what, scenario="echo", size_bytes=size, in_flight=16, connections=2, count=count,
        text=text,
    )  # fmt: skip
    assert m.report is not None
    what = f"{server.label}, {what}"
    assert m.report.messages_sent == 2 * count, what
    assert m.report.messages_received == 2 * count, what
    assert m.report.bytes_received == 2 * count * size, what
    check_counters(m.report, what)


@TEXT
@pytest.mark.parametrize("size", SIZES)
def test_push_delivers_the_exact_count(server: ConfigServer, size: int, text: bool) -> None:
    what = f"push {size} B {'text' if text else 'binary'}"
    count = count_of(size, PUSH_COUNT)
    m = server.run(what, scenario="stream", size_bytes=size, count=count, text=text)
    assert m.report is not None
    what = f"{server.label}, {what}"
    assert m.report.messages_received == count, what
    assert m.report.bytes_received == count * size, what
    check_counters(m.report, what)


def test_pings_are_answered_by_pongs_with_their_payload(server: ConfigServer) -> None:
    """RFC 6455's ping and pong, which the framework answers itself (impls/PROTOCOL.md):
    every ping of 3 connections answered once, with its own payload."""
    m = server.run("ping", scenario="ping", connections=3, count=COUNT)
    assert m.report is not None
    what = f"{server.label}, ping"
    assert m.report.messages_sent == m.report.messages_received == 3 * COUNT, what
    assert m.report.latency_us is not None and m.report.latency_us.count == 3 * COUNT, what
    check_counters(m.report, what)


def test_server_survives_a_client_leaving_mid_push(server: ConfigServer) -> None:
    """Duration mode closes the connection mid-push; the server must stay up (checked after
    the run) and then stop cleanly (:func:`test_server_stops_cleanly`)."""
    # Long enough for a push to arrive on a busy VM: 0.2 s of warm-up and a 0.3 s window
    # received nothing from both Twisted servers once, under heavy steal beside the suite.
    server.run("push, client leaving mid-push", scenario="stream", warmup_s=0.5, duration_s=1.0)


def test_json_replies_are_exact(server: ConfigServer) -> None:
    """The JSON workload: every 97-byte object answered with its own ``seq`` and ``ok``."""
    m = server.run("json", scenario="json", in_flight=16, connections=2, count=COUNT)
    assert m.report is not None
    what = f"{server.label}, json"
    assert m.report.config.message_type == "json", what
    assert m.report.messages_sent == 2 * COUNT, what
    assert m.report.messages_received == 2 * COUNT, what
    check_counters(m.report, what)


def skip_if_unsupported(server: ConfigServer, scenario: str) -> None:
    """Skip, with the reason its metadata gives, a scenario the configuration does not run."""
    why = get_impl(server.impl).config(server.config_id).unsupported.get(scenario)
    if why is not None:
        pytest.skip(f"{server.label} does not support {scenario}: {why}")


@TEXT
def test_every_subscriber_gets_every_broadcast_message(server: ConfigServer, text: bool) -> None:
    """/broadcast (Socket.IO: the room): each published message reaches every subscriber
    exactly once, in order, byte for byte, and never the publisher."""
    skip_if_unsupported(server, "broadcast")
    what = f"{server.label}, broadcast {'text' if text else 'binary'}"
    m = server.run(
        what, scenario="broadcast", subscribers=SUBSCRIBERS, count=FANOUT_COUNT, text=text,
        size_bytes=64,
    )  # fmt: skip
    assert m.report is not None
    fanout = m.report.fanout
    assert fanout is not None, what
    assert (fanout.subscribers, fanout.published) == (SUBSCRIBERS, FANOUT_COUNT), what
    assert m.report.messages_received == SUBSCRIBERS * FANOUT_COUNT, what
    assert fanout.last_latency_us.count == FANOUT_COUNT, what
    check_counters(m.report, what)


def test_market_ticks_reach_every_client_and_every_order_is_acknowledged(
    server: ConfigServer,
) -> None:
    """/market: every tick relayed to every client (fields checked), every order answered
    with its own acknowledgement, in order."""
    skip_if_unsupported(server, "market")
    what = f"{server.label}, market"
    m = server.run(what, scenario="market", subscribers=SUBSCRIBERS, count=FANOUT_COUNT, rate=500.0)
    assert m.report is not None
    orders = m.report.fanout.orders if m.report.fanout else None
    assert orders is not None, what
    assert m.report.messages_received == SUBSCRIBERS * FANOUT_COUNT, what
    assert (orders.sent, orders.acked) == (SUBSCRIBERS * FANOUT_COUNT,) * 2, what
    assert orders.mismatched == 0, what
    check_counters(m.report, what)


def test_echo_at_a_fixed_offered_load_is_exact(server: ConfigServer) -> None:
    """The offered scenario's open-loop sender: every message answered, exactly."""
    what = f"{server.label}, echo at a fixed rate"
    m = server.run(what, scenario="offered", connections=2, count=COUNT, rate=2000.0)
    assert m.report is not None
    assert m.report.config.rate_per_s == 2000.0, what
    assert m.report.messages_received == 2 * COUNT, what
    check_counters(m.report, what)


def test_concurrent_clients_each_get_every_reply(server: ConfigServer) -> None:
    """The clients scenario's settings (several source addresses) with an exact count."""
    m = server.run("clients", scenario="clients", connections=CLIENTS, count=20, source_addresses=4)
    assert m.report is not None
    what = f"{server.label}, {CLIENTS} clients"
    assert m.report.connections_ok == CLIENTS, what
    assert m.report.messages_received == CLIENTS * 20, what
    spread = m.report.per_connection_messages_per_s
    assert spread is not None and 0 < spread.min <= spread.median <= spread.max, what
    check_counters(m.report, what)


def test_connection_setup_cycles_complete(server: ConfigServer) -> None:
    """Connect, handshake, one message, close, repeated by 4 workers for 0.5 s (with the
    parallel suite beside it, channels · daphne, native and tornado each once completed no
    cycle in 0.2 s)."""
    m = server.run(
        "connect", scenario="connect", workers=4, warmup_s=0.05, duration_s=0.5,
        source_addresses=4,
    )  # fmt: skip
    assert m.report is not None
    what = f"{server.label}, connect"
    assert m.report.cycles, what
    assert m.report.handshake_us and m.report.handshake_us.count == m.report.cycles, what
    check_counters(m.report, what)


def test_idle_connections_are_held_and_closed(server: ConfigServer) -> None:
    """The memory scenario with a few connections: every one opened, held, closed by us."""
    m = server.run("memory", scenario="memory", connections=CLIENTS, duration_s=0.05)
    assert m.report is not None
    what = f"{server.label}, memory"
    assert m.report.connections_ok == CLIENTS, what
    assert m.report.closed == CLIENTS, what
    assert m.report.closed_early == 0, what
    assert m.rss_idle_bytes and m.rss_held_bytes, what
    assert not any(m.report.errors.values()), what


BROWSER_OFFER = "permessage-deflate; client_max_window_bits"
"""What a browser offers, and the websockets library's client by default."""
PROFILE_TEXTS = [
    json.dumps({"type": "chat", "room": "general", "user": "ada", "text": "hello " * n})
    for n in (1, 20, 200)
]
"""JSON-like text messages echoed in the profile test (the last about 1.2 KB)."""
PROFILE_BINARIES = [
    bytes(f"{i:016x}", "ascii") + bytes(ord("a") + k % 26 for k in range(16, size))
    for i, size in enumerate(SIZES)
]
"""Binary messages of :data:`SIZES` bytes in the echo layout (impls/PROTOCOL.md)."""
RECV_TIMEOUT_S = 10.0
"""Seconds the profile test's client waits for a handshake answer or a message (beside the
parallel suite, whose servers share this one's CPU, daphne once took more than 5 s to
answer a TLS handshake)."""


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    """A certificate authority and a server certificate for the session's TLS servers."""
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@contextlib.asynccontextmanager
async def connected_offering_deflate(
    url: str, context: ssl.SSLContext | None
) -> AsyncIterator[ClientConnection]:
    """A WebSocket connection to ``url`` (TLS with ``context`` for ``wss://``) that offered
    permessage-deflate as a browser does (:data:`BROWSER_OFFER`) and compresses what it
    sends when the server agreed; no keepalive pings, messages up to 16 MiB, the opening
    handshake within :data:`RECV_TIMEOUT_S`.

    websockets' asyncio client, not its sync one: the sync client reads in a thread of its
    own with a blocking TLS socket, and twice in the parallel suite (uvicorn's websockets and
    websockets-sansio protocols, each passing in every other run) its handshake went
    unanswered and its open timeout waited on that thread's read until the server was
    stopped; this client reads in its event loop, so its open timeout holds.

    Raises:
        TimeoutError: no handshake answer within :data:`RECV_TIMEOUT_S`.
        websockets.exceptions.WebSocketException: the handshake was refused or malformed.
    """
    async with connect(
        url, ssl=context, compression="deflate", proxy=None, open_timeout=RECV_TIMEOUT_S,
        close_timeout=2, ping_interval=None, max_size=2**24,
    ) as ws:  # fmt: skip
        assert ws.request is not None
        assert ws.request.headers.get("Sec-WebSocket-Extensions") == BROWSER_OFFER
        yield ws


def extensions_answer(ws: ClientConnection) -> str | None:
    """The ``Sec-WebSocket-Extensions`` header of the server's handshake answer, if any."""
    assert ws.response is not None
    return ws.response.headers.get("Sec-WebSocket-Extensions")


def agreed_deflate(answer: str | None) -> bool:
    """True when the handshake answer's ``Sec-WebSocket-Extensions`` agrees to
    permessage-deflate."""
    return answer is not None and answer.split(";")[0].strip() == "permessage-deflate"


async def recv_within(ws: ClientConnection) -> str | bytes:
    """The next message on ``ws``, within :data:`RECV_TIMEOUT_S`.

    Raises:
        TimeoutError: none came in time.
    """
    async with asyncio.timeout(RECV_TIMEOUT_S):
        return await ws.recv()


async def echo_websocket(ws: ClientConnection) -> None:
    """Each message of :data:`PROFILE_TEXTS` and :data:`PROFILE_BINARIES` on ``/echo`` comes
    back exactly, with its frame type."""
    messages: list[str | bytes] = [*PROFILE_TEXTS, *PROFILE_BINARIES]
    for message in messages:
        await ws.send(message)
        reply = await recv_within(ws)
        assert reply == message, f"echo of {len(message)} {type(message).__name__}: {reply!r:.80}"


async def recv_socketio(ws: ClientConnection) -> str | bytes:
    """The next message that is not an Engine.IO ping (each ping answered with a pong)."""
    while True:
        message = await recv_within(ws)
        if message != "2":
            return message
        await ws.send("3")


async def echo_socketio(ws: ClientConnection) -> None:
    """Connect to the main namespace, then each message of :data:`PROFILE_TEXTS` (a string
    argument) and :data:`PROFILE_BINARIES` (a binary attachment) emitted as event ``echo``
    comes back exactly as the argument of event ``echo`` (impls/PROTOCOL.md)."""
    opened = await recv_socketio(ws)
    assert isinstance(opened, str) and opened.startswith("0{"), f"Engine.IO open: {opened!r:.80}"
    await ws.send("40")
    connected = await recv_socketio(ws)
    assert isinstance(connected, str) and connected.startswith("40"), f"{connected!r:.80}"
    placeholder = ["echo", {"_placeholder": True, "num": 0}]
    for text in PROFILE_TEXTS:
        await ws.send("42" + json.dumps(["echo", text]))
        reply = await recv_socketio(ws)
        assert isinstance(reply, str) and reply.startswith("42"), f"{reply!r:.80}"
        assert json.loads(reply[2:]) == ["echo", text]
    for data in PROFILE_BINARIES:
        await ws.send("451-" + json.dumps(placeholder))
        await ws.send(data)
        header = await recv_socketio(ws)
        assert isinstance(header, str) and header.startswith("451-"), f"{header!r:.80}"
        assert json.loads(header[4:]) == placeholder
        assert await recv_socketio(ws) == data, f"echo of {len(data)} bytes"


async def serves_the_profile(
    url: str, context: ssl.SSLContext | None, config: ImplConfig, label: str
) -> None:
    """The profile test's client side: the handshake answer to a browser's offer agrees
    with ``config``'s ``shipped_compression`` statement, and the messages echo back."""
    async with connected_offering_deflate(url, context) as ws:
        answer = extensions_answer(ws)
        assert agreed_deflate(answer) == config.accepts_shipped_deflate, (
            f"{label}: answered a browser's offer with {answer!r}; its statement: "
            f"{config.shipped_compression!r}"
        )
        if config.protocol == "socketio":
            await echo_socketio(ws)
        else:
            await echo_websocket(ws)


@pytest.mark.parametrize("impl_config", CONFIGS)
def test_the_deployment_profile_serves_what_the_metadata_states(
    impl_config: tuple[str, str], tls_files: TlsFiles, request: pytest.FixtureRequest
) -> None:
    """The configuration's server started in the browser profile (``--shipped-compression``
    and TLS) when its ``tls`` statement says supported, else as shipped: its answer to a
    browser's offer of permessage-deflate agrees with its ``shipped_compression`` statement,
    and text and binary messages echo back exactly through that connection (compressed when
    agreed), then the server stops cleanly."""
    name, config_id = impl_config
    impl = get_impl(name)
    config = impl.config(config_id)
    profile = BROWSER if config.supports_tls else AS_SHIPPED
    label = f"{name}:{config_id} ({profile.name})"
    port = free_port(HOST)
    argv = impl.argv(
        python=request.config.getoption("--server-python"), loadgen=loadgen.ensure_built(),
        host=HOST, port=port, config=config, profile_args=server_args(profile, tls_files),
    )  # fmt: skip
    context = ssl.create_default_context(cafile=tls_files.cafile) if profile.tls else None
    path = SOCKETIO_PATH if config.protocol == "socketio" else "/echo"
    url = f"{'wss' if profile.tls else 'ws'}://{HOST}:{port}{path}"
    with ServerProcess(argv, cpus=default_placement().server, name=label) as process:
        # The load generator's probe: bounded however the server fails (a Python client's
        # TLS handshake to a server still starting once hung past its open timeout).
        tls_ca = tls_files.cafile if profile.tls else None
        process.wait_ready(
            lambda t: loadgen.probe(url, timeout_s=t, binary=loadgen.ensure_built(), tls_ca=tls_ca),
            timeout_s=STARTUP_TIMEOUT_S,
        )
        try:
            asyncio.run(serves_the_profile(url, context, config, label))
        except (OSError, WebSocketException) as exc:  # TimeoutError is an OSError
            pytest.fail(f"{label}: {exc!r}\n--- server log (tail) ---\n{process.log_tail()}")
        code = process.stop()
        assert code in (0, -15), f"{label}: exit code {code}\n{process.log_tail()}"


async def answer_to_an_offer(url: str) -> str | None:
    """The ``Sec-WebSocket-Extensions`` answer to a browser's offer at ``url``, without
    TLS."""
    async with connected_offering_deflate(url, None) as ws:
        return extensions_answer(ws)


def test_an_offer_of_deflate_gets_the_tuned_answer(server: ConfigServer) -> None:
    """A browser's offer of permessage-deflate to the tuned server: declined where its
    ``compression`` deviation says ``off:``, else (no setting to decline it) answered as its
    ``shipped_compression`` statement says (:meth:`wsbench.impls.Impl.tuned_declines_deflate`)."""
    if not server.session.alive():
        pytest.fail(f"{server.label}: the server is not running: {server.session.start_error}")
    impl = get_impl(server.impl)
    config = impl.config(server.config_id)
    answer = asyncio.run(answer_to_an_offer(server.session.url("echo")))
    declines = impl.tuned_declines_deflate(config)
    assert agreed_deflate(answer) != declines, (
        f"{server.label}, tuned: answered the offer with {answer!r}; its compression "
        f"deviation: {impl.deviation(config, 'compression')!r}, shipped_compression: "
        f"{config.shipped_compression!r}"
    )


def test_server_stops_cleanly(server: ConfigServer) -> None:
    """After all its cases, the server stops on SIGTERM: exit code 0 or -15."""
    code = server.stop()
    start_error = server.session.start_error
    detail = (
        f"it did not start: {start_error}"
        if start_error
        else f"--- server log (tail) ---\n{server.log_tail}"
    )
    assert code in (0, -15), f"{server.label}: server exit code {code} after stop\n{detail}"
