"""A readable summary of one measurement, for the ``measure`` command."""

from __future__ import annotations

from wsbench.instrument.measure import Measurement
from wsbench.loadreport import Report, Summary
from wsbench.scenarios import params_label, spec


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def summarize(m: Measurement) -> str:
    """Several lines: configuration, throughput, latency percentiles, CPU and memory, integrity."""
    c = m.config
    mode = (
        f"{c.count} messages per connection"
        if c.count
        else f"{c.warmup_s:g} s warm-up, {c.duration_s:g} s window"
    )
    defined = spec(c.scenario)
    frames = "text" if c.text and defined.frames == "binary" else defined.frames
    who = (
        f"{c.subscribers} subscriber(s) + 1 publisher"
        if defined.fanout
        else f"{c.connections} connection(s)"
    )
    load = f" · {c.rate:,.0f} messages/s offered" if c.rate else ""
    lines = [
        f"{c.impl} · {c.scenario} · {params_label(c.params())} · {frames} · {who}{load} · {mode}",
        f"CPUs: server {list(m.placement.server)}, load generator {list(m.placement.loadgen)}",
    ]
    if m.status != "ok":
        lines.append(f"FAILED: {m.error}")
    r = m.report
    if r and not defined.windowed:
        lines += _hold_lines(m, r)
    elif r and defined.mode == "connect":
        lines.append(
            f"connection setup: {r.connections_per_s or 0:,.0f} connections/s "
            f"({r.cycles or 0:,} cycles in {r.window_s or 0:.2f} s)"
        )
        lines += _connect_lines(r)
    if r and defined.mode != "connect" and not defined.fanout and defined.windowed:
        lines.append(
            f"throughput: {r.messages_per_s or 0:,.0f} messages/s, "
            f"{(r.bytes_per_s or 0) / 1e6:,.1f} MB/s "
            f"({r.messages_received:,} messages in {r.window_s or 0:.2f} s)"
        )
        if r.latency_us:
            lines.append(f"round-trip latency (µs): {_percentiles(r.latency_us)}")
        spread = r.per_connection_messages_per_s
        if spread and c.connections > 1:
            lines.append(
                f"per connection (messages/s): min {spread.min:,.0f}, "
                f"median {spread.median:,.0f}, max {spread.max:,.0f}"
            )
        if c.connections > 1:
            lines += _connect_lines(r)
    if r and defined.fanout:
        lines += _fanout_lines(r)
    if r and defined.windowed:
        integrity = ", ".join(f"{k} {v}" for k, v in r.integrity.items())
        errors = ", ".join(f"{k} {v}" for k, v in r.errors.items())
        lines.append(f"integrity: {integrity}; errors: {errors}")
        flag = "  ⚠ possibly client-bound (> 80%)" if m.client_bound else ""
        lines.append(f"load generator CPU: {r.loadgen_cpu_percent or 0:.0f}%{flag}")
    if m.server:
        lines.append(
            f"server: CPU {m.server.cpu_percent:.0f}%, peak RSS {_mib(m.server.rss_bytes)}"
        )
    return "\n".join(lines)


def _percentiles(summary: Summary) -> str:
    return ", ".join(
        f"{k.replace('_', '.')} {getattr(summary, k):,.0f}"
        for k in ("p50", "p90", "p99", "p99_9", "max")
    )


def _fanout_lines(r: Report) -> list[str]:
    fanout = r.fanout
    if fanout is None:
        return []
    lines = [
        f"published: {fanout.published_per_s:,.0f} messages/s; delivered: "
        f"{r.messages_per_s or 0:,.0f} messages/s to {fanout.subscribers} subscribers "
        f"({r.messages_received:,} deliveries in {r.window_s or 0:.2f} s)",
        f"last subscriber (µs): {_percentiles(fanout.last_latency_us)}",
    ]
    if r.latency_us:
        lines.insert(1, f"delivery latency (µs): {_percentiles(r.latency_us)}")
    orders = fanout.orders
    if orders:
        lines.append(
            f"orders: {orders.acked_per_s:,.0f}/s acknowledged ({orders.acked:,} of "
            f"{orders.sent:,}); round trip (µs): {_percentiles(orders.round_trip_us)}"
        )
    return lines


def _connect_lines(r: Report) -> list[str]:
    lines = []
    hs = r.handshake_us
    if hs and hs.count:
        lines.append(f"handshake (µs): p50 {hs.p50:,.0f}, p99 {hs.p99:,.0f}, max {hs.max:,.0f}")
    if r.connect_s is not None:
        lines.append(
            f"connect phase: {r.connections_ok or 0:,} connected in {r.connect_s:.2f} s "
            f"({r.connections_per_s or 0:,.0f}/s)"
        )
    return lines


def _hold_lines(m: Measurement, r: Report) -> list[str]:
    lines = _connect_lines(r)
    errors = ", ".join(f"{k} {v}" for k, v in r.errors.items() if v) or "none"
    lines.append(f"errors: {errors}")
    idle, held, ok = m.rss_idle_bytes, m.rss_held_bytes, r.connections_ok
    if idle is not None and held is not None and ok:
        lines.append(
            f"server RSS: idle {_mib(idle)}, with {ok:,} connections {_mib(held)}: "
            f"{(held - idle) / ok:,.0f} bytes per connection"
        )
    return lines
