"""./bench crosscheck: instructions per message against CPU seconds per message over a run's
configurations (Spearman's rank correlation), with the configurations that disagree."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tests.runs import ECHO_16_64, benchmark, counted_set, impl, run, with_counts
from wsbench.jobs import crosscheck
from wsbench.results import store
from wsbench.results.runformat import Run

RUN_ID = "20261126T200000Z-cc0001"


def doc(name: str, rate: float, per_message: int | None, kernel: float | None = None) -> Run:
    """``name`` at ``rate`` messages/s (server CPU 99 %: 0.99 / rate CPU seconds per
    message), ``kernel`` percent of it in the kernel (None: not sampled), counted at
    ``per_message`` instructions per message (None: not counted)."""
    bench = benchmark("echo", ECHO_16_64, [rate] * 4)
    samples = [msgspec.structs.replace(s, server_kernel_cpu_percent=kernel)
               for s in bench.samples]  # fmt: skip
    base = run([], run_id=RUN_ID, impl_info=impl(name, "1.0", "asyncio"),
               benchmarks=[msgspec.structs.replace(bench, samples=samples)])  # fmt: skip
    return base if per_message is None else with_counts(base, counted_set(per_message))


def test_the_ranks_and_the_configuration_that_disagrees() -> None:
    # a..e: fewer instructions, more messages/s; "e" is fastest in CPU time but executes
    # the most instructions (a C extension, say)
    docs = [doc("a", 10_000, 100_000, 49.5), doc("b", 20_000, 50_000, 19.8),
            doc("c", 30_000, 30_000, 79.2), doc("d", 40_000, 20_000, 9.9),
            doc("e", 80_000, 120_000), doc("f", 5_000, None, 50.0)]  # fmt: skip
    (c,) = crosscheck.correlate(crosscheck.pairs(docs))
    assert [p.row for p in c.pairs] == ["d · asyncio", "c · asyncio", "b · asyncio",
                                        "a · asyncio", "e · asyncio"]  # fmt: skip
    assert c.pairs[0].cpu_s == pytest.approx(0.99 / 40_000)
    assert c.ranks()["e · asyncio"] == (5, 1)
    assert [p.row for p in c.disagreements()] == ["e · asyncio"]
    assert c.rho == pytest.approx(0.0)  # rank differences 1, 1, 1, 1, 4 (a..e): 1 - 6 * 20 / 120
    text = crosscheck.to_text([c])
    assert "echo 16 B x64: 5 configurations, Spearman rho = 0.000" in text
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert "e · asyncio 120,000 12.38 5 / 1 9.70 - <- ranks differ" in lines
    assert "a · asyncio 100,000 99.00 4 / 5 1.01 50%" in lines
    # the kernel's share over the four configurations whose windows hold it: 10, 20, 50, 80 %
    assert (
        "kernel's share of the server's CPU time: 10% to 80%, median 35% (not in the counts)"
        in lines
    )


def test_a_run_without_counts_is_an_error_naming_it(tmp_path: Path) -> None:
    for d in (doc("a", 10_000, None), doc("b", 20_000, None)):
        store.save(d, tmp_path)
    with pytest.raises(crosscheck.CrossCheckError, match=f"run {RUN_ID} has no counted set"):
        crosscheck.run(RUN_ID, results=tmp_path)
    with pytest.raises(crosscheck.CrossCheckError, match="no run"):
        crosscheck.run("20261126T000000Z-nope00", results=tmp_path)
