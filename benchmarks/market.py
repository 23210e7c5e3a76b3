"""Market data with orders: a feed publishes JSON ticks at ``rate`` ticks/s to
``subscribers`` clients, each answering every tick with an order the server acknowledges.

Every figure is lower-is-better, as asv assumes: order round trips and tick delivery
latency in seconds, failed connections and lost ticks as a count. Every other figure (ticks
and orders per second, the last client's latency, CPU) is in the run documents.
"""

from typing import ClassVar

from wsbench.asv.suite import WindowedSuite as _WindowedSuite
from wsbench.asv.suite import asv_params, tracker


class Market(_WindowedSuite):
    """Ticks and orders on ``/market`` (Socket.IO: events and a room; impls/PROTOCOL.md)."""

    scenario = "market"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_order_round_trip_p50 = tracker("order_round_trip_p50", "seconds")
    track_order_round_trip_p99 = tracker("order_round_trip_p99", "seconds")
    track_delivery_p99 = tracker("delivery_p99", "seconds")
    track_errors = tracker("errors", "count")
