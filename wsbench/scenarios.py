"""The scenarios wsbench measures, one definition each: what the load generator does, against
which endpoint, over which parameter sets (the full grid and the default grid), and how a
parameter set reads in a table.

Every other module takes scenario names, parameters and grids from here: the asv benchmark
classes (``benchmarks/``), the sampling, the comparisons, the site and the CLI choices.

Grids. The **full grid** is what the nightly run measures (``./bench run --grid full``);
the **default grid** is the main job's (``./bench run``), chosen so that every
configuration's latest release (42 configurations) stays within its 30-minute budget on
2 cores: echo 16 B at 1 and 64 in flight and 64 KiB at 64 in flight (latency, message
rate, bandwidth); push 16 B; 1,000 concurrent clients; memory with 1,000 connections; one
fan-out set (broadcast to 100 subscribers, as fast as delivered, 16 B); and
:data:`DEFAULT_GRID_WINDOWS_PER_PROCESS` window per parameter set in each of the three
server processes.

What was cut, and why. With 25 configurations the main job took 28 min 28 s from a clean
clone over a grid that also had echo 1 KiB at 64 in flight and 100 concurrent clients, two
windows per process: about 60 s per configuration. Timed on 2026-11-26 (Starlette on
uvicorn, quiet machine), a window costs its 0.75 s plus 0.03 s, a server start 0.63 s
(0.49 s of it importing the framework), a window of 1,000 clients 2.1 s (the connections
are opened again each window), one of broadcast to 100 subscribers 1.1 s and one of memory
2.0 s: about 53 s per configuration with two windows per process, about 37 min for 42
configurations before any window disturbed by the hypervisor is measured again. So the
default grid takes one window per server process: three samples per figure, one per
process (the spread between processes is the larger one: 8 % against 5 % within a process
for websockets at 16 B x 64), about 34 s per configuration. The middle sets (echo 1 KiB,
100 clients) are bracketed by sets that stay. The JSON, text, connection-setup and soak
scenarios' full grids took 17 min for 25 configurations with one server process each
instead of three, and the market and offered-load scenarios are in the full grid only (the
nightly).

Client libraries (``clients/``, ``./bench clients``) are measured at the parameter sets of
:data:`CLIENT_GRID` (echo: ping-pong and pipelined; stream: receive throughput from a
push), against the native reference server.

asv's ``params`` are the product of each axis's values (:attr:`ScenarioSpec.axes`); a
combination outside the grid that was measured is skipped (asv shows it as n/a), so the
one asv benchmark definition serves both grids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import product
from typing import Literal, get_args

Scenario = Literal[
    "echo", "stream", "clients", "connect", "memory", "text", "json", "soak",
    "broadcast", "market", "offered",
]  # fmt: skip
SCENARIOS: tuple[Scenario, ...] = get_args(Scenario)
"""Every scenario, in the order tables and pages list them."""
Params = dict[str, int]
"""One parameter set, e.g. ``{"size_bytes": 16, "in_flight": 64}``."""
Grid = Literal["default", "full"]

DEFAULT_GRID_WINDOWS_PER_PROCESS = 1
"""Windows per parameter set in each server process on the default grid (``./bench run``
without ``--windows``; the full grid takes the sampling plan's default): why in the
module's docstring."""
GRIDS: tuple[Grid, ...] = get_args(Grid)
LoadgenMode = Literal["echo", "stream", "connect", "hold", "broadcast", "market"]

SOURCE_ADDRESSES = 16
"""Loopback source addresses (127.0.0.1-16) the load generator spreads the connections of
the many-connection scenarios over (``--source-addresses``): one address offers only the
ephemeral port range (28,232 ports here), and every connection the client closes first
keeps its port in TIME_WAIT for 60 s, so repeated windows of 10,000 connections, or a
connect storm, would run out of ports from one address."""
CONNECT_MESSAGE_BYTES = 16
"""Size of the one message each connect cycle exchanges, bytes."""
MEMORY_STEPS = (0.1, 0.5, 1.0)
"""The memory scenario's connection counts as fractions of its ``connections`` parameter:
the server's memory is read before the first connection (0) and once each count is open,
and the figure is the slope through those points (:mod:`wsbench.memoryfit`)."""


def memory_counts(connections: int) -> tuple[int, ...]:
    """The connection counts the memory scenario reads at, ascending, from 0 to
    ``connections`` (:data:`MEMORY_STEPS`), e.g. ``(0, 1000, 5000, 10000)``."""
    return (0, *sorted({max(1, round(f * connections)) for f in MEMORY_STEPS}))


SOAK_CONNECTIONS = 100
"""Connections of the soak run (RSS growth during a long echo run)."""
SOAK_SIZE_BYTES = 1024
"""Message size of the soak run, bytes."""
OFFERED_CONNECTIONS = 10
"""Connections of the fixed-offered-load scenario (each sends its share of the rate)."""
CAPACITY_IN_FLIGHT = 16
"""Messages in flight per connection of the closed-loop echo run that measures a server's
capacity before its windows at a percentage of it (``load_percent``): enough to keep every
server busy, so that the run reads its throughput, not its latency."""
BROADCAST_IN_FLIGHT = 16
"""Without a fixed rate (``rate`` 0), the broadcast publisher keeps at most this many
messages not yet delivered to every subscriber (the load generator's ``--in-flight``)."""
MARKET_SIZE_BYTES = 152
"""Size of one market tick (the JSON object of impls/PROTOCOL.md), bytes."""
FANOUT_MAX_CLIENT_MESSAGES_PER_S = 30_000
"""The most messages per second a fixed-rate fan-out set asks of the load generator's one
core (subscribers x rate deliveries, and for market as many orders sent and acknowledgements
read): half of the 60,500 deliveries/s it reached at 100 % CPU against the native reference
(one read system call per delivery per socket, four fifths of it in the kernel's TCP), so
that the client's own queueing stays out of the latency it measures. Sets above it (e.g.
1,000 subscribers at 100 messages/s) are not in the grids; ``rate`` 0 (as fast as
delivered) is self-limiting and kept."""
MARKET_MESSAGES_PER_TICK = 3
"""Messages the load generator handles per tick per market client: the tick, the order it
sends, the acknowledgement."""


@dataclass(frozen=True)
class ScenarioSpec:
    """One scenario.

    Attributes:
        name: its identifier (asv benchmark ``<name>.<Name>``, run documents, the site).
        title: its name on the site, e.g. ``"Concurrent clients"``.
        summary: one sentence saying what is measured.
        mode: the load generator's subcommand (``hold`` for memory).
        endpoint: the path on a plain WebSocket server (``impls/PROTOCOL.md``); Socket.IO
            servers take every scenario on their Socket.IO path.
        axes: each parameter's values in the full grid, in asv ``param_names`` order.
        full: the full grid's parameter sets (a subset of the axes' product).
        default: the default grid's parameter sets (a subset of ``full``).
        text: text frames instead of binary.
        json: the JSON workload (``--json``; the message size is fixed).
        pinned_rate: a fixed offered load whose rate is a parameter (``rate`` messages/s,
            or ``load_percent`` of the capacity measured first in the same server process;
            0 = not that one): the load generator's ``--rate``, latency measured from each
            message's intended send time.
        many_connections: spread connections over :data:`SOURCE_ADDRESSES` addresses, and
            count connection failures and lost messages as figures rather than failing the
            sample (a run fails only when no connection succeeds).
        fixed: values of parameters that are not axes but differ from the defaults
            (16 B, 1 in flight, 1 connection), e.g. the soak run's 100 connections.
        windows_per_process: windows per parameter set in each server process when the
            scenario sets it, whatever the sampling plan says (None: the plan's). Memory
            takes one: a second window in the same process reuses the memory the allocator
            kept from the first, so its RSS delta under-counts; the spread that matters is
            between processes.
    """

    name: Scenario
    title: str
    summary: str
    mode: LoadgenMode
    endpoint: str
    axes: dict[str, tuple[int, ...]]
    full: tuple[tuple[tuple[str, int], ...], ...]
    default: tuple[tuple[tuple[str, int], ...], ...]
    text: bool = False
    json: bool = False
    pinned_rate: bool = False
    many_connections: bool = False
    fixed: Mapping[str, int] = field(default_factory=dict)
    windows_per_process: int | None = None

    def grid(self, which: Grid = "full") -> list[Params]:
        """The parameter sets of the ``which`` grid, as dicts."""
        return [dict(p) for p in (self.full if which == "full" else self.default)]

    def product(self) -> list[Params]:
        """Every combination of the axes' values (asv's ``params``), as dicts."""
        names = list(self.axes)
        return [dict(zip(names, v, strict=True)) for v in product(*self.axes.values())]


def _sets(
    axes: Mapping[str, tuple[int, ...]], keep: object = None
) -> tuple[tuple[tuple[str, int], ...], ...]:
    """The axes' product (filtered by ``keep``, a predicate on a dict) as hashable tuples."""
    names = list(axes)
    sets = [dict(zip(names, v, strict=True)) for v in product(*axes.values())]
    if callable(keep):
        sets = [p for p in sets if keep(p)]
    return tuple(tuple(p.items()) for p in sets)


_ECHO_AXES: dict[str, tuple[int, ...]] = {"size_bytes": (16, 1024, 65536), "in_flight": (1, 64)}
_STREAM_AXES: dict[str, tuple[int, ...]] = {"size_bytes": (16, 1024, 65536)}
_BROADCAST_AXES: dict[str, tuple[int, ...]] = {
    "subscribers": (1, 10, 100, 1000),
    "rate": (0, 100, 1000),
    "size_bytes": (16, 1024),
}
_MARKET_AXES: dict[str, tuple[int, ...]] = {
    "subscribers": (1, 10, 100, 1000),
    "rate": (10, 100, 1000),
}


def client_messages_per_s(scenario: str, p: Params) -> int:
    """Messages per second a fan-out set asks of the load generator (0 for ``rate`` 0,
    which follows the server): subscribers x rate, x :data:`MARKET_MESSAGES_PER_TICK` for
    market."""
    per = MARKET_MESSAGES_PER_TICK if scenario == "market" else 1
    return p["subscribers"] * p["rate"] * per


def _broadcast_full(p: Params) -> bool:
    """16 B at every subscriber count, 1 KiB at 100 subscribers; within the load
    generator's share (:data:`FANOUT_MAX_CLIENT_MESSAGES_PER_S`)."""
    within = client_messages_per_s("broadcast", p) <= FANOUT_MAX_CLIENT_MESSAGES_PER_S
    return within and (p["size_bytes"] == 16 or p["subscribers"] == 100)


def _market_full(p: Params) -> bool:
    """Seed 002's 100 ticks/s and 1,000 ticks/s within the load generator's share
    (:data:`FANOUT_MAX_CLIENT_MESSAGES_PER_S`), and 10 ticks/s for the 1,000 clients that
    cannot have 100: 1 and 10 clients at 100 and 1,000 ticks/s, 100 at 100, 1,000 at 10."""
    within = client_messages_per_s("market", p) <= FANOUT_MAX_CLIENT_MESSAGES_PER_S
    return within and (p["rate"] != 10 or p["subscribers"] == 1000)


_OFFERED_AXES: dict[str, tuple[int, ...]] = {
    "rate": (0, 1000, 5000, 20000),
    "load_percent": (0, 25, 50, 75, 90),
}


def _offered_full(p: Params) -> bool:
    """Exactly one of an absolute rate and a percentage of the capacity."""
    return (p["rate"] == 0) != (p["load_percent"] == 0)


_CLIENTS_AXES: dict[str, tuple[int, ...]] = {
    "connections": (1, 10, 100, 1000, 10000),
    "size_bytes": (16, 1024),
    "in_flight": (1, 64),
}


def _clients_full(p: Params) -> bool:
    """Ping-pong at every connection count (10,000: 16 B only); 64 in flight at 100
    connections only.

    One parameter set at 10,000 connections costs about 2.5 minutes per configuration
    (three server processes, each connecting 10,000 clients), so 1 KiB is left out there.
    """
    if p["connections"] == 10000:
        return p["size_bytes"] == 16 and p["in_flight"] == 1
    return p["in_flight"] == 1 or p["connections"] == 100


CLIENT_PING_PONG_SIZES = (16, 256, 1024, 65536)
"""Message sizes of the client libraries' ping-pong and push sets, bytes: the servers' echo
sizes and 256 B (the clients' headline size)."""
CLIENT_PIPELINED_IN_FLIGHT = 64
"""Messages in flight of the client libraries' pipelined echo (the servers' pipelined
echo's)."""
CLIENT_GRID: dict[Scenario, tuple[Params, ...]] = {
    "echo": (
        *({"size_bytes": s, "in_flight": 1} for s in CLIENT_PING_PONG_SIZES),
        *({"size_bytes": s, "in_flight": CLIENT_PIPELINED_IN_FLIGHT} for s in (16, 1024)),
    ),
    "stream": tuple({"size_bytes": s} for s in CLIENT_PING_PONG_SIZES),
}
"""The parameter sets a client library is measured at, by scenario: echo ping-pong at
:data:`CLIENT_PING_PONG_SIZES`, pipelined echo (:data:`CLIENT_PIPELINED_IN_FLIGHT` in
flight) at 16 B and 1 KiB, receive throughput from a push at the ping-pong sizes."""


SPECS: dict[Scenario, ScenarioSpec] = {
    spec.name: spec
    for spec in (
        ScenarioSpec(
            "echo", "Echo", "Round trips on one connection: W messages in flight.",
            "echo", "/echo", _ECHO_AXES, _sets(_ECHO_AXES),
            _sets(_ECHO_AXES, lambda p: p in ({"size_bytes": 16, "in_flight": 1},
                                              {"size_bytes": 16, "in_flight": 64},
                                              {"size_bytes": 65536, "in_flight": 64})),
        ),
        ScenarioSpec(
            "stream", "Server push",
            "The server sends messages as fast as its flow control allows.",
            "stream", "/push", _STREAM_AXES, _sets(_STREAM_AXES),
            _sets({"size_bytes": (16,)}),
        ),
        ScenarioSpec(
            "clients", "Concurrent clients",
            "N connections at once, each doing echo round trips: aggregate and per-connection "
            "throughput, latency over all connections, handshakes, errors by kind.",
            "echo", "/echo", _CLIENTS_AXES,
            _sets(_CLIENTS_AXES, _clients_full),
            _sets({"connections": (1000,), "size_bytes": (16,), "in_flight": (1,)}),
            many_connections=True,
        ),
        ScenarioSpec(
            "connect", "Connection setup",
            "K workers each repeat connect, handshake, one message, close: connections/s and "
            "handshake latency.",
            "connect", "/echo", {"workers": (1, 16)},
            _sets({"workers": (1, 16)}), (),
            many_connections=True, fixed={"size_bytes": CONNECT_MESSAGE_BYTES},
        ),
        ScenarioSpec(
            "memory", "Memory per connection",
            "The server's RSS idle and with N open idle connections after the handshake.",
            "hold", "/echo", {"connections": (1000, 10000)},
            _sets({"connections": (1000, 10000)}), _sets({"connections": (1000,)}),
            many_connections=True, windows_per_process=1,
        ),
        ScenarioSpec(
            "text", "Echo, text frames",
            "Echo with text frames (a UTF-8 validation per message that differs between "
            "frameworks).",
            "echo", "/echo", _ECHO_AXES, _sets(_ECHO_AXES),
            (), text=True,
        ),
        ScenarioSpec(
            "json", "JSON request/reply",
            "Each 97-byte JSON object is decoded with the standard library's json and answered "
            "with a small encoded reply.",
            "echo", "/json", {"in_flight": (1, 64)},
            _sets({"in_flight": (1, 64)}), (), json=True,
        ),
        ScenarioSpec(
            "soak", "RSS growth",
            f"Echo on {SOAK_CONNECTIONS} connections ({SOAK_SIZE_BYTES} B, ping-pong) for a "
            "long window: the growth of the server's RSS over it (a leak shows as growth).",
            "echo", "/echo", {"seconds": (10,)}, _sets({"seconds": (10,)}), (),
            many_connections=True,
            fixed={"connections": SOAK_CONNECTIONS, "size_bytes": SOAK_SIZE_BYTES},
        ),
        ScenarioSpec(
            "broadcast", "Broadcast fan-out",
            "One publisher, N subscribers: each message relayed to every subscriber with the "
            "framework's broadcast; delivery latency from the publisher's send (or the instant "
            "it was due, at a fixed rate) to each subscriber's read, and of the last subscriber.",
            "broadcast", "/broadcast", _BROADCAST_AXES,
            _sets(_BROADCAST_AXES, _broadcast_full),
            _sets({"subscribers": (100,), "rate": (0,), "size_bytes": (16,)}),
            many_connections=True,
        ),
        ScenarioSpec(
            "market", "Market data with orders",
            f"A feed publishes {MARKET_SIZE_BYTES}-byte JSON price ticks at a fixed rate to N "
            "clients; each client answers every tick with an order the server acknowledges: "
            "order round trips and tick delivery latency.",
            "market", "/market", _MARKET_AXES, _sets(_MARKET_AXES, _market_full),
            (), many_connections=True, fixed={"size_bytes": MARKET_SIZE_BYTES},
        ),
        ScenarioSpec(
            "offered", "Latency under a fixed offered load",
            f"Echo on {OFFERED_CONNECTIONS} connections at a fixed send rate (absolute, or a "
            "percentage of the capacity measured first): latency from each message's intended "
            "send time, so a server that stalls is charged for every message queued behind "
            "the stall (no coordinated omission).",
            "echo", "/echo", _OFFERED_AXES, _sets(_OFFERED_AXES, _offered_full),
            (), pinned_rate=True, fixed={"connections": OFFERED_CONNECTIONS},
        ),
    )
}  # fmt: skip
"""Every scenario's definition, by name."""


def spec(scenario: str) -> ScenarioSpec:
    """The definition of ``scenario``.

    Raises:
        ValueError: unknown scenario (the message lists the known ones).
    """
    try:
        return SPECS[scenario]  # type: ignore[index]
    except KeyError:
        raise ValueError(f"unknown scenario {scenario!r} (known: {', '.join(SCENARIOS)})") from None


def grid(scenario: Scenario, which: Grid = "full") -> list[Params]:
    """The parameter sets of ``scenario`` in the ``which`` grid."""
    return SPECS[scenario].grid(which)


def in_grid(which: Grid) -> list[Scenario]:
    """The scenarios with at least one parameter set in the ``which`` grid."""
    return [s for s in SCENARIOS if SPECS[s].grid(which)]


PARAM_DOCS: dict[str, tuple[str, str]] = {
    "size_bytes": ("bytes", "message size (payload bytes of one message or event)"),
    "in_flight": ("messages", "messages each connection keeps in flight"),
    "connections": ("connections", "concurrent WebSocket connections"),
    "workers": ("workers", "concurrent connect-exchange-close workers"),
    "seconds": ("s", "length of the soak run's measurement window"),
    "subscribers": ("subscribers", "connections receiving every published message"),
    "rate": ("messages/s", "messages published or sent per second (0: as fast as delivered)"),
    "load_percent": ("%", "offered load as a percentage of the capacity measured first"),
}
"""Unit and meaning of every parameter of :data:`SPECS`."""
PARAM_NAMES: tuple[str, ...] = tuple(dict.fromkeys(name for s in SPECS.values() for name in s.axes))
"""Every parameter of the scenarios, in first-seen order."""


def params_key(params: Params) -> str:
    """A stable key for a parameter set, e.g. ``"in_flight=64,size_bytes=16"``."""
    return ",".join(f"{k}={v}" for k, v in sorted(params.items()))


PARAM_WORDS: dict[str, tuple[str, str]] = {
    "connections": ("{} conns", "{:,} connections"),
    "workers": ("{} workers", "{:,} workers"),
    "size_bytes": ("{} B", "{:,} B messages"),
    "in_flight": ("x{}", "{} in flight per connection"),
    "seconds": ("{} s", "{:,} s window"),
    "subscribers": ("{} subs", "{:,} subscribers"),
    "rate": ("{}/s", "{:,} messages/s"),
    "load_percent": ("{}% load", "{}% of capacity"),
}
ZERO_WORDS: dict[str, tuple[str, str] | None] = {
    "rate": ("max", "as fast as delivered"),
    "load_percent": None,
}
"""How a parameter whose value 0 means "not used" reads then (None: left out)."""
"""How a parameter reads, short (tables, the CLI) and in words (headings), in the order a
label puts them."""


def params_words(params: Params, *, short: bool) -> list[str]:
    """The parameters of :data:`PARAM_WORDS` in ``params``, worded, in that order (others
    are left out): e.g. ``["1000 conns", "16 B", "x1"]`` or ``["1,000 connections",
    "16 B messages", "1 in flight per connection"]``."""
    worded = []
    for name, words in PARAM_WORDS.items():
        if name not in params:
            continue
        if params[name] == 0 and name in ZERO_WORDS:
            zero = ZERO_WORDS[name]
            if zero is not None and not (name == "rate" and params.get("load_percent")):
                worded.append(zero[0 if short else 1])
            continue
        worded.append(words[0 if short else 1].format(params[name]))
    return worded


def params_label(params: Params) -> str:
    """A short label for tables, e.g. ``"16 B x64"``, ``"1000 conns 16 B x1"``,
    ``"16 workers"``, ``"10 s"``."""
    return " ".join(params_words(params, short=True))
