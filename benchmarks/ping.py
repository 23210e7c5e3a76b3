"""WebSocket ping: each of ``connections`` connections keeps one ping control frame in
flight and waits for the server's pong.

Every figure is lower-is-better, as asv assumes: latencies and seconds per pong (the inverse
of pings/s) in seconds, CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.asv.suite import MessagingSuite as _MessagingSuite
from wsbench.asv.suite import asv_params, tracker


class Ping(_MessagingSuite):
    """Pings answered by pongs on ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "ping"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_latency_p50 = tracker("latency_p50", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
