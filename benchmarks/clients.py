"""Concurrent clients: ``connections`` connections at once, each doing echo round trips
with ``in_flight`` messages of ``size_bytes`` in flight.

Every figure is lower-is-better, as asv assumes: seconds per message (the inverse of the
aggregate messages/s), round-trip p99 in seconds, failed connections and lost messages as a
count. Only these headline figures are asv benchmarks (asv runs each ``track_*`` in a
process of its own); every other figure (per-connection spread,
handshakes, connections/s, errors by kind, CPU and memory) is in the run documents, which
the site and the comparisons read.
"""

from typing import ClassVar

from wsbench.asv.suite import ScenarioSuite as _ScenarioSuite
from wsbench.asv.suite import asv_params, tracker


class Clients(_ScenarioSuite):
    """Many connections against ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "clients"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_seconds_per_message = tracker("seconds_per_message", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
    track_errors = tracker("errors", "count")
