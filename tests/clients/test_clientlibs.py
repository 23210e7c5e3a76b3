"""Every configuration of every client library (clients/), at the version installed here,
drives the native reference server exactly: ping-pong, pipelined echo and a push in count
mode, every message checked by the client kit and counted.

Each configuration gets one reference server (the module-scoped ``session`` fixture,
parametrized over the configurations) serving its three cases, each a fresh client process;
the harness validates each report as it validates the load generator's
(:func:`wsbench.instrument.measure.check_report`: exact counts, no integrity error).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from wsbench.impls import Impl, ImplConfig, all_impls, get_impl
from wsbench.instrument import loadgen
from wsbench.instrument.measure import HOST, MeasureConfig, ServerSession
from wsbench.jobs.clients import REFERENCE
from wsbench.paths import CLIENTS_DIR

CLIENTS = {c.name: c for c in all_impls(CLIENTS_DIR)}
CONFIGS = [
    pytest.param((client.name, config.id), id=f"{client.name}:{config.id}")
    for client in CLIENTS.values()
    for config in client.configs
]
CASES: dict[str, dict[str, Any]] = {
    "ping-pong": {"scenario": "echo", "size_bytes": 1024, "in_flight": 1, "count": 200},
    "pipelined": {"scenario": "echo", "size_bytes": 16, "in_flight": 8, "count": 400},
    "push": {"scenario": "stream", "size_bytes": 256, "count": 1000},
}


def client_command(client: Impl, config: ImplConfig) -> list[str]:
    """The client program's command with this interpreter (the project's environment)."""
    return client.argv(
        python=sys.executable, loadgen=loadgen.ensure_built(quiet=True), host=HOST, port=0,
        config=config,
    )  # fmt: skip


@pytest.fixture(scope="module", params=CONFIGS)
def session(request: pytest.FixtureRequest) -> Iterator[tuple[Impl, ImplConfig, ServerSession]]:
    name, config_id = request.param
    client = CLIENTS[name]
    config = client.config(config_id)
    server_config = "socketio" if config.protocol == "socketio" else "websocket"
    with ServerSession(
        get_impl(REFERENCE), server_config, client=client_command(client, config),
        label=f"reference for {name}:{config_id}",
    ) as running:  # fmt: skip
        yield client, config, running


@pytest.mark.parametrize("case", list(CASES))
def test_exact_counts(session: tuple[Impl, ImplConfig, ServerSession], case: str) -> None:
    client, config, running = session
    values = dict(CASES[case])
    measurement = running.run(
        MeasureConfig(
            impl=REFERENCE, config=running.run_config.id, scenario=values.pop("scenario"),
            size_bytes=values["size_bytes"], in_flight=values.get("in_flight", 1),
            count=values["count"], warmup_s=0.0, duration_s=1.0,
        )
    )  # fmt: skip
    assert measurement.status == "ok", measurement.error
    report = measurement.report
    assert report is not None
    assert report.client is not None
    assert report.client.library == client.package
    assert report.client.api == config.api
    assert report.messages_received == values["count"]
    assert report.bytes_received == values["count"] * values["size_bytes"]
    if case != "push":
        assert report.latency_us is not None and report.latency_us.count == values["count"]
    assert report.connections_ok == 1
    assert report.loadgen_cpu_percent is not None
