"""The noise study (``./bench noise``): how a figure's variance splits between server
processes and windows of one process, and the sampling plan that follows
(:mod:`wsbench.results.variance`, Kalibera & Jones's two-level model).

It samples the chosen servers at every parameter set of the chosen scenarios with a generous
plan (default 4 processes x 3 windows), keeps every sample as run documents under
``--output`` (not in the results store: a study is not a published run), measures what a
server process costs (starting it until its first handshake, and stopping it) and what a
window costs (its warm-up and window, with the load generator's start), and prints one row
per (server, window length, scenario, parameter set, figure): see :func:`table`.
``--documents DIR`` reads the documents of an earlier study (or of any run, e.g. an
interleaved comparison's) instead of measuring; the costs are then given
(``--process-cost``, ``--window-cost``).

The Methodology page reports the study that chose
:class:`wsbench.instrument.sampling.SamplingPlan` and the main job's plan. The options are
:class:`NoiseOptions` (the command line is :mod:`wsbench.commands.noise`'s).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.impls import Impl, get_impl
from wsbench.instrument import provenance
from wsbench.instrument.cpus import CpuPlacement, placement_from
from wsbench.instrument.measure import MeasureConfig, ServerSession
from wsbench.instrument.sampling import SamplingPlan, sample_scenario
from wsbench.paths import REPO_ROOT
from wsbench.results import metrics, store, variance
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
FIGURES = ("messages_per_s", "latency_p50", "latency_p99")
"""The figures whose variance is studied (names in :data:`wsbench.results.metrics.BY_NAME`)."""
HALF_WIDTHS = (0.05, 0.10)
"""The interval half-widths the plans are given for, on the log scale (about ± 5 % and
± 10 %)."""
COST_STARTS = 3
"""Server starts timed per server to measure the cost of a process."""


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
        documents: read the documents under this folder instead of measuring (None:
            measure).
        process_cost_s: with ``documents``, what starting and stopping a server costs,
            seconds.
        window_cost_s: with ``documents``, what one window costs, seconds (None: the
            documents' warm-up plus window).
        sets_per_process: the parameter sets one server process serves in the plan being
            derived (its cost is shared by them); None: the sets of the study's documents.
    """

    servers: Sequence[str] = DEFAULT_SERVERS
    window_lengths_s: Sequence[float] = DEFAULT_WINDOW_LENGTHS_S
    plan: SamplingPlan = DEFAULT_PLAN
    scenarios: Sequence[Scenario] = NOISE_SCENARIOS
    output: Path = DEFAULT_OUTPUT
    machine: str = "wsbench-local"
    documents: Path | None = None
    process_cost_s: float | None = None
    window_cost_s: float | None = None
    sets_per_process: int | None = None


@dataclass(frozen=True)
class Costs:
    """What the levels of a plan cost, seconds.

    Attributes:
        process_s: starting a server until its first handshake, and stopping it.
        window_s: one window: its warm-up and window, with the load generator's start.
    """

    process_s: float
    window_s: float


def measure_costs(impl: Impl, config_id: str, placement: CpuPlacement, plan: SamplingPlan) -> Costs:
    """The median of :data:`COST_STARTS` timed server starts and stops of ``impl``, and of
    as many timed echo windows (16 B, 64 in flight) of ``plan``'s warm-up and window."""
    starts, windows = [], []
    config = MeasureConfig(
        impl=impl.name, scenario="echo", size_bytes=16, in_flight=64,
        warmup_s=plan.warmup_s, duration_s=plan.window_s,
    )  # fmt: skip
    for _ in range(COST_STARTS):
        begun = time.perf_counter()
        session = ServerSession(impl, config_id, placement=placement)
        with session:
            ready = time.perf_counter()
            session.run(config)
            measured = time.perf_counter()
        stopped = time.perf_counter()
        windows.append(measured - ready)
        starts.append((ready - begun) + (stopped - measured))
    return Costs(statistics.median(starts), statistics.median(windows))


def groups_of(bench: Benchmark, figure: str) -> list[list[float]]:
    """``figure``'s usable values in ``bench`` grouped by server process (non-empty groups)."""
    grouped = metrics.by_process(metrics.BY_NAME[figure], bench.usable())
    return [g for g in grouped if g]


def _percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def _plan_cell(plan: variance.Plan | None) -> str:
    return f"{plan.processes}x{plan.windows} ({plan.seconds:.0f} s)" if plan else "none"


