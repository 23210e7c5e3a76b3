"""Sampling: every parameter set gets its windows in each of several server processes; a
window with interference is marked and measured again; a dying server is replaced."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import psutil
import pytest

from tests.conftest import NEVER_DISTURBED, fixture_impl
from tests.reports import report as fake_report
from wsbench.impls import get_impl
from wsbench.instrument import sampling
from wsbench.instrument import usage as sampler
from wsbench.instrument.cpus import CpuPlacement, available_cpus, default_placement
from wsbench.instrument.measure import MeasureConfig, Measurement, ServerSession
from wsbench.instrument.sampling import (
    SamplingPlan,
    disturbed_by_other_work,
    process_groups,
    sample_scenario,
    sample_scenarios,
    to_sample,
)  # fmt: skip
from wsbench.instrument.usage import CpuActivity, ServerUsage
from wsbench.instrument.waitbudget import WaitBudget
from wsbench.results.runformat import Benchmark, MemoryStep, Sample, all_disturbed
from wsbench.scenarios import Params, Scenario, spec

PLAN = SamplingPlan(max_other_cpu_percent=NEVER_DISTURBED, max_steal_percent=NEVER_DISTURBED)


def quick_plan(processes: int, windows_per_process: int, window_s: float) -> SamplingPlan:
    """A plan of short windows (0.05 s of warm-up) that no other work disturbs."""
    return SamplingPlan(
        processes=processes, windows_per_process=windows_per_process, warmup_s=0.05,
        window_s=window_s, max_other_cpu_percent=NEVER_DISTURBED,
        max_steal_percent=NEVER_DISTURBED,
    )  # fmt: skip


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[ServerSession]:
    """Every server session :mod:`wsbench.instrument.sampling` enters, in order."""
    entered: list[ServerSession] = []

    class Recorded(ServerSession):
        def __enter__(self) -> ServerSession:
            entered.append(self)
            return super().__enter__()

    monkeypatch.setattr(sampling, "ServerSession", Recorded)
    return entered


def _measurement(busy_s: float, steal_s: float = 0.0) -> Measurement:
    config = MeasureConfig(impl="native", scenario="echo")
    report = fake_report(
    **{
        "messages_per_s": 1000.0, "bytes_per_s": 16000.0, "messages_received": 1000,
        "window_s": 1.0, "loadgen_cpu_percent": 30.0,
        "latency_us": {"p50": 100, "p90": 110, "p99": 150, "p99_9": 200, "max": 300},
        }
    )  # fmt: skip
    m = Measurement(config=config, report=report)
    m.server = ServerUsage(cpu_percent=90.0, rss_bytes=10_000_000, samples=10)
    m.cpu_activity = CpuActivity(cpus=(0, 1), wall_s=1.0, busy_s=busy_s, steal_s=steal_s)
    return m


@pytest.mark.parametrize(
    ("busy_s", "steal_s", "other", "disturbed"),
    [
        (1.25, 0.0, 5.0, False),  # 125 % busy - 90 % server - 30 % load generator
        (1.45, 0.0, 25.0, True),  # another process took a quarter of a core
        (1.20, 0.08, 0.0, True),  # the hypervisor stole 8 %
    ],
)
def test_a_window_is_disturbed_by_other_work(
    busy_s: float, steal_s: float, other: float, disturbed: bool
) -> None:
    sample = to_sample(_measurement(busy_s, steal_s), process=1, window=2, plan=SamplingPlan())
    assert sample.other_cpu_percent == pytest.approx(other)
    assert sample.disturbed is disturbed
    assert (sample.process, sample.window, sample.status) == (1, 2, "ok")
    assert sample.latency_s is not None and sample.latency_s.p99 == pytest.approx(150e-6)


@pytest.mark.parametrize(
    ("busy_s", "steal_s", "again"),
    [
        (1.25, 0.0, False),  # not disturbed
        (1.45, 0.0, True),  # another process on the measured CPUs: it passes, measure again
        (1.20, 0.08, False),  # steal alone: the host's load lasts, measuring again is futile
        (1.45, 0.08, True),  # both
    ],
)
def test_only_a_window_disturbed_by_other_work_is_measured_again(
    busy_s: float, steal_s: float, again: bool
) -> None:
    plan = SamplingPlan()
    sample = to_sample(_measurement(busy_s, steal_s), process=0, window=0, plan=plan)
    assert disturbed_by_other_work(sample, plan) is again
    assert sample.disturbed or not again


FIELDS = (
    "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"
)  # fmt: skip
BUSY = 1 + 2 + 4 + 32 + 64  # user, nice, system, irq and softirq of _entry (guest is in user)
STEAL = 128
CPU_TIMES = type(psutil.cpu_times())
"""psutil's named tuple of one CPU's times."""


def _entry(scale: float) -> tuple[float, ...]:
    """psutil's per-CPU times of one CPU, field k worth ``scale * 2**k`` seconds: a sum of
    fields tells which fields it took (exactly, in binary floating point)."""
    return CPU_TIMES(**{f: scale * 2**k for k, f in enumerate(FIELDS)})


def _fake_cpus(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, online: str | None, entries: int
) -> None:
    """psutil's per-CPU times are ``entries`` entries, entry i scaled by 1024**i; the online
    CPUs are ``online`` (None: the file cannot be read)."""
    times = [_entry(1024.0**i) for i in range(entries)]
    monkeypatch.setattr(psutil, "cpu_times", lambda percpu=False: times if percpu else None)
    path = tmp_path / "online"
    if online is not None:
        path.write_text(online + "\n", encoding="ascii")
    monkeypatch.setattr(sampler, "ONLINE_CPUS", path)


def test_busy_is_user_nice_system_irq_softirq_and_the_nth_entry_is_the_nth_online_cpu(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fake_cpus(monkeypatch, tmp_path, "0,2-3,5", entries=4)  # CPUs 1 and 4 offline
    assert sampler.cpu_busy_steal() == {
        0: (BUSY, STEAL), 2: (BUSY * 1024.0, STEAL * 1024.0),
        3: (BUSY * 1024.0**2, STEAL * 1024.0**2), 5: (BUSY * 1024.0**3, STEAL * 1024.0**3),
    }  # fmt: skip
    # CPUs 3 and 5 are the third and fourth entries; CPU 1 is offline (0); 3 counts once
    assert sampler.cpu_times((5, 1, 3, 3)) == (
        BUSY * (1024.0**2 + 1024.0**3), STEAL * (1024.0**2 + 1024.0**3)
    )  # fmt: skip
    assert sampler.cpu_times(()) == (0.0, 0.0)


def test_cpu_times_that_cannot_be_matched_to_cpu_numbers_count_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fake_cpus(monkeypatch, tmp_path, None, entries=2)  # no online list: entry n is CPU n
    assert sampler.cpu_times((1,)) == (BUSY * 1024.0, STEAL * 1024.0)
    _fake_cpus(monkeypatch, tmp_path, "0-2", entries=2)  # a CPU came online in between
    assert sampler.cpu_busy_steal() == {}
    assert sampler.cpu_times((0, 1)) == (0.0, 0.0)

    def unreadable(percpu: bool = False) -> None:
        raise PermissionError("/proc/stat")

    monkeypatch.setattr(psutil, "cpu_times", unreadable)
    assert sampler.cpu_times((0, 1)) == (0.0, 0.0)


def test_the_real_cpu_times_have_one_entry_per_online_cpu_and_never_decrease() -> None:
    first = sampler.cpu_busy_steal()
    second = sampler.cpu_busy_steal()
    assert len(first) == psutil.cpu_count() == len(second)
    assert set(first) == set(second) >= set(available_cpus())
    for cpu, (busy, steal) in first.items():
        assert 0 <= busy <= second[cpu][0] and 0 <= steal <= second[cpu][1]


def test_every_parameter_set_gets_its_windows_in_every_process() -> None:
    plan = quick_plan(processes=2, windows_per_process=2, window_s=0.2)
    grid = [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 1024, "in_flight": 8}]
    benchmarks = sample_scenario(
        get_impl("native"), "websocket", "echo", grid, plan, placement=default_placement()
    )
    assert [b.params for b in benchmarks] == grid
    for bench in benchmarks:
        assert bench.status == "ok", bench.error
        assert [(s.process, s.window) for s in bench.samples] == [(0, 0), (0, 1), (1, 0), (1, 1)]
        assert all(s.messages_received and s.latency_s for s in bench.samples)
        # every window carries the server's CPU time and its kernel part; either can be 0 in
        # a 0.2 s window of a light server (the kernel counts CPU time in 10 ms ticks): that
        # they are measured is tests/instrument/test_usage.py's business
        for s in bench.samples:
            assert s.server_cpu_percent is not None and s.server_kernel_cpu_percent is not None
            assert 0 <= s.server_kernel_cpu_percent <= s.server_cpu_percent
        assert len(bench.server_exit_codes) == 2  # one server per process served both sets
        assert set(bench.server_exit_codes) <= {0, -15}


def test_one_server_process_serves_every_scenario_but_memory(
    sessions: list[ServerSession],
) -> None:
    light: tuple[Scenario, ...] = ("clients", "echo", "memory", "broadcast")
    default = {s: spec(s).grid("default") for s in light}
    # Memory on a server of its own; the rest by the connections they open, fewest first.
    assert process_groups(default) == [["memory"], ["echo", "broadcast", "clients"]]
    heavy: tuple[Scenario, ...] = ("connect", "clients", "stream", "soak")
    full = {s: spec(s).grid("full") for s in heavy}
    assert process_groups(full) == [["stream", "soak", "clients", "connect"]]
    plan = quick_plan(processes=2, windows_per_process=1, window_s=0.1)
    grids: dict[Scenario, list[Params]] = {
        "echo": [{"size_bytes": 16, "in_flight": 1}],
        "stream": [{"size_bytes": 16}],
        "memory": [{"connections": 10}],
    }
    found = sample_scenarios(
        get_impl("native"), "websocket", grids, plan, placement=default_placement()
    )
    assert list(found) == ["echo", "stream", "memory"]  # the order asked for
    assert len(sessions) == 4  # per process: one server for memory, one for echo and stream
    for scenario, (bench,) in found.items():
        assert bench.status == "ok", (scenario, bench.error)
        assert [s.process for s in bench.samples] == [0, 1]
        assert len(bench.server_exit_codes) == 2


def test_a_profile_gets_a_server_of_its_own_started_with_the_profiles_flags(
    sessions: list[ServerSession],
) -> None:
    """Tuned and as shipped (wsbench/deployment.py): one server each, the second given
    --shipped-compression (the reference server then accepts permessage-deflate); the
    as-shipped sample records the agreement and the corpus's compression."""
    plan = quick_plan(processes=1, windows_per_process=1, window_s=0.2)
    tuned = {"size_bytes": 1024, "in_flight": 8, "corpus": 1}
    grids: dict[Scenario, list[Params]] = {"echo": [tuned, {**tuned, "deflate": 1}]}
    found = sample_scenarios(get_impl("native"), "websocket", grids, plan,
                             placement=default_placement())  # fmt: skip
    started = [session.server.argv for session in sessions]
    assert [argv[-1] for argv in started] == [started[0][-1], "--shipped-compression"]
    assert "--shipped-compression" not in started[0]
    plain, shipped = found["echo"]
    assert plain.status == shipped.status == "ok", (plain.error, shipped.error)
    (p,), (s,) = plain.samples, shipped.samples
    assert (p.deflate, p.wire_bytes, p.payload_bytes) == (None, None, None)
    assert s.deflate == "permessage-deflate; server_max_window_bits=15; client_max_window_bits=15"
    assert s.wire_bytes and s.payload_bytes and 2 < s.payload_bytes / s.wire_bytes < 6


