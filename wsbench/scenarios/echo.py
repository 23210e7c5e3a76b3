"""Echo: round trips on one connection, W messages in flight (``/echo``)."""

from __future__ import annotations

from wsbench.scenarios.base import (
    CORPUS_PARAM,
    CORPUS_SIZE,
    ECHO_COLUMNS,
    MESSAGE_FIGURES,
    ROUND_TRIP_FIGURES,
    WINDOW_FIGURES,
    EchoMode,
    param_sets,
)

AXES: dict[str, tuple[int, ...]] = {"size_bytes": (16, 1024, 65536), "in_flight": (1, 64)}
"""The echo axes, which the text-frame scenario shares."""
FIGURES = (*MESSAGE_FIGURES, *ROUND_TRIP_FIGURES, *WINDOW_FIGURES)
"""The figures of an echo window, which the text and JSON scenarios share."""
DEFAULT = ({"size_bytes": 16, "in_flight": 1}, {"size_bytes": 16, "in_flight": 64},
           {"size_bytes": 65536, "in_flight": 64})  # fmt: skip
"""The default grid: latency (ping-pong), message rate and bandwidth."""

CORPUS_SETS = tuple(
    (("size_bytes", CORPUS_SIZE), ("in_flight", w), (CORPUS_PARAM, 1)) for w in (1, 64)
)
"""Echo of the JSON corpus's 1 KiB messages, ping-pong and 64 in flight: in the full grid,
and in every deployment profile (compression is measured on data that compresses like real
traffic, impls/PROTOCOL.md "The JSON corpus")."""

SPEC = EchoMode(
    "echo", "Echo", "Round trips on one connection: W messages in flight.",
    "echo", "/echo", AXES, param_sets(AXES) + CORPUS_SETS,
    param_sets(AXES, lambda p: p in DEFAULT),
    position=10,
    profiled=CORPUS_SETS,
    figures=FIGURES,
    columns=ECHO_COLUMNS,
    intro=(
        "The load generator sends messages to `/echo` and checks every echo. *In flight* is "
        "how many messages each connection keeps outstanding (1 = ping-pong). Latency is the "
        "round-trip time of each message."
    ),
)  # fmt: skip
