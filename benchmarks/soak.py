"""RSS growth: echo on many connections for a long window; the growth of the server's RSS
over it (a leak shows as growth).

Every figure is lower-is-better, as asv assumes: bytes (the other figures are in the run
documents: see benchmarks/clients.py).
"""

from typing import ClassVar

from wsbench.suite import Figures, asv_params, measure_grid, tracker
from wsbench.suite import ScenarioSuite as _ScenarioSuite


class Soak(_ScenarioSuite):
    """A long echo run against ``/echo`` (see impls/PROTOCOL.md)."""

    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params("soak")

    def setup_cache(self) -> dict[str, Figures]:
        return measure_grid("soak")

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_server_rss_growth_bytes = tracker("server_rss_growth_bytes", "bytes")
