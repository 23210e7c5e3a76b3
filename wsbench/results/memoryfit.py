"""Memory per connection as a slope: the least-squares line through a server's memory at
several connection counts in one process, and the checks that keep an implausible figure
from being published bare.

Why a slope: a delta at one count, (RSS with N idle connections - RSS before) / N,
under-counts. Memory the allocator already holds (from start-up, the readiness probe,
earlier windows) is reused without raising RSS, most for servers that pre-allocate pools,
so the delta grows with N: measured on a 2-core VM, websockets · asyncio read 6.3 KB per
connection at 1,000 connections and 13.1 KB at 10,000, while the slope between the two,
13.9 KB, is what websockets' documentation gives for a connection without compression
(about 14 KiB). The intercept is the line's value at zero connections: the server's base
memory. The same fit of the kernel's memory gives the kernel's share, which RSS does not
include (socket buffers and the kernel's own socket structures).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.results.runformat import MemoryStep
from wsbench.scenarios.memory import FLOOR_BYTES

__all__ = ["FLOOR_BYTES", "Fit", "FitError", "fit", "kernel_fit", "problems", "rss_fit"]

MIN_COUNTS = 3
"""Distinct connection counts a fit needs: two points always make a line, three can show
that they do not lie on one."""
LINEARITY_TOLERANCE = 0.10
"""A fit whose largest residual exceeds this fraction of the line's rise over the counts
measured is not a per-connection cost: flagged, not published bare."""


class FitError(ValueError):
    """Too few distinct counts, or counts and values of different lengths."""


@dataclass(frozen=True)
class Fit:
    """The least-squares line through ``(connections, bytes)`` points.

    Attributes:
        slope: bytes per connection.
        intercept: bytes at zero connections (the base memory).
        worst_residual: the largest ``|residual|`` as a fraction of the line's rise over
            the counts (``slope * (max count - min count)``); ``inf`` when the line does
            not rise.
        counts: the connection counts fitted, ascending.
    """

    slope: float
    intercept: float
    worst_residual: float
    counts: tuple[int, ...]

    @property
    def linear(self) -> bool:
        """The points lie on the line within :data:`LINEARITY_TOLERANCE`."""
        return self.worst_residual <= LINEARITY_TOLERANCE


def fit(counts: Sequence[int], values: Sequence[float]) -> Fit:
    """The least-squares line of ``values`` (bytes) against ``counts`` (connections), by
    :func:`statistics.linear_regression` (the standard library's: the benchmark
    environments, where asv's figures are computed, have no scipy).

    Raises:
        FitError: the sequences differ in length, or hold fewer than :data:`MIN_COUNTS`
            distinct counts.
    """
    if len(counts) != len(values):
        raise FitError(f"{len(counts)} counts but {len(values)} values")
    if len(set(counts)) < MIN_COUNTS:
        raise FitError(
            f"a fit needs {MIN_COUNTS} distinct connection counts, got {sorted(set(counts))}"
        )
    line = statistics.linear_regression([float(c) for c in counts], [float(v) for v in values])
    slope, intercept = float(line.slope), float(line.intercept)
    rise = slope * (max(counts) - min(counts))
    worst = max(abs(v - (intercept + slope * c)) for c, v in zip(counts, values, strict=True))
    return Fit(
        slope=slope,
        intercept=intercept,
        worst_residual=worst / rise if rise > 0 else float("inf"),
        counts=tuple(sorted(counts)),
    )


def rss_fit(steps: Sequence[MemoryStep] | None) -> Fit | None:
    """The fit of the server's RSS over the memory scenario's ``steps``; None with fewer
    than :data:`MIN_COUNTS` distinct counts (a failed or older sample)."""
    if not steps or len({s.connections for s in steps}) < MIN_COUNTS:
        return None
    return fit([s.connections for s in steps], [s.rss_bytes for s in steps])


def kernel_fit(steps: Sequence[MemoryStep] | None) -> Fit | None:
    """The fit of the kernel's socket memory over ``steps`` (see
    :attr:`wsbench.results.runformat.MemoryStep.kernel_bytes`); None when a step lacks it or with
    fewer than :data:`MIN_COUNTS` distinct counts."""
    if not steps or any(s.kernel_bytes is None for s in steps):
        return None
    if len({s.connections for s in steps}) < MIN_COUNTS:
        return None
    return fit([s.connections for s in steps], [s.kernel_bytes or 0 for s in steps])


def problems(fits: Sequence[Fit], slope: float | None) -> list[str]:
    """Why a memory figure must not be published bare: ``fits`` are one per server process,
    ``slope`` the figure (their median) in bytes per connection. Empty when it passes.

    - the median slope is below :data:`FLOOR_BYTES`;
    - the points of a process lie off their line by more than :data:`LINEARITY_TOLERANCE`
      of its rise (the cost per connection changes with the count).
    """
    out = []
    if slope is not None and slope < FLOOR_BYTES:
        out.append(f"below the floor of {FLOOR_BYTES} B per connection ({slope:,.0f} B)")
    bent = [f for f in fits if not f.linear]
    if bent:
        worst = max(f.worst_residual for f in bent)
        shown = "no rise" if worst == float("inf") else f"{100 * worst:.0f} % of the rise"
        out.append(
            f"not a straight line in {len(bent)} of {len(fits)} processes (a point off the "
            f"line by {shown}; tolerance {100 * LINEARITY_TOLERANCE:.0f} %)"
        )
    return out
