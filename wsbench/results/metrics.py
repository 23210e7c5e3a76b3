"""The figures wsbench publishes, one definition each: name, unit, direction, and how a
sample (:class:`wsbench.results.runformat.Sample`) gives it. Which scenarios have a figure, and the
one each ranks by, their modules say (:attr:`wsbench.scenarios.base.ScenarioSpec.figures`
and ``headline``). asv's result files, the site and the comparisons all take their figures
from here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from wsbench.results.memoryfit import Fit, kernel_fit, rss_fit
from wsbench.results.runformat import MemoryStep, Sample
from wsbench.scenarios import SPECS
from wsbench.scenarios.market import ORDER_ROUND_TRIPS

CLIENT_BOUND_CPU_PERCENT = 80.0
"""A result whose load generator used more CPU than this per CPU it runs on is flagged as
possibly client-bound (:func:`client_bound`); a client library's result whose server (the
native reference) used more than this, as possibly server-bound."""


def client_bound(loadgen_cpu_percent: float | None, loadgen_cpus: int = 1) -> bool:
    """Whether a load generator that used ``loadgen_cpu_percent`` (percent of one core, summed
    over its threads; None: not read) on ``loadgen_cpus`` CPUs may have held the figure back:
    above :data:`CLIENT_BOUND_CPU_PERCENT` times its CPUs. With several CPUs this is their
    average; its runtime threads share the connections round robin (``--cpus``), so they are
    loaded alike, but for a fan-out's publisher, which has a thread to itself only when there
    are as many threads as connections."""
    return loadgen_cpu_percent is not None and (
        loadgen_cpu_percent > CLIENT_BOUND_CPU_PERCENT * max(1, loadgen_cpus)
    )


@dataclass(frozen=True)
class Metric:
    """One figure.

    Attributes:
        name: identifier, e.g. ``"messages_per_s"``.
        label: how tables name it, e.g. ``"throughput"``.
        unit: e.g. ``"messages/s"``, ``"s"``, ``"%"``, ``"bytes"``.
        higher_is_better: direction of "faster"/"better".
        of: the value in one sample (None when the sample has none); left out of the
            repr, so that a chart's repr (the chart cache's key) is the same in every process.
    """

    name: str
    label: str
    unit: str
    higher_is_better: bool
    of: Callable[[Sample], float | None] = field(repr=False)

    @cached_property
    def scenarios(self) -> tuple[str, ...]:
        """The scenarios that have it (their specs' ``figures``), in registry order; worked
        out once per figure (the site asks for every row)."""
        return tuple(s.name for s in SPECS.values() if self.name in s.figures)

    @property
    def better(self) -> str:
        """Its direction in words: ``"higher is better"`` or ``"lower is better"``."""
        return "higher is better" if self.higher_is_better else "lower is better"


def _latency(key: str) -> Callable[[Sample], float | None]:
    def value(sample: Sample) -> float | None:
        return getattr(sample.latency_s, key) if sample.latency_s else None

    return value


def _float(value: float | int | None) -> float | None:
    return None if value is None else float(value)


def _handshake(key: str) -> Callable[[Sample], float | None]:
    def value(sample: Sample) -> float | None:
        return getattr(sample.handshake_s, key) if sample.handshake_s else None

    return value


def _per_connection(key: str) -> Callable[[Sample], float | None]:
    def value(sample: Sample) -> float | None:
        spread = sample.per_connection_messages_per_s
        return getattr(spread, key) if spread else None

    return value


def _of(field: str, key: str) -> Callable[[Sample], float | None]:
    """The figure ``key`` of the sample's :class:`~wsbench.results.runformat.Latency` ``field``."""

    def value(sample: Sample) -> float | None:
        latency = getattr(sample, field)
        return None if latency is None else getattr(latency, key)

    return value


def _errors_total(sample: Sample) -> float | None:
    return None if sample.errors is None else float(sum(sample.errors.values()))


def _bytes_per_connection(sample: Sample) -> float | None:
    idle, held, ok = sample.rss_idle_bytes, sample.rss_held_bytes, sample.connections_ok
    if idle is None or held is None or not ok:
        return None
    return (held - idle) / ok


def _fitted(
    which: Callable[[Sequence[MemoryStep] | None], Fit | None], part: str
) -> Callable[[Sample], float | None]:
    """The ``part`` (``"slope"`` or ``"intercept"``) of ``which`` fit of a sample's memory
    steps (:mod:`wsbench.results.memoryfit`)."""

    def value(sample: Sample) -> float | None:
        found = which(sample.memory_steps)
        return None if found is None else float(getattr(found, part))

    return value


METRICS: tuple[Metric, ...] = (
    Metric(
        "messages_per_s", "throughput", "messages/s", True, lambda s: s.messages_per_s
    ),
    Metric("bytes_per_s", "throughput", "bytes/s", True, lambda s: s.bytes_per_s),
    Metric("latency_p50", "round trip p50", "s", False, _latency("p50")),
    Metric("latency_p99", "round trip p99", "s", False, _latency("p99")),
    Metric("latency_p99_9", "round trip p99.9", "s", False, _latency("p99_9")),
    Metric("latency_max", "round trip max", "s", False, _latency("max")),
    Metric(
        "offered_per_s", "offered load", "messages/s", True,
        lambda s: s.offered_per_s,
    ),
    Metric("delivery_p50", "delivery p50", "s", False, _latency("p50")),
    Metric("delivery_p99", "delivery p99", "s", False, _latency("p99")),
    Metric("delivery_p99_9", "delivery p99.9", "s", False, _latency("p99_9")),
    Metric("delivery_max", "delivery max", "s", False, _latency("max")),
    Metric(
        "last_delivery_p50", "last subscriber p50", "s", False,
        _of("last_delivery_s", "p50"),
    ),
    Metric(
        "last_delivery_p99", "last subscriber p99", "s", False,
        _of("last_delivery_s", "p99"),
    ),
    Metric(
        "published_per_s", "published", "messages/s", True, lambda s: s.published_per_s
    ),
    Metric("orders_per_s", "orders", "orders/s", True, lambda s: s.orders_per_s),
    *(
        Metric(
            f"order_round_trip_{key}", f"order round trip {label}", "s", False,
            _of("order_round_trip_s", key),
        )
        for key, label in ORDER_ROUND_TRIPS
    ),
    Metric(
        "per_connection_min", "per-connection min", "messages/s", True,
        _per_connection("min"),
    ),
    Metric(
        "per_connection_median", "per-connection median", "messages/s", True,
        _per_connection("median"),
    ),
    Metric(
        "per_connection_max", "per-connection max", "messages/s", True,
        _per_connection("max"),
    ),
    Metric(
        "connections_per_s", "connections/s", "connections/s", True,
        lambda s: s.connections_per_s,
    ),
    Metric("handshake_p50", "handshake p50", "s", False, _handshake("p50")),
    Metric("handshake_p99", "handshake p99", "s", False, _handshake("p99")),
    Metric("errors", "errors", "count", False, _errors_total),
    Metric(
        "bytes_per_connection", "memory delta at the top count", "bytes", False,
        _bytes_per_connection,
    ),
    Metric(
        "memory_slope_bytes", "memory per connection", "bytes", False,
        _fitted(rss_fit, "slope"),
    ),
    Metric(
        "memory_base_bytes", "base memory (intercept)", "bytes", False,
        _fitted(rss_fit, "intercept"),
    ),
    Metric(
        "kernel_bytes_per_connection", "kernel memory per connection (both ends)", "bytes",
        False, _fitted(kernel_fit, "slope"),
    ),
    Metric(
        "rss_idle_bytes", "server RSS idle", "bytes", False,
        lambda s: _float(s.rss_idle_bytes),
    ),
    Metric(
        "rss_held_bytes", "server RSS with connections", "bytes", False,
        lambda s: _float(s.rss_held_bytes),
    ),
    Metric(
        "server_rss_growth_bytes", "RSS growth", "bytes", False,
        lambda s: _float(s.server_rss_growth_bytes),
    ),
    Metric(
        "server_cpu_percent", "server CPU", "%", False, lambda s: s.server_cpu_percent
    ),
    Metric(
        "server_rss_bytes", "server RSS", "bytes", False,
        lambda s: _float(s.server_rss_bytes),
    ),
    Metric(
        "loadgen_cpu_percent", "load generator CPU", "%", False,
        lambda s: s.loadgen_cpu_percent,
    ),
)  # fmt: skip
"""Every published figure. ``errors`` counts failed connections and lost messages of a
window (by kind in the samples); it is a figure, not a failure, in the scenarios that
have it."""
BY_NAME = {m.name: m for m in METRICS}
HEADLINE = BY_NAME["messages_per_s"]
"""The figure leaderboards of the messaging scenarios rank by and comparisons lead with."""
SCENARIO_HEADLINES: dict[str, Metric] = {name: BY_NAME[s.headline] for name, s in SPECS.items()}
"""The figure each scenario's leaderboard ranks by (its spec's ``headline``)."""
_UNKNOWN = sorted({f for s in SPECS.values() for f in (*s.figures, s.headline)} - set(BY_NAME))
if _UNKNOWN:
    raise ValueError(f"scenario modules name figures metrics does not define: {_UNKNOWN}")


def for_scenario(scenario: str) -> list[Metric]:
    """The figures ``scenario`` has, in :data:`METRICS` order."""
    return [m for m in METRICS if scenario in m.scenarios]


def values(metric: Metric, samples: list[Sample]) -> list[float]:
    """``metric``'s values in ``samples`` (those that have one), in order."""
    found = (metric.of(s) for s in samples)
    return [v for v in found if v is not None]


def by_process(metric: Metric, samples: list[Sample]) -> list[list[float]]:
    """``metric``'s values in ``samples`` grouped by server process
    (:data:`wsbench.results.stats.Groups`): group ``r`` holds process ``r``'s values, in
    order, for every index from 0 to the highest process index with a value (a process
    without one has an empty group, so that round ``r`` of an interleaved measurement stays
    group ``r``); ``[]`` when no sample has the figure."""
    groups: dict[int, list[float]] = {}
    for s in samples:
        v = metric.of(s)
        if v is not None:
            groups.setdefault(s.process, []).append(v)
    if not groups:
        return []
    return [groups.get(r, []) for r in range(max(groups) + 1)]
