"""What one measurement asks of the load generator, and when its report counts."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.reports import report
from wsbench.impls import get_impl
from wsbench.instrument.cpus import LOADGEN_CPUS_ENV, SERVER_CPUS_ENV, available_cpus
from wsbench.instrument.measure import MeasureConfig, ServerSession, check_report
from wsbench.loadreport import Report
from wsbench.scenarios import SOURCE_ADDRESSES, Scenario

URL = "ws://127.0.0.1:9/x"
ZERO_ERRORS = {
    "connection_refused": 0, "handshake_failed": 0, "closed_early": 0, "timeout": 0,
    "socketio_connect_error": 0, "other": 0,
}  # fmt: skip
ZERO_INTEGRITY = {"lost": 0, "corrupted": 0, "duplicated": 0, "out_of_order": 0}


def _config(scenario: Scenario, **params: int) -> MeasureConfig:
    return MeasureConfig.for_params("native", None, scenario, params, warmup_s=0.25, window_s=0.5)


def test_clients_spread_connections_over_source_addresses() -> None:
    config = _config("clients", connections=1000, size_bytes=1024, in_flight=1)
    assert config.loadgen_args(URL) == [
        "echo", "--url", URL, "--connections", "1000", "--size", "1024",
        "--warmup", "0.25", "--duration", "0.5", "--in-flight", "1",
        "--source-addresses", str(SOURCE_ADDRESSES),
    ]  # fmt: skip
    assert config.params() == {"connections": 1000, "size_bytes": 1024, "in_flight": 1}


def test_echo_keeps_one_source_address() -> None:
    config = _config("echo", size_bytes=16, in_flight=64)
    assert config.loadgen_args(URL, "socketio") == [
        "echo", "--url", URL, "--connections", "1", "--size", "16",
        "--warmup", "0.25", "--duration", "0.5", "--in-flight", "64", "--protocol", "socketio",
    ]  # fmt: skip


def test_json_text_connect_memory_and_soak_arguments() -> None:
    assert _config("json", in_flight=64).loadgen_args(URL) == [
        "echo", "--url", URL, "--connections", "1", "--warmup", "0.25", "--duration", "0.5",
        "--in-flight", "64", "--json",
    ]  # fmt: skip
    assert "--text" in _config("text", size_bytes=16, in_flight=1).loadgen_args(URL)
    assert _config("connect", workers=16).loadgen_args(URL) == [
        "connect", "--url", URL, "--workers", "16", "--size", "16",
        "--warmup", "0.25", "--duration", "0.5", "--source-addresses", str(SOURCE_ADDRESSES),
    ]  # fmt: skip
    memory = _config("memory", connections=10000)
    assert memory.loadgen_args(URL) == [
        "hold", "--url", URL, "--connections", "10000", "--hold-s", f"{memory.bound_s:g}",
        "--source-addresses", str(SOURCE_ADDRESSES),
    ]  # fmt: skip
    soak = _config("soak", seconds=10)
    assert (soak.connections, soak.size_bytes, soak.duration_s) == (100, 1024, 10.0)
    assert soak.params() == {"seconds": 10}


def test_the_load_generators_timeout_is_passed_only_when_given() -> None:
    assert "--timeout" not in _config("echo", size_bytes=16, in_flight=1).loadgen_args(URL)
    config = MeasureConfig(impl="x", scenario="echo", loadgen_timeout_s=1.5)
    assert config.loadgen_args(URL)[-2:] == ["--timeout", "1.5"]


def test_two_or_more_loadgen_cpus_give_one_pinned_runtime_thread_each() -> None:
    echo = _config("echo", size_bytes=16, in_flight=1)
    assert echo.loadgen_args(URL, cpus=(1, 2))[-2:] == ["--cpus", "1,2"]
    assert _config("memory", connections=10).loadgen_args(URL, cpus=(0, 1, 3))[-2:] == [
        "--cpus", "0,1,3",
    ]  # fmt: skip
    # One CPU: the single current-thread runtime, as without a placement.
    assert echo.loadgen_args(URL, cpus=(1,)) == echo.loadgen_args(URL)
    assert "--cpus" not in echo.loadgen_args(URL)


def _report(**changes: Any) -> Report:
    fields: dict[str, Any] = {
        "messages_received": 500, "connections_ok": 10,
        "errors": dict(ZERO_ERRORS), "integrity": dict(ZERO_INTEGRITY),
    }  # fmt: skip
    for key, value in changes.items():
        if key in ZERO_ERRORS:
            fields["errors"][key] = value
        elif key in ZERO_INTEGRITY:
            fields["integrity"][key] = value
        else:
            fields[key] = value
    return report(**fields)


def test_failed_connections_are_figures_in_the_clients_scenario_only() -> None:
    clients = _config("clients", connections=10, size_bytes=16, in_flight=1)
    echo = _config("echo", size_bytes=16, in_flight=1)
    assert check_report(_report(timeout=3, lost=2, connections_ok=7), clients) is None
    assert check_report(_report(timeout=3), echo) == "load generator saw timeout=3"
    assert check_report(_report(lost=2), echo) == "load generator saw lost=2"


def test_a_server_that_never_answers_is_named_before_the_messages_it_lost() -> None:
    echo = _config("echo", size_bytes=16, in_flight=1)
    silent = _report(messages_received=0, lost=1, timeout=1)
    assert check_report(silent, echo) == (
        "no message was received in the 0.5 s measurement window (after 0.25 s of warm-up): "
        "the server answered more slowly than that, or not at all "
        "(load generator saw lost=1, timeout=1)"
    )
    counted = MeasureConfig(impl="x", scenario="echo", count=10)
    assert check_report(_report(messages_received=0), counted) == "no message was received"


def test_a_clients_run_fails_when_no_connection_succeeds_or_a_message_is_corrupted() -> None:
    clients = _config("clients", connections=10, size_bytes=16, in_flight=1)
    none = _report(connections_ok=0, messages_received=0, connection_refused=10)
    assert check_report(none, clients) == "no connection succeeded: connection_refused=10"
    assert check_report(_report(corrupted=1), clients) == "load generator saw corrupted=1"


def test_connect_fails_without_a_completed_cycle_and_memory_without_a_connection() -> None:
    connect = _config("connect", workers=16)
    assert check_report(_report(cycles=12, timeout=2), connect) is None
    assert check_report(_report(cycles=0, timeout=2), connect) == (
        "no connect cycle completed in the window: timeout=2"
    )
    memory = _config("memory", connections=1000)
    held = report(connections_ok=990, errors={**ZERO_ERRORS, "timeout": 10})
    assert check_report(held, memory) is None
    assert check_report(report(connections_ok=0, errors=ZERO_ERRORS), memory) == (
        "no connection succeeded: no error was reported"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workers": 0}, "workers, subscribers and source addresses"),
        ({"scenario": "fanout"}, "fanout"),
        ({"scenario": "offered"}, "needs a rate or a load percentage"),
        ({"scenario": "market"}, "needs a tick rate"),
    ],
)
def test_bad_options_are_named(changes: dict[str, Any], message: str) -> None:
    import dataclasses

    from wsbench.instrument.measure import ConfigError

    config = dataclasses.replace(_config("connect", workers=1), **changes)
    with pytest.raises(ConfigError, match=message):
        config.validate()


def test_the_time_limit_is_a_minute_over_the_window_unless_given() -> None:
    config = MeasureConfig(impl="x", scenario="echo", warmup_s=1.0, duration_s=3.0,
                           connections=100)  # fmt: skip
    assert config.bound_s == pytest.approx(1.0 + 3.0 + 60.0 + 1.0)
    counted = MeasureConfig(impl="x", scenario="echo", count=500, time_limit_s=300.0)
    assert counted.bound_s == 300.0


def test_a_load_generator_failing_after_the_server_died_names_the_server_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's exit is the cause; the load generator's failure (here a client program's)
    follows it."""
    client = tmp_path / "client"
    client.write_text('#!/bin/sh\nkill -9 "$SERVER_PID"; sleep 0.2; echo "lost it" >&2; exit 1\n')
    client.chmod(client.stat().st_mode | stat.S_IEXEC)
    with ServerSession(get_impl("native"), "websocket", client=[str(client)]) as session:
        monkeypatch.setenv("SERVER_PID", str(session.pid))
        m = session.run(MeasureConfig(impl="native", scenario="echo", count=1))
    assert m.status == "failed"
    assert m.error is not None
    assert m.error.startswith(
        "native: server exited with code -9 during the measurement "
        "(client program exited with code 1: lost it).\n--- server log (tail) ---\n"
    )


def test_a_server_started_without_a_placement_follows_the_runners_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    usable = available_cpus()
    monkeypatch.setenv(SERVER_CPUS_ENV, str(usable[-1]))
    monkeypatch.setenv(LOADGEN_CPUS_ENV, str(usable[0]))
    with ServerSession(get_impl("native"), "websocket") as session:
        assert session.placement.server == (usable[-1],)
        assert session.placement.loadgen == (usable[0],)
        assert psutil.Process(session.pid).cpu_affinity() == [usable[-1]]
