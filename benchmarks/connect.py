"""Connection setup: ``workers`` workers each repeat connect, handshake, one message, close.

Every figure is lower-is-better, as asv assumes: seconds per connection (the inverse of
connections/s), handshake p99 in seconds, failed cycles as a count (the other figures are in
the run documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.asv.suite import ScenarioSuite as _ScenarioSuite
from wsbench.asv.suite import asv_params, tracker


class Connect(_ScenarioSuite):
    """Connect-exchange-close cycles against ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "connect"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_seconds_per_connection = tracker("seconds_per_connection", "seconds")
    track_handshake_p99 = tracker("handshake_p99", "seconds")
    track_errors = tracker("errors", "count")
