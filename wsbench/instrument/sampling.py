"""Samples: every parameter set measured in several windows, in several fresh server
processes (pyperf's worker-process model), each window checked for interference.

One server process serves every parameter set of every scenario asked for in turn (memory
has a server of its own: :func:`process_groups`; starting a server costs more than a
window), ``windows_per_process`` windows each; ``processes`` such rounds run one after
another. Variation between processes
is real (memory layout, hash seeds, the kernel's placement), so the samples of one process
alone would understate the spread.

A window is **disturbed** when, over the window, everything other than the server and the
load generator used more than ``max_other_cpu_percent`` of one core on the measured CPUs,
or the hypervisor stole more than ``max_steal_percent``. A disturbed window is kept in the
results and marked; statistics use only the windows that are not disturbed. A window
disturbed by other work is measured again at once (at most ``retries`` times per parameter
set and process): that work is the machine's own and passes. One disturbed by steal time
alone is not measured again at once: the steal comes from the host's other virtual machines
and lasts, so measuring again at once only lengthens the run. On 2026-11-26, over the first
8 configurations of a main job on a 2-core virtual machine, 182 of 259 windows had more
than 5 % steal (up to 87 %), and 108 of the 132 windows measured again after one were
disturbed again.

**Waited retries.** A parameter set that would end with no usable window at all (every
window of every process so far disturbed, by steal or by other work after the immediate
retries) is measured again in its last server process after a wait, up to
``waited_retries`` more windows, stopping at the first usable one. The waits double from
``first_wait_s`` (:data:`wsbench.results.runformat.WAIT_GROWTH`): 1, 2 and 4 s by default,
so at most 3 more windows and 7 s of waiting per parameter set (and so per process: only
the last one waits), plus those windows' own time (0.75 s each by default): 9.25 s at
most. :meth:`SamplingPlan.waits` is the schedule; the run document records it
(``settings.waited_retries``, ``settings.first_wait_s``) and each wait (``waited_s`` of the
window measured after it). The whole run's waited retries also share one budget,
``wait_budget_s`` (90 s by default, :mod:`wsbench.instrument.waitbudget`): once it is spent,
a set due a waited retry is not measured again, and says so (``waits_skipped``).

Why: in a local nightly (issue 29, item 9) every window of the offered-load sets on the
reference was disturbed (steal read 8-48 % of the measured CPUs while they were 12-40 %
busy; minutes later the same load read 0-1 %), and those figures were lost for the night:
the host's busy spells pass, but not within a window or two. Why only then, and so
little: a set with one usable window has its figure (the median, with a wider interval),
and the main job must stay within its 30-minute budget (27.5 min on this 2-core virtual
machine, where steal is sometimes heavy) over 294 parameter sets (42 configurations of the
default grid). So the waits go only to sets that would otherwise be lost, and a busy spell
costs at most about its own length plus one set's waits: the sets after it need none. The
per-set bound alone is not enough: a night disturbed from start to end would spend 9.25 s
on each of those 294 sets (45 min) and still have no figure, and in a steal-heavy hour here
181 waited windows took a main job 6 min over its budget; so the run's budget bounds them
all (:mod:`wsbench.instrument.waitbudget` gives the figures). A set that ends with no usable
window says what its windows read (:func:`wsbench.results.runformat.all_disturbed`: the
steal and other-work ranges, the windows and the waits), in the log and wherever its row
is shown.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from wsbench import loadreport
from wsbench.deployment import PROFILES, Profile, TlsFiles, profile_of
from wsbench.impls import NOT_SUPPORTED, Impl, ImplConfig
from wsbench.instrument.cpus import CpuPlacement, open_files_limit
from wsbench.instrument.measure import MeasureConfig, Measurement, ServerSession, seconds_summary
from wsbench.instrument.waitbudget import WaitBudget
from wsbench.results import runformat
from wsbench.results.runformat import Benchmark, Latency, Sample, Settings, Spread, all_disturbed
from wsbench.scenarios import Params, Scenario, spec


@dataclass(frozen=True)
class SamplingPlan:
    """How many samples, how long, and when a sample counts as disturbed.

    The defaults come from the noise study on the Methodology page (``./bench noise``):
    6 server processes of 1 window each, the full grid's, the comparisons' and (as rounds)
    ``./bench compare``'s. The unit of replication is the server process
    (:mod:`wsbench.results.stats`), and on this machine a window varies within its process
    about as much as processes vary (the Methodology page's "Variance components and the
    plans", from ``./bench noise``), while a server's start is shared by the many parameter
    sets it serves:
    Kalibera & Jones's optimal windows per process, ``sqrt(process cost / window cost x
    within^2 / between^2)`` (:func:`wsbench.results.variance.optimal_windows`), is then at or
    below 1, and the same 6 windows as 3 processes x 2 give Student's t 5 degrees of freedom
    instead of 2 (an interval about 40 % narrower at the same cost, 3 more server starts per
    environment). The main job's default grid takes 3 processes x 1 window
    (:data:`wsbench.scenarios.DEFAULT_GRID_PROCESSES`) to stay within its budget.

    Attributes:
        processes: fresh server processes per scenario.
        windows_per_process: windows per parameter set in each process.
        warmup_s: seconds of traffic before each window (not counted).
        window_s: length of each measurement window, seconds.
        max_other_cpu_percent: above this (percent of one core, summed over the measured
            CPUs), a window is disturbed.
        max_steal_percent: above this steal time, a window is disturbed.
        retries: how often a window disturbed by other work (not by steal time alone) is
            measured again at once, per parameter set and server process.
        waited_retries: how many more windows a parameter set with no usable window is
            measured in its last server process, each after a wait (:meth:`waits`).
        first_wait_s: the first of those waits, seconds; each next one doubles
            (:data:`wsbench.results.runformat.WAIT_GROWTH`).
        wait_budget_s: seconds the waited retries of a whole run may take together, each
            costing its wait plus ``warmup_s + window_s``
            (:mod:`wsbench.instrument.waitbudget`). 90 s: an undisturbed main job takes
            about 23 min here (1,373 s from a clean clone on 2026-11-29; 1,647 to 1,693 s
            before asv stopped forking a process for each combination outside the grid),
            and its budget is 30 min.
    """

    processes: int = 6
    windows_per_process: int = 1
    warmup_s: float = 0.25
    window_s: float = 0.5
    max_other_cpu_percent: float = 10.0
    max_steal_percent: float = 5.0
    retries: int = 2
    waited_retries: int = 3
    first_wait_s: float = 1.0
    wait_budget_s: float = 90.0

    def waits(self) -> tuple[float, ...]:
        """The waits before each waited retry, seconds: ``first_wait_s`` doubling
        (:func:`wsbench.results.runformat.waits`; by default 1, 2 and 4 s, 7 s in all; the
        module's docstring says why)."""
        return runformat.waits(self.first_wait_s, self.waited_retries)

    def settings(self, placement: CpuPlacement, connections: int) -> Settings:
        """The run format's settings for this plan."""
        return Settings(
            warmup_s=self.warmup_s,
            window_s=self.window_s,
            processes=self.processes,
            windows_per_process=self.windows_per_process,
            connections=connections,
            server_cpus=tuple(placement.server),
            loadgen_cpus=tuple(placement.loadgen),
            multi_server_cpus=tuple(placement.multi_server),
            open_files=open_files_limit(),
            max_other_cpu_percent=self.max_other_cpu_percent,
            max_steal_percent=self.max_steal_percent,
            retries=self.retries,
            waited_retries=self.waited_retries,
            first_wait_s=self.first_wait_s,
            wait_budget_s=self.wait_budget_s,
        )

    def validate(self) -> None:
        """Raise ValueError naming the first setting out of range."""
        if self.processes < 1 or self.windows_per_process < 1:
            raise ValueError("processes and windows per process must be at least 1")
        if self.warmup_s < 0 or self.window_s <= 0:
            raise ValueError("the warm-up must be >= 0 s and the window > 0 s")
        if self.retries < 0 or self.waited_retries < 0:
            raise ValueError("retries must be >= 0")
        if self.first_wait_s < 0:
            raise ValueError("the first wait must be >= 0 s")
        if self.wait_budget_s < 0:
            raise ValueError("the wait budget must be >= 0 s")


AfterSet = Callable[[ServerSession, MeasureConfig, Sequence[Sample]], None]
"""What :func:`sample_scenarios` calls after a parameter set's windows in the last process:
the running server, the set's configuration and the samples this process took of it."""


def to_sample(m: Measurement, *, process: int, window: int, plan: SamplingPlan) -> Sample:
    """One window's measurement as a sample, with its interference figures and verdict."""
    if m.status != "ok" or m.report is None:
        return Sample(process=process, window=window, status="failed", error=m.error)
    report = m.report
    latency = m.latency_s
    server_cpu = m.server.cpu_percent if m.server else None
    loadgen_cpu = m.loadgen_cpu_percent
    other = steal = None
    activity = m.cpu_activity
    if activity is not None and activity.wall_s > 0:
        busy = 100.0 * activity.busy_s / activity.wall_s
        other = round(busy - (server_cpu or 0.0) - (loadgen_cpu or 0.0), 1)
        steal = round(100.0 * activity.steal_s / activity.wall_s, 1)
    disturbed = (other is not None and other > plan.max_other_cpu_percent) or (
        steal is not None and steal > plan.max_steal_percent
    )
    defined = spec(m.config.scenario)
    fanout = report.fanout
    orders = fanout.orders if fanout else None
    agreed = report.deflate if report.deflate and report.deflate.agreed else None
    tls = report.tls
    agreed_tls = (
        " ".join(part for part in (tls.version, tls.cipher_suite, tls.key_exchange) if part)
        if tls
        else ""
    )
    return Sample(
        process=process,
        window=window,
        status="ok",
        messages_per_s=m.messages_per_s,
        bytes_per_s=report.bytes_per_s,
        messages_received=report.messages_received,
        window_s=report.window_s,
        latency_s=Latency(**latency) if latency else None,
        server_cpu_percent=server_cpu,
        server_kernel_cpu_percent=m.server.kernel_cpu_percent if m.server else None,
        server_rss_bytes=m.server.rss_bytes if m.server else None,
        loadgen_cpu_percent=loadgen_cpu,
        other_cpu_percent=other,
        steal_percent=steal,
        disturbed=disturbed,
        connections_ok=defined.connections_ok(report),
        connections_per_s=report.connections_per_s,
        handshake_s=_summary_s(report.handshake_us),
        per_connection_messages_per_s=_spread(report.per_connection_messages_per_s),
        errors=_errors(report) if defined.many_connections else None,
        rss_idle_bytes=m.rss_idle_bytes,
        rss_held_bytes=m.rss_held_bytes,
        memory_steps=m.memory_steps,
        server_rss_growth_bytes=(
            m.server.rss_growth_bytes
            if m.server and "server_rss_growth_bytes" in defined.figures
            else None
        ),
        offered_per_s=report.config.rate_per_s,
        published_per_s=fanout.published_per_s if fanout else None,
        last_delivery_s=_summary_s(fanout.last_latency_us if fanout else None),
        order_round_trip_s=_summary_s(orders.round_trip_us if orders else None),
        orders_per_s=orders.acked_per_s if orders else None,
        deflate=agreed.agreed if agreed else None,
        wire_bytes=agreed.sent_wire_bytes + agreed.received_wire_bytes if agreed else None,
        payload_bytes=(
            agreed.sent_payload_bytes + agreed.received_payload_bytes if agreed else None
        ),
        tls=agreed_tls or None,
        tcp_connect_s=_summary_s(tls.tcp_connect_us) if tls else None,
        tls_handshake_s=_summary_s(tls.handshake_us) if tls else None,
        upgrade_s=_summary_s(tls.upgrade_us) if tls else None,
    )


def disturbed_by_other_work(sample: Sample, plan: SamplingPlan) -> bool:
    """True when other work on the measured CPUs used more than
    ``plan.max_other_cpu_percent`` during ``sample``'s window: the disturbance worth
    measuring again (steal time alone is not, see the module's docstring)."""
    other = sample.other_cpu_percent
    return sample.disturbed and other is not None and other > plan.max_other_cpu_percent


def _summary_s(summary: loadreport.Summary | None) -> Latency | None:
    """A load generator µs summary (``handshake_us``) as percentiles in seconds, or None when
    it holds no value."""
    if summary is None or not summary.count:
        return None
    return Latency(**seconds_summary(summary))


def _spread(spread: loadreport.Spread | None) -> Spread | None:
    if spread is None:
        return None
    return Spread(min=spread.min, median=spread.median, max=spread.max)


def _errors(report: loadreport.Report) -> dict[str, int]:
    """Failed connections by kind, and lost messages (``lost``), from a report."""
    return {**report.errors, "lost": report.integrity.get("lost", 0)}


@dataclass
class _Collected:
    params: Params
    samples: list[Sample] = field(default_factory=list)
    exit_codes: list[int | None] = field(default_factory=list)
    waits_skipped: int = 0

    def benchmark(self, scenario: str) -> Benchmark:
        failed = [s for s in self.samples if s.status == "failed"]
        return Benchmark(
            scenario=scenario,
            params=self.params,
            status="failed" if failed else "ok",
            error=failed[0].error if failed else None,
            samples=list(self.samples),
            server_exit_codes=list(self.exit_codes),
            waits_skipped=self.waits_skipped,
        )


ProgressCallback = Callable[[list[Benchmark]], None]
ScenariosProgress = Callable[[dict[Scenario, list[Benchmark]]], None]


def sample_scenario(
    impl: Impl,
    config_id: str | None,
    scenario: Scenario,
    grid: list[Params],
    plan: SamplingPlan,
    *,
    placement: CpuPlacement,
    connections: int = 1,
    python: str = sys.executable,
    on_progress: ProgressCallback | None = None,
    log: Callable[[str], None] = lambda _: None,
    client: Sequence[str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    budget: WaitBudget | None = None,
) -> list[Benchmark]:
    """Measure ``scenario`` at every parameter set of ``grid`` following ``plan``: the one
    scenario case of :func:`sample_scenarios` (same arguments, ``on_progress`` called with
    this scenario's benchmarks).

    Returns:
        One benchmark per parameter set, in ``grid`` order, with every sample.
    """

    def progress(found: dict[Scenario, list[Benchmark]]) -> None:
        if on_progress is not None:
            on_progress(found[scenario])

    found = sample_scenarios(
        impl, config_id, {scenario: grid}, plan, placement=placement, connections=connections,
        python=python, on_progress=progress, log=log, client=client, sleep=sleep, budget=budget,
    )  # fmt: skip
    return found[scenario]


def process_groups(grids: Mapping[Scenario, list[Params]]) -> list[list[Scenario]]:
    """The scenarios of ``grids`` by server: each sampling process starts one server per
    group, which serves the group's scenarios in this order.

    Memory (the scenarios that hold idle connections) has a server of its own: its idle RSS
    must be a fresh server's (after traffic, the allocator keeps memory that the held
    connections would reuse), and a threaded server is still tearing down the 1,000
    connections it held when the next window starts. The others share one server, those
    that open the fewest connections first (connection setup, which opens and closes them
    all window long, last): a window of 1,000 clients left Flask-SocketIO's threading server
    refusing the next scenario's connections (every broadcast window failed after it, on
    2026-11-26).
    """
    hold = [s for s in grids if not spec(s).windowed]
    rest = sorted(
        (s for s in grids if spec(s).windowed),
        key=lambda s: (spec(s).mode == "connect", max(_opened(s, p) for p in grids[s] or [{}])),
    )
    return [group for group in (hold, rest) if group]


def _opened(scenario: Scenario, params: Params) -> int:
    """Connections a parameter set of ``scenario`` opens at once (clients or subscribers)."""
    fixed = spec(scenario).fixed
    return params.get("connections") or params.get("subscribers") or fixed.get("connections", 1)


def sample_scenarios(
    impl: Impl,
    config_id: str | None,
    grids: Mapping[Scenario, list[Params]],
    plan: SamplingPlan,
    *,
    placement: CpuPlacement,
    connections: int = 1,
    python: str = sys.executable,
    on_progress: ScenariosProgress | None = None,
    log: Callable[[str], None] = lambda _: None,
    client: Sequence[str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    budget: WaitBudget | None = None,
    tls: TlsFiles | None = None,
    after_set: AfterSet | None = None,
) -> dict[Scenario, list[Benchmark]]:
    """Measure every scenario of ``grids`` at each of its parameter sets following ``plan``.

    Each of the ``plan.processes`` sampling processes starts one server per group of
    :func:`process_groups` (memory on its own, the rest together) and deployment profile
    (:mod:`wsbench.deployment`: the profile's flags are the server's), which serves every
    parameter set of its scenarios in turn: a server start costs 0.5 to 2.5 s (importing the
    framework), more than a window, and the main job's default grid has five scenarios.
    A server that dies is replaced by a fresh one for the parameter sets still to come; a
    server that does not start fails every window it was meant to serve, with the reason. A
    scenario the configuration does not support fails once, with the reason its metadata
    gives, and is not run.

    Args:
        impl, config_id: what to run (None: the first configuration).
        grids: parameter sets by scenario, e.g. ``{"echo": [{"size_bytes": 16,
            "in_flight": 1}, ...]}``.
        plan: the sampling plan.
        placement: CPUs of server and load generator.
        connections: WebSocket connections of the load generator, in scenarios whose
            parameters do not set them.
        python: the interpreter that runs a Python server.
        on_progress: called with every benchmark so far, by scenario, after each window (to
            save them).
        log: progress lines.
        client: a client program's command (``clients/``) that drives ``impl`` in the load
            generator's place (:class:`wsbench.instrument.measure.ServerSession`); a fresh client
            process runs every window.
        sleep: waits the given seconds before a waited retry (:meth:`SamplingPlan.waits`;
            tests pass one that does not wait).
        budget: the run's wait budget, shared with the run's other processes (None: this
            call's own, of ``plan.wait_budget_s``).
        tls: the run's TLS files, for the parameter sets of the profiles over TLS.
        after_set: called in the last process after each parameter set's windows, when
            the last of them was measured, with the server still running (the main job's
            profiled window: :mod:`wsbench.asv.suite`).

    Returns:
        By scenario (in ``grids``' order), one benchmark per parameter set in its grid's
        order, with every sample.

    Raises:
        ValueError: the plan is invalid.
        wsbench.instrument.measure.ConfigError: a parameter set is invalid.
        OSError: the run's wait account cannot be read or written.
    """
    plan.validate()
    if budget is None:
        budget = WaitBudget(plan.wait_budget_s)
    collected = {
        scenario: [_Collected(params) for params in grid] for scenario, grid in grids.items()
    }
    run_config = impl.config(config_id)

    def progress() -> None:
        if on_progress is not None:
            on_progress({s: [c.benchmark(s) for c in entries] for s, entries in collected.items()})

    for scenario, entries in collected.items():
        for entry in entries:
            why = refusal(run_config, placement, scenario, entry.params)
            if why is not None:
                entry.samples.append(Sample(0, 0, "failed", error=why))
    supported = {s: grids[s] for s in collected if run_config.refuses(s) is None}
    served_profiles = [p for p in PROFILES if _unserved(p, run_config, placement) is None]
    groups = [
        (profile, members)
        for group in process_groups(supported)
        for profile in served_profiles
        if (
            members := [
                (scenario, entry)
                for scenario in group
                for entry in collected[scenario]
                if profile_of(entry.params) == profile
            ]
        )
    ]
    with tempfile.TemporaryDirectory(prefix="wsbench-tls-") as directory:
        if tls is None and any(profile.tls for profile, _ in groups):
            # The run's throw-away CA and certificate (trustme, imported only here).
            from wsbench.instrument.certs import make_tls_files

            tls = make_tls_files(Path(directory))
        _sample_groups(impl, config_id, groups, plan, placement, python, client, tls, connections,
                       progress, log, sleep, budget, after_set)  # fmt: skip
    return {s: [c.benchmark(s) for c in entries] for s, entries in collected.items()}


def refusal(
    config: ImplConfig, placement: CpuPlacement, scenario: Scenario, params: Params
) -> str | None:
    """Why :func:`sample_scenarios` never runs ``scenario``'s set ``params`` in ``config``
    with ``placement``, as its one sample's error: a scenario the configuration does not
    support (:meth:`~wsbench.impls.ImplConfig.refuses`), or a profile it cannot serve or this
    runner cannot place; None when the set is run."""
    return config.refuses(scenario) or _unserved(profile_of(params), config, placement)


def _unserved(profile: Profile, config: ImplConfig, placement: CpuPlacement) -> str | None:
    """Why ``config`` is not measured in ``profile`` with ``placement``, as a sample's error
    (None: it is): TLS or worker processes its metadata says it cannot do, or a multi-CPU
    profile on a runner without the CPUs for it."""
    if profile.tls and not config.supports_tls:
        return f"{NOT_SUPPORTED}: over TLS: {config.tls.partition(': ')[2]}"
    if profile.worker_processes and not config.supports_workers:
        return f"{NOT_SUPPORTED}: worker processes: {config.workers.partition(': ')[2]}"
    if profile.multi_cpu:
        try:
            placement.for_profile(profile)
        except ValueError as exc:
            return f"not measured on this runner: {exc}"
    return None


def _sample_groups(
    impl: Impl,
    config_id: str | None,
    groups: list[tuple[Profile, list[tuple[Scenario, _Collected]]]],
    plan: SamplingPlan,
    placement: CpuPlacement,
    python: str,
    client: Sequence[str] | None,
    tls: TlsFiles | None,
    connections: int,
    progress: Callable[[], None],
    log: Callable[[str], None],
    sleep: Callable[[float], None],
    budget: WaitBudget,
    after_set: AfterSet | None = None,
) -> None:
    """:func:`sample_scenarios`' loop: each process serves each group of ``groups`` (a
    deployment profile and its parameter sets) from a server of its own, replaced when it
    dies; the samples go into the groups' entries."""
    progress()
    for process, (profile, group) in ((p, g) for p in range(plan.processes) for g in groups):
        pending = list(group)
        while pending:
            served: list[_Collected] = []
            with ServerSession(
                impl, config_id, python=python, placement=placement.for_profile(profile),
                client=client, profile=profile, tls=tls,
            ) as session:  # fmt: skip
                if session.start_error is not None:
                    # Not started: every window this process was to serve fails with why.
                    for _, entry in pending:
                        failed = Sample(process, 0, "failed", error=session.start_error)
                        entry.samples.append(failed)
                    served, pending = [entry for _, entry in pending], []
                while pending:
                    scenario, entry = pending.pop(0)
                    served.append(entry)
                    config = MeasureConfig.for_params(
                        impl.name, config_id, scenario, entry.params,
                        warmup_s=plan.warmup_s, window_s=plan.window_s,
                    )  # fmt: skip
                    if "connections" not in entry.params and connections > 1:
                        config = dataclasses.replace(config, connections=connections)
                    log(f"process {process + 1}/{plan.processes} {scenario} {entry.params}")
                    _sample_windows(session, config, entry, process, plan, sleep, budget)
                    last = process == plan.processes - 1
                    if after_set and last and entry.samples[-1].status == "ok" and session.alive():
                        after_set(
                            session, config, [s for s in entry.samples if s.process == process]
                        )
                    if last and _all_disturbed(entry.samples):
                        why = all_disturbed(entry.benchmark(scenario))
                        log(f"{scenario} {entry.params}: {why}")
                    progress()
                    if not session.alive():
                        break  # a fresh server for the parameter sets still to come
            for entry in served:
                entry.exit_codes.append(session.exit_code)
    progress()


def _sample_windows(
    session: ServerSession,
    config: MeasureConfig,
    entry: _Collected,
    process: int,
    plan: SamplingPlan,
    sleep: Callable[[float], None],
    budget: WaitBudget,
) -> None:
    """``plan.windows_per_process`` usable windows of ``config`` (or the scenario's own
    :attr:`~wsbench.scenarios.ScenarioSpec.windows_per_process`; ones disturbed by other
    work measured again at once up to ``plan.retries`` times), appended to ``entry``; stops
    at a failure. In the last process (``plan.processes - 1``), a set with no usable window
    yet is measured again after each wait of :meth:`SamplingPlan.waits` (``sleep``) until a
    window is usable, each retry taken from ``budget`` first; the retries it has no more
    seconds for are counted in ``entry.waits_skipped`` (the module's docstring: waited
    retries)."""
    window = 0
    retries = plan.retries
    good = 0
    wanted = spec(config.scenario).windows_per_process or plan.windows_per_process
    while good < wanted:
        sample = to_sample(session.run(config), process=process, window=window, plan=plan)
        entry.samples.append(sample)
        window += 1
        if sample.status == "failed":
            return
        if retries > 0 and disturbed_by_other_work(sample, plan):
            retries -= 1
            continue
        good += 1
    if process != plan.processes - 1:
        return
    waits = plan.waits()
    for done, wait_s in enumerate(waits):
        if not _all_disturbed(entry.samples):
            return
        if not budget.take(wait_s + plan.warmup_s + plan.window_s):
            entry.waits_skipped = len(waits) - done
            return
        sleep(wait_s)
        sample = to_sample(session.run(config), process=process, window=window, plan=plan)
        entry.samples.append(msgspec.structs.replace(sample, waited_s=wait_s))
        window += 1


def _all_disturbed(samples: Sequence[Sample]) -> bool:
    """True when ``samples`` were all measured and none is usable: a set that would end with
    no figure (one with a failed window has none either way, and is not measured again)."""
    return bool(samples) and all(s.status == "ok" and s.disturbed for s in samples)
