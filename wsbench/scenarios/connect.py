"""Connection setup: workers each repeat connect, handshake, one message, close."""

from __future__ import annotations

from wsbench.scenarios.base import (
    CONNECTING_FIGURES,
    ERRORS_AND_SERVER,
    ERRORS_NOTE,
    WINDOW_FIGURES,
    ConnectMode,
    param_sets,
    spread,
)

MESSAGE_BYTES = 16
"""Size of the one message each connect cycle exchanges, bytes."""

SPEC = ConnectMode(
    "connect", "Connection setup",
    "K workers each repeat connect, handshake, one message, close: connections/s and "
    "handshake latency.",
    "connect", "/echo", {"workers": (1, 16)}, param_sets({"workers": (1, 16)}), (),
    position=40,
    profiled=param_sets({"workers": (16,)}),  # the setup rate, in every deployment profile
    figures=(*CONNECTING_FIGURES, *WINDOW_FIGURES),
    headline="connections_per_s",
    columns=(
        spread("Connections/s", "connections_per_s", ",.0f"),
        spread("Handshake p50 (ms)", "handshake_p50", ",.2f", 1e-3),
        spread("Handshake p99 (ms)", "handshake_p99", ",.2f", 1e-3),
        *ERRORS_AND_SERVER,
    ),
    order_sentence=(
        "Sorted by connections/s (completed cycles per second), highest first. Lower "
        "handshake time, errors, CPU and memory are better. MiB = 2^20 bytes, ms = 10^-3 s. "
    ),
    notes=(
        "Each worker repeats connect, WebSocket handshake (Socket.IO: and namespace "
        f"connection), one {MESSAGE_BYTES}-byte message and close; connections/s "
        "counts the completed cycles of the window.",
        f"{ERRORS_NOTE}.",
    ),
    many_connections=True, fixed={"size_bytes": MESSAGE_BYTES},
)  # fmt: skip
