"""Load generator reports for tests, built in code (:mod:`wsbench.loadreport`): the fields a
test does not name get neutral values."""

from __future__ import annotations

from typing import Any

from wsbench import loadreport
from wsbench.loadreport import Report

SUMMARY = {"p50": 0.0, "p90": 0.0, "p99": 0.0, "p99_9": 0.0, "max": 0.0, "min": 0.0,
           "mean": 0.0, "stdev": 0.0, "count": 1}  # fmt: skip
"""A latency summary's fields a test leaves out (µs; one value recorded)."""
FANOUT = {"subscribers": 1, "published": 0, "published_per_s": 0.0, "last_latency_us": {},
          "per_subscriber_lost": None, "per_subscriber_out_of_order": None,
          "publisher_received": 0, "priming_messages": 0, "priming_s": 0.0}  # fmt: skip
"""A fan-out part's fields a test leaves out."""


def report(**fields: Any) -> Report:
    """A report with ``fields`` (summaries and the fan-out part may be partial: the rest of
    their fields are filled in), e.g. ``report(messages_received=5, errors={"timeout": 1})``.

    Raises:
        wsbench.loadreport.ReportError: a field the report does not have, or a wrong type.
    """
    merged: dict[str, Any] = {
        "tool": "wsbench-loadgen", "version": "test", "scenario": "echo",
        "config": {"url": "ws://127.0.0.1:1/echo", "protocol": "websocket",
                   "source_addresses": 1},
        "errors": {}, "rlimit_nofile": 1024, **fields,
    }  # fmt: skip
    for key in ("latency_us", "handshake_us", "cycle_us"):
        if merged.get(key) is not None:
            merged[key] = {**SUMMARY, **merged[key]}
    if merged.get("fanout") is not None:
        fanout = {**FANOUT, **merged["fanout"]}
        fanout["last_latency_us"] = {**SUMMARY, **fanout["last_latency_us"]}
        merged["fanout"] = fanout
    return loadreport.from_builtins(merged)
