"""wsbench.results.metrics: the figures' directions in words."""

from __future__ import annotations

from wsbench.results.metrics import BY_NAME


def test_direction_in_words_follows_higher_is_better() -> None:
    assert BY_NAME["messages_per_s"].better == "higher is better"
    assert BY_NAME["latency_p99"].better == "lower is better"
    assert BY_NAME["bytes_per_connection"].better == "lower is better"
    assert BY_NAME["connections_per_s"].better == "higher is better"
