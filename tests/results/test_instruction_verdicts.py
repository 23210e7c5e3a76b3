"""Verdicts on instructions per message: a change of at least the threshold is a verdict,
less is not; a count that spreads needs a larger change; counts made differently, or failed,
are not compared; under a slower set, the functions that grew most."""

from __future__ import annotations

import msgspec
import pytest

from tests.runs import impl, run
from wsbench.results.instruction_verdicts import (
    GROWERS_LEGEND,
    THRESHOLD,
    compare_counts,
    to_markdown,
    to_text,
)
from wsbench.results.runformat import (
    Counting,
    FunctionCount,
    InstructionCount,
    InstructionSet,
    Run,
)
from wsbench.scenarios import params_label

ECHO = {"size_bytes": 16, "in_flight": 64}
COUNTING = Counting("valgrind-3.19.0 callgrind", 0)


def counted(per_message: float, *, again: float | None = None, name: str = "websockets",
            status: str = "ok", counting: Counting = COUNTING,
            functions: tuple[FunctionCount, ...] = (),
            layouts: tuple[float, ...] = ()) -> Run:  # fmt: skip
    """A run whose echo set executed ``per_message`` instructions per message between its low
    (1,000 messages) and high (5,000) counts, and ``again`` in the repeated high run, with
    ``functions`` kept, counted in ``layouts`` (none: one process, as before them)."""
    start = 50_000_000
    hi = start + round(per_message * 4000)
    hi2 = start + round((again or per_message) * 4000)
    counts = [InstructionCount(1000, 1000, start), InstructionCount(5000, 5000, hi),
              InstructionCount(5000, 5000, hi2)]  # fmt: skip
    sets = [InstructionSet("echo", ECHO, status, None if status == "ok" else "boom", counts,  # type: ignore[arg-type]
                           list(functions), list(layouts))]  # fmt: skip
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


def test_a_head_that_moves_between_layouts_needs_a_change_beyond_that_move() -> None:
    """What the calibration measured: a head whose layouts read 1.0 % and 1.7 % above the
    base is not called slower; counted in the second layout alone, it would have been."""
    base = counted(100_000, layouts=(100_000, 100_010))
    (line,) = compare_counts([base], [counted(101_000, layouts=(101_000, 101_700))],
                             match="environment")  # fmt: skip
    assert line.head == 101_350
    assert line.spread == pytest.approx(700 / 101_350)
    assert line.verdict == "no significant change"
    assert verdict(counted(100_000), counted(101_700)) == "slower"


@pytest.mark.parametrize(
    "other",
    [
        Counting("valgrind-3.22.0 callgrind", 0),
        Counting("valgrind-3.19.0 callgrind", 0, layout_bytes=4096),  # padded, unlike before
    ],
)
def test_counts_made_differently_are_not_compared(other: Counting) -> None:
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


def _functions(eval_loop: float, burn: float | None) -> tuple[FunctionCount, ...]:
    kept = [FunctionCount("_PyEval_EvalFrameDefault", "libpython3.11.so.1.0", eval_loop),
            FunctionCount("memcpy", "libc.so.6", 3_000.0)]  # fmt: skip
    if burn is not None:
        kept.append(FunctionCount("burn", "counted_echo.so", burn))
    return tuple(kept)


def test_under_a_slower_set_the_functions_that_grew_most_are_printed() -> None:
    base = counted(82_000, functions=_functions(40_000.0, None))
    head = counted(83_640, functions=_functions(41_228.0, 412.0))
    (line,) = compare_counts([base], [head], match="environment")
    assert line.verdict == "slower"
    assert [(g.name, g.growth) for g in line.growers] == [
        ("_PyEval_EvalFrameDefault", 1_228.0),
        ("burn", 412.0),
    ]
    first = ("+1,228 instructions/message (1.5% of the head's)  _PyEval_EvalFrameDefault "
             "(libpython3.11.so.1.0)  (base 40,000 → head 41,228)")  # fmt: skip
    second = ("+412 instructions/message (0.5% of the head's)  burn (counted_echo.so)  "
              "(base ≤3,000 (not kept) → head 412)")  # fmt: skip
    text = to_text([line]).splitlines()
    row = next(i for i, t in enumerate(text) if t.startswith("websockets · asyncio"))
    assert text[row + 1 : row + 3] == [f"    {first}", f"    {second}"]
    assert text[-1] == GROWERS_LEGEND
    markdown = to_markdown([line])
    assert (
        f"**websockets · asyncio, echo {params_label(ECHO)}**: slower\n\n"
        f"- `{first}`\n- `{second}`\n"
    ) in markdown
    assert markdown.endswith(GROWERS_LEGEND + "\n")


def test_growers_are_printed_only_under_a_slower_set() -> None:
    base = counted(82_000, functions=_functions(40_000.0, None))
    same = counted(82_000, functions=_functions(40_000.0, None))
    faster = counted(80_000, functions=_functions(38_000.0, None))
    for head in (same, faster):
        lines = compare_counts([base], [head], match="environment")
        assert "instructions/message" not in to_text(lines) + to_markdown(lines)
        assert GROWERS_LEGEND not in to_text(lines) + to_markdown(lines)


def test_a_side_without_functions_gives_no_growers_and_the_tables_as_before() -> None:
    with_functions = counted(83_640, functions=_functions(41_228.0, 412.0))
    (line,) = compare_counts([counted(82_000)], [with_functions], match="environment")
    assert line.verdict == "slower" and line.growers == ()
    (plain,) = compare_counts([counted(82_000)], [counted(83_640)], match="environment")
    assert to_text([line]) == to_text([plain]) and to_markdown([line]) == to_markdown([plain])
