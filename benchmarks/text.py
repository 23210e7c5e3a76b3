"""Echo with text frames: as ``echo``, every message a text frame (UTF-8 validated).

Every figure is lower-is-better, as asv assumes: seconds per message and round-trip p99 in
seconds (the other figures are in the run documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.suite import Figures, asv_params, measure_grid, tracker
from wsbench.suite import ScenarioSuite as _ScenarioSuite


class Text(_ScenarioSuite):
    """Text-frame round trips against ``/echo`` (see impls/PROTOCOL.md)."""

    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params("text")

    def setup_cache(self) -> dict[str, Figures]:
        return measure_grid("text")

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_seconds_per_message = tracker("seconds_per_message", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
