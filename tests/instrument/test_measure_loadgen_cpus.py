"""Measurements with the load generator on two CPUs (``--loadgen-cpus A,B``): it runs one
runtime thread pinned to each (``--cpus A,B``, ``loadgen/src/cpus.rs``), the connections
spread round robin over them, and every count stays exact."""

from __future__ import annotations

import json

import pytest

from wsbench.commands.cli import main
from wsbench.impls import get_impl
from wsbench.instrument.cpus import CpuPlacement, available_cpus
from wsbench.instrument.measure import MeasureConfig, ServerSession

TWO_CPUS = available_cpus()[:2]

pytestmark = pytest.mark.skipif(len(TWO_CPUS) < 2, reason="needs two CPUs")


@pytest.mark.parametrize(
    ("config", "scenario", "options", "expected"),
    [
        # 6 connections x 40 messages each, over both threads.
        ("websocket", "clients", ["--connections", "6", "--in-flight", "4"], 6 * 40),
        # 5 Socket.IO room members x 40 messages published.
        ("socketio", "broadcast", ["--subscribers", "5"], 5 * 40),
    ],
)
def test_a_measurement_on_two_loadgen_cpus_counts_exactly(
    capsys: pytest.CaptureFixture[str],
    config: str,
    scenario: str,
    options: list[str],
    expected: int,
) -> None:
    cpus = ",".join(str(cpu) for cpu in TWO_CPUS)
    argv = [
        "measure", "--impl", "native", "--config", config, "--scenario", scenario,
        "--count", "40", "--loadgen-cpus", cpus, "--json", *options,
    ]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr()
    record = json.loads(capsys.readouterr().out)
    report = record["loadgen"]
    assert (report["config"]["threads"], report["config"]["cpus"]) == (2, list(TWO_CPUS))
    assert report["messages_received"] == expected
    assert not any(report["errors"].values())
    assert not any(report["integrity"].values())


def test_connections_held_on_two_loadgen_cpus_are_all_opened_and_closed() -> None:
    placement = CpuPlacement(server=TWO_CPUS[:1], loadgen=TWO_CPUS)
    with ServerSession(get_impl("native"), "websocket", placement=placement) as session:
        m = session.run(
            MeasureConfig(impl="native", config="websocket", scenario="memory", connections=8,
                          duration_s=0.2)
        )  # fmt: skip
    assert m.status == "ok", m.error
    assert m.report is not None
    assert m.report.config.cpus == TWO_CPUS
    assert (m.report.connections_ok, m.report.closed, m.report.closed_early) == (8, 8, 0)
