"""Connection setup: ``workers`` workers each repeat connect, handshake, one message, close.

Every figure is lower-is-better, as asv assumes: seconds per connection (the inverse of
connections/s), handshake latencies in seconds, failed cycles as a count, CPU in percent of
one core.
"""

from typing import ClassVar

from wsbench.suite import Figures, asv_params, measure_grid, tracker
from wsbench.suite import WindowedSuite as _WindowedSuite


class Connect(_WindowedSuite):
    """Connect-exchange-close cycles against ``/echo`` (see impls/PROTOCOL.md)."""

    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params("connect")

    def setup_cache(self) -> dict[str, Figures]:
        return measure_grid("connect")

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_seconds_per_connection = tracker("seconds_per_connection", "seconds")
    track_handshake_p50 = tracker("handshake_p50", "seconds")
    track_handshake_p99 = tracker("handshake_p99", "seconds")
    track_errors = tracker("errors", "count")
