"""Broadcast fan-out: one publisher, ``subscribers`` subscribers, messages of ``size_bytes``
published at ``rate`` messages/s (0: as fast as they are delivered).

Every figure is lower-is-better, as asv assumes: delivery latencies in seconds (from the
publisher's send, or the instant it was due at a fixed rate, to each subscriber's read;
``last_delivery_p99``: the last subscriber to get each message), seconds per delivery (the
inverse of deliveries per second), failed connections and lost messages as a count. Every
other figure is in the run documents.
"""

from typing import ClassVar

from wsbench.asv.suite import MessagingSuite as _MessagingSuite
from wsbench.asv.suite import asv_params, tracker


class Broadcast(_MessagingSuite):
    """Fan-out on ``/broadcast`` (Socket.IO: a room; see impls/PROTOCOL.md)."""

    scenario = "broadcast"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_delivery_p50 = tracker("delivery_p50", "seconds")
    track_delivery_p99 = tracker("delivery_p99", "seconds")
    track_last_delivery_p99 = tracker("last_delivery_p99", "seconds")
    track_errors = tracker("errors", "count")
