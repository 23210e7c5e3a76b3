"""One benchmark of a run document as the site shows it: a :class:`Row` of figures with
their spread.

Every figure comes from the benchmark's usable samples (ok and not disturbed,
:meth:`wsbench.results.runformat.Benchmark.usable`) through :mod:`wsbench.results.metrics`
(what a figure is) and :mod:`wsbench.results.stats`: the headline, throughput and latency
over the server processes (each process reduced to the geometric mean of its windows; the
figure is the geometric mean of the processes' values, with its 95 % interval and spread:
:func:`summary_of`), the rest as medians over the windows (:func:`median_of`). A row has a
figure when its scenario's headline (:data:`wsbench.results.metrics.SCENARIO_HEADLINES`:
messages/s, connections/s, memory per connection or RSS growth) is measured; errors (failed
connections and lost messages, by kind) are counted over all its usable windows
(:func:`error_counts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from wsbench.results import metrics, stats
from wsbench.results.metrics import Metric, client_bound
from wsbench.results.runformat import Benchmark, InstructionSet, Sample, Status, all_disturbed

NO_FIGURE = "no messages/s figure recorded"
"""The reason shown for an ok benchmark whose usable samples have no throughput (in a
scenario ranked by messages/s; the others name their own figure, :func:`no_figure`)."""

MESSAGES = metrics.BY_NAME["messages_per_s"]
LATENCY_P50 = metrics.BY_NAME["latency_p50"]
LATENCY_P99 = metrics.BY_NAME["latency_p99"]


@lru_cache(maxsize=4096)
def _summarize(groups: stats.FrozenGroups) -> stats.Summary:
    return stats.summarize(groups)


def summary_of(metric: Metric, samples: tuple[Sample, ...]) -> stats.Summary | None:
    """``metric``'s :func:`wsbench.results.stats.summarize` over ``samples`` grouped by
    server process (in the metric's unit), None when no sample has the figure. Cached: the
    same values are summarized once."""
    found = metrics.by_process(metric, list(samples))
    return _summarize(stats.frozen(found)) if found else None


def median_of(metric: Metric, samples: tuple[Sample, ...]) -> float | None:
    """``metric``'s median over the windows ``samples`` (:func:`wsbench.results.stats.median`),
    None when no sample has the figure: the site's secondary figures (bytes/s, CPU, RSS,
    the load generator's CPU)."""
    found = metrics.values(metric, list(samples))
    return stats.median(found) if found else None


def headline_of(scenario: str) -> Metric:
    """The figure ``scenario``'s leaderboard ranks by
    (:data:`wsbench.results.metrics.SCENARIO_HEADLINES`; messages/s for a scenario it does not
    name)."""
    return metrics.SCENARIO_HEADLINES.get(scenario, MESSAGES)


def no_figure(metric: Metric) -> str:
    """Why an ok benchmark without ``metric`` in any usable sample has no row figure, e.g.
    :data:`NO_FIGURE` or ``"no memory per connection figure recorded"``."""
    return NO_FIGURE if metric is MESSAGES else f"no {metric.label} figure recorded"


def error_counts(samples: tuple[Sample, ...]) -> dict[str, int] | None:
    """Failed connections and lost messages by kind (``Sample.errors``), summed over
    ``samples``, kinds with a zero total left out: e.g. ``{"timeout": 90, "closed_early":
    3}``; ``{}`` when the samples recorded errors and none occurred; None when no sample
    recorded errors (a scenario without many connections)."""
    recorded = [s.errors for s in samples if s.errors is not None]
    if not recorded:
        return None
    totals: dict[str, int] = {}
    for errors in recorded:
        for kind, count in errors.items():
            totals[kind] = totals.get(kind, 0) + count
    return {kind: count for kind, count in totals.items() if count}


Params = tuple[tuple[str, int], ...]
"""A parameter set as ``(name, value)`` pairs in the benchmark's order, e.g.
``(("size_bytes", 16), ("in_flight", 64))``."""


@dataclass(frozen=True)
class Row:
    """One benchmark (one environment, scenario and parameter set) as the site shows it.

    Attributes:
        scenario: one of :data:`wsbench.scenarios.SCENARIOS`.
        params: the parameter set (see :data:`Params`).
        status: ``"ok"``, or ``"failed"`` with ``error`` (the benchmark failed, or every
            window was disturbed: :func:`~wsbench.results.runformat.all_disturbed`, which
            says what its windows read).
        error: why it failed, or None.
        samples: the usable samples the figures come from (empty when failed).
        disturbed: how many windows were disturbed and left out.
        figure: the scenario's headline figure (:func:`headline_of`, in its metric's unit):
            over server processes, its value, 95 % interval, processes, cv, unstable
            (:func:`wsbench.results.stats.summarize`); None when failed.
        messages_per_s: messages/s, the same (None in the scenarios without messages:
            connect, memory).
        latency_p50_s: round-trip latency p50, seconds (round-trip scenarios; else None).
        latency_p99_s: round-trip latency p99, seconds (round-trip scenarios; else None).
        bytes_per_s: payload bytes/s, the median over the windows.
        server_cpu_percent: server CPU, percent of one core, the median over the windows.
        server_rss_bytes: server peak RSS, bytes, the median over the windows.
        loadgen_cpu_percent: load generator CPU, percent of one core, the median over the
            windows.
        client_bound: that median load generator CPU is above 80 % of its CPUs
            (:func:`wsbench.results.metrics.client_bound`): the client may have limited the
            figure.
        instructions: the server's instruction counts at this scenario and parameter set
            from the same run document (:mod:`wsbench.instrument.instructions`), or None when that
            run did not count them.
    """

    scenario: str
    params: Params
    status: Status
    error: str | None = None
    samples: tuple[Sample, ...] = ()
    disturbed: int = 0
    figure: stats.Summary | None = None
    messages_per_s: stats.Summary | None = None
    latency_p50_s: stats.Summary | None = None
    latency_p99_s: stats.Summary | None = None
    bytes_per_s: float | None = None
    server_cpu_percent: float | None = None
    server_rss_bytes: float | None = None
    loadgen_cpu_percent: float | None = None
    client_bound: bool = False
    instructions: InstructionSet | None = None

    @property
    def ok(self) -> bool:
        """True when the row has figures."""
        return self.status == "ok"

    @property
    def n(self) -> int:
        """How many samples (windows) the figures come from."""
        return len(self.samples)

    @property
    def processes(self) -> int:
        """How many server processes the figures come from (the unit of replication)."""
        return len({s.process for s in self.samples})

    @property
    def cv(self) -> float | None:
        """Coefficient of variation of messages/s over the server processes (a fraction),
        None with one process."""
        return self.messages_per_s.cv if self.messages_per_s else None

    @property
    def unstable(self) -> bool:
        """messages/s varies too much between server processes (``cv`` above 10 %, pyperf's
        rule)."""
        return bool(self.messages_per_s and self.messages_per_s.unstable)

    def summary(self, metric: Metric) -> stats.Summary | None:
        """Any metric's summary over this row's samples (see :func:`summary_of`)."""
        return summary_of(metric, self.samples)

    def values(self, metric: Metric) -> list[float]:
        """``metric``'s value in each of this row's samples, in the metric's unit."""
        return metrics.values(metric, list(self.samples))

    def groups(self, metric: Metric) -> list[list[float]]:
        """``metric``'s values grouped by server process
        (:func:`wsbench.results.metrics.by_process`), in the metric's unit."""
        return metrics.by_process(metric, list(self.samples))


def counts_of(benchmark: Benchmark, counted: Sequence[InstructionSet]) -> InstructionSet | None:
    """The set of ``counted`` (a run document's ``instructions``) with ``benchmark``'s
    scenario and parameter set, or None."""
    return next(
        (s for s in counted if s.scenario == benchmark.scenario and s.params == benchmark.params),
        None,
    )


def row_of(
    benchmark: Benchmark, counted: Sequence[InstructionSet] = (), loadgen_cpus: int = 1
) -> Row:
    """The row of one benchmark of a run document, with the instruction counts of the same
    document (``counted``: its ``instructions``) at its parameter set when it has them;
    ``loadgen_cpus``: how many CPUs its load generator ran on (``settings.loadgen_cpus``),
    for the client-bound flag."""
    params = tuple((k, v) for k, v in benchmark.params.items())
    counts = counts_of(benchmark, counted)
    disturbed = sum(1 for s in benchmark.samples if s.status == "ok" and s.disturbed)
    if benchmark.status != "ok":
        error = benchmark.error or "failed (no reason recorded)"
        return Row(
            benchmark.scenario, params, "failed", error, disturbed=disturbed, instructions=counts
        )
    usable = tuple(benchmark.usable())
    if not usable:
        return Row(
            benchmark.scenario, params, "failed", all_disturbed(benchmark),
            disturbed=disturbed, instructions=counts,
        )  # fmt: skip
    headline = headline_of(benchmark.scenario)
    figure = summary_of(headline, usable)
    if figure is None:
        return Row(
            benchmark.scenario, params, "failed", no_figure(headline), disturbed=disturbed,
            instructions=counts,
        )  # fmt: skip
    loadgen_cpu = median_of(metrics.BY_NAME["loadgen_cpu_percent"], usable)
    return Row(
        benchmark.scenario,
        params,
        "ok",
        samples=usable,
        disturbed=disturbed,
        figure=figure,
        messages_per_s=summary_of(MESSAGES, usable),
        latency_p50_s=summary_of(LATENCY_P50, usable),
        latency_p99_s=summary_of(LATENCY_P99, usable),
        bytes_per_s=median_of(metrics.BY_NAME["bytes_per_s"], usable),
        server_cpu_percent=median_of(metrics.BY_NAME["server_cpu_percent"], usable),
        server_rss_bytes=median_of(metrics.BY_NAME["server_rss_bytes"], usable),
        loadgen_cpu_percent=loadgen_cpu,
        client_bound=client_bound(loadgen_cpu, loadgen_cpus),
        instructions=counts,
    )
