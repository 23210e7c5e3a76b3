"""Tests of wsbench.instrument.interleave's pure parts: merging rounds, the sides' order."""

from __future__ import annotations

from wsbench.instrument.interleave import merge_round, side_order
from wsbench.results.runformat import Benchmark, Sample, Status


def _round(status: Status, error: str | None, skipped: int, exit_code: int) -> list[Benchmark]:
    """One round's benchmark: one disturbed sample, the server's exit code, the waited
    retries its budget left out."""
    sample = Sample(0, 0, "ok", disturbed=True, steal_percent=30.0)
    params = {"size_bytes": 16}
    return [Benchmark("echo", params, status, error, [sample], [exit_code], skipped)]


def test_rounds_merge_as_processes_keeping_the_first_error_and_adding_skipped_waits() -> None:
    merged = merge_round([], _round("ok", None, 3, 0), 0)
    merged = merge_round(merged, _round("failed", "server crashed", 1, -9), 1)
    merged = merge_round(merged, _round("failed", "later", 0, 0), 2)
    (bench,) = merged
    assert [s.process for s in bench.samples] == [0, 1, 2]
    assert bench.server_exit_codes == [0, -9, 0]
    assert (bench.status, bench.error, bench.waits_skipped) == ("failed", "server crashed", 4)


def test_the_sides_alternate_which_goes_first() -> None:
    assert [side_order(2, r) for r in range(3)] == [[0, 1], [1, 0], [0, 1]]
