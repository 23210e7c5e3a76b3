"""Run documents for tests, built in code (the format is ours: no measured fixture needed)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import msgspec

from wsbench.results.runformat import (
    VERSION,
    Benchmark,
    Conformance,
    ConformanceCase,
    Counting,
    Environment,
    Harness,
    ImplInfo,
    InstructionCount,
    InstructionSet,
    Latency,
    LoadgenBuild,
    Machine,
    ProfiledWindow,
    ProfileSet,
    Profiling,
    Run,
    Sample,
    Settings,
    encode,
)

SETTINGS = Settings(
    warmup_s=0.5, window_s=1.0, processes=3, windows_per_process=2, connections=1,
    server_cpus=(0,), loadgen_cpus=(1,), max_other_cpu_percent=10.0, max_steal_percent=5.0,
    retries=2,
)  # fmt: skip
LOADGEN = LoadgenBuild(version="0.1.0", source_sha256="ab" * 32, rustc="rustc 1.95.0")
ECHO_16_64 = {"size_bytes": 16, "in_flight": 64}
"""The parameters of :func:`run`'s one benchmark."""


def sample(
    rate: float,
    *,
    process: int = 0,
    window: int = 0,
    disturbed: bool = False,
    size: int = 16,
    latency: bool = True,
    loadgen_cpu: float = 40.0,
    rss: int = 20_000_000,
) -> Sample:
    """An ok window at ``rate`` messages/s of ``size``-byte messages; an echo window has
    latency percentiles (p50 = 1/rate), a push window (``latency=False``) none."""
    return Sample(
        process=process, window=window, status="ok", messages_per_s=rate,
        bytes_per_s=size * rate, messages_received=int(rate), window_s=1.0,
        latency_s=Latency(p50=1 / rate, p90=1.1 / rate, p99=1.5 / rate, p99_9=2 / rate,
                          max=3 / rate) if latency else None,
        server_cpu_percent=99.0, server_rss_bytes=rss, loadgen_cpu_percent=loadgen_cpu,
        other_cpu_percent=1.0, steal_percent=0.0, disturbed=disturbed,
    )  # fmt: skip


def benchmark(
    scenario: str,
    params: dict[str, int],
    rates: Sequence[float],
    *,
    disturbed: Sequence[float] = (),
    loadgen_cpu: float = 40.0,
    rss: int = 20_000_000,
    windows_per_process: int = 2,
) -> Benchmark:
    """An ok benchmark: one window per rate in ``rates`` (``windows_per_process`` per server
    process), then a disturbed window per rate in ``disturbed``."""
    size = params.get("size_bytes", 16)
    echo = scenario == "echo"

    def window(i: int, rate: float, is_disturbed: bool) -> Sample:
        return sample(
            rate, process=i // windows_per_process, window=i % windows_per_process,
            disturbed=is_disturbed, size=size, latency=echo, loadgen_cpu=loadgen_cpu, rss=rss,
        )  # fmt: skip

    samples = [window(i, r, False) for i, r in enumerate(rates)]
    samples += [window(len(rates) + i, r, True) for i, r in enumerate(disturbed)]
    return Benchmark(scenario=scenario, params=dict(params), status="ok", error=None,
                     samples=samples)  # fmt: skip


def failed(scenario: str, params: dict[str, int], error: str) -> Benchmark:
    """A benchmark that failed with ``error`` and has no sample."""
    return Benchmark(scenario=scenario, params=dict(params), status="failed", error=error,
                     samples=[])  # fmt: skip


def impl(
    name: str = "websockets",
    version: str | None = "15.0.1",
    config: str = "asyncio",
    *,
    protocol: str = "websocket",
    reference: bool = False,
) -> ImplInfo:
    """An implementation's facts as a run records them."""
    return ImplInfo(
        name=name, display_name=name, package=None if reference else name, version=version,
        config=config, row_name=f"{name} · {config}", server=name, ws_backend="",
        event_loop=config, protocol=protocol, reference=reference, deviations={},
    )  # fmt: skip


def run(
    rates: list[float],
    *,
    run_id: str = "20261123T190000Z-aaaaaa",
    impl_info: ImplInfo | None = None,
    settings: Settings = SETTINGS,
    machine: str = "m",
    benchmarks: list[Benchmark] | None = None,
    loadgen: LoadgenBuild = LOADGEN,
    env_name: str | None = None,
    install_error: str | None = None,
) -> Run:
    """One environment's run: ``benchmarks``, or else one echo benchmark (16 B, 64 in
    flight) at ``rates``. It started at the time ``run_id`` names and took a minute."""
    info = impl_info or impl()
    if benchmarks is None:
        benchmarks = [benchmark("echo", ECHO_16_64, rates)]
    started, finished = times(run_id)
    return Run(
        run_id=run_id, started_at=started, finished_at=finished,
        machine=Machine(name=machine, cpu_model="cpu", cpu_count=2, kernel="Linux 6",
                        ram_bytes=2**34),
        harness=Harness(commit="c" * 40), loadgen=loadgen, settings=settings, impl=info,
        environment=Environment(
            env_name=env_name or f"uvpip-py3.11-{info.name}{info.version}-{info.config}",
            python="3.11.7", install_error=install_error,
        ),
        benchmarks=benchmarks,
    )  # fmt: skip


