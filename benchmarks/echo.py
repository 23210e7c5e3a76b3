"""Echo round trips: one connection keeps ``in_flight`` messages of ``size_bytes`` in flight.

Every figure is lower-is-better, as asv assumes: latencies and seconds per message (the
inverse of throughput in messages/s) in seconds, CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.measure import PARAMS
from wsbench.suite import Figures, grid_of, run_scenario, tracker
from wsbench.suite import ScenarioSuite as _ScenarioSuite


class Echo(_ScenarioSuite):
    """Round trips against ``/echo`` (see impls/PROTOCOL.md)."""

    params: ClassVar = [list(values) for values in PARAMS["echo"].values()]
    param_names: ClassVar = list(PARAMS["echo"])

    def setup_cache(self) -> dict[str, Figures]:
        return run_scenario("echo", grid_of(self.params, self.param_names))

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_latency_p50 = tracker("latency_p50", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
