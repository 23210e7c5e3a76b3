"""Latency under a fixed offered load: echo on 10 connections at ``rate`` messages/s, or at
``load_percent`` of the capacity measured first in the same server process (wrk2's method:
latency from each message's intended send time, no coordinated omission).

Every figure is lower-is-better, as asv assumes: latency percentiles in seconds, seconds
per message (the inverse of the achieved rate). The offered rate itself is in the run
documents.
"""

from typing import ClassVar

from wsbench.asv.suite import MessagingSuite as _MessagingSuite
from wsbench.asv.suite import asv_params, tracker


class Offered(_MessagingSuite):
    """Echo at a fixed rate against ``/echo`` (see impls/PROTOCOL.md)."""

    scenario = "offered"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)

    track_latency_p50 = tracker("latency_p50", "seconds")
    track_latency_p99 = tracker("latency_p99", "seconds")
    track_latency_p99_9 = tracker("latency_p99_9", "seconds")
