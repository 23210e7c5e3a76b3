"""The load generator's JSON report as typed structs (msgspec), the contract between the
load generator (``loadgen/src/report.rs``, ``modes/connect.rs``, ``modes/hold.rs``;
documented in ``loadgen/README.md``), the client programs that take its place
(``clients/clientkit.py``) and the harness.

One :class:`Report` holds every subcommand's report: the fields a subcommand does not have
are None (``connect`` has ``cycles`` and no messages; ``hold`` prints the connect phase
when its connections are open, :class:`Closed` when it lets them go). A report with a field
this module does not know, or a value of the wrong type, is refused
(:func:`decode` raises :class:`ReportError`), so that the two sides cannot drift apart
silently; every part is immutable. Units are in the names: ``_s`` seconds, ``_us``
microseconds, ``_per_s`` per second, ``bytes`` bytes, ``_percent`` percent of one core.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec


class ReportError(ValueError):
    """A report that is not valid JSON, or does not follow :class:`Report` (the message
    names the field, e.g. ``Expected `int`, got `str` - at `$.messages_received```)."""


class Summary(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An HDR histogram's summary, microseconds (``count``: values recorded)."""

    p50: float
    p90: float
    p99: float
    p99_9: float
    max: float
    min: float
    mean: float
    stdev: float
    count: int


