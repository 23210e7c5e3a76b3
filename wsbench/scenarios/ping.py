"""WebSocket ping: the round trip of a ping control frame answered by the server's pong
(RFC 6455 §5.5.2-5.5.3), the heartbeat many deployments keep connections alive with.

Every WebSocket server answers pings itself (the implementations have no code for it), on
every endpoint; the load generator pings ``/echo`` (Socket.IO servers: the WebSocket under
their Engine.IO connection). Each connection keeps one ping in flight: RFC 6455 lets an
endpoint that has not yet answered several pings answer only the most recent, so more in
flight would not measure every server alike. A ping's 16-byte payload is its sequence
number in hexadecimal, and each pong must carry it back (``loadgen/README.md``).

In the full grid only (the nightly): the main job's 30-minute budget has no room for it.
"""

from __future__ import annotations

from wsbench.loadreport import Report
from wsbench.scenarios.base import (
    CPU_COLUMN,
    P50_COLUMN,
    P99_9_COLUMN,
    P99_COLUMN,
    RSS_COLUMN,
    WINDOW_FIGURES,
    ScenarioSpec,
    Settings,
    exact_count,
    param_sets,
    spread,
    window_options,
)

PAYLOAD_BYTES = 16
"""Payload of each ping (and its pong), bytes: the sequence number in 16 hex digits."""
AXES: dict[str, tuple[int, ...]] = {"connections": (1, 100)}


class PingMode(ScenarioSpec):
    """The load generator's ``ping``: N connections, each with one ping in flight."""

    def loadgen_options(self, s: Settings) -> list[str]:
        return ["--connections", str(s.connections), *window_options(s)]

    def check_counts(self, report: Report, s: Settings) -> str | None:
        return exact_count(report, s, "pongs")


SPEC = PingMode(
    "ping", "WebSocket ping",
    "Each connection sends a ping control frame and waits for the server's pong, one in "
    "flight: the round trip of the heartbeat (pings/s and latency percentiles).",
    "ping", "/echo", AXES, param_sets(AXES), (),
    position=120,
    figures=(
        "messages_per_s", "latency_p50", "latency_p99", "latency_p99_9", *WINDOW_FIGURES,
    ),
    columns=(
        spread("Pings/s", "messages_per_s", ",.0f"),
        P50_COLUMN, P99_COLUMN, P99_9_COLUMN, CPU_COLUMN, RSS_COLUMN,
    ),
    order_sentence=(
        "Sorted by pings/s (pongs received per second), highest first. Lower latency, CPU "
        "and memory are better. MiB = 2^20 bytes. "
    ),
    notes=(
        f"A ping carries {PAYLOAD_BYTES} bytes (its sequence number); a pong with another "
        "payload, or a missing one, fails the window. Latency is the round trip from the "
        "ping's write to its pong's read; the server's own keep-alive pings are answered and "
        "not counted.",
    ),
    fixed={"size_bytes": PAYLOAD_BYTES},
)  # fmt: skip
