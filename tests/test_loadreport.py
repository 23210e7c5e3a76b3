"""The load generator's report as typed structs: what it refuses, and what it keeps."""

from __future__ import annotations

import json

import pytest

from tests.reports import report
from wsbench import loadreport
from wsbench.loadreport import ReportError


def _text(**changes: object) -> str:
    return json.dumps({**loadreport.to_builtins(report(messages_received=3)), **changes})


def test_a_report_round_trips_through_its_json() -> None:
    original = report(messages_received=3, latency_us={"p50": 12.5, "count": 3})
    decoded = loadreport.decode(json.dumps(loadreport.to_builtins(original)))
    assert decoded == original
    assert decoded.latency_us is not None and decoded.latency_us.p50 == 12.5


def test_an_unknown_field_is_refused_with_its_path() -> None:
    with pytest.raises(ReportError, match=r"unknown field `surprise`"):
        loadreport.decode(_text(surprise=1))
    with pytest.raises(ReportError, match=r"\$\.config"):
        loadreport.decode(_text(config={"url": "ws://x", "protocol": "websocket",
                                        "source_addresses": 1, "color": "red"}))  # fmt: skip


def test_the_threads_and_their_cpus_are_kept() -> None:
    config = {"url": "ws://x", "protocol": "websocket", "source_addresses": 1, "threads": 4,
              "cpus": [0, 1, 0, 1]}  # fmt: skip
    decoded = loadreport.decode(_text(config=config))
    assert (decoded.config.threads, decoded.config.cpus) == (4, (0, 1, 0, 1))
    assert report().config.cpus is None


def test_a_wrong_type_or_no_json_is_refused() -> None:
    with pytest.raises(
        ReportError, match=r"Expected `int`, got `str` - at `\$\.messages_received`"
    ):
        loadreport.decode(_text(messages_received="many"))
    with pytest.raises(ReportError, match="not a load generator report"):
        loadreport.decode("Killed")


def test_holds_last_line_is_its_own_struct() -> None:
    closed = loadreport.decode_closed('{"closed": 10, "closed_early": 2, "held_s": 1.5}')
    assert (closed.closed, closed.closed_early, closed.held_s) == (10, 2, 1.5)
    with pytest.raises(ReportError):
        loadreport.decode_closed('{"closed": 10}')


DEFLATE = {
    "offer": "permessage-deflate; client_max_window_bits",
    "agreed": "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12",
    "connections_agreed": 2, "connections_declined": 0, "sent_wire_bytes": 120,
    "sent_payload_bytes": 4000, "received_wire_bytes": 130, "received_payload_bytes": 4000,
    "received_uncompressed_messages": 0, "answers_refused": 0, "inflate_failures": 0,
    "error": None,
}  # fmt: skip


def test_what_deflate_agreed_is_kept_and_older_reports_have_none() -> None:
    decoded = loadreport.decode(_text(deflate=DEFLATE))
    assert decoded.deflate is not None
    assert decoded.deflate.agreed == DEFLATE["agreed"]
    assert (decoded.deflate.sent_wire_bytes, decoded.deflate.sent_payload_bytes) == (120, 4000)
    assert loadreport.decode(_text(deflate=None)).deflate is None
    # A report from before the field (or from a client program) loads without it.
    older = json.loads(_text())
    del older["deflate"]
    assert loadreport.decode(json.dumps(older)).deflate is None
    with pytest.raises(ReportError, match=r"\$\.deflate"):
        loadreport.decode(_text(deflate={**DEFLATE, "ratio": 30}))


def _summary(p50: float, count: int) -> dict[str, float | int]:
    return {"p50": p50, "p90": p50, "p99": p50, "p99_9": p50, "max": p50, "min": p50,
            "mean": p50, "stdev": 0.0, "count": count}  # fmt: skip


TLS = {
    "version": "TLSv1.3", "cipher_suite": "TLS_AES_256_GCM_SHA384", "key_exchange": "X25519",
    "tcp_connect_us": _summary(40.0, 2), "handshake_us": _summary(900.0, 2),
    "upgrade_us": _summary(60.0, 2),
    "failures": {"TLS handshake failed: invalid peer certificate: UnknownIssuer": 1},
}  # fmt: skip


def test_what_tls_agreed_and_the_handshakes_parts_are_kept_and_older_reports_have_none() -> None:
    decoded = loadreport.decode(_text(tls=TLS))
    tls = decoded.tls
    assert tls is not None
    assert (tls.version, tls.cipher_suite, tls.key_exchange) == (
        "TLSv1.3", "TLS_AES_256_GCM_SHA384", "X25519"
    )  # fmt: skip
    parts = (tls.tcp_connect_us.p50, tls.handshake_us.p50, tls.upgrade_us.p50)
    assert parts == (40.0, 900.0, 60.0)
    assert tls.failures == {"TLS handshake failed: invalid peer certificate: UnknownIssuer": 1}
    assert loadreport.decode(json.dumps(loadreport.to_builtins(decoded))) == decoded
    # No handshake succeeded: nothing agreed.
    failed = {**TLS, "version": None, "cipher_suite": None, "key_exchange": None}
    nothing = loadreport.decode(_text(tls=failed)).tls
    assert nothing is not None and (nothing.version, nothing.cipher_suite) == (None, None)
    assert loadreport.decode(_text(tls=None)).tls is None
    # A report from before the field (or from a client program) loads without it.
    older = json.loads(_text())
    del older["tls"]
    assert loadreport.decode(json.dumps(older)).tls is None
    with pytest.raises(ReportError, match=r"\$\.tls"):
        loadreport.decode(_text(tls={**TLS, "resumed": 0}))
    with pytest.raises(ReportError, match=r"\$\.tls\.failures"):
        loadreport.decode(_text(tls={**TLS, "failures": {"x": "many"}}))
