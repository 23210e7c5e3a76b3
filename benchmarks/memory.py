"""Memory per connection: the server's RSS idle and with ``connections`` idle connections.

Every figure is lower-is-better: bytes per connection, and failed connections as a count
(RSS idle and held are in the run documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.suite import ScenarioSuite as _ScenarioSuite
from wsbench.suite import asv_params, tracker


class Memory(_ScenarioSuite):
    """Idle connections held open on ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "memory"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_bytes_per_connection = tracker("bytes_per_connection", "bytes")
    track_errors = tracker("errors", "count")
