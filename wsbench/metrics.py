"""The figures wsbench publishes, one definition each: name, unit, direction, and how a
sample (:class:`wsbench.runformat.Sample`) gives it. asv's result files, the site and the
comparisons all take their figures from here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wsbench.runformat import Sample


@dataclass(frozen=True)
class Metric:
    """One figure.

    Attributes:
        name: identifier, e.g. ``"messages_per_s"``.
        label: how tables name it, e.g. ``"throughput"``.
        unit: e.g. ``"messages/s"``, ``"s"``, ``"%"``, ``"bytes"``.
        higher_is_better: direction of "faster"/"better".
        scenarios: the scenarios that have it.
        of: the value in one sample (None when the sample has none).
    """

    name: str
    label: str
    unit: str
    higher_is_better: bool
    scenarios: tuple[str, ...]
    of: Callable[[Sample], float | None]


def _latency(key: str) -> Callable[[Sample], float | None]:
    def value(sample: Sample) -> float | None:
        return getattr(sample.latency_s, key) if sample.latency_s else None

    return value


def _float(value: float | int | None) -> float | None:
    return None if value is None else float(value)


BOTH = ("echo", "stream")
METRICS: tuple[Metric, ...] = (
    Metric("messages_per_s", "throughput", "messages/s", True, BOTH, lambda s: s.messages_per_s),
    Metric("bytes_per_s", "throughput", "bytes/s", True, BOTH, lambda s: s.bytes_per_s),
    Metric("latency_p50", "round trip p50", "s", False, ("echo",), _latency("p50")),
    Metric("latency_p99", "round trip p99", "s", False, ("echo",), _latency("p99")),
    Metric("latency_p99_9", "round trip p99.9", "s", False, ("echo",), _latency("p99_9")),
    Metric(
        "server_cpu_percent", "server CPU", "%", False, BOTH, lambda s: s.server_cpu_percent
    ),
    Metric(
        "server_rss_bytes", "server RSS", "bytes", False, BOTH, lambda s: _float(s.server_rss_bytes)
    ),
    Metric(
        "loadgen_cpu_percent", "load generator CPU", "%", False, BOTH,
        lambda s: s.loadgen_cpu_percent,
    ),
)  # fmt: skip
"""Every published figure."""
BY_NAME = {m.name: m for m in METRICS}
HEADLINE = BY_NAME["messages_per_s"]
"""The figure leaderboards rank by and comparisons lead with."""


def values(metric: Metric, samples: list[Sample]) -> list[float]:
    """``metric``'s values in ``samples`` (those that have one), in order."""
    found = (metric.of(s) for s in samples)
    return [v for v in found if v is not None]