def test_the_multi_cpu_profiles_run_on_the_runners_set_or_say_why_not(
    sessions: list[ServerSession],
) -> None:
    """*2 CPUs*: the reference server's one process pinned to the multi-CPU server set's
    first two CPUs (recorded in the settings); *workers*: recorded as not supported with
    the reason its meta.toml gives; without a multi-CPU server set, not measured here."""
    plan = quick_plan(processes=1, windows_per_process=1, window_s=0.2)
    tuned = {"size_bytes": 16, "in_flight": 1}
    grids: dict[Scenario, list[Params]] = {
        "echo": [tuned, {**tuned, "two_cpus": 1}, {**tuned, "cpu_workers": 1}]
    }
    cpus = available_cpus()[:2]
    multi = CpuPlacement(server=cpus[:1], loadgen=cpus[-1:], multi_server=cpus)
    if len(cpus) == 2:
        found = sample_scenarios(get_impl("native"), "websocket", grids, plan, placement=multi)
        plain, two, workers = found["echo"]
        assert plain.status == two.status == "ok", (plain.error, two.error)
        assert [session.placement.server for session in sessions] == [cpus[:1], cpus]
        assert workers.status == "failed"
        assert (workers.error or "").startswith("not supported: worker processes: ")
        assert plan.settings(multi, 1).multi_server_cpus == cpus
    sessions.clear()
    single = CpuPlacement(server=cpus[:1], loadgen=cpus[-1:])
    found = sample_scenarios(get_impl("native"), "websocket", grids, plan, placement=single)
    plain, two, _ = found["echo"]
    assert plain.status == "ok"
    assert [session.placement.server for session in sessions] == [cpus[:1]]
    assert two.error == (
        "not measured on this runner: profile 'two-cpus' needs a multi-CPU server set of at "
        "least 2 CPUs, not [] (WSBENCH_MULTI_SERVER_CPUS; ./bench system layout sizes it)"
    )


