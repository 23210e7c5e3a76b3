"""Memory per connection: the slope of the server's RSS over a staircase of idle
connections from 0 to ``connections`` (wsbench.results.memoryfit), its intercept (the base memory)
and the kernel's share.

Every figure is lower-is-better: bytes per connection, bytes, and failed connections as a
count (every step's RSS is in the run documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.asv.suite import ScenarioSuite as _ScenarioSuite
from wsbench.asv.suite import asv_params, tracker


class Memory(_ScenarioSuite):
    """Idle connections held open on ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "memory"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_memory_slope_bytes = tracker("memory_slope_bytes", "bytes")
    track_memory_base_bytes = tracker("memory_base_bytes", "bytes")
    track_kernel_bytes_per_connection = tracker("kernel_bytes_per_connection", "bytes")
    track_bytes_per_connection = tracker("bytes_per_connection", "bytes")
    track_errors = tracker("errors", "count")
