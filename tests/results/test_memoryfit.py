"""The memory fit: the slope and intercept of a straight line, a bent one flagged, too few
counts refused."""

from __future__ import annotations

import pytest

from wsbench.results.memoryfit import (
    FLOOR_BYTES,
    LINEARITY_TOLERANCE,
    MIN_COUNTS,
    FitError,
    fit,
    problems,
)

COUNTS = [0, 1000, 5000, 10000]


def test_a_straight_line_gives_its_slope_and_intercept() -> None:
    found = fit(COUNTS, [20e6 + 14_000 * n for n in COUNTS])
    assert found.slope == pytest.approx(14_000)
    assert found.intercept == pytest.approx(20e6)
    assert found.worst_residual == pytest.approx(0, abs=1e-9) and found.linear
    assert found.counts == (0, 1000, 5000, 10000)


def test_memory_reused_at_the_first_count_hardly_moves_the_slope() -> None:
    # The first 1,000 connections fit in memory the allocator already held: no rise there.
    values = [20e6, 20e6, 20e6 + 14_000 * 4000, 20e6 + 14_000 * 9000]
    found = fit(COUNTS, values)
    # The delta at 1,000 connections reads 0 B per connection; the slope close to 14 kB.
    assert (values[1] - values[0]) / 1000 == 0
    assert 13_000 < found.slope < 14_000 and found.linear


def test_a_line_bent_beyond_the_tolerance_is_flagged() -> None:
    # Half the connections fit in memory already held: the points are not on one line.
    values = [20e6, 20e6, 20e6, 20e6 + 14_000 * 5000]
    found = fit(COUNTS, values)
    assert found.worst_residual > LINEARITY_TOLERANCE and not found.linear
    (reason,) = problems([found, fit(COUNTS, [20e6 + 14_000 * n for n in COUNTS])], found.slope)
    assert reason.startswith("not a straight line in 1 of 2 processes (a point off the line by ")


def test_a_figure_below_the_floor_is_flagged() -> None:
    found = fit(COUNTS, [20e6 + 63 * n for n in COUNTS])
    assert found.linear
    assert problems([found], found.slope) == [
        f"below the floor of {FLOOR_BYTES} B per connection (63 B)"
    ]
    assert problems([found], None) == []


def test_a_flat_line_is_not_linear_in_rise() -> None:
    found = fit(COUNTS, [20e6] * 4)
    assert found.slope == 0 and found.worst_residual == float("inf") and not found.linear


def test_too_few_counts_or_mismatched_lengths_are_refused() -> None:
    with pytest.raises(FitError, match=f"needs {MIN_COUNTS} distinct"):
        fit([0, 1000, 1000], [1.0, 2.0, 3.0])
    with pytest.raises(FitError, match="4 counts but 3 values"):
        fit(COUNTS, [1.0, 2.0, 3.0])
