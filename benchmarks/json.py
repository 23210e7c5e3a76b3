"""JSON request/reply: each 97-byte JSON object is decoded and answered with a small reply.

Every figure is lower-is-better, as asv assumes: latencies and seconds per message in
seconds, CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.suite import Figures, asv_params, measure_grid, tracker
from wsbench.suite import MessagingSuite as _MessagingSuite


class Json(_MessagingSuite):
    """JSON round trips against ``/json`` (see impls/PROTOCOL.md)."""

    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params("json")

    def setup_cache(self) -> dict[str, Figures]:
        return measure_grid("json")

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_latency_p50 = tracker("latency_p50", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
