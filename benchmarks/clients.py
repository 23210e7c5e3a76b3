"""Concurrent clients: ``connections`` connections at once, each doing echo round trips
with ``in_flight`` messages of ``size_bytes`` in flight.

Every figure is lower-is-better, as asv assumes: seconds per message (aggregate, and of the
slowest connection), latencies in seconds, failed connections and lost messages as a
count, CPU in percent of one core, RSS in bytes. The per-connection spread, the
connections/s of the connect phase and the errors by kind are in the run documents.
"""

from typing import ClassVar

from wsbench.suite import Figures, asv_params, measure_grid, tracker
from wsbench.suite import MessagingSuite as _MessagingSuite


class Clients(_MessagingSuite):
    """Many connections against ``/echo`` (see impls/PROTOCOL.md)."""

    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params("clients")

    def setup_cache(self) -> dict[str, Figures]:
        return measure_grid("clients")

    setup_cache.timeout = 3600  # type: ignore[attr-defined]

    track_latency_p50 = tracker("latency_p50", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
    track_latency_p99_9 = tracker("latency_p99_9", "seconds")
    track_latency_max = tracker("latency_max", "seconds")
    track_seconds_per_message_slowest = tracker("seconds_per_message_slowest", "seconds")
    track_handshake_p99 = tracker("handshake_p99", "seconds")
    track_errors = tracker("errors", "count")