def test_memory_takes_one_window_per_process_whatever_the_plan() -> None:
    plan = SamplingPlan(
        processes=2, windows_per_process=3, warmup_s=0.0, window_s=0.1,
        max_other_cpu_percent=NEVER_DISTURBED, max_steal_percent=NEVER_DISTURBED,
    )  # fmt: skip
    (bench,) = sample_scenario(
        get_impl("native"), "websocket", "memory", [{"connections": 10}], plan,
        placement=default_placement(),
    )  # fmt: skip
    assert bench.status == "ok", bench.error
    assert [(s.process, s.window) for s in bench.samples] == [(0, 0), (1, 0)]
    assert all(s.rss_held_bytes for s in bench.samples)


def test_a_server_that_dies_is_replaced_for_the_next_parameter_set() -> None:
    plan = SamplingPlan(processes=1, windows_per_process=2, warmup_s=0.0, window_s=0.5)
    grid = [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 32, "in_flight": 1}]
    benchmarks = sample_scenario(
        fixture_impl("crash_midrun"), None, "echo", grid, plan, placement=default_placement()
    )
    for bench in benchmarks:
        assert bench.status == "failed"
        assert bench.error is not None and "crashing on purpose" in bench.error
        assert len(bench.samples) == 1  # the first window failed: no second one
        assert bench.server_exit_codes == [3]  # each set had a server of its own


