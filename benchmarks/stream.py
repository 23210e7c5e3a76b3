"""Server push: the server sends messages of ``size_bytes`` as fast as its flow control allows.

Every figure is lower-is-better, as asv assumes: seconds per message received (the inverse
of throughput in messages/s), CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.measure import PARAMS
from wsbench.suite import Figures, grid_of, run_scenario
from wsbench.suite import ScenarioSuite as _ScenarioSuite


class Stream(_ScenarioSuite):
    """Server push from ``/push`` (see impls/PROTOCOL.md)."""

    params: ClassVar = [list(values) for values in PARAMS["stream"].values()]
    param_names: ClassVar = list(PARAMS["stream"])

    def setup_cache(self) -> dict[str, Figures]:
        return run_scenario("stream", grid_of(self.params, self.param_names))

    setup_cache.timeout = 1800  # type: ignore[attr-defined]
