"""Market data with orders: a feed publishes JSON price ticks at a fixed rate to N
clients, each of which answers every tick with an order the server acknowledges
(``/market``)."""

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
    Settings,
    client_messages_per_s,
    median,
    param_sets,
    spread,
)

SIZE_BYTES = 152
"""Size of one market tick (the JSON object of impls/PROTOCOL.md), bytes."""
MESSAGES_PER_TICK = 3
"""Messages the load generator handles per tick per market client: the tick, the order it
sends, the acknowledgement."""
AXES: dict[str, tuple[int, ...]] = {
    "subscribers": (1, 10, 100, 1000),
    "rate": (10, 100, 1000),
}
ORDER_ROUND_TRIPS = (
    ("mean", "avg"), ("min", "min"), ("p50", "p50"), ("p99", "p99"), ("p99_9", "p99.9"),
    ("max", "max"), ("stdev", "std dev"),
)  # fmt: skip
"""The order round trip's figures (``order_round_trip_<key>``) and their labels."""


def _full(p: Params) -> bool:
    """Seed 002's 100 ticks/s and 1,000 ticks/s within the load generator's share
    (:data:`~wsbench.scenarios.base.FANOUT_MAX_CLIENT_MESSAGES_PER_S`), and 10 ticks/s for
    the 1,000 clients that cannot have 100: 1 and 10 clients at 100 and 1,000 ticks/s, 100
    at 100, 1,000 at 10."""
    within = client_messages_per_s(p, MESSAGES_PER_TICK) <= FANOUT_MAX_CLIENT_MESSAGES_PER_S
    return within and (p["rate"] != 10 or p["subscribers"] == 1000)


class MarketMode(FanoutMode):
    """The load generator's ``market``: fan-out of fixed-size ticks, answered by orders."""

    def invalid(self, s: Settings) -> str | None:
        if not s.rate:
            return "the market scenario needs a tick rate (rate > 0)"
        return super().invalid(s)

    @property
    def frames(self) -> str:
        return "JSON"


SPEC = MarketMode(
    "market", "Market data with orders",
    f"A feed publishes {SIZE_BYTES}-byte JSON price ticks at a fixed rate to N "
    "clients; each client answers every tick with an order the server acknowledges: "
    "order round trips and tick delivery latency.",
    "market", "/market", AXES, param_sets(AXES, _full), (),
    position=100,
    figures=(
        *MESSAGE_FIGURES, *FANOUT_FIGURES, "orders_per_s",
        *(f"order_round_trip_{key}" for key, _ in ORDER_ROUND_TRIPS),
        *CONNECTING_FIGURES, *WINDOW_FIGURES,
    ),
    headline="order_round_trip_p99",
    columns=(
        spread("Order round trip p99 (µs)", "order_round_trip_p99", ",.1f", 1e-6),
        median("Order round trip p50 (µs)", "order_round_trip_p50", ",.1f", 1e-6),
        median("Tick delivery p99 (µs)", "delivery_p99", ",.1f", 1e-6),
        median("Orders/s", "orders_per_s", ",.0f"),
        *ERRORS_AND_SERVER,
    ),
    slow_subscriber_policy=True,
    many_connections=True, fixed={"size_bytes": SIZE_BYTES},
    sized=False, messages_per_delivery=MESSAGES_PER_TICK, default_rate=100.0,
)  # fmt: skip
