"""A comparison's verdicts in two stages: the sets that moved in the screening take the
confirmation's verdicts, decided as one family (Benjamini-Hochberg); every other figure
keeps the screening's. Synthetic samples, exact verdicts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.runs import benchmark, impl, run
from wsbench.results import compare
from wsbench.results.compare import Line, compare_runs, summary
from wsbench.results.confirmation import (
    NOT_MEASURED_AGAIN,
    family,
    final,
    moved,
    rule,
    to_markdown,
    union,
)
from wsbench.results.runformat import Run
from wsbench.results.stats import FAMILY_RATE, TOO_FEW

FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
"""3 server processes of 2 windows."""
X64 = {"size_bytes": 16, "in_flight": 64}
X1 = {"size_bytes": 16, "in_flight": 1}
BIG = {"size_bytes": 65536, "in_flight": 64}


def _doc(config: str, label: str, factors: dict[str, float]) -> Run:
    """websockets in ``config``, echo at :data:`X64`, :data:`X1` and :data:`BIG`, each at
    :data:`FAST` times its factor (``factors`` by set, default 1)."""
    sets = {"x64": X64, "x1": X1, "big": BIG}
    benchmarks = [
        benchmark("echo", params, [r * factors.get(name, 1.0) for r in FAST])
        for name, params in sets.items()
    ]
    return run([], run_id=f"20261208T100000Z-abcdef-{label}", benchmarks=benchmarks,
               impl_info=impl("websockets", "15.0.1", config))  # fmt: skip


def _compared(head: dict[str, dict[str, float]], configs: tuple[str, ...]) -> list[Line]:
    base = [_doc(c, "base", {}) for c in configs]
    return compare_runs(base, [_doc(c, "head", head.get(c, {})) for c in configs],
                        match="configuration")  # fmt: skip


def test_the_sets_that_moved_take_the_confirmations_verdicts() -> None:
    # Screening: asyncio's echo x64 20 % slower (a real change) and its x1 10 % slower (by
    # chance); uvloop unchanged. Confirmation: x64 slower again, x1 not; it also measured
    # echo 64 KiB for asyncio, which did not move there: left out.
    screening = _compared({"asyncio": {"x64": 0.8, "x1": 0.9}}, ("asyncio", "uvloop"))
    assert summary(screening) == "6 slower, 12 no significant change"
    assert moved(screening) == {"websockets · asyncio": {"echo": [X64, X1]}}
    again = _compared({"asyncio": {"x64": 0.8, "big": 0.5}}, ("asyncio",))
    lines = final(screening, again)
    assert summary(lines) == "3 slower, 15 no significant change"
    by_set = {(line.row, line.params["in_flight"], line.params["size_bytes"]): line.verdict
              for line in lines}  # fmt: skip
    assert by_set[("websockets · asyncio", 64, 16)] == "slower"
    assert by_set[("websockets · asyncio", 1, 16)] == "no significant change"
    assert by_set[("websockets · asyncio", 64, 65536)] == "no significant change"
    confirmed = [line for line in lines if line.result and line.result.family_p is not None]
    assert len(confirmed) == 6  # the 2 moved sets' 3 figures, one family
    assert {line.result.alpha for line in confirmed if line.result} == {FAMILY_RATE}
    # Unmoved figures are the screening's lines themselves.
    assert [x for x in lines if x.row.endswith("uvloop")] == [
        x for x in screening if x.row.endswith("uvloop")
    ]


def test_a_moved_set_the_confirmation_lacks_is_not_compared_with_why() -> None:
    screening = _compared({"asyncio": {"x64": 0.8}}, ("asyncio",))
    lines = final(screening, [])
    missing = [line for line in lines if line.result is None]
    assert [(line.params, line.problem) for line in missing] == [(X64, NOT_MEASURED_AGAIN)] * 3
    assert final(screening, [], missing="boom")[0].problem == "boom"


def test_nothing_moved_the_screening_is_the_answer() -> None:
    screening = _compared({}, ("asyncio",))
    assert moved(screening) == {} and final(screening, []) == screening
    assert to_markdown(screening, (8, 2)) == (
        "No figure moved in the screening: nothing was measured again."
    )


def test_a_family_of_many_figures_asks_more_of_each() -> None:
    (slow, *_) = _compared({"asyncio": {"x64": 0.8}}, ("asyncio",))
    unchanged = _compared({}, ("asyncio",))
    assert slow.result is not None and slow.verdict == "slower"
    alone = replace(slow, result=replace(slow.result, p_value=0.008))
    # Alone it is a discovery at 0.05; among 11 figures at p = 1.0 its adjusted p-value is
    # 0.008 x 12 / 1 = 0.096: no longer.
    assert family([alone])[0].verdict == "slower"
    lines = family([alone, *(unchanged + unchanged[:2])])
    assert lines[0].verdict == "no significant change"
    assert lines[0].result is not None and lines[0].result.family_p == pytest.approx(0.096)
    # Figures without a verdict to give are not in the family, and pass as they are.
    few = replace(slow, result=replace(slow.result, verdict=TOO_FEW, p_value=0.0))
    failed = replace(slow, result=None, problem="base failed: x")
    kept = family([alone, few, failed])
    assert kept[0].verdict == "slower" and kept[0].result is not None
    assert kept[0].result.family_p == pytest.approx(0.008)
    assert kept[1:] == [few, failed]


def test_the_comment_says_the_rule_the_rate_and_what_was_confirmed() -> None:
    text = rule((6, 1), (8, 2))
    assert "Screening, 6 rounds x 1 window a side" in text
    assert "measured again, interleaved, 8 rounds x 2 windows a side" in text
    assert "below 0.05" in text and "in at most 5% of comparisons" in text
    assert compare.rule() in text
    screening = _compared({"asyncio": {"x64": 0.8, "big": 0.8}, "uvloop": {"x1": 0.8}},
                          ("asyncio", "uvloop"))  # fmt: skip
    assert to_markdown(screening, (8, 2)) == (
        "Confirmed (measured again, 8 rounds x 2 windows a side; these sets' verdicts are "
        "the confirmation's):\n"
        "\n"
        "- websockets · asyncio: echo 16 B x64, echo 65536 B x64\n"
        "- websockets · uvloop: echo 16 B x1"
    )
    assert union(moved(screening).values()) == {"echo": [X64, BIG, X1]}
