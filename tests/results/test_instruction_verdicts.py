"""Verdicts on instructions per message: a change of at least the threshold is a verdict,
less is not; a count that spreads needs a larger change; counts made differently, or failed,
are not compared."""

from __future__ import annotations

import msgspec

from tests.runs import impl, run
from wsbench.results.instruction_verdicts import THRESHOLD, compare_counts, to_markdown, to_text
from wsbench.results.runformat import Counting, InstructionCount, InstructionSet, Run

ECHO = {"size_bytes": 16, "in_flight": 64}
COUNTING = Counting("valgrind-3.19.0 callgrind", 0)


def counted(per_message: float, *, again: float | None = None, name: str = "websockets",
            status: str = "ok", counting: Counting = COUNTING) -> Run:  # fmt: skip
    """A run whose echo set executed ``per_message`` instructions per message between its low
    (1,000 messages) and high (5,000) counts, and ``again`` in the repeated high run."""
    start = 50_000_000
    hi = start + round(per_message * 4000)
    hi2 = start + round((again or per_message) * 4000)
    counts = [InstructionCount(1000, 1000, start), InstructionCount(5000, 5000, hi),
              InstructionCount(5000, 5000, hi2)]  # fmt: skip
    sets = [InstructionSet("echo", ECHO, status, None if status == "ok" else "boom", counts)]  # type: ignore[arg-type]
    return msgspec.structs.replace(
        run([1.0], impl_info=impl(name)), counting=counting, instructions=sets
    )


def verdict(base: Run, head: Run) -> str:
    (line,) = compare_counts([base], [head], match="environment")
    return line.verdict


def test_the_same_count_is_no_significant_change() -> None:
    assert verdict(counted(82_000), counted(82_000)) == "no significant change"


def test_a_change_below_the_threshold_is_no_verdict() -> None:
    assert (
        verdict(counted(82_000), counted(82_000 * (1 + THRESHOLD / 2))) == "no significant change"
    )


def test_two_percent_more_is_slower_and_two_percent_less_faster() -> None:
    assert verdict(counted(82_000), counted(82_000 * 1.02)) == "slower"
    assert verdict(counted(82_000), counted(82_000 * 0.98)) == "faster"


def test_only_the_changed_server_is_slower() -> None:
    base = [counted(82_000), counted(28_000, name="aiohttp")]
    head = [counted(83_640), counted(28_000, name="aiohttp")]
    lines = compare_counts(base, head, match="environment")
    assert {line.row: line.verdict for line in lines} == {
        "websockets · asyncio": "slower",
        "aiohttp · asyncio": "no significant change",
    }


def test_a_count_that_spreads_needs_a_larger_change() -> None:
    noisy = counted(1000, again=1010)  # 1 % between the two high runs
    (line,) = compare_counts([noisy], [counted(1020, again=1030)], match="environment")
    assert not line.deterministic
    assert line.threshold == 0.03
    assert line.verdict == "no significant change"
    assert "not deterministic" in to_text([line])
    assert verdict(noisy, counted(1040)) == "slower"


def test_counts_made_differently_are_not_compared() -> None:
    other = Counting("valgrind-3.22.0 callgrind", 0)
    (line,) = compare_counts([counted(82_000)], [counted(90_000, counting=other)],
                             match="environment")  # fmt: skip
    assert line.verdict == "not compared"
    assert "counted differently" in (line.problem or "")


def test_a_failed_count_is_not_compared_and_says_which_side() -> None:
    (line,) = compare_counts([counted(82_000)], [counted(82_000, status="failed")],
                             match="environment")  # fmt: skip
    assert line.verdict == "not compared"
    assert line.problem == "head failed: boom"


def test_runs_without_counts_give_no_line() -> None:
    assert compare_counts([run([1.0])], [run([1.0])], match="environment") == []


def test_the_tables_label_what_the_verdict_sees() -> None:
    lines = compare_counts([counted(82_000)], [counted(83_640)], match="environment")
    for text in (to_text(lines), to_markdown(lines)):
        assert "instructions per message (user space, under valgrind)" in text
        assert "1 slower" in text
        assert "82,000" in text and "83,640" in text
        assert "not seen" in text
