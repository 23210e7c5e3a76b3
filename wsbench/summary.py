"""A readable summary of one measurement, for the ``measure`` command."""

from __future__ import annotations

from wsbench.measure import Measurement


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
    lines = [
        f"{c.impl} · {c.scenario} · {c.size_bytes} B {'text' if c.text else 'binary'} · "
        f"{c.connections} connection(s)"
        + (f" · {c.in_flight} in flight" if c.scenario == "echo" else "")
        + f" · {mode}",
        f"CPUs: server {list(m.placement.server)}, load generator {list(m.placement.loadgen)}",
    ]
    if m.status != "ok":
        lines.append(f"FAILED: {m.error}")
    r = m.report
    if r:
        lines.append(
            f"throughput: {r['messages_per_s']:,.0f} messages/s, "
            f"{r['bytes_per_s'] / 1e6:,.1f} MB/s "
            f"({r['messages_received']:,} messages in {r['window_s']:.2f} s)"
        )
        lat = r.get("latency_us")
        if lat:
            lines.append(
                "round-trip latency (µs): "
                + ", ".join(
                    f"{k.replace('_', '.')} {lat[k]:,.0f}"
                    for k in ("p50", "p90", "p99", "p99_9", "max")
                )
            )
        integrity = ", ".join(f"{k} {v}" for k, v in r["integrity"].items())
        errors = ", ".join(f"{k} {v}" for k, v in r["errors"].items())
        lines.append(f"integrity: {integrity}; errors: {errors}")
        flag = "  ⚠ possibly client-bound (> 80%)" if m.client_bound else ""
        lines.append(f"load generator CPU: {r['loadgen_cpu_percent']:.0f}%{flag}")
    if m.server:
        lines.append(
            f"server: CPU {m.server.cpu_percent:.0f}%, peak RSS {_mib(m.server.rss_bytes)}"
        )
    return "\n".join(lines)
