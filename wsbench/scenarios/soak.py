"""RSS growth: echo on many connections for a long window; a leak shows as growth."""

from __future__ import annotations

from wsbench.scenarios.base import (
    ERRORS_AND_SERVER,
    ERRORS_NOTE,
    KIB,
    MESSAGE_FIGURES,
    MESSAGES_COLUMN,
    P99_COLUMN,
    ROUND_TRIP_FIGURES,
    WINDOW_FIGURES,
    EchoMode,
    param_sets,
    spread,
)

CONNECTIONS = 100
"""Connections of the soak run (RSS growth during a long echo run)."""
SIZE_BYTES = 1024
"""Message size of the soak run, bytes."""

SPEC = EchoMode(
    "soak", "RSS growth",
    f"Echo on {CONNECTIONS} connections ({SIZE_BYTES} B, ping-pong) for a long window: the "
    "growth of the server's RSS over it (a leak shows as growth).",
    "echo", "/echo", {"seconds": (10,)}, param_sets({"seconds": (10,)}), (),
    position=80,
    figures=(
        *MESSAGE_FIGURES, *ROUND_TRIP_FIGURES, "errors", "server_rss_growth_bytes",
        *WINDOW_FIGURES,
    ),
    headline="server_rss_growth_bytes",
    columns=(
        spread("RSS growth (KiB)", "server_rss_growth_bytes", ",.0f", KIB),
        MESSAGES_COLUMN, P99_COLUMN, *ERRORS_AND_SERVER,
    ),
    order_sentence=(
        "Sorted by RSS growth over the window, lowest first: a leak shows as growth. Higher "
        "messages/s are better; lower latency, errors, CPU and memory are better. "
        "KiB = 2^10 bytes, MiB = 2^20 bytes. "
    ),
    notes=(
        f"Echo on {CONNECTIONS} connections, {SIZE_BYTES:,} B messages, ping-pong; "
        "*RSS growth* is the server's RSS at the window's end minus at its start.",
        f"{ERRORS_NOTE}.",
    ),
    many_connections=True,
    fixed={"connections": CONNECTIONS, "size_bytes": SIZE_BYTES},
)  # fmt: skip
