"""RSS growth: echo on many connections for a long window; the growth of the server's RSS
over it (a leak shows as growth).

Every figure is lower-is-better, as asv assumes: bytes (the other figures are in the run
documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.asv.suite import ScenarioSuite as _ScenarioSuite
from wsbench.asv.suite import asv_params, tracker


class Soak(_ScenarioSuite):
    """A long echo run against ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "soak"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_server_rss_growth_bytes = tracker("server_rss_growth_bytes", "bytes")