def test_a_server_that_never_starts_fails_every_set_once_per_process() -> None:
    plan = SamplingPlan(processes=2, windows_per_process=3)
    grid = [{"size_bytes": 16}, {"size_bytes": 1024}, {"size_bytes": 65536}]
    benchmarks = sample_scenario(
        fixture_impl("exits_at_start"), None, "stream", grid, plan, placement=default_placement()
    )
    for bench in benchmarks:
        assert bench.status == "failed"
        assert bench.error is not None and "before it became ready" in bench.error
        assert [s.process for s in bench.samples] == [0, 1]
        assert bench.server_exit_codes == [3, 3]


def test_a_bad_plan_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SamplingPlan(processes=0).validate()


CLEAN = (1.25, 0.0)
"""A window's (busy_s, steal_s) over 1 s on the measured CPUs (:func:`_measurement`): 5 %
other work and no steal, usable."""
OTHER = (1.45, 0.0)
"""25 % other work: disturbed, measured again at once."""


def steal(percent: float) -> tuple[float, float]:
    """A window the hypervisor stole ``percent`` % of (no other work): disturbed."""
    return (1.20, percent / 100)


class Scripted(ServerSession):
    """A server session that starts nothing: each window reads the next (busy_s, steal_s)
    of :attr:`script` (:func:`_measurement`)."""

    script: ClassVar[list[tuple[float, float]]] = []

    def __enter__(self) -> ServerSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def run(self, config: MeasureConfig) -> Measurement:
        return _measurement(*Scripted.script.pop(0))

    def alive(self) -> bool:
        return True


