"""The scenario definitions: grids, the asv product, labels, unknown names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.reports import report
from wsbench import scenarios as scenarios_package
from wsbench.deployment import (
    MULTI_CPU_PROFILES,
    MULTI_SERVER_CPUS_ENV,
    PROFILES,
    TUNED,
    measured_profiles,
    profile_of,
)
from wsbench.instrument.measure import MeasureConfig
from wsbench.results import metrics
from wsbench.scenarios import (
    FANOUT_MAX_CLIENT_MESSAGES_PER_S,
    SCENARIOS,
    SPECS,
    SWITCHES,
    canonical,
    client_messages_per_s,
    in_grid,
    params_key,
    params_label,
    params_words,
    spec,
)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_default_grid_is_in_the_full_grid_which_is_in_the_asv_product(scenario: str) -> None:
    defined = spec(scenario)
    full = [params_key(p) for p in defined.grid("full")]
    product = {params_key(p) for p in defined.product()}
    assert full, scenario
    assert len(set(full)) == len(full)
    assert set(full) <= product
    assert {params_key(p) for p in defined.grid("default")} <= set(full)
    for params in defined.grid("full"):
        assert [name for name in params if name not in SWITCHES] == list(defined.axes)
        assert set(params) <= set(defined.asv_axes())
        assert params == canonical(params)


def test_clients_full_grid_has_64_in_flight_at_100_connections_only() -> None:
    full = [p for p in spec("clients").grid("full") if "corpus" not in p]
    assert len(full) == 11
    assert [p for p in full if p["connections"] == 10000] == [
        {"connections": 10000, "size_bytes": 16, "in_flight": 1}
    ]
    pipelined = [p for p in full if p["in_flight"] == 64]
    assert pipelined == [
        {"connections": 100, "size_bytes": 16, "in_flight": 64},
        {"connections": 100, "size_bytes": 1024, "in_flight": 64},
    ]
    assert sorted({p["connections"] for p in full}) == [1, 10, 100, 1000, 10000]


def test_the_default_grid_keeps_the_headline_figures_and_some_scenarios_only() -> None:
    assert in_grid("full") == list(SCENARIOS)
    assert in_grid("default") == ["echo", "stream", "clients", "memory", "broadcast"]
    # One fan-out set in the main job (its 30-minute budget); the rest nightly.
    assert spec("broadcast").grid("default") == [{"subscribers": 100, "rate": 0, "size_bytes": 16}]
    # Latency, message rate and bandwidth; 1 KiB and 100 clients are the nightly's.
    assert spec("echo").grid("default") == [
        {"size_bytes": 16, "in_flight": 1},
        {"size_bytes": 16, "in_flight": 64},
        {"size_bytes": 65536, "in_flight": 64},
    ]
    assert spec("clients").grid("default") == [
        {"connections": 1000, "size_bytes": 16, "in_flight": 1},
    ]
    # Memory: one window per server process (a second one under-counts), the rest the plan's.
    assert spec("memory").windows_per_process == 1
    assert [s for s in SCENARIOS if spec(s).windows_per_process is not None] == ["memory"]


def test_labels_and_keys() -> None:
    assert params_key({"size_bytes": 16, "in_flight": 64}) == "in_flight=64,size_bytes=16"
    assert params_label({"size_bytes": 16, "in_flight": 64}) == "16 B x64"
    assert params_label({"connections": 1000, "size_bytes": 16, "in_flight": 1}) == (
        "1000 conns 16 B x1"
    )
    assert params_label({"workers": 16}) == "16 workers"


def test_unknown_scenario_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown scenario 'fanout' \\(known: echo, stream"):
        spec("fanout")


def test_every_scenario_has_a_title_and_one_spec() -> None:
    assert list(SPECS) == list(SCENARIOS)
    assert all(SPECS[s].title and SPECS[s].summary for s in SCENARIOS)


def test_a_fixed_offered_load_is_an_absolute_rate_or_a_share_of_the_capacity_never_both() -> None:
    full = spec("offered").grid("full")
    assert all((p["rate"] == 0) != (p["load_percent"] == 0) for p in full)
    assert sorted(p["load_percent"] for p in full if p["load_percent"]) == [25, 50, 75, 90]
    assert params_label({"rate": 0, "load_percent": 50}) == "50% load"
    assert params_label({"rate": 5000, "load_percent": 0}) == "5000/s"


def test_broadcast_without_a_rate_reads_as_fast_as_delivered() -> None:
    assert params_label({"subscribers": 100, "rate": 0, "size_bytes": 16}) == "16 B 100 subs max"
    assert params_words({"subscribers": 10, "rate": 0}, short=False) == [
        "10 subscribers", "as fast as delivered",
    ]  # fmt: skip


@pytest.mark.parametrize("scenario", ["broadcast", "market"])
def test_fan_out_sets_stay_within_the_load_generators_share_and_reach_1000_subscribers(
    scenario: str,
) -> None:
    full = spec(scenario).grid("full")
    assert all(client_messages_per_s(scenario, p) <= FANOUT_MAX_CLIENT_MESSAGES_PER_S for p in full)
    assert sorted({p["subscribers"] for p in full}) == [1, 10, 100, 1000]
    # Outside the share: a million deliveries/s would measure the client, not the server.
    assert {"subscribers": 1000, "rate": 1000, "size_bytes": 16} not in spec("broadcast").grid(
        "full"
    )
    assert client_messages_per_s("market", {"subscribers": 1000, "rate": 100}) == 300_000


def test_market_runs_seed_002s_100_ticks_a_second_up_to_100_clients() -> None:
    full = spec("market").grid("full")
    assert [p["subscribers"] for p in full if p["rate"] == 100] == [1, 10, 100]
    assert [p for p in full if p["rate"] == 10] == [{"subscribers": 1000, "rate": 10}]


def test_every_module_of_the_package_but_the_shared_ones_is_a_registered_scenario() -> None:
    folder = Path(scenarios_package.__file__).parent
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "base", "params", "selection"}
    assert modules == set(SCENARIOS)
    assert [SPECS[s].position for s in SCENARIOS] == sorted(SPECS[s].position for s in SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_scenario_ranks_by_one_of_its_figures_and_shows_only_its_figures(scenario: str) -> None:
    defined = spec(scenario)
    assert defined.headline in defined.figures
    assert {c.figure for c in defined.columns if c.figure} <= set(defined.figures)
    assert [m.name for m in metrics.for_scenario(scenario)] == [
        m.name for m in metrics.METRICS if m.name in defined.figures
    ]
    assert metrics.SCENARIO_HEADLINES[scenario].name == defined.headline


def test_each_mode_drives_the_load_generator_with_its_own_options() -> None:
    echo = MeasureConfig("x", "echo", size_bytes=64, in_flight=8, duration_s=2.0)
    assert spec("echo").loadgen_options(echo) == [
        "--connections", "1", "--size", "64", "--warmup", "1.0", "--duration", "2.0",
        "--in-flight", "8",
    ]  # fmt: skip
    market = MeasureConfig("x", "market", subscribers=10, rate=100.0)
    assert spec("market").loadgen_options(market)[:4] == [
        "--subscribers", "10", "--rate", "100",
    ]  # fmt: skip
    assert spec("market").invalid(replace(market, rate=0.0)) == (
        "the market scenario needs a tick rate (rate > 0)"
    )
    held = MeasureConfig("x", "memory", connections=100, time_limit_s=7.0)
    assert spec("memory").loadgen_options(held) == ["--connections", "100", "--hold-s", "7"]
    assert not spec("memory").windowed and spec("echo").windowed


def test_ping_keeps_one_ping_in_flight_and_counts_its_pongs() -> None:
    pings = MeasureConfig("x", "ping", connections=3, count=2)
    assert spec("ping").loadgen_options(pings) == [
        "--connections", "3", "--warmup", "1.0", "--duration", "3.0",
    ]  # fmt: skip
    assert pings.loadgen_args("ws://h/echo")[:2] == ["ping", "--url"]
    clean = {"integrity": {"lost": 0}, "errors": {"timeout": 0}}
    assert spec("ping").check(report(messages_received=6, **clean), pings) is None
    assert spec("ping").check(report(messages_received=5, **clean), pings) == (
        "received 5 of 6 pongs"
    )
    lost = {"integrity": {"lost": 1}, "errors": {"timeout": 1}}
    assert spec("ping").check(report(messages_received=5, **lost), pings) == (
        "load generator saw lost=1, timeout=1"
    )


def test_one_of_a_counted_parameter_reads_in_the_singular() -> None:
    assert params_words({"connections": 1}, short=False) == ["1 connection"]
    assert params_words({"subscribers": 1, "rate": 100}, short=False) == [
        "1 subscriber", "100 messages/s",
    ]  # fmt: skip
    assert params_words({"workers": 16}, short=False) == ["16 workers"]
    assert params_label({"connections": 1, "size_bytes": 16, "in_flight": 1}) == "1 conns 16 B x1"


def test_profiled_sets_are_in_the_full_grid_in_every_measured_profile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTI_SERVER_CPUS_ENV, raising=False)
    corpus = [
        {"size_bytes": 1024, "in_flight": 1, "corpus": 1},
        {"size_bytes": 1024, "in_flight": 64, "corpus": 1},
    ]
    others = [p for p in measured_profiles(()) if p is not TUNED]
    assert [p.name for p in others] == ["as-shipped", "tls", "browser"]
    echo = spec("echo").grid("full")
    assert echo[-8:] == [*corpus, *({**p, **o.params} for o in others for p in corpus)]
    assert echo[-3] == {"size_bytes": 1024, "in_flight": 64, "corpus": 1, "tls": 1}
    clients = {"connections": 100, "size_bytes": 1024, "in_flight": 1, "corpus": 1}
    assert spec("clients").grid("full")[-4:] == [
        clients,
        *({**clients, **o.params} for o in others),
    ]
    assert spec("connect").grid("full")[-3:] == [
        {"workers": 16, "deflate": 1}, {"workers": 16, "tls": 1},
        {"workers": 16, "deflate": 1, "tls": 1},
    ]  # fmt: skip
    assert spec("memory").grid("full")[-1] == {"connections": 1000, "deflate": 1, "tls": 1}
    profiled = [s for s in SCENARIOS if spec(s).profiled]
    assert profiled == ["echo", "clients", "connect", "memory"]
    for scenario in SCENARIOS:
        full = spec(scenario).grid("full")
        assert {profile_of(p) for p in full} == (
            set(measured_profiles(())) if scenario in profiled else {TUNED}
        )
        # No profile in the default grid (the main job's budget).
        assert {profile_of(p) for p in spec(scenario).grid("default")} <= {TUNED}


def test_a_runner_with_a_multi_cpu_server_set_measures_those_profiles_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTI_SERVER_CPUS_ENV, raising=False)
    axes = spec("echo").asv_axes()
    without = spec("echo").grid("full")
    monkeypatch.setenv(MULTI_SERVER_CPUS_ENV, "2-4")
    echo = spec("echo").grid("full")
    assert echo == spec("echo").grid("full", PROFILES)
    assert echo[: len(without)] == without  # the same sets first, in the same order
    assert echo[len(without) :] == [
        {"size_bytes": 1024, "in_flight": i, "corpus": 1, **p.params}
        for p in MULTI_CPU_PROFILES
        for i in (1, 64)
    ]
    assert spec("memory").grid("full")[-1] == {"connections": 1000, "cpu_workers": 1}
    # asv's parameters gain the two switches only on a runner that measures them
    assert {"two_cpus", "cpu_workers"} & set(axes) == set()
    assert set(spec("echo").asv_axes()) == {*axes, "two_cpus", "cpu_workers"}
    assert {params_key(p) for p in echo} <= {params_key(p) for p in spec("echo").product()}


def test_switches_at_0_are_left_out_and_a_set_in_a_profile_reads_as_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTI_SERVER_CPUS_ENV, raising=False)
    assert canonical({"size_bytes": 16, "deflate": 0, "corpus": 0}) == {"size_bytes": 16}
    assert canonical({"workers": 16, "tls": 1}) == {"workers": 16, "tls": 1}
    assert spec("echo").asv_axes() == {
        "size_bytes": (16, 1024, 65536), "in_flight": (1, 64), "corpus": (0, 1), "deflate": (0, 1),
        "tls": (0, 1),
    }  # fmt: skip
    assert params_words({"connections": 100, "two_cpus": 1}, short=False) == [
        "100 connections", "the server on 2 CPUs",
    ]  # fmt: skip
    assert params_label({"workers": 16, "cpu_workers": 1}) == "16 workers 1 proc/CPU"
    assert params_label({"size_bytes": 1024, "in_flight": 1, "corpus": 1, "deflate": 1}) == (
        "1024 B JSON x1 deflate"
    )
    assert params_words({"connections": 100, "corpus": 1, "deflate": 1, "tls": 1}, short=False) == [
        "100 connections", "the JSON corpus", "permessage-deflate offered", "over TLS",
    ]  # fmt: skip
