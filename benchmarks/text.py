"""Echo with text frames: as ``echo``, every message a text frame (UTF-8 validated).

Every figure is lower-is-better, as asv assumes: seconds per message and round-trip p99 in
seconds (the other figures are in the run documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.asv.suite import ScenarioSuite as _ScenarioSuite
from wsbench.asv.suite import asv_params, tracker


class Text(_ScenarioSuite):
    """Text-frame round trips against ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "text"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_seconds_per_message = tracker("seconds_per_message", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
