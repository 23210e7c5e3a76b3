"""Echo round trips: one connection keeps ``in_flight`` messages of ``size_bytes`` in flight.

Every figure is lower-is-better, as asv assumes: latencies and seconds per message (the
inverse of throughput in messages/s) in seconds, CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.asv.suite import MessagingSuite as _MessagingSuite
from wsbench.asv.suite import asv_params, tracker


class Echo(_MessagingSuite):
    """Round trips against ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "echo"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_latency_p50 = tracker("latency_p50", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
