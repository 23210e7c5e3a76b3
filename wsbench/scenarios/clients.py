"""Concurrent clients: N connections at once, each doing echo round trips (``/echo``)."""

from __future__ import annotations

from wsbench.scenarios.base import (
    CONNECTING_FIGURES,
    CORPUS_PARAM,
    CORPUS_SIZE,
    ERRORS_AND_SERVER,
    ERRORS_NOTE,
    MAX_LATENCY_COLUMN,
    MESSAGE_FIGURES,
    MESSAGES_COLUMN,
    P50_COLUMN,
    P99_9_COLUMN,
    P99_COLUMN,
    ROUND_TRIP_FIGURES,
    WINDOW_FIGURES,
    ColumnSpec,
    EchoMode,
    Params,
    median,
    param_sets,
)

AXES: dict[str, tuple[int, ...]] = {
    "connections": (1, 10, 100, 1000, 10000),
    "size_bytes": (16, 1024),
    "in_flight": (1, 64),
}


def _full(p: Params) -> bool:
    """Ping-pong at every connection count (10,000: 16 B only); 64 in flight at 100
    connections only.

    One parameter set at 10,000 connections costs about 2.5 minutes per configuration
    (three server processes, each connecting 10,000 clients), so 1 KiB is left out there.
    """
    if p["connections"] == 10000:
        return p["size_bytes"] == 16 and p["in_flight"] == 1
    return p["in_flight"] == 1 or p["connections"] == 100


CORPUS_SETS = ((("connections", 100), ("size_bytes", CORPUS_SIZE), ("in_flight", 1),
                (CORPUS_PARAM, 1)),)  # fmt: skip
"""100 clients echoing the JSON corpus's 1 KiB messages ping-pong: in the full grid and in
every deployment profile."""


SPEC = EchoMode(
    "clients", "Concurrent clients",
    "N connections at once, each doing echo round trips: aggregate and per-connection "
    "throughput, latency over all connections, handshakes, errors by kind.",
    "echo", "/echo", AXES, param_sets(AXES, _full) + CORPUS_SETS,
    param_sets({"connections": (1000,), "size_bytes": (16,), "in_flight": (1,)}),
    profiled=CORPUS_SETS,
    position=30,
    figures=(
        *MESSAGE_FIGURES, *ROUND_TRIP_FIGURES, "latency_max", "per_connection_min",
        "per_connection_median", "per_connection_max", *CONNECTING_FIGURES, *WINDOW_FIGURES,
    ),
    columns=(
        MESSAGES_COLUMN, P50_COLUMN, P99_COLUMN, P99_9_COLUMN, MAX_LATENCY_COLUMN,
        ColumnSpec("Per-connection messages/s (min / median / max)", special="per_connection"),
        median("Handshake p99 (ms)", "handshake_p99", ",.2f", 1e-3),
        median("Connections/s", "connections_per_s", ",.0f"),
        *ERRORS_AND_SERVER,
    ),
    order_sentence=(
        "Sorted by throughput, highest first. Higher messages/s and connections/s are "
        "better; lower latency, handshake time, errors, CPU and memory are better. "
        "MiB = 2^20 bytes, ms = 10^-3 s. "
    ),
    notes=(
        f"{ERRORS_NOTE}.",
        "*Per-connection messages/s*: each connection's messages/s in a window, the "
        "smallest, the median and the largest (medians over the windows): how evenly the "
        "server shares itself. p99.9 and max latency, handshake p99 and connections/s (of "
        "the connect phase) are medians over the windows.",
    ),
    many_connections=True,
)  # fmt: skip
