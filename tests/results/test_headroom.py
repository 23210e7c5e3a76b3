"""Tests of wsbench.results.headroom: the load generator's demand and a runner's layout."""

from __future__ import annotations

import msgspec
import pytest

from tests.runs import SETTINGS, benchmark, impl, run
from wsbench.results.headroom import (
    HEADROOM,
    demands,
    describe,
    layout,
    loadgen_cpus_needed,
    newest_runs,
)
from wsbench.results.runformat import Benchmark, Run

BROADCAST = {"subscribers": 100, "size_bytes": 16}


def _bench(scenario: str, params: dict[str, int], loadgen: float, server: float) -> Benchmark:
    """Two usable windows with the load generator and the server at these CPU readings."""
    bench = benchmark(scenario, params, [1000.0, 1000.0], loadgen_cpu=loadgen)
    samples = [msgspec.structs.replace(s, server_cpu_percent=server) for s in bench.samples]
    return msgspec.structs.replace(bench, samples=samples)


def _run(name: str, benches: list[Benchmark], **kw: object) -> Run:
    return run([], impl_info=impl(name, **kw), benchmarks=benches)  # type: ignore[arg-type]


def test_a_client_bound_reading_is_scaled_by_the_servers_spare_cpu() -> None:
    found = demands(
        [
            _run("picows", [_bench("broadcast", BROADCAST, 96.0, 48.0),
                            _bench("echo", {"size_bytes": 16, "in_flight": 1}, 40.0, 30.0)]),
            _run("aiohttp", [_bench("broadcast", BROADCAST, 70.0, 99.0)]),
        ]
    )  # fmt: skip
    # 96 % on one CPU is client-bound: the server at 48 % could have gone 100/48 x faster.
    assert [(d.row_name, d.scenario, round(d.demand_percent, 3)) for d in found] == [
        ("picows · asyncio", "broadcast", 200.0),
        ("aiohttp · asyncio", "broadcast", 70.0),  # not client-bound: its reading
        ("picows · asyncio", "echo", 40.0),
    ]
    assert found[0].client_bound and not found[1].client_bound


def test_the_reference_clients_memory_and_unusable_sets_are_left_out() -> None:
    reference = _run("native", [_bench("broadcast", BROADCAST, 99.0, 20.0)], reference=True)
    client = msgspec.structs.replace(
        _run("websockets", [_bench("echo", {"size_bytes": 16}, 95.0, 50.0)]),
        impl=msgspec.structs.replace(impl("websockets"), role="client"),
    )
    no_server_reading = _bench("memory", {"connections": 100}, 10.0, 0.0)
    failed = Benchmark("echo", {"size_bytes": 16}, "failed", "crashed", [])
    assert demands([reference, client, _run("picows", [no_server_reading, failed])]) == []


def test_several_loadgen_cpus_are_client_bound_only_above_80_percent_of_them_all() -> None:
    two = msgspec.structs.replace(
        _run("picows", [_bench("broadcast", BROADCAST, 150.0, 50.0)]),
        settings=msgspec.structs.replace(SETTINGS, loadgen_cpus=(1, 2)),
    )
    (found,) = demands([two])
    assert not found.client_bound and found.demand_percent == 150.0  # 75 % of each
    three = msgspec.structs.replace(two, benchmarks=[_bench("broadcast", BROADCAST, 170.0, 50.0)])
    assert demands([three])[0].demand_percent == pytest.approx(340.0)


def test_the_load_generator_gets_five_times_its_largest_demand() -> None:
    assert HEADROOM == 5.0
    assert [loadgen_cpus_needed(d) for d in (0.0, 19.0, 20.0, 21.0, 200.0, 201.0)] == [
        1, 1, 1, 2, 10, 11,
    ]  # fmt: skip


def test_a_runners_layout_keeps_two_cpus_for_the_system_and_sizes_the_load_generator() -> None:
    big = layout(16, 200.0)  # needs 10
    assert (big.system, big.server, big.loadgen) == ((0, 1), (2,), tuple(range(3, 13)))
    assert big.enough and big.headroom == pytest.approx(5.0)
    small = layout(8, 200.0)  # 5 left for it
    assert small.loadgen == (3, 4, 5, 6, 7) and not small.enough
    assert small.headroom == pytest.approx(2.5)
    assert (layout(3, 10.0).system, layout(3, 10.0).server, layout(3, 10.0).loadgen) == (
        (0,), (1,), (2,),
    )  # fmt: skip
    dev = layout(2, 200.0)  # this machine: the default placement, no CPU for the system
    assert (dev.system, dev.server, dev.loadgen, dev.enough) == ((), (0,), (1,), False)
    assert (layout(1, None).server, layout(1, None).loadgen, layout(1, None).headroom) == (
        (0,), (0,), None,
    )  # fmt: skip
    with pytest.raises(ValueError, match="at least 1 CPU, not 0"):
        layout(0, None)


def test_a_runner_with_room_gives_the_multi_cpu_profiles_a_server_set() -> None:
    assert layout(16, 200.0).multi_server == () == layout(2, 10.0).multi_server
    assert layout(5, 10.0).multi_server == ()  # 3 after the system: no room for 2 + 2
    roomy = layout(8, 20.0)  # needs 1 load generator CPU per server CPU
    assert (roomy.server, roomy.multi_server, roomy.loadgen) == ((2,), (2, 3, 4), (5, 6, 7))
    four = layout(16, 40.0)  # needs 2 per server CPU: 4 + 8 of the 14
    assert (four.multi_server, four.loadgen) == ((2, 3, 4, 5), tuple(range(6, 14)))
    assert layout(6, None).multi_server == (2, 3)


def test_the_newest_run_of_each_environment_sizes_it() -> None:
    old = run([1.0], run_id="20261101T000000Z-aaaaaa")
    new = run([1.0], run_id="20261120T000000Z-bbbbbb")
    other = run([1.0], run_id="20261101T000000Z-cccccc", machine="other")
    assert newest_runs([old, new, other]) == [new, other]


def test_what_the_layout_says() -> None:
    found = demands([_run("picows", [_bench("broadcast", BROADCAST, 96.0, 48.0)])])
    text = describe(layout(16, found[0].demand_percent), found)
    assert text.splitlines()[:5] == [
        "a runner with 16 CPUs: system 0-1, server 2, load generator 3-12 (10 runtime threads)",
        "  ./bench run --server-cpus 2 --loadgen-cpus 3-12",
        "  multi-CPU profiles (2 CPUs, workers): none, no room for 2 server CPUs and 20 load "
        "generator CPUs (at least 24 cores)",
        "  largest demand: 200 % of one core (broadcast subscribers=100 size_bytes=16 against "
        "picows · asyncio 15.0.1: read 96 % on 1 CPU(s), client-bound, server at 48 %); 5x "
        "headroom needs 10 load generator CPU(s)",
        "  this layout gives 5.0x headroom: enough",
    ]
    assert "NOT enough" in describe(layout(2, 200.0), found)
    assert describe(layout(8, 20.0), []).splitlines()[:3] == [
        "a runner with 8 CPUs: system 0-1, server 2, load generator 5-7 (3 runtime threads)",
        "  ./bench run --server-cpus 2 --loadgen-cpus 5-7",
        "  multi-CPU profiles: 2 CPUs on 2-3, 3 workers on 2-4: WSBENCH_MULTI_SERVER_CPUS=2-4",
    ]
    assert "no measured Python server" in describe(layout(2, None), [])