def times(run_id: str) -> tuple[str, str]:
    """When a run of id ``run_id`` started (the time its id names) and finished (a minute
    later), ISO 8601."""
    started = datetime.strptime(run_id.partition("-")[0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    return started.isoformat(), (started + timedelta(minutes=1)).isoformat()


def newer_version(doc: Run, version: int = VERSION + 1) -> bytes:
    """``doc`` as a newer wsbench would write it: format ``version`` (default the one after
    :data:`~wsbench.results.runformat.VERSION`) with a field this one does not know."""
    fields = msgspec.json.decode(encode(doc))
    return msgspec.json.encode({**fields, "version": version, "new_in_this_version": {}})


def truncated(doc: Run) -> bytes:
    """``doc``'s first half, as a crash or a full disk could have left it."""
    data = encode(doc)
    return data[: len(data) // 2]


def counted_set(
    per_message: int, *, again: int | None = None, params: dict[str, int] = ECHO_16_64
) -> InstructionSet:
    """An ok echo set counted at ``per_message`` instructions per message: 1,000 then 5,000
    messages above a start-up of 10 M instructions, the repeated high run at ``again`` per
    message (default: the same, a spread of 0)."""
    again = per_message if again is None else again
    lo = 10_000_000 + 1000 * per_message
    counts = [InstructionCount(1000, 1000, lo),
              InstructionCount(5000, 5000, lo + 4000 * per_message),
              InstructionCount(5000, 5000, lo + 4000 * again)]  # fmt: skip
    return InstructionSet("echo", dict(params), "ok", None, counts)


COUNTING = Counting("valgrind-3.19.0 callgrind", 0)
"""How the test documents' sets were counted."""


def with_counts(doc: Run, *sets: InstructionSet) -> Run:
    """``doc`` with ``sets`` counted (:data:`COUNTING`; none: not counted)."""
    return msgspec.structs.replace(
        doc, counting=COUNTING if sets else None, instructions=list(sets)
    )


SUITE_GROUPS = {"1": 16, "2": 11, "3": 7, "4": 10, "5": 20, "6": 145, "7": 37, "9": 54, "10": 1}
"""How many cases :func:`conformance` runs per group (the Autobahn|Testsuite's 301 cases of
groups 1-10)."""
NOT_OFFERED = {
    "12": "compression is off in every configuration",
    "13": "compression is off in every configuration",
}
"""The groups a graded test document skipped, with why."""
SUITE = "autobahntestsuite 25.10.1"
ROUTE = "Python 2.7.18 virtualenv"


def case_ids() -> list[str]:
    """The ids of :func:`conformance`'s cases, in the suite's order: per group of
    :data:`SUITE_GROUPS`, ten cases per sub-group (``"6.1.1"`` ... ``"6.1.10"``,
    ``"6.2.1"`` ...)."""
    return [
        f"{group}.{k // 10 + 1}.{k % 10 + 1}" for group, n in SUITE_GROUPS.items() for k in range(n)
    ]


def case(
    case_id: str,
    behavior: str = "OK",
    *,
    behavior_close: str = "OK",
    description: str = "Send a message and expect it back.",
    expectation: str = "Receive the message echoed.",
    result: str = "Actual events match at least one expected.",
    result_close: str = "Connection was properly closed",
    close_code: int | None = 1000,
    close_reason: str | None = None,
    http_response: str = "",
    wirelog: Sequence[str] = (),
) -> ConformanceCase:
    """One case's verdict as the suite reports it (2 ms)."""
    return ConformanceCase(
        id=case_id, behavior=behavior, behavior_close=behavior_close, duration_ms=2,
        remote_close_code=close_code, description=description, expectation=expectation,
        result=result, result_close=result_close, remote_close_reason=close_reason,
        http_response=http_response, wirelog=list(wirelog),
    )  # fmt: skip


def conformance(*special: ConformanceCase) -> Conformance:
    """A graded run of every case of :func:`case_ids`: OK but the ``special`` ones (each in
    the place of the case of its id), groups 12 and 13 not offered (:data:`NOT_OFFERED`).

    Raises:
        ValueError: a special case's id is not one of :func:`case_ids`.
    """
    ids = case_ids()
    unknown = [c.id for c in special if c.id not in ids]
    if unknown:
        raise ValueError(f"not a case of the test suite: {unknown}")
    by_id = {c.id: c for c in special}
    return Conformance(
        suite=SUITE, route=ROUTE, cases_selected=[f"{g}.*" for g in SUITE_GROUPS],
        outcome="graded", error=None, wall_s=95.0,
        cases=[by_id.get(i) or case(i) for i in ids], not_offered=dict(NOT_OFFERED),
    )  # fmt: skip


def not_graded(outcome: str, error: str) -> Conformance:
    """A conformance document without cases: ``outcome`` ``"not applicable"`` or
    ``"failed"``, with ``error`` saying why."""
    assert outcome in ("not applicable", "failed")
    return Conformance(
        suite=SUITE, route=ROUTE, cases_selected=[f"{g}.*" for g in SUITE_GROUPS],
        outcome="not applicable" if outcome == "not applicable" else "failed", error=error,
        wall_s=0.5,
    )  # fmt: skip


def conformance_run(doc: Run, graded: Conformance, run_id: str) -> Run:
    """``doc``'s environment graded by ``graded``: a conformance document of run ``run_id``
    (no benchmarks), as ``./bench conformance`` writes it."""
    started, finished = times(run_id)
    return msgspec.structs.replace(
        doc, run_id=run_id, started_at=started, finished_at=finished, benchmarks=[],
        conformance=graded,
    )  # fmt: skip


def conformance_case(case_id: str, behavior: str) -> ConformanceCase:
    """Case ``case_id`` with the suite's verdict ``behavior``; its description holds a ``|``."""
    return ConformanceCase(
        id=case_id, behavior=behavior, behavior_close="OK", duration_ms=2,
        remote_close_code=1000, description=f"Send case {case_id} | a pipe",
        expectation="Echo", result=f"Actual events differ in {case_id}.", result_close="ok",
    )  # fmt: skip


def with_grade(
    doc: Run,
    verdicts: dict[str, str],
    *,
    suite: str = SUITE,
    outcome: str = "graded",
) -> Run:
    """``doc`` as a conformance store's document: graded by ``suite`` with ``verdicts``
    (case id -> verdict), or with another ``outcome`` (its error ``"did not start"``)."""
    grade = Conformance(
        suite=suite, route=ROUTE, cases_selected=["1.*", "6.*", "7.*"],
        outcome=outcome, error=None if outcome == "graded" else "did not start",  # type: ignore[arg-type]
        wall_s=12.5, cases=[conformance_case(i, b) for i, b in verdicts.items()],
    )  # fmt: skip
    return msgspec.structs.replace(doc, conformance=grade)


PROFILER = "py-spy 0.4.3"


def window(rate: float | None, cpu: float | None, kernel: float | None = None) -> ProfiledWindow:
    """A profiled server process's window: ``rate`` messages/s, the server's CPU ``cpu`` %
    of which ``kernel`` % in the kernel."""
    return ProfiledWindow(
        messages_per_s=rate, server_cpu_percent=cpu, server_kernel_cpu_percent=kernel
    )


def profile_set(
    stacks: dict[str, int],
    *,
    profiled: ProfiledWindow,
    unprofiled: Sequence[ProfiledWindow],
    params: dict[str, int] = ECHO_16_64,
    scenario: str = "echo",
    rate_hz: int = 250,
    duration_s: float = 1.0,
) -> ProfileSet:
    """An ok profile of one parameter set (echo 16 B x 64 unless told): ``stacks`` (folded,
    root first) recorded at ``rate_hz`` over ``duration_s`` in the ``profiled`` window, with
    the same process's ``unprofiled`` windows."""
    return ProfileSet(
        scenario=scenario, params=dict(params), status="ok", error=None, duration_s=duration_s,
        rate_hz=rate_hz, stacks=dict(stacks), profiled=profiled, unprofiled=list(unprofiled),
    )  # fmt: skip


def profile_run(doc: Run, sets: Sequence[ProfileSet], run_id: str, *, native: bool) -> Run:
    """``doc``'s environment profiled: a profile document of run ``run_id`` (no benchmarks)
    holding ``sets``, as ``./bench profile`` writes it (``native``: with native frames)."""
    started, finished = times(run_id)
    return msgspec.structs.replace(
        doc, run_id=run_id, started_at=started, finished_at=finished, benchmarks=[],
        profiling=Profiling(PROFILER, native), profiles=list(sets),
    )  # fmt: skip
