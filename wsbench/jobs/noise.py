"""The noise study (``./bench noise``): how much a figure varies between windows of one server
process and between fresh server processes, per scenario and size, at given window lengths.

It samples the chosen servers at every parameter set of both scenarios with a generous plan
(default 4 processes x 3 windows), keeps every sample as run documents under ``--output``
(not in the results store: a study is not a published run), and prints one row per
(server, window length, scenario, parameter set):

- **within**: the spread between windows of one process, pooled over the processes: the
  square root of the mean within-process variance, over the grand mean;
- **between**: the standard deviation of the process means over the grand mean (it also
  carries the within-process noise divided by the windows per process);
- **all**: the coefficient of variation of every sample together;
- **median of plan**: the predicted coefficient of variation of the published median under
  the default plan, ``sqrt(between_var / P + within_var / (P * W))`` with the plan's P and
  W, over the grand mean (a mean's variance; a median's is of the same order).

The Methodology page reports the study that chose :class:`wsbench.instrument.sampling.SamplingPlan`.
The options are :class:`NoiseOptions` (the command line is :mod:`wsbench.commands.noise`'s).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.impls import get_impl
from wsbench.instrument import provenance
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.sampling import SamplingPlan, sample_scenario
from wsbench.paths import REPO_ROOT
from wsbench.results import store
from wsbench.results.runformat import Benchmark, Run
from wsbench.scenarios import Scenario, params_label, spec

NOISE_SCENARIOS: tuple[Scenario, ...] = ("echo", "stream")
"""The scenarios the noise study covers (the sampling plan was derived from them)."""
DEFAULT_SERVERS = ("websockets:asyncio", "aiohttp:uvloop")
"""A typical and a fast Python server."""
DEFAULT_OUTPUT = REPO_ROOT / "noise"
DEFAULT_WINDOW_LENGTHS_S = (0.5, 1.0)
"""The window lengths studied unless others are asked for, seconds."""
DEFAULT_PLAN = SamplingPlan(processes=4, windows_per_process=3)
"""The study's generous plan (4 processes x 3 windows; the window length is each of the
lengths studied)."""


@dataclass(frozen=True)
class NoiseOptions:
    """What the noise study samples (``./bench noise``'s options, :mod:`wsbench.commands.noise`).

    Attributes:
        servers: ``IMPL[:CONFIG]`` of each server studied (no configuration: its first).
        window_lengths_s: the window lengths studied, seconds; each is measured with the
            plan, as its ``window_s``.
        plan: processes, windows per process and warm-up (seconds) of each window length's
            sampling (its ``window_s`` is replaced by each of ``window_lengths_s``).
        scenarios: the scenarios, each at every parameter set of the full grid.
        output: where the run documents go (a folder of the store's layout, not the store).
        machine: the machine's name in the documents.
    """

    servers: Sequence[str] = DEFAULT_SERVERS
    window_lengths_s: Sequence[float] = DEFAULT_WINDOW_LENGTHS_S
    plan: SamplingPlan = DEFAULT_PLAN
    scenarios: Sequence[Scenario] = NOISE_SCENARIOS
    output: Path = DEFAULT_OUTPUT
    machine: str = "wsbench-local"


@dataclass(frozen=True)
class Spread:
    """The variation of one benchmark's messages/s.

    Attributes:
        mean: grand mean of the usable samples, messages/s.
        within: pooled within-process standard deviation / mean.
        between: standard deviation of the process means / mean.
        overall: standard deviation of all samples / mean.
        processes: processes with at least two usable samples.
        samples: usable samples.
    """

    mean: float
    within: float
    between: float
    overall: float
    processes: int
    samples: int

    def median_cv(self, processes: int, windows: int) -> float:
        """The predicted coefficient of variation of a figure from ``processes`` x
        ``windows`` samples (see the module's docstring)."""
        var = (self.between**2) / processes + (self.within**2) / (processes * windows)
        return math.sqrt(var)


def spread(benchmark: Benchmark) -> Spread | None:
    """The spread of ``benchmark``'s usable messages/s samples, or None with fewer than two
    processes of two samples each."""
    by_process: dict[int, list[float]] = {}
    for s in benchmark.usable():
        if s.messages_per_s is not None:
            by_process.setdefault(s.process, []).append(s.messages_per_s)
    groups = [v for v in by_process.values() if len(v) >= 2]
    if len(groups) < 2:
        return None
    every = [x for g in groups for x in g]
    mean = statistics.fmean(every)
    within = math.sqrt(statistics.fmean(statistics.variance(g) for g in groups))
    between = statistics.stdev(statistics.fmean(g) for g in groups)
    return Spread(
        mean=mean,
        within=within / mean,
        between=between / mean,
        overall=statistics.stdev(every) / mean,
        processes=len(groups),
        samples=len(every),
    )


def table(runs: Sequence[Run], plan: SamplingPlan) -> str:
    """The study's table (Markdown) for ``runs``, predicted CVs for ``plan``."""
    head = (
        f"| server | window | scenario | messages/s | within | between | all | "
        f"median of {plan.processes}x{plan.windows_per_process} |\n"
        "|---|---:|---|---:|---:|---:|---:|---:|"
    )
    lines = [head]
    for run in runs:
        for bench in run.benchmarks:
            s = spread(bench)
            cells = [run.impl.row_name, f"{run.settings.window_s:g} s"]
            cells.append(f"{bench.scenario} {params_label(bench.params)}")
            if s is None:
                cells += [bench.error or "too few samples", "", "", "", ""]
            else:
                cells += [
                    f"{s.mean:,.0f}",
                    f"{100 * s.within:.1f} %",
                    f"{100 * s.between:.1f} %",
                    f"{100 * s.overall:.1f} %",
                    f"{100 * s.median_cv(plan.processes, plan.windows_per_process):.1f} %",
                ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(options: NoiseOptions) -> int:
    """Run the study (see :class:`NoiseOptions`); prints the table and where the documents
    are. Exit code 0.

    Raises:
        wsbench.impls.ImplError: an unknown implementation or configuration.
    """
    placement = placement_from(None, None)
    run_id = store.new_run_id()
    runs: list[Run] = []
    for server in options.servers:
        name, _, config_id = server.partition(":")
        impl = get_impl(name)
        config = impl.config(config_id or None)
        for window_s in options.window_lengths_s:
            plan = dataclasses.replace(options.plan, window_s=window_s)
            benchmarks: list[Benchmark] = []
            for scenario in options.scenarios:
                print(f"noise: {impl.row_name(config)} {window_s:g} s {scenario}", file=sys.stderr)
                benchmarks += sample_scenario(
                    impl,
                    config.id,
                    scenario,
                    spec(scenario).grid("full"),
                    plan,
                    placement=placement,
                )
            doc = provenance.new_run(
                run_id=f"{run_id}-w{window_s:g}",
                machine_name=options.machine,
                settings=plan.settings(placement, 1),
                impl=impl,
                config=config,
                env_name=f"{impl.name}-{config.id}",
                benchmarks=benchmarks,
            )
            store.save(doc, options.output)
            runs.append(doc)
    print(table(runs, SamplingPlan()))
    print(f"\nnoise: samples in {options.output / options.machine}/{run_id}-w*/")
    return 0
