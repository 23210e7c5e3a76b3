"""Connection setup: ``workers`` workers each repeat connect, handshake, one message, close.

Every figure is lower-is-better, as asv assumes: seconds per connection (the inverse of
connections/s), handshake p99 in seconds, failed cycles as a count (the other figures are in
the run documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.suite import Figures, asv_params, measure_grid, tracker
from wsbench.suite import ScenarioSuite as _ScenarioSuite


class Connect(_ScenarioSuite):
    """Connect-exchange-close cycles against ``/echo`` (see impls/PROTOCOL.md)."""

    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params("connect")

    def setup_cache(self) -> dict[str, Figures]:
        return measure_grid("connect")

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_seconds_per_connection = tracker("seconds_per_connection", "seconds")
    track_handshake_p99 = tracker("handshake_p99", "seconds")
    track_errors = tracker("errors", "count")