def table(runs: Sequence[Run], costs: Costs, sets_per_process: int | None = None) -> str:
    """The study's table (Markdown): per (server, window length, parameter set, figure of
    :data:`FIGURES`), pooled over the documents that measured it
    (:func:`wsbench.results.variance.pooled`), the figure's variance components
    (:func:`wsbench.results.variance.components`: **within** a process, **between**
    processes, the share between), Kalibera & Jones's **optimal windows** per process for
    ``costs`` (a process's cost shared by the ``sets_per_process`` parameter sets it serves;
    default each document's sets), and the cheapest plans for a 95 % interval of about ± 5 %
    and ± 10 % (:func:`wsbench.results.variance.best_plan`; the seconds are one parameter
    set's share)."""
    head = (
        "| server | window | benchmark | figure | processes | within | between | "
        "between share | optimal windows | ± 5 % | ± 10 % |\n"
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    parts: dict[tuple[str, ...], list[variance.Components]] = {}
    shared: dict[tuple[str, ...], int] = {}
    errors: dict[tuple[str, ...], str] = {}
    for run in runs:
        for bench in run.benchmarks:
            for figure in FIGURES:
                if bench.scenario not in metrics.BY_NAME[figure].scenarios:
                    continue
                key = (run.impl.row_name, f"{run.settings.window_s:g} s",
                       f"{bench.scenario} {params_label(bench.params)}", figure)  # fmt: skip
                found = variance.components(groups_of(bench, figure))
                parts.setdefault(key, [])
                if found is not None:
                    parts[key].append(found)
                elif bench.error:
                    errors.setdefault(key, bench.error.splitlines()[0])
                shared.setdefault(key, sets_per_process or max(1, len(run.benchmarks)))
    lines = [head]
    for row, studies in parts.items():
        c = variance.pooled(studies)
        if c is None:
            why = errors.get(row, "fewer than 2 processes with 2 windows")
            lines.append("| " + " | ".join([*row, why]) + " |")
            continue
        process_cost = costs.process_s / shared[row]
        best = variance.optimal_windows(c, process_cost, costs.window_s)
        plans = [
            variance.best_plan(c, process_cost_s=process_cost, window_cost_s=costs.window_s,
                               half_width=h)
            for h in HALF_WIDTHS
        ]  # fmt: skip
        cells = [
            *row,
            str(c.processes),
            _percent(c.within),
            _percent(c.between),
            _percent(c.share_between),
            "∞" if best == float("inf") else f"{best:.1f}",
            *(_plan_cell(p) for p in plans),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _measure(options: NoiseOptions) -> tuple[list[Run], Costs]:
    placement = placement_from(None, None)
    run_id = store.new_run_id()
    runs: list[Run] = []
    costs: list[Costs] = []
    for server in options.servers:
        name, _, config_id = server.partition(":")
        impl = get_impl(name)
        config = impl.config(config_id or None)
        print(f"noise: {impl.row_name(config)}: timing server starts", file=sys.stderr)
        costs.append(measure_costs(impl, config.id, placement, options.plan))
        for window_s in options.window_lengths_s:
            plan = dataclasses.replace(options.plan, window_s=window_s)
            benchmarks: list[Benchmark] = []
            for scenario in options.scenarios:
                print(f"noise: {impl.row_name(config)} {window_s:g} s {scenario}", file=sys.stderr)
                benchmarks += sample_scenario(
                    impl, config.id, scenario, spec(scenario).grid("full"), plan,
                    placement=placement,
                )  # fmt: skip
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
    print(f"\nnoise: samples in {options.output / options.machine}/{run_id}-w*/", file=sys.stderr)
    process = statistics.median(c.process_s for c in costs)
    window = statistics.median(c.window_s for c in costs)
    return runs, Costs(process, window)


class NoiseError(ValueError):
    """The study cannot run as asked (no documents in the folder, a cost missing)."""


def _read(options: NoiseOptions) -> tuple[list[Run], Costs]:
    assert options.documents is not None
    found = store.load_store(options.documents)
    if found.problems:
        raise NoiseError("; ".join(found.problems))
    if not found.runs:
        raise NoiseError(f"no run document under {options.documents}/MACHINE/RUN_ID/")
    if options.process_cost_s is None:
        raise NoiseError("--documents needs --process-cost (seconds a server start costs)")
    first = found.runs[0].settings
    window = options.window_cost_s or first.warmup_s + first.window_s
    return found.runs, Costs(options.process_cost_s, window)


def run(options: NoiseOptions) -> int:
    """Run the study (see :class:`NoiseOptions`); prints the costs and the table. Exit code
    0.

    Raises:
        wsbench.impls.ImplError: an unknown implementation or configuration.
        NoiseError: ``documents`` has no document, or one that cannot be read, or no
            process cost was given with it.
    """
    runs, costs = _read(options) if options.documents else _measure(options)
    print(
        f"costs: a server process {costs.process_s:.2f} s (start to first handshake, and "
        f"stop), a window {costs.window_s:.2f} s (warm-up, window, load generator start)\n"
    )
    print(table(runs, costs, options.sets_per_process))
    return 0