def _scripted(
    monkeypatch: pytest.MonkeyPatch,
    script: list[tuple[float, float]],
    plan: SamplingPlan,
    budget: WaitBudget | None = None,
) -> tuple[Benchmark, list[float]]:
    """One echo set sampled following ``plan`` (and ``budget``: None, the plan's own) on
    :class:`Scripted` windows; returns its benchmark and the waits asked for (none is
    waited), and checks every window was used."""
    monkeypatch.setattr(sampling, "ServerSession", Scripted)
    monkeypatch.setattr(Scripted, "script", list(script))
    slept: list[float] = []
    (bench,) = sample_scenario(
        get_impl("native"), "websocket", "echo", [{"size_bytes": 16, "in_flight": 1}], plan,
        placement=default_placement(), sleep=slept.append, budget=budget,
    )  # fmt: skip
    assert Scripted.script == [], "windows left unmeasured"
    return bench, slept


def test_the_waits_double_from_the_first_and_are_bounded() -> None:
    plan = SamplingPlan()
    assert plan.waits() == (1.0, 2.0, 4.0)  # at most 3 waited retries, 7 s, per set
    assert sum(plan.waits()) == 7.0
    assert SamplingPlan(first_wait_s=0.5, waited_retries=5).waits() == (0.5, 1, 2, 4, 8)
    assert SamplingPlan(waited_retries=0).waits() == ()
    settings = plan.settings(default_placement(), 1)
    assert (settings.waited_retries, settings.first_wait_s) == (3, 1.0)
    assert settings.waits() == plan.waits()
    with pytest.raises(ValueError, match="retries must be >= 0"):
        SamplingPlan(waited_retries=-1).validate()
    with pytest.raises(ValueError, match="first wait"):
        SamplingPlan(first_wait_s=-1.0).validate()
    with pytest.raises(ValueError, match="wait budget"):
        SamplingPlan(wait_budget_s=-1.0).validate()


def test_a_steal_disturbed_set_is_measured_again_after_a_wait_and_then_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = SamplingPlan(processes=2, windows_per_process=1)
    # Process 0: stolen (no wait: the set has another process to come). Process 1: stolen,
    # stolen again after 1 s, usable after 2 s more.
    bench, slept = _scripted(monkeypatch, [steal(30), steal(40), steal(20), CLEAN], plan)
    assert slept == [1.0, 2.0]
    assert [(s.process, s.window, s.waited_s) for s in bench.samples] == [
        (0, 0, None), (1, 0, None), (1, 1, 1.0), (1, 2, 2.0),
    ]  # fmt: skip
    assert [s.disturbed for s in bench.samples] == [True, True, True, False]
    assert bench.status == "ok" and bench.usable() == bench.samples[-1:]


