"""Latency under a fixed offered load: echo at a fixed send rate, latency from each
message's intended send time (no coordinated omission)."""

from __future__ import annotations

from wsbench.scenarios.base import (
    CPU_COLUMN,
    MESSAGE_FIGURES,
    ROUND_TRIP_FIGURES,
    RSS_COLUMN,
    WINDOW_FIGURES,
    EchoMode,
    Params,
    median,
    param_sets,
    spread,
)

CONNECTIONS = 10
"""Connections of the fixed-offered-load scenario (each sends its share of the rate)."""
CAPACITY_IN_FLIGHT = 16
"""Messages in flight per connection of the closed-loop echo run that measures a server's
capacity before its windows at a percentage of it (``load_percent``): enough to keep every
server busy, so that the run reads its throughput, not its latency."""
AXES: dict[str, tuple[int, ...]] = {
    "rate": (0, 1000, 5000, 20000),
    "load_percent": (0, 25, 50, 75, 90),
}


def _full(p: Params) -> bool:
    """Exactly one of an absolute rate and a percentage of the capacity."""
    return (p["rate"] == 0) != (p["load_percent"] == 0)


SPEC = EchoMode(
    "offered", "Latency under a fixed offered load",
    f"Echo on {CONNECTIONS} connections at a fixed send rate (absolute, or a "
    "percentage of the capacity measured first): latency from each message's intended "
    "send time, so a server that stalls is charged for every message queued behind "
    "the stall (no coordinated omission).",
    "echo", "/echo", AXES, param_sets(AXES, _full), (),
    position=110,
    figures=(
        *MESSAGE_FIGURES, *ROUND_TRIP_FIGURES, "latency_max", "offered_per_s",
        *WINDOW_FIGURES,
    ),
    headline="latency_p99",
    columns=(
        spread("p99 latency (µs)", "latency_p99", ",.1f", 1e-6),
        median("p50 latency (µs)", "latency_p50", ",.1f", 1e-6),
        median("p99.9 latency (µs)", "latency_p99_9", ",.1f", 1e-6),
        median("Max latency (µs)", "latency_max", ",.1f", 1e-6),
        median("Offered messages/s", "offered_per_s", ",.0f"),
        median("Achieved messages/s", "messages_per_s", ",.0f"),
        CPU_COLUMN,
        RSS_COLUMN,
    ),
    pinned_rate=True, fixed={"connections": CONNECTIONS},
)  # fmt: skip
