"""Broadcast fan-out: one publisher, N subscribers, each message relayed to every
subscriber with the framework's broadcast (``/broadcast``)."""

from __future__ import annotations

from wsbench.scenarios.base import (
    CONNECTING_FIGURES,
    ERRORS_AND_SERVER,
    FANOUT_FIGURES,
    FANOUT_MAX_CLIENT_MESSAGES_PER_S,
    MESSAGE_FIGURES,
    WINDOW_FIGURES,
    FanoutMode,
    Params,
    client_messages_per_s,
    median,
    param_sets,
    spread,
)

AXES: dict[str, tuple[int, ...]] = {
    "subscribers": (1, 10, 100, 1000),
    "rate": (0, 100, 1000),
    "size_bytes": (16, 1024),
}


def _full(p: Params) -> bool:
    """16 B at every subscriber count, 1 KiB at 100 subscribers; within the load
    generator's share (:data:`~wsbench.scenarios.base.FANOUT_MAX_CLIENT_MESSAGES_PER_S`)."""
    within = client_messages_per_s(p) <= FANOUT_MAX_CLIENT_MESSAGES_PER_S
    return within and (p["size_bytes"] == 16 or p["subscribers"] == 100)


SPEC = FanoutMode(
    "broadcast", "Broadcast fan-out",
    "One publisher, N subscribers: each message relayed to every subscriber with the "
    "framework's broadcast; delivery latency from the publisher's send (or the instant "
    "it was due, at a fixed rate) to each subscriber's read, and of the last subscriber.",
    "broadcast", "/broadcast", AXES, param_sets(AXES, _full),
    param_sets({"subscribers": (100,), "rate": (0,), "size_bytes": (16,)}),
    position=90,
    figures=(*MESSAGE_FIGURES, *FANOUT_FIGURES, *CONNECTING_FIGURES, *WINDOW_FIGURES),
    headline="delivery_p99",
    columns=(
        spread("Delivery p99 (µs)", "delivery_p99", ",.1f", 1e-6),
        median("Delivery p50 (µs)", "delivery_p50", ",.1f", 1e-6),
        median("Last subscriber p99 (µs)", "last_delivery_p99", ",.1f", 1e-6),
        median("Deliveries/s", "messages_per_s", ",.0f"),
        median("Published/s", "published_per_s", ",.0f"),
        *ERRORS_AND_SERVER,
    ),
    slow_subscriber_policy=True,
    many_connections=True,
)  # fmt: skip