def test_a_window_disturbed_by_other_work_after_the_immediate_retries_is_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = SamplingPlan(processes=1, windows_per_process=1, retries=2)
    bench, slept = _scripted(monkeypatch, [OTHER, OTHER, OTHER, CLEAN], plan)
    assert slept == [1.0]  # the two immediate retries did not wait
    assert [s.waited_s for s in bench.samples] == [None, None, None, 1.0]
    assert len(bench.usable()) == 1


def test_a_set_that_never_gets_a_clean_window_fails_with_the_steal_it_saw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wsbench.asv.suite import figures_of
    from wsbench.site.rows import row_of

    plan = SamplingPlan(processes=2, windows_per_process=1)
    script = [steal(8), steal(48), steal(12), steal(20), steal(31)]
    bench, slept = _scripted(monkeypatch, script, plan)
    assert slept == [1.0, 2.0, 4.0]  # the bound: 3 waited retries, 7 s
    assert len(bench.samples) == 5 and not bench.usable()
    why = (
        "every window was disturbed (other work or steal time on the measured CPUs): "
        "steal 8-48 % and other work 0 % over 5 windows, 3 of them after waits (7 s in all)"
    )
    assert all_disturbed(bench) == why
    row = row_of(bench)
    assert (row.status, row.error) == ("failed", why)  # what the site shows
    assert figures_of(bench) == {"error": why}  # what asv shows


def test_the_runs_wait_budget_is_shared_and_a_set_it_cannot_pay_for_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from wsbench.asv.suite import figures_of
    from wsbench.site.rows import row_of

    plan = SamplingPlan(processes=1, windows_per_process=1, warmup_s=0.25, window_s=0.5)
    account = tmp_path / "waits.txt"
    # Each waited retry costs its wait and 0.75 s: 1.75 s fits in 3 s, 2.75 s more does not.
    budget = WaitBudget(3.0, account)
    bench, slept = _scripted(monkeypatch, [steal(30), steal(40)], plan, budget)
    assert slept == [1.0] and [s.waited_s for s in bench.samples] == [None, 1.0]
    assert bench.waits_skipped == 2 and not bench.usable()
    assert budget.taken() == [1.75]
    # Another process of the same run (the same account) has 1.25 s left: no waited retry.
    again, slept = _scripted(monkeypatch, [steal(50)], plan, WaitBudget(3.0, account))
    assert slept == [] and again.waits_skipped == 3
    why = (
        "every window was disturbed (other work or steal time on the measured CPUs): "
        "steal 50 % and other work 0 % over 1 window, 3 waited retries skipped: "
        "the run's wait budget was spent"
    )
    assert all_disturbed(again) == why
    assert row_of(again).error == why and figures_of(again) == {"error": why}
    # A set with a usable window neither waits nor counts a skipped retry.
    clean, slept = _scripted(monkeypatch, [CLEAN], plan, WaitBudget(3.0, account))
    assert (slept, clean.waits_skipped, len(clean.usable())) == ([], 0, 1)
    assert plan.settings(default_placement(), 1).wait_budget_s == plan.wait_budget_s == 90.0


@pytest.mark.parametrize(
    "script",
    [
        [CLEAN, CLEAN],  # undisturbed
        [CLEAN, steal(40)],  # the set has its usable window from process 0
        [OTHER, CLEAN, steal(40)],  # ... after an immediate retry
    ],
)
def test_a_set_with_a_usable_window_does_not_wait(
    monkeypatch: pytest.MonkeyPatch, script: list[tuple[float, float]]
) -> None:
    plan = SamplingPlan(processes=2, windows_per_process=1)
    bench, slept = _scripted(monkeypatch, script, plan)
    assert slept == []
    assert all(s.waited_s is None for s in bench.samples) and bench.usable()


