"""Server push: the server sends messages of ``size_bytes`` as fast as its flow control allows.

Every figure is lower-is-better, as asv assumes: seconds per message received (the inverse
of throughput in messages/s), CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.suite import Figures, grid_of, run_scenario, tracker


class Stream:
    """Server push from ``/push`` (see impls/PROTOCOL.md)."""

    params: ClassVar = [[16, 1024, 65536]]
    param_names: ClassVar = ["size_bytes"]
    rounds = 1
    repeat = 1
    number = 1

    def setup_cache(self) -> dict[str, Figures]:
        return run_scenario("stream", grid_of(self.params, self.param_names))

    setup_cache.timeout = 1800  # type: ignore[attr-defined]

    track_seconds_per_message = tracker("seconds_per_message", "seconds")
    track_server_cpu_percent = tracker("server_cpu_percent", "percent")
    track_server_rss_bytes = tracker("server_rss_bytes", "bytes")
    track_loadgen_cpu_percent = tracker("loadgen_cpu_percent", "percent")
