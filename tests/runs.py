"""Run documents for tests, built in code (the format is ours: no measured fixture needed)."""

from __future__ import annotations

from wsbench.runformat import (
    Benchmark,
    Environment,
    Harness,
    ImplInfo,
    Latency,
    LoadgenBuild,
    Machine,
    Run,
    Sample,
    Settings,
)

SETTINGS = Settings(
    warmup_s=0.5, window_s=1.0, processes=3, windows_per_process=2, connections=1,
    server_cpus=[0], loadgen_cpus=[1], max_other_cpu_percent=10.0, max_steal_percent=5.0,
    retries=2,
)  # fmt: skip
LOADGEN = LoadgenBuild(version="0.1.0", source_sha256="ab" * 32, rustc="rustc 1.95.0")


def sample(rate: float, *, process: int = 0, window: int = 0, disturbed: bool = False) -> Sample:
    """An ok echo window at ``rate`` messages/s (16-byte messages, latency 1/rate)."""
    return Sample(
        process=process, window=window, status="ok", messages_per_s=rate, bytes_per_s=16 * rate,
        messages_received=int(rate), window_s=1.0,
        latency_s=Latency(p50=1 / rate, p90=1.1 / rate, p99=1.5 / rate, p99_9=2 / rate,
                          max=3 / rate),
        server_cpu_percent=99.0, server_rss_bytes=20_000_000, loadgen_cpu_percent=40.0,
        other_cpu_percent=1.0, steal_percent=0.0, disturbed=disturbed,
    )  # fmt: skip


def impl(name: str = "websockets", version: str = "15.0.1", config: str = "asyncio") -> ImplInfo:
    """An implementation's facts as a run records them."""
    return ImplInfo(
        name=name, display_name=name, package=name, version=version, config=config,
        row_name=f"{name} · {config}", server=name, ws_backend="", event_loop=config,
        protocol="websocket", reference=False, deviations={},
    )  # fmt: skip


def run(
    rates: list[float],
    *,
    run_id: str = "20261123T190000Z-aaaaaa",
    impl_info: ImplInfo | None = None,
    settings: Settings = SETTINGS,
    machine: str = "m",
) -> Run:
    """One environment's run with one echo benchmark (16 B, 64 in flight) at ``rates``."""
    info = impl_info or impl()
    samples = [sample(r, process=i // 2, window=i % 2) for i, r in enumerate(rates)]
    return Run(
        run_id=run_id, started_at="2026-11-23T19:00:00+00:00",
        finished_at="2026-11-23T19:01:00+00:00",
        machine=Machine(name=machine, cpu_model="cpu", cpu_count=2, kernel="Linux 6",
                        ram_bytes=2**34),
        harness=Harness(commit="c" * 40), loadgen=LOADGEN, settings=settings, impl=info,
        environment=Environment(env_name=f"uvpip-py3.11-{info.name}{info.version}-{info.config}",
                                python="3.11.7"),
        benchmarks=[Benchmark(scenario="echo", params={"size_bytes": 16, "in_flight": 64},
                              status="ok", error=None, samples=samples)],
    )  # fmt: skip
