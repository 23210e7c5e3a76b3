"""The Clients pages (wsbench.site.clients): leaderboards per parameter set of the client
grid, the server-bound flag, failures with their reasons, and a library's page by version."""

from __future__ import annotations

import msgspec

from tests.runs import benchmark, failed, impl, run
from wsbench.impls import all_impls
from wsbench.paths import CLIENTS_DIR
from wsbench.results.runformat import Run
from wsbench.results.store import Store
from wsbench.scenarios import CLIENT_GRID
from wsbench.site.clients import (
    CLIENTS_INDEX,
    leaderboard,
    ordered_sets,
    render_client,
    render_clients_index,
    set_title,
)
from wsbench.site.results import results_of

PING_PONG_256 = {"size_bytes": 256, "in_flight": 1}


def client_run(name: str, config: str, version: str, rate: float, **kw: object) -> Run:
    info = msgspec.structs.replace(impl(name, version, config), role="client", api=f"{config} api")
    benchmarks = [benchmark("echo", PING_PONG_256, [rate] * 4, **kw)]  # type: ignore[arg-type]
    return run([], impl_info=info, benchmarks=benchmarks)


def test_the_headline_set_comes_first_and_every_set_is_listed() -> None:
    sets = ordered_sets()
    assert sets[0] == ("echo", PING_PONG_256)
    assert len(sets) == sum(len(grid) for grid in CLIENT_GRID.values())
    assert set_title("echo", {"size_bytes": 16, "in_flight": 64}) == (
        "Pipelined (64 in flight), 16 B"
    )
    assert set_title("stream", {"size_bytes": 1024}) == "Receive from a push, 1,024 B"


def test_leaderboard_ranks_by_messages_per_s_and_puts_failures_last() -> None:
    docs = [
        client_run("slow", "sync", "1.0", 1000.0),
        client_run("fast", "asyncio", "2.0", 5000.0),
        run([], impl_info=msgspec.structs.replace(impl("broken", "3.0", "asyncio"), role="client"),
            benchmarks=[failed("echo", PING_PONG_256, "client program exited 1: boom")]),
    ]  # fmt: skip
    table = leaderboard(results_of(Store(runs=docs)).runs, "echo", PING_PONG_256)
    lines = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert [line.split(" | ")[1] for line in lines[1:]] == [
        "[fast · asyncio](fast.md)", "[slow · sync](slow.md)", "[broken · asyncio](broken.md)",
    ]  # fmt: skip
    assert lines[1].startswith("| 1 |") and lines[3].startswith("| — |")
    assert "**failed**: client program exited 1: boom" in lines[3]


def test_a_server_above_80_percent_is_flagged() -> None:
    doc = client_run("c", "asyncio", "1.0", 1000.0)
    hot = [msgspec.structs.replace(s, server_cpu_percent=95.0) for s in doc.benchmarks[0].samples]
    doc = msgspec.structs.replace(
        doc, benchmarks=[msgspec.structs.replace(doc.benchmarks[0], samples=hot)]
    )
    table = leaderboard(results_of(Store(runs=[doc])).runs, "echo", PING_PONG_256)
    assert "⚠ server-bound (reference server CPU 95 %)" in table


def test_the_index_shows_the_newest_version_and_the_library_page_every_version() -> None:
    docs = [
        client_run("websockets", "asyncio", "13.1", 1000.0),
        client_run("websockets", "asyncio", "17.4", 2000.0),
    ]
    results = results_of(Store(runs=docs))
    clients = [c for c in all_impls(CLIENTS_DIR) if c.name == "websockets"]
    index = render_clients_index(results, clients, "https://example.org/r")
    assert "| 17.4 |" in index and "| 13.1 |" not in index
    page = render_client(clients[0], results, "https://example.org/r")
    assert "| 13.1 |" in page and "| 17.4 |" in page
    assert CLIENTS_INDEX == "clients/index.md"


def test_no_results_says_how_to_get_them() -> None:
    index = render_clients_index(results_of(Store()), [], "https://example.org/r")
    assert "`./bench clients`" in index