def test_a_set_whose_window_failed_does_not_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(self: Scripted, config: MeasureConfig) -> Measurement:
        return Measurement(config=config, status="failed", error="server crashed")

    monkeypatch.setattr(Scripted, "run", failing)
    bench, slept = _scripted(monkeypatch, [], SamplingPlan(processes=1, windows_per_process=1))
    assert slept == [] and bench.status == "failed" and len(bench.samples) == 1


def test_asv_figures_are_medians_of_the_usable_samples() -> None:
    from tests.runs import run, sample
    from wsbench.asv.suite import figures_of

    bench = run([100.0, 300.0, 200.0]).benchmarks[0]
    figures = figures_of(bench)
    assert figures["seconds_per_message"] == pytest.approx(1 / 200.0)
    assert figures["latency_p50"] == pytest.approx(1 / 200.0)
    disturbed = type(bench)(bench.scenario, bench.params, "ok", None, [sample(5.0, disturbed=True)])
    assert "disturbed" in str(figures_of(disturbed)["error"])


def test_a_clients_sample_keeps_errors_by_kind_lost_messages_and_the_spread() -> None:
    from wsbench.results import metrics

    config = MeasureConfig.for_params(
        "native", None, "clients", {"connections": 1000, "size_bytes": 16, "in_flight": 1},
        warmup_s=0.25, window_s=0.5,
    )  # fmt: skip
    report = fake_report(
    **{
        "messages_per_s": 9000.0, "bytes_per_s": 144000.0, "messages_received": 4500,
        "window_s": 0.5, "loadgen_cpu_percent": 40.0, "connections_ok": 907,
        "connections_per_s": 1814.0,
        "latency_us": {"p50": 100, "p90": 110, "p99": 150, "p99_9": 200, "max": 300},
        "handshake_us": {"p50": 500, "p90": 600, "p99": 900, "p99_9": 990, "max": 1000,
                         "mean": 520, "count": 907},
        "per_connection_messages_per_s": {"min": 2.0, "median": 10.0, "max": 12.0},
        "errors": {"connection_refused": 0, "handshake_failed": 0, "closed_early": 3,
                   "timeout": 90, "socketio_connect_error": 0, "other": 0},
        "integrity": {"lost": 7, "corrupted": 0, "duplicated": 0, "out_of_order": 0},
        }
    )  # fmt: skip
    sample = to_sample(Measurement(config=config, report=report), process=0, window=0, plan=PLAN)
    assert sample.errors == {
        "connection_refused": 0, "handshake_failed": 0, "closed_early": 3, "timeout": 90,
        "socketio_connect_error": 0, "other": 0, "lost": 7,
    }  # fmt: skip
    assert metrics.BY_NAME["errors"].of(sample) == 100.0
    assert sample.connections_ok == 907
    assert metrics.BY_NAME["per_connection_min"].of(sample) == 2.0
    assert metrics.BY_NAME["handshake_p99"].of(sample) == pytest.approx(900e-6)
    assert metrics.BY_NAME["connections_per_s"].of(sample) == 1814.0
    assert metrics.BY_NAME["latency_max"].of(sample) == pytest.approx(300e-6)


