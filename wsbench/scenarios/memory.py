"""Memory per connection: the server's memory idle and with N open idle connections, read
at several counts in one process and fitted to a line (:mod:`wsbench.results.memoryfit`)."""

from __future__ import annotations

from wsbench.scenarios.base import (
    ERRORS_NOTE,
    KIB,
    MIB,
    ColumnSpec,
    HoldMode,
    median,
    param_sets,
)

STEPS = (0.1, 0.5, 1.0)
"""The memory scenario's connection counts as fractions of its ``connections`` parameter:
the server's memory is read before the first connection (0) and once each count is open,
and the figure is the slope through those points (:mod:`wsbench.results.memoryfit`)."""
FLOOR_BYTES = 512
"""A memory per connection below this is flagged as implausible: every server here keeps,
for each connection, at least its socket's state in its own structures (socketify:
uSockets' socket and uWebSockets' per-WebSocket data, and the Python object its handlers
get; the asyncio servers: a transport and a protocol object, a few hundred bytes each) and
the buffers its reads land in. A figure below it means the allocator served the
connections from memory it already held (or returned more than they took), not that they
cost nothing."""


def counts(connections: int) -> tuple[int, ...]:
    """The connection counts the memory scenario reads at, ascending, from 0 to
    ``connections`` (:data:`STEPS`), e.g. ``(0, 1000, 5000, 10000)``."""
    return (0, *sorted({max(1, round(f * connections)) for f in STEPS}))


SPEC = HoldMode(
    "memory", "Memory per connection",
    "The server's RSS idle and with N open idle connections after the handshake.",
    "hold", "/echo", {"connections": (1000, 10000)},
    param_sets({"connections": (1000, 10000)}), param_sets({"connections": (1000,)}),
    position=50,
    profiled=param_sets({"connections": (1000,)}),  # by slope, in every deployment profile
    figures=(
        "connections_per_s", "handshake_p50", "handshake_p99", "errors",
        "bytes_per_connection", "memory_slope_bytes", "memory_base_bytes",
        "kernel_bytes_per_connection", "rss_idle_bytes", "rss_held_bytes",
    ),
    headline="memory_slope_bytes",
    columns=(
        ColumnSpec("Memory per connection (KiB)", special="memory_slope"),
        median("Base memory (MiB)", "memory_base_bytes", ",.1f", MIB),
        median("Kernel per connection, both ends (KiB)", "kernel_bytes_per_connection",
               ",.1f", KIB),
        ColumnSpec("Connection counts", special="memory_counts"),
        ColumnSpec("Check", special="memory_check"),
        median("Delta at the top count (KiB)", "bytes_per_connection", ",.1f", KIB),
        ColumnSpec("Connections ok", special="connections_ok"),
        ColumnSpec("Errors (all windows)", special="errors"),
    ),
    order_sentence=(
        "Sorted by memory per connection (the slope), lowest first. KiB = 2^10 bytes, "
        "MiB = 2^20 bytes. "
    ),
    notes=(
        "*Memory per connection* = the slope of the least-squares line through the "
        "server's RSS at each *connection count* (0, then each count opened and held idle, "
        "in one server process), over the processes with its interval as the list above "
        "says; "
        "*base memory* is that line at zero connections. *Kernel per connection* is the "
        "same slope of the kernel's socket memory (slab and TCP buffers of the whole "
        "machine: both ends of each loopback connection), which RSS does not include. "
        "*Delta at the top count* = (RSS with all connections open \u2212 RSS before) / "
        "connections: it under-counts memory the allocator already held. \u26a0 and *Check* "
        f"name a figure below {FLOOR_BYTES} B per connection or whose counts are not on a "
        "straight line (Methodology). *Connections ok*: connections established (median "
        "over the processes) of those asked for.",
        f"{ERRORS_NOTE}.",
    ),
    many_connections=True, windows_per_process=1,
)  # fmt: skip
"""Memory takes one window per server process: a second window in the same process reuses
the memory the allocator kept from the first, so its RSS delta under-counts; the spread
that matters is between processes."""