class Spread(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The smallest, median and largest of per-connection (or per-subscriber) figures."""

    min: float
    median: float
    max: float


class Orders(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The market scenario's orders: sent, acknowledged (and per second), each one's round
    trip, and acknowledgements that matched no order sent."""

    sent: int
    acked: int
    acked_per_s: float
    round_trip_us: Summary
    mismatched: int


class Fanout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One publisher and its subscribers (``broadcast``, ``market``): messages published in
    the window (and per second), the last subscriber's delivery latency, each subscriber's
    lost and reordered messages, messages wrongly sent back to the publisher, the priming
    phase, and the market's orders."""

    subscribers: int
    published: int
    published_per_s: float
    last_latency_us: Summary
    per_subscriber_lost: Spread | None
    per_subscriber_out_of_order: Spread | None
    publisher_received: int
    priming_messages: int
    priming_s: float
    orders: Orders | None = None


class Deflate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """permessage-deflate (RFC 7692), when the run offered it (``--deflate``): the offer
    sent with every upgrade, the first connection's agreement with every parameter (None:
    no connection agreed), the connections that agreed and that were upgraded without it,
    the data messages' payload bytes on the wire (compressed, headers not counted) against
    their bytes, sent and received, over the whole run on the connections that agreed,
    messages received uncompressed, upgrades failed because the server's answer broke RFC
    7692 section 7.1, connections failed because a message would not inflate (each also a
    ``corrupted`` message), and the first such failure."""

    offer: str
    agreed: str | None
    connections_agreed: int
    connections_declined: int
    sent_wire_bytes: int
    sent_payload_bytes: int
    received_wire_bytes: int
    received_payload_bytes: int
    received_uncompressed_messages: int
    answers_refused: int
    inflate_failures: int
    error: str | None


class Tls(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """TLS, when the run's URL was ``wss://`` (``--tls-ca``): the protocol version
    (``"TLSv1.3"`` or ``"TLSv1.2"``), cipher suite (IANA name, e.g.
    ``"TLS_AES_256_GCM_SHA384"``) and key exchange group (e.g. ``"X25519"``) the first
    connection agreed (None: no handshake succeeded); the three parts of each connection's
    ``handshake_us``, which add up to it: the TCP connect, the TLS handshake, and the rest
    (the WebSocket upgrade; Socket.IO: with the session's opening); and the failed TLS
    handshakes by reason (each also a ``handshake_failed`` error), e.g.
    ``{"TLS handshake failed: invalid peer certificate: UnknownIssuer": 3}``."""

    version: str | None
    cipher_suite: str | None
    key_exchange: str | None
    tcp_connect_us: Summary
    handshake_us: Summary
    upgrade_us: Summary
    failures: dict[str, int]


class Config(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the run was asked: the URL and protocol, and the subcommand's own settings
    (None where it has none). ``threads``: the load generator's runtime threads;
    ``cpus``: with ``--cpus``, the CPU each thread was pinned to (thread ``k`` on
    ``cpus[k]``, connection ``i`` on thread ``i % len(cpus)``), else None."""

    url: str
    protocol: str
    source_addresses: int
    connections: int | None = None
    workers: int | None = None
    in_flight: int | None = None
    burst: int | None = None
    size_bytes: int | None = None
    message_type: str | None = None
    warmup_s: float | None = None
    duration_s: float | None = None
    count: int | None = None
    threads: int | None = None
    cpus: tuple[int, ...] | None = None
    rate_per_s: float | None = None
    hold_s: float | None = None
    timeout_s: float | None = None


class Client(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The client library a client program measured (``clients/``)."""

    library: str
    version: str
    api: str
    loop: str | None = None


class Report(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One run's report (every subcommand's fields; None where a subcommand has none).

    ``errors`` and ``integrity`` map each kind (``connection_refused``, ``timeout``...;
    ``lost``, ``corrupted``, ``duplicated``, ``out_of_order``) to its count. ``deflate``:
    what permessage-deflate did, None when it was not offered (and in reports from before
    the load generator could offer it). ``tls``: what TLS agreed and the parts of
    ``handshake_us``, None without TLS (and in reports from before the load generator spoke
    it).
    """

    tool: str
    version: str
    scenario: str
    config: Config
    errors: dict[str, int]
    rlimit_nofile: int
    integrity: dict[str, int] = msgspec.field(default_factory=dict)
    window_s: float | None = None
    messages_sent: int | None = None
    messages_received: int = 0
    bytes_sent: int | None = None
    bytes_received: int | None = None
    messages_per_s: float | None = None
    bytes_per_s: float | None = None
    per_connection_messages_per_s: Spread | None = None
    latency_us: Summary | None = None
    handshake_us: Summary | None = None
    connect_s: float | None = None
    connections_ok: int | None = None
    connections_per_s: float | None = None
    cycles: int | None = None
    cycle_us: Summary | None = None
    loadgen_cpu_s: float | None = None
    loadgen_cpu_percent: float | None = None
    client_bound: bool | None = None
    fanout: Fanout | None = None
    deflate: Deflate | None = None
    tls: Tls | None = None
    client: Client | None = None
    closed: int | None = None
    closed_early: int | None = None


class Closed(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What ``hold`` prints when it lets its connections go: closed by it, closed by the
    server before (``closed_early``), and how long they were held, seconds."""

    closed: int
    closed_early: int
    held_s: float


def decode(text: str | bytes) -> Report:
    """``text`` (one JSON object) as a :class:`Report`.

    Raises:
        ReportError: not JSON, or not a report (the message names the field).
    """
    return _decode(text, Report)


def decode_closed(text: str | bytes) -> Closed:
    """``text`` (``hold``'s last line) as :class:`Closed`.

    Raises:
        ReportError: not JSON, or not that object.
    """
    return _decode(text, Closed)


def from_builtins(value: dict[str, Any]) -> Report:
    """A report built from Python objects (e.g. in a test) as a :class:`Report`.

    Raises:
        ReportError: not a report (the message names the field).
    """
    try:
        return msgspec.convert(value, Report)
    except msgspec.ValidationError as exc:
        raise ReportError(f"not a load generator report: {exc}") from exc


def to_builtins(report: Report) -> dict[str, Any]:
    """``report`` as JSON-ready Python objects (every field, None included)."""
    found = msgspec.to_builtins(report)
    assert isinstance(found, dict)
    return found


_T = TypeVar("_T")


def _decode(text: str | bytes, kind: type[_T]) -> _T:
    try:
        return msgspec.json.decode(text, type=kind)
    except msgspec.DecodeError as exc:
        raise ReportError(f"not a load generator report: {exc}: {str(text)[:300]!r}") from exc