def test_a_memory_sample_gives_bytes_per_connection() -> None:
    from wsbench.results import metrics

    config = MeasureConfig.for_params(
        "native", None, "memory", {"connections": 1000}, warmup_s=0.25, window_s=0.5
    )
    report = fake_report(
    **{
        "connections_ok": 800, "connections_per_s": 4000.0, "errors": {"timeout": 200},
        "handshake_us": {"p50": 1, "p90": 1, "p99": 1, "p99_9": 1, "max": 1, "count": 800},
        }
    )  # fmt: skip
    # A staircase on a straight line of 10 kB per connection from 10 MB, the kernel's
    # memory 3 kB per connection from 60 MB: the slopes, the intercept, the delta.
    steps = tuple(
        MemoryStep(n, 10_000_000 + 10_000 * n, 60_000_000 + 3_000 * n) for n in (0, 80, 400, 800)
    )
    m = Measurement(config=config, report=report, rss_idle_bytes=10_000_000)
    m.rss_held_bytes, m.memory_steps = 18_000_000, steps
    sample = to_sample(m, process=0, window=0, plan=PLAN)
    assert sample.memory_steps == steps
    assert metrics.BY_NAME["bytes_per_connection"].of(sample) == 10_000.0
    assert metrics.BY_NAME["memory_slope_bytes"].of(sample) == pytest.approx(10_000.0)
    assert metrics.BY_NAME["memory_base_bytes"].of(sample) == pytest.approx(10_000_000.0)
    assert metrics.BY_NAME["kernel_bytes_per_connection"].of(sample) == pytest.approx(3_000.0)
    assert metrics.BY_NAME["errors"].of(sample) == 200.0
    assert sample.messages_per_s is None and sample.latency_s is None
    assert [m.name for m in metrics.for_scenario("memory")] == [
        "connections_per_s", "handshake_p50", "handshake_p99", "errors",
        "bytes_per_connection", "memory_slope_bytes", "memory_base_bytes",
        "kernel_bytes_per_connection", "rss_idle_bytes", "rss_held_bytes",
    ]  # fmt: skip
    assert metrics.SCENARIO_HEADLINES["memory"].name == "memory_slope_bytes"


def test_the_suite_skips_parameter_sets_outside_the_grid_and_refuses_an_unknown_grid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wsbench.asv.suite import (
        GRID_ENV,
        Figures,
        ScenarioSuite,
        SuiteError,
        SuiteSettings,
        lookup,
    )

    figures: dict[str, Figures] = {"in_flight=1,size_bytes=16": {"seconds_per_message": 0.5}}
    with pytest.raises(NotImplementedError, match="not in this run's grid"):
        lookup(figures, {"size_bytes": 1024, "in_flight": 1}, "seconds_per_message")
    assert lookup(figures, {"size_bytes": 16, "in_flight": 1}, "seconds_per_message") == 0.5

    class Suite(ScenarioSuite):
        scenario = "echo"
        param_names = ["size_bytes", "in_flight"]  # noqa: RUF012 (as asv classes declare it)

    suite = Suite()
    suite.setup({"echo": figures}, 16, 1)  # measured: not skipped
    with pytest.raises(NotImplementedError):
        suite.setup({"echo": figures}, 65536, 1)
    with pytest.raises(NotImplementedError):
        suite.setup({"stream": figures}, 16, 1)  # another scenario's figures
    monkeypatch.setenv("WSBENCH_IMPL", "native")
    monkeypatch.setenv(GRID_ENV, "huge")
    with pytest.raises(SuiteError, match="WSBENCH_GRID='huge' \\(known: default, full\\)"):
        SuiteSettings.from_env()
    monkeypatch.setenv(GRID_ENV, "full")
    assert SuiteSettings.from_env().grid == "full"


def test_after_set_runs_in_the_last_process_against_its_running_server(
    sessions: list[ServerSession],
) -> None:
    plan = quick_plan(processes=2, windows_per_process=1, window_s=0.1)
    grid = [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 16, "in_flight": 8}]
    called: list[tuple[int, Params, list[int], bool]] = []

    def after(session: ServerSession, config: MeasureConfig, taken: Sequence[Sample]) -> None:
        called.append((sessions.index(session), config.params(), [s.process for s in taken],
                       session.alive()))  # fmt: skip

    found = sample_scenarios(get_impl("native"), "websocket", {"echo": grid}, plan,
                             placement=default_placement(), after_set=after)  # fmt: skip
    assert all(b.status == "ok" for b in found["echo"])
    # Once per set, in the second (last) process's server, still running, with the samples
    # that process took of the set.
    assert [(i, p["in_flight"], procs, alive) for i, p, procs, alive in called] == [
        (1, 1, [1], True), (1, 8, [1], True)
    ]  # fmt: skip
