"""The differential of an instruction count: the functions whose instructions per message grew
most, most first, each with its share of the head's total; a function kept on one side only
counts as 0 on the other, and its line says the most it can have had there; one line per
grower."""

from __future__ import annotations

from wsbench.results.function_diff import (
    GROWERS_SHOWN,
    FunctionGrowth,
    growers,
    growth,
    growth_line,
    not_kept_bound,
)
from wsbench.results.runformat import FunctionCount

EVAL = "_PyEval_EvalFrameDefault"
LIBPYTHON = "libpython3.11.so.1.0"
BASE = [
    FunctionCount(EVAL, LIBPYTHON, 40_000.0),
    FunctionCount("memcpy", "libc.so.6", 3_000.0),
    FunctionCount("gone", "speedups.so", 500.0),
    FunctionCount("steady", "libc.so.6", 200.0),
]
HEAD = [
    FunctionCount(EVAL, LIBPYTHON, 42_000.0),
    FunctionCount("memcpy", "libc.so.6", 2_900.0),
    FunctionCount("burn", "burn.so", 412.0),
    FunctionCount("steady", "libc.so.6", 200.0),
]


def test_growth_is_head_minus_base_largest_first_with_one_sided_functions_at_zero() -> None:
    found = growth(BASE, HEAD, head_total=50_000.0)
    assert [(g.name, g.growth) for g in found] == [
        (EVAL, 2_000.0),
        ("burn", 412.0),
        ("steady", 0.0),
        ("memcpy", -100.0),
        ("gone", -500.0),
    ]
    burn, gone = found[1], found[-1]
    # each side kept down to 200 instructions per message: a function it did not keep had
    # at most that
    assert (burn.base, burn.head, burn.base_at_most, burn.head_at_most) == (0.0, 412.0, 200.0, None)
    assert (gone.base, gone.head, gone.base_at_most, gone.head_at_most) == (500.0, 0.0, None, 200.0)
    assert found[0].share == 2_000 / 50_000


def test_a_side_that_kept_every_function_had_none_of_the_others() -> None:
    assert not_kept_bound(BASE) == 200.0
    every = [FunctionCount("hot", "a.so", 900.0), FunctionCount("idle", "a.so", 0.0)]
    assert not_kept_bound(every) == 0.0
    assert not_kept_bound([FunctionCount("x", "a.so", -3.0)]) == 0.0
    assert not_kept_bound([]) == 0.0
    (new, *_) = growth(every, [*every, FunctionCount("new", "b.so", 50.0)], head_total=None)
    assert (new.name, new.base_at_most) == ("new", 0.0)
    assert growth_line(new).endswith("(base 0 → head 50)")


def test_growers_are_the_few_that_grew_most() -> None:
    assert GROWERS_SHOWN == 3
    assert [g.name for g in growers(BASE, HEAD, head_total=50_000.0)] == [EVAL, "burn"]
    assert [g.name for g in growers(BASE, HEAD, head_total=None, limit=1)] == [EVAL]
    assert growers([], [], head_total=1.0) == []


def test_a_function_is_the_same_by_name_and_object_file() -> None:
    base = [FunctionCount("init", "a.so", 100.0)]
    head = [FunctionCount("init", "b.so", 100.0)]
    assert [(g.file, g.growth) for g in growth(base, head, head_total=None)] == [
        ("b.so", 100.0),
        ("a.so", -100.0),
    ]


def test_ties_are_ordered_by_name_then_file() -> None:
    head = [FunctionCount("b", "x.so", 10.0), FunctionCount("a", "y.so", 10.0),
            FunctionCount("a", "x.so", 10.0)]  # fmt: skip
    assert [(g.name, g.file) for g in growth([], head, head_total=None)] == [
        ("a", "x.so"),
        ("a", "y.so"),
        ("b", "x.so"),
    ]


def test_a_grower_is_one_line_with_both_sides() -> None:
    burn = FunctionGrowth("burn", "burn.so", 0.0, 412.0, 137_340.0, base_at_most=180.0)
    assert growth_line(burn) == (
        "+412 instructions/message (0.3% of the head's)  burn (burn.so)  "
        "(base ≤180 (not kept) → head 412)"
    )
    eval_loop = FunctionGrowth(EVAL, LIBPYTHON, 40_000.0, 42_000.4, None)
    assert growth_line(eval_loop) == (
        f"+2,000 instructions/message  {EVAL} ({LIBPYTHON})  (base 40,000 → head 42,000)"
    )
    assert FunctionGrowth("f", "x.so", 1.0, 2.0, 0.0).share is None
