"""One fast Python server with 1,000 connections: every connection established, every
reply exact, every connection held and closed; and the figures a sample keeps from it.

The server is picows on uvloop (one of the fastest servers here, so that the test stays
short); the other configurations are covered with 20 connections in tests/impls/test_servers.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wsbench.impls import get_impl
from wsbench.instrument.measure import MeasureConfig, ServerSession
from wsbench.instrument.sampling import SamplingPlan, to_sample
from wsbench.scenarios import SOURCE_ADDRESSES
from wsbench.scenarios.memory import counts as memory_counts

CONNECTIONS = 1000
IMPL, CONFIG = "picows", "uvloop"


@pytest.fixture(scope="module")
def session() -> Iterator[ServerSession]:
    with ServerSession(get_impl(IMPL), CONFIG) as started:
        assert started.start_error is None, started.start_error
        yield started
    assert started.exit_code in (0, -15), f"exit code {started.exit_code}"


def test_a_thousand_clients_each_get_every_reply(session: ServerSession) -> None:
    config = MeasureConfig(
        impl=IMPL, config=CONFIG, scenario="clients", connections=CONNECTIONS, count=5,
        source_addresses=SOURCE_ADDRESSES,
    )  # fmt: skip
    m = session.run(config)
    assert m.status == "ok", m.error
    assert m.report is not None
    assert m.report.connections_ok == CONNECTIONS
    assert m.report.messages_received == CONNECTIONS * 5
    assert m.report.config.source_addresses == SOURCE_ADDRESSES
    assert not any(m.report.errors.values())
    assert not any(m.report.integrity.values())
    sample = to_sample(m, process=0, window=0, plan=SamplingPlan())
    assert sample.connections_ok == CONNECTIONS
    assert sample.errors == {
        "connection_refused": 0, "handshake_failed": 0, "closed_early": 0, "timeout": 0,
        "socketio_connect_error": 0, "other": 0, "lost": 0,
    }  # fmt: skip
    assert sample.handshake_s is not None and 0 < sample.handshake_s.p50 <= sample.handshake_s.max
    spread = sample.per_connection_messages_per_s
    assert spread is not None and 0 < spread.min <= spread.median <= spread.max


@pytest.mark.alone  # the kernel's memory is the whole machine's: other tests move it
def test_a_thousand_idle_connections_are_held_and_measured(session: ServerSession) -> None:
    config = MeasureConfig(
        impl=IMPL, config=CONFIG, scenario="memory", connections=CONNECTIONS, duration_s=0.3,
        source_addresses=SOURCE_ADDRESSES,
    )  # fmt: skip
    m = session.run(config)
    assert m.status == "ok", m.error
    assert m.report is not None
    assert (m.report.connections_ok, m.report.closed, m.report.closed_early) == (
        CONNECTIONS, CONNECTIONS, 0,
    )  # fmt: skip
    assert m.rss_idle_bytes is not None and m.rss_held_bytes is not None
    # 1,000 open connections cost a server memory: at least its socket objects and buffers.
    assert m.rss_held_bytes > m.rss_idle_bytes
    # The staircase: every count read, from none to all, the kernel's memory with it.
    assert m.memory_steps is not None
    assert [s.connections for s in m.memory_steps] == list(memory_counts(CONNECTIONS))
    assert (m.memory_steps[0].rss_bytes, m.memory_steps[-1].rss_bytes) == (
        m.rss_idle_bytes, m.rss_held_bytes,
    )  # fmt: skip
    assert all(s.kernel_bytes for s in m.memory_steps)
    assert m.memory_steps[-1].kernel_bytes > m.memory_steps[0].kernel_bytes  # type: ignore[operator]
    sample = to_sample(m, process=0, window=0, plan=SamplingPlan())
    assert (sample.rss_idle_bytes, sample.rss_held_bytes) == (m.rss_idle_bytes, m.rss_held_bytes)
    assert sample.memory_steps == m.memory_steps
    assert sample.messages_per_s is None and sample.server_cpu_percent is None
