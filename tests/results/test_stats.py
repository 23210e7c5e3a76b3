"""The statistics of benchmark samples: medians, intervals, comparisons and ranks."""

from __future__ import annotations

import statistics
import subprocess
import sys
import warnings

import numpy as np
import pytest

from wsbench.results.stats import (
    ALPHA,
    MIN_EFFECT,
    Summary,
    compare,
    median,
    min_p_value,
    summarize,
    ties,
)

BASE = [99.0, 100.0, 101.0, 99.5, 100.5, 100.2]
HEAD_10_PERCENT_LOWER = [89.0, 90.0, 91.0, 89.5, 90.5, 90.2]


# median


def test_median_odd_even_one() -> None:
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert median([7.0]) == 7.0


def test_median_of_nothing_raises() -> None:
    with pytest.raises(ValueError):
        median([])


def test_importing_the_module_and_median_need_no_numpy() -> None:
    code = (
        "import sys\n"
        "from wsbench.results.stats import median\n"
        "assert median([1.0, 2.0]) == 1.5\n"
        "assert 'numpy' not in sys.modules and 'scipy' not in sys.modules, 'imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# summarize


def test_summary_interval_contains_the_median_within_the_samples() -> None:
    rng = np.random.default_rng(1)
    for n in (2, 3, 4, 5, 6, 8, 12):
        values = [float(v) for v in rng.normal(100, 5, n).round(0)]  # rounded: ties
        s = summarize(values, resamples=999)
        assert s.n == n
        assert s.median == statistics.median(values)
        assert s.interval is not None
        low, high = s.interval
        assert min(values) <= low <= s.median <= high <= max(values)


def test_summary_is_deterministic_and_independent_of_order() -> None:
    values = [100.0, 103.0, 97.0, 101.0, 99.0, 105.0, 98.0]
    first = summarize(values)
    assert summarize(values) == first
    assert summarize(list(reversed(values))) == first


def test_summary_of_equal_samples() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = summarize([5.0] * 6)
    assert s.interval == (5.0, 5.0)
    assert s.cv == 0.0
    assert not s.unstable
    assert not s.too_few


def test_summary_spread() -> None:
    wide = [80.0, 100.0, 120.0, 100.0, 90.0, 110.0]
    s = summarize(wide)
    assert s.cv == pytest.approx(statistics.stdev(wide) / statistics.mean(wide))
    assert s.cv is not None and s.cv > 0.10
    assert s.unstable

    narrow = [97.0, 100.0, 103.0, 100.0, 98.0, 102.0]
    s = summarize(narrow)
    assert s.cv == pytest.approx(0.0228, abs=1e-3)
    assert not s.unstable
    assert summarize(narrow, unstable_cv=0.02).unstable


def test_summary_of_one_sample() -> None:
    s = summarize([42.0])
    assert s == Summary(
        n=1, median=42.0, interval=None, confidence=0.95, cv=None, unstable=False, too_few=True
    )


@pytest.mark.parametrize(
    "kwargs",
    [{"confidence": 1.0}, {"confidence": 0.0}, {"unstable_cv": -0.1}, {"resamples": 0}],
)
def test_summary_rejects_bad_arguments(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        summarize([1.0, 2.0], **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("values", [[], [1.0, float("nan")], [1.0, float("inf")]])
def test_summary_rejects_bad_samples(values: list[float]) -> None:
    with pytest.raises(ValueError):
        summarize(values)


# compare


def test_min_p_value() -> None:
    assert min_p_value(6, 6) == pytest.approx(2 / 924)
    assert min_p_value(4, 4) == pytest.approx(2 / 70)
    assert min_p_value(1, 1) == 1.0


def test_clearly_lower_throughput_is_slower() -> None:
    c = compare(BASE, HEAD_10_PERCENT_LOWER, higher_is_better=True)
    assert c.verdict == "slower"
    assert c.direction == "slower"
    assert c.significant
    assert c.head_over_base == pytest.approx(0.9, abs=0.005)
    assert c.head_over_base == c.head_median / c.base_median
    assert c.p_value < ALPHA
    assert c.head_over_base_interval is not None
    low, high = c.head_over_base_interval
    assert low <= c.head_over_base <= high < 1
    assert (c.n_base, c.n_head) == (6, 6)


def test_clearly_lower_latency_is_faster() -> None:
    c = compare(BASE, HEAD_10_PERCENT_LOWER, higher_is_better=False)
    assert c.verdict == "faster"
    assert c.significant
    c = compare(HEAD_10_PERCENT_LOWER, BASE, higher_is_better=False)
    assert c.verdict == "slower"
    c = compare(HEAD_10_PERCENT_LOWER, BASE, higher_is_better=True)
    assert c.verdict == "faster"


def test_same_distribution_is_no_significant_change() -> None:
    rng = np.random.default_rng(7)
    base = [float(v) for v in rng.normal(100, 3, 6)]
    head = [float(v) for v in rng.normal(100, 3, 6)]
    c = compare(base, head, higher_is_better=True)
    assert c.verdict == "no significant change"
    assert not c.significant
    assert c.head_over_base_interval is not None
    low, high = c.head_over_base_interval
    assert low <= c.head_over_base <= high
    assert low < 1 < high


def test_tiny_separated_difference_is_no_significant_change() -> None:
    base = [100.0 + d for d in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)]
    head = [99.0 + d for d in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)]
    c = compare(base, head, higher_is_better=True)
    assert c.p_value < ALPHA
    assert abs(c.head_over_base - 1) < MIN_EFFECT
    assert c.direction == "slower"
    assert not c.significant
    assert c.verdict == "no significant change"
    assert compare(base, head, higher_is_better=True, min_effect=0.005).verdict == "slower"


def test_too_few_samples() -> None:
    c = compare([100.0, 101.0], [50.0, 51.0], higher_is_better=True)
    assert c.verdict == "too few samples"
    assert not c.significant
    assert c.direction == "slower"
    # 4 vs 4 can never reach p < 0.01, 5 vs 5 can.
    assert compare(BASE[:4], HEAD_10_PERCENT_LOWER[:4], higher_is_better=True).verdict == (
        "too few samples"
    )
    assert compare(BASE[:5], HEAD_10_PERCENT_LOWER[:5], higher_is_better=True).verdict == "slower"
    one = compare([100.0], [50.0], higher_is_better=True)
    assert one.verdict == "too few samples"
    assert one.head_over_base_interval is None


def test_equal_samples_on_both_sides() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compare([5.0] * 6, [5.0] * 6, higher_is_better=True)
    assert c.p_value == 1.0
    assert c.head_over_base == 1.0
    assert c.head_over_base_interval == (1.0, 1.0)
    assert c.direction == "unchanged"
    assert c.verdict == "no significant change"


def test_compare_is_deterministic() -> None:
    rng = np.random.default_rng(3)
    base = [float(v) for v in rng.normal(100, 3, 8)]
    head = [float(v) for v in rng.normal(95, 3, 8)]
    assert compare(base, head, higher_is_better=True) == compare(base, head, higher_is_better=True)


@pytest.mark.parametrize(
    ("base", "head"), [([], [1.0, 2.0]), ([1.0, 2.0], [0.0, 1.0]), ([1.0, float("nan")], [1.0])]
)
def test_compare_rejects_bad_samples(base: list[float], head: list[float]) -> None:
    with pytest.raises(ValueError):
        compare(base, head, higher_is_better=True)


def test_calibration() -> None:
    """A/A pairs are rarely significant; a 10 % regression is usually found (6 vs 6, 3 %)."""
    rng = np.random.default_rng(2024)
    pairs = 200

    def verdicts(head_scale: float) -> list[str]:
        return [
            compare(
                [float(v) for v in rng.normal(100, 3, 6)],
                [float(v) for v in rng.normal(100 * head_scale, 3 * head_scale, 6)],
                higher_is_better=True,
                resamples=199,  # the interval is not part of the verdict
            ).verdict
            for _ in range(pairs)
        ]

    same = verdicts(1.0)
    assert same.count("no significant change") >= 0.95 * pairs
    slower = verdicts(0.9)
    assert slower.count("slower") >= 0.90 * pairs
    assert "faster" not in slower


# ties


def _row(m: float, low: float | None = None, high: float | None = None) -> Summary:
    interval = None if low is None or high is None else (low, high)
    return Summary(
        n=6,
        median=m,
        interval=interval,
        confidence=0.95,
        cv=0.01,
        unstable=False,
        too_few=interval is None,
    )


def test_ties_clear_winner_then_two_overlapping_rows() -> None:
    rows = [_row(100, 95, 105), _row(200, 195, 205), _row(98, 93, 103)]
    assert ties(rows, higher_is_better=True) == [2, 1, 2]
    # Lower is better: the same rows in the other order.
    assert ties(rows, higher_is_better=False) == [1, 3, 1]


def test_ties_competition_ranking_and_no_chaining() -> None:
    rows = [_row(100, 99, 101), _row(99.5, 98.5, 100.5), _row(98, 97.5, 98.6), _row(90, 89, 91)]
    # 98 overlaps 99.5 but not the leader 100: a new rank, its position 3.
    assert ties(rows, higher_is_better=True) == [1, 1, 3, 4]
    assert ties([], higher_is_better=True) == []


def test_ties_touching_intervals_overlap() -> None:
    assert ties([_row(10, 9, 11), _row(8, 7, 9)], higher_is_better=True) == [1, 1]


def test_ties_without_intervals_compare_medians() -> None:
    rows = [_row(5), _row(5), _row(4, 3, 6), _row(7, 6, 8)]
    assert ties(rows, higher_is_better=True) == [2, 2, 4, 1]
