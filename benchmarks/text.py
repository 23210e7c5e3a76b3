"""Echo with text frames: as ``echo``, every message a text frame (UTF-8 validated).

Every figure is lower-is-better, as asv assumes: latencies and seconds per message in
seconds, CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.suite import Figures, asv_params, measure_grid, tracker
from wsbench.suite import MessagingSuite as _MessagingSuite


class Text(_MessagingSuite):
    """Text-frame round trips against ``/echo`` (see impls/PROTOCOL.md)."""

    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params("text")

    def setup_cache(self) -> dict[str, Figures]:
        return measure_grid("text")

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_latency_p50 = tracker("latency_p50", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
