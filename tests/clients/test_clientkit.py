"""The client kit (clients/clientkit.py): what is sent, what counts, and the report, with the
connection simulated (each test hands the drivers the messages a server would send)."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from wsbench.paths import CLIENTS_DIR

sys.path.insert(0, str(CLIENTS_DIR))
import clientkit


def options(*args: str) -> clientkit.Options:
    return clientkit.parse_args([*args, "--url", "ws://127.0.0.1:9/echo"])


def echo_all(drv: clientkit.Driver, *, reply: Any = None) -> list[clientkit.Message]:
    """Answer every message sent, in order, until the driver is done; ``reply`` may change
    a message (returns the replacement) or drop it (returns None)."""
    pending = list(drv.start())
    sent = list(pending)
    while pending and not drv.done:
        data = pending.pop(0)
        answer = reply(data) if reply else data
        if answer is None:
            continue
        out = drv.received(answer)
        pending += out
        sent += out
    return sent


def test_message_layout() -> None:
    data = clientkit.message(42, 20)
    assert data == b"000000000000002aqrst"
    assert clientkit.sequence_of(data, 20) == 42
    assert clientkit.sequence_of(data[:-1] + b"x", 20) is None
    assert clientkit.sequence_of(b"000000000000002A" + data[16:], 20) is None


def test_echo_count_mode_ping_pong() -> None:
    drv = clientkit.driver(options("echo", "--count", "50", "--size", "32"))
    sent = echo_all(drv)
    assert len(sent) == 50 and drv.done
    report = drv.report("lib", "1.0", "test api")
    assert report["messages_received"] == 50 and report["messages_sent"] == 50
    assert report["bytes_received"] == 50 * 32
    assert report["latency_us"]["count"] == 50
    assert report["integrity"] == {"lost": 0, "corrupted": 0, "duplicated": 0, "out_of_order": 0}
    assert report["config"]["in_flight"] == 1 and report["config"]["burst"] == 1


def test_echo_refill_policy_sends_bursts_of_a_quarter() -> None:
    drv = clientkit.driver(options("echo", "--count", "100", "--in-flight", "8"))
    first = drv.start()
    assert len(first) == 8
    assert drv.received(first[0]) == []  # 7 in flight: more than W - B = 6
    burst = drv.received(first[1])  # 6 in flight: send B = 2
    assert burst == [clientkit.message(8, 16), clientkit.message(9, 16)]


def test_echo_text_frames_are_strings() -> None:
    drv = clientkit.driver(options("echo", "--count", "3", "--text"))
    sent = echo_all(drv)
    assert all(isinstance(m, str) for m in sent)
    assert drv.integrity["corrupted"] == 0
    assert drv.report("lib", "1", "api")["config"]["message_type"] == "text"


def test_echo_wrong_frame_type_is_corrupted() -> None:
    drv = clientkit.driver(options("echo", "--count", "3", "--text"))
    echo_all(drv, reply=lambda m: m.encode())
    assert drv.integrity == {"lost": 0, "corrupted": 3, "duplicated": 0, "out_of_order": 0}


def test_echo_corrupted_filler_is_matched_by_its_number() -> None:
    drv = clientkit.driver(options("echo", "--count", "5", "--size", "20"))
    echo_all(drv, reply=lambda m: m[:-1] + b"!")
    assert drv.integrity == {"lost": 0, "corrupted": 5, "duplicated": 0, "out_of_order": 0}


def test_echo_duplicate_and_overtaken_replies() -> None:
    drv = clientkit.driver(options("echo", "--count", "4", "--in-flight", "4"))
    m0, m1, m2, m3 = drv.start()
    drv.received(m1)  # overtakes 0
    drv.received(m1)  # duplicated
    drv.received(m0)  # arrives late: out of order
    drv.received(m2)
    drv.received(m3)
    assert drv.done
    assert drv.integrity == {"lost": 0, "corrupted": 0, "duplicated": 1, "out_of_order": 1}
    assert drv.received_count == 3


def test_echo_lost_replies_when_the_connection_closes() -> None:
    drv = clientkit.driver(options("echo", "--count", "10", "--in-flight", "4"))
    first = drv.start()
    drv.received(first[0])  # 3 in flight = W - B: one more is sent
    drv.closed(ConnectionResetError())
    assert drv.done
    assert drv.integrity["lost"] == 4
    assert drv.errors == {"closed_early": 1}


def test_echo_a_number_never_sent_is_corrupted() -> None:
    drv = clientkit.driver(options("echo", "--count", "2"))
    drv.start()
    drv.received(clientkit.message(7, 16))
    assert drv.integrity["corrupted"] == 1


def test_stream_count_mode() -> None:
    drv = clientkit.driver(options("stream", "--count", "100", "--size", "64"))
    (request,) = drv.start()
    assert json.loads(request) == {"count": 100, "size": 64, "binary": True}
    for i in range(100):
        drv.received(clientkit.message(i, 64))
    assert drv.done
    report = drv.report("lib", "1", "api")
    assert report["messages_received"] == 100 and report["bytes_received"] == 6400
    assert report["latency_us"] is None and report["config"]["in_flight"] is None
    assert sum(report["integrity"].values()) == 0


def test_stream_gap_then_late_arrival() -> None:
    drv = clientkit.driver(options("stream", "--count", "5"))
    drv.start()
    for i in (0, 2, 1, 3, 3, 4):
        drv.received(clientkit.message(i, 16))
    assert drv.integrity == {"lost": 0, "corrupted": 0, "duplicated": 1, "out_of_order": 1}


def test_stream_missing_messages_are_lost() -> None:
    drv = clientkit.driver(options("stream", "--count", "5"))
    drv.start()
    drv.received(clientkit.message(0, 16))
    drv.closed()
    assert drv.integrity["lost"] == 4
    assert drv.errors == {"closed_early": 1}


def test_stream_duration_mode_asks_for_an_unbounded_push() -> None:
    drv = clientkit.driver(options("stream", "--duration", "1"))
    (request,) = drv.start()
    assert json.loads(request)["count"] == clientkit.UNLIMITED


@pytest.mark.parametrize(
    "args", [["--connections", "2"], ["--size", "8"], ["--in-flight", "0"], ["--rate", "5"]]
)
def test_usage_errors(args: list[str]) -> None:
    with pytest.raises(clientkit.UsageError):
        options("echo", *args)


def test_summary_from_an_hdr_histogram() -> None:
    from array import array

    summary = clientkit.summary_us(array("q", [1000 * i for i in range(1, 1001)]))
    assert summary is not None
    assert summary["count"] == 1000
    assert summary["p50"] == pytest.approx(500, rel=1e-3)
    assert summary["p99"] == pytest.approx(990, rel=1e-3)
    assert summary["max"] == pytest.approx(1000, rel=1e-3)
    assert clientkit.summary_us(array("q")) is None


def test_report_has_the_load_generator_fields() -> None:
    """Every field the harness reads from a load generator report (wsbench.instrument.sampling,
    wsbench.instrument.measure.check_report) is there."""
    drv = clientkit.driver(options("echo", "--count", "3"))
    echo_all(drv)
    report = drv.report("lib", "1", "api")
    for key in (
        "window_s", "messages_sent", "messages_received", "bytes_sent", "bytes_received",
        "messages_per_s", "bytes_per_s", "per_connection_messages_per_s", "latency_us",
        "handshake_us", "connect_s", "connections_ok", "connections_per_s", "errors",
        "integrity", "loadgen_cpu_s", "loadgen_cpu_percent", "client_bound",
    ):  # fmt: skip
        assert key in report, key


def test_open_times_the_handshake_and_counts_a_refusal() -> None:
    import asyncio

    drv = clientkit.driver(options("echo", "--count", "1"))

    def refuse() -> object:
        raise ConnectionRefusedError

    assert clientkit.open_sync(drv, refuse) is None
    assert drv.done and drv.errors == {"connection_refused": 1}

    drv = clientkit.driver(options("echo", "--count", "1"))

    async def connect() -> str:
        return "conn"

    assert asyncio.run(clientkit.open_async(drv, connect)) == "conn"
    assert not drv.done and drv.handshake_ns is not None
