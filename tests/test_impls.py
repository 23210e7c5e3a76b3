"""Every configuration of every implementation, at the version installed here, speaks the
protocol exactly (plain WebSocket or Socket.IO).

The load generator's count mode sends an exact number of messages and checks each reply
byte for byte (sequence number, filler, frame type, order); these tests assert its counts.
"""

from __future__ import annotations

import pytest

from wsbench.impls import all_impls
from wsbench.measure import MeasureConfig, measure

CONFIGS = [
    pytest.param(impl.name, config.id, id=f"{impl.name}:{config.id}")
    for impl in all_impls()
    for config in impl.configs
]
SIZES = [16, 1024, 65536]
COUNT = 200


@pytest.mark.parametrize("text", [False, True], ids=["binary", "text"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("impl", "config_id"), CONFIGS)
def test_echo_is_exact(impl: str, config_id: str, size: int, text: bool) -> None:
    config = MeasureConfig(
        impl=impl, config=config_id, scenario="echo", size_bytes=size, in_flight=16, connections=2,
        count=COUNT, text=text,
    )  # fmt: skip
    m = measure(config)
    assert m.status == "ok", m.error
    assert m.report is not None
    assert m.report["messages_sent"] == 2 * COUNT
    assert m.report["messages_received"] == 2 * COUNT
    assert m.report["bytes_received"] == 2 * COUNT * size
    assert set(m.report["integrity"].values()) == {0}
    assert set(m.report["errors"].values()) == {0}


@pytest.mark.parametrize("text", [False, True], ids=["binary", "text"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("impl", "config_id"), CONFIGS)
def test_push_delivers_the_exact_count(impl: str, config_id: str, size: int, text: bool) -> None:
    count = 1000
    config = MeasureConfig(
        impl=impl, config=config_id, scenario="stream", size_bytes=size, count=count, text=text
    )
    m = measure(config)
    assert m.status == "ok", m.error
    assert m.report is not None
    assert m.report["messages_received"] == count
    assert m.report["bytes_received"] == count * size
    assert set(m.report["integrity"].values()) == {0}
    assert set(m.report["errors"].values()) == {0}


@pytest.mark.parametrize(("impl", "config_id"), CONFIGS)
def test_server_survives_a_client_leaving_mid_push(impl: str, config_id: str) -> None:
    """Duration mode closes the connection mid-push; the server must then stop cleanly."""
    config = MeasureConfig(
        impl=impl, config=config_id, scenario="stream", warmup_s=0.1, duration_s=0.5
    )
    m = measure(config)
    assert m.status == "ok", m.error
    assert m.server_exit_code in (0, -15), f"server exit code {m.server_exit_code}"
