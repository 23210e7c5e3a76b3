"""The statistics of benchmark samples over server processes: figures, intervals,
comparisons and ranks."""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

from wsbench.results.stats import (
    ALPHA,
    COMPARISON_CONFIDENCE,
    FAMILY_RATE,
    MIN_EFFECT,
    MIN_PROCESSES,
    TOO_FEW,
    Comparison,
    Summary,
    benjamini_hochberg,
    compare,
    in_family,
    median,
    process_values,
    summarize,
    t_quantile,
    ties,
)

BASE = [[99.0, 100.0], [101.0, 99.5], [100.5, 100.2]]
"""3 server processes of 2 windows, around 100."""
HEAD_10_PERCENT_LOWER = [[89.0, 90.0], [91.0, 89.5], [90.5, 90.2]]


def _geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def _processes(rng: np.random.Generator, center: float, n: int, windows: int = 2,
               between: float = 0.05, within: float = 0.03) -> list[list[float]]:  # fmt: skip
    """``n`` processes: each its own level (``between``), its windows around it (``within``)."""
    out = []
    for _ in range(n):
        level = center * math.exp(rng.normal(0, between))
        out.append([float(level * math.exp(rng.normal(0, within))) for _ in range(windows)])
    return out


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


# process values and summarize


def test_a_process_is_the_geometric_mean_of_its_windows() -> None:
    assert process_values([[1.0, 4.0], [9.0]]) == pytest.approx([2.0, 9.0])
    # not all positive: arithmetic means on the linear scale
    assert process_values([[-1.0, 3.0], [0.0, 2.0]]) == pytest.approx([1.0, 1.0])


def test_the_figure_and_its_interval_are_students_t_over_the_processes(
    sps: types.ModuleType,
) -> None:
    groups = [[1000.0, 1010.0], [1040.0, 1020.0], [950.0, 990.0]]
    s = summarize(groups)
    logs = [math.log(v) for v in process_values(groups)]
    center, sd = statistics.fmean(logs), statistics.stdev(logs)
    half = sps.t.ppf(0.975, 2) * sd / math.sqrt(3)
    assert (s.n, s.windows) == (3, 6)
    assert s.value == pytest.approx(math.exp(center))
    assert s.interval == pytest.approx((math.exp(center - half), math.exp(center + half)))
    assert s.interval is not None and s.interval[0] < s.value < s.interval[1]


def test_windows_of_one_process_do_not_narrow_the_interval() -> None:
    # The same three process levels, measured with 1 or with 10 windows each: the windows
    # of one process are not independent samples, so the interval stays as wide.
    levels = [95.0, 100.0, 106.0]
    one = summarize([[v] for v in levels])
    many = summarize([[v] * 10 for v in levels])
    assert one.interval == pytest.approx(many.interval)
    assert (one.n, many.n, many.windows) == (3, 3, 30)


def test_summary_is_deterministic_and_independent_of_the_order_of_processes() -> None:
    groups = [[100.0, 103.0], [97.0], [101.0, 99.0], [105.0, 98.0]]
    first = summarize(groups)
    assert summarize(groups) == first
    assert summarize(list(reversed(groups))) == first


def test_summary_of_equal_processes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = summarize([[5.0, 5.0]] * 3)
    assert s.interval == (5.0, 5.0)
    assert s.cv == 0.0
    assert not s.unstable
    assert not s.too_few


def test_summary_spread_is_the_processes() -> None:
    wide = [[80.0], [100.0], [120.0]]
    s = summarize(wide)
    assert s.cv == pytest.approx(statistics.stdev([80, 100, 120]) / 100)
    assert s.unstable
    # within a process the windows vary a lot, but the processes agree: stable
    narrow = [[80.0, 125.0], [125.0, 80.0], [100.0, 100.0]]
    assert not summarize(narrow).unstable
    assert summarize([[97.0], [100.0], [103.0]], unstable_cv=0.02).unstable


def test_a_figure_that_is_not_all_positive_is_summarized_on_the_linear_scale() -> None:
    s = summarize([[-2.0, 0.0], [1.0], [3.0]])
    assert s.value == pytest.approx(statistics.fmean([-1.0, 1.0, 3.0]))
    assert s.interval is not None and s.interval[0] < 0 < s.interval[1]


def test_summary_of_one_process() -> None:
    s = summarize([[42.0, 44.0]])
    assert s.value == pytest.approx(math.sqrt(42 * 44))
    assert s == Summary(
        n=1, windows=2, value=s.value, interval=None, confidence=0.95, cv=None,
        unstable=False, too_few=True,
    )  # fmt: skip


@pytest.mark.parametrize(
    "kwargs", [{"confidence": 1.0}, {"confidence": 0.0}, {"unstable_cv": -0.1}]
)
def test_summary_rejects_bad_arguments(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        summarize([[1.0], [2.0]], **kwargs)


@pytest.mark.parametrize("groups", [[], [[]], [[1.0], [float("nan")]], [[1.0, float("inf")]]])
def test_summary_rejects_bad_samples(groups: list[list[float]]) -> None:
    with pytest.raises(ValueError):
        summarize(groups)


def test_the_interval_covers_the_true_value_at_its_level() -> None:
    # 400 simulated figures of 3 processes (5 % between, 3 % within): the 95 % interval
    # holds the true value about 95 times in 100 (a pooled-window interval held it far less).
    rng = np.random.default_rng(41)
    held = 0
    for _ in range(400):
        s = summarize(_processes(rng, 100.0, 3))
        assert s.interval is not None
        held += s.interval[0] <= 100.0 <= s.interval[1]
    assert 0.92 * 400 <= held <= 0.98 * 400


# compare


def test_clearly_lower_throughput_is_slower() -> None:
    c = compare(BASE, HEAD_10_PERCENT_LOWER, higher_is_better=True)
    assert c.verdict == "slower"
    assert c.direction == "slower"
    assert c.significant
    assert c.method == "welch" and c.pairs is None
    assert c.head_over_base == pytest.approx(0.9, abs=0.005)
    assert c.head_over_base == pytest.approx(c.head_value / c.base_value)
    assert c.base_value == pytest.approx(_geomean([v for g in BASE for v in g]), rel=1e-3)
    assert c.p_value < ALPHA
    assert c.confidence == COMPARISON_CONFIDENCE == 1 - ALPHA
    assert c.head_over_base_interval is not None
    low, high = c.head_over_base_interval
    assert low <= c.head_over_base <= high < 1
    assert (c.n_base, c.n_head, c.processes) == (3, 3, 3)


def test_the_t_quantile_is_scipy_stats_figure(sps: types.ModuleType) -> None:
    for df in (1, 2, 4, 9.5, 30, 1e6):
        for p in (0.005, 0.025, 0.5, 0.975, 0.995):
            assert t_quantile(p, df) == sps.t.ppf(p, df), (p, df)


def test_welch_matches_scipy_on_the_logs_of_the_process_values(sps: types.ModuleType) -> None:
    rng = np.random.default_rng(5)
    base, head = _processes(rng, 100, 4), _processes(rng, 93, 5)
    c = compare(base, head, higher_is_better=True)
    logs = [[math.log(v) for v in process_values(side)] for side in (base, head)]
    expected = sps.ttest_ind(logs[1], logs[0], equal_var=False)
    assert c.p_value == pytest.approx(expected.pvalue)


def test_paired_matches_scipy_over_the_complete_rounds(sps: types.ModuleType) -> None:
    rng = np.random.default_rng(6)
    base, head = _processes(rng, 100, 5), _processes(rng, 95, 5)
    head[2] = []  # a round whose head windows were all disturbed
    c = compare(base, head, higher_is_better=True, paired=True)
    rounds = [(b, h) for b, h in zip(base, head, strict=True) if h]
    expected = sps.ttest_rel(
        [math.log(process_values([h])[0]) for _, h in rounds],
        [math.log(process_values([b])[0]) for b, _ in rounds],
    )
    assert c.method == "paired" and c.pairs == 4 == c.processes
    assert c.p_value == pytest.approx(expected.pvalue)


def test_pairing_removes_what_a_round_shares() -> None:
    # Each round's machine state moves both sides alike (±10 %); head is 8 % slower in each.
    rng = np.random.default_rng(8)
    levels = [100 * math.exp(rng.normal(0, 0.10)) for _ in range(5)]
    base = [[level * math.exp(rng.normal(0, 0.01))] for level in levels]
    head = [[0.92 * level * math.exp(rng.normal(0, 0.01))] for level in levels]
    assert compare(base, head, higher_is_better=True).verdict == "no significant change"
    assert compare(base, head, higher_is_better=True, paired=True).verdict == "slower"


def test_the_crossover_takes_the_order_of_the_rounds_out() -> None:
    # No change, but the side measured second reads 6 % lower: rounds alternate AB, BA.
    rng = np.random.default_rng(9)
    base, head, first = [], [], []
    for r in range(6):
        level = 100 * math.exp(rng.normal(0, 0.10))
        noise = [math.exp(rng.normal(0, 0.01)) for _ in range(2)]
        second = 0.94 * level
        base.append([(level if r % 2 == 0 else second) * noise[0]])
        head.append([(second if r % 2 == 0 else level) * noise[1]])
        first.append(r % 2 == 0)
    crossover = compare(base, head, higher_is_better=True, paired=True, base_first=first)
    assert crossover.method == "crossover" and crossover.degrees_of_freedom == 4
    assert crossover.head_over_base == pytest.approx(1.0, abs=0.02)
    assert crossover.verdict == "no significant change"
    # the plain paired test counts the order's ±6 % as noise: an interval several times wider
    plain = compare(base, head, higher_is_better=True, paired=True)
    assert plain.method == "paired" and plain.degrees_of_freedom == 5

    def width(c: Comparison) -> float:
        assert c.head_over_base_interval is not None
        low, high = c.head_over_base_interval
        return high - low

    assert width(plain) > 3 * width(crossover)


def test_the_crossover_estimate_and_variance_follow_hills_and_armitage(
    sps: types.ModuleType,
) -> None:
    ab, ba = [0.10, 0.14, 0.12], [-0.02, 0.02]  # log(head) - log(base) in each order
    base = [[100.0]] * 5
    head = [[100.0 * math.exp(d)] for d in [ab[0], ba[0], ab[1], ba[1], ab[2]]]
    c = compare(base, head, higher_is_better=True, paired=True,
                base_first=[True, False, True, False, True])  # fmt: skip
    estimate = (statistics.fmean(ab) + statistics.fmean(ba)) / 2
    pooled = (sum((x - 0.12) ** 2 for x in ab) + sum((x - 0.0) ** 2 for x in ba)) / 3
    se = math.sqrt(pooled / 4 * (1 / 3 + 1 / 2))
    assert c.head_over_base == pytest.approx(math.exp(estimate))
    assert c.degrees_of_freedom == 3
    assert c.p_value == pytest.approx(2 * sps.t.sf(estimate / se, 3))


def test_rounds_lost_to_disturbed_windows_fall_back_to_welch() -> None:
    # 4 processes a side, but only 2 rounds with both: too few for the crossover
    base = [[100.0], [], [99.0], [101.0], [], [100.5]]
    head = [[80.0], [81.0], [], [], [79.5], [80.5]]
    first = [r % 2 == 0 for r in range(6)]
    c = compare(base, head, higher_is_better=True, paired=True, base_first=first)
    assert (c.method, c.pairs, c.verdict) == ("welch", 2, "slower")
    assert c.head_over_base == pytest.approx(c.head_value / c.base_value)
    # with fewer than 3 processes a side as well: too few
    thin = compare(base[:3], head[:3], higher_is_better=True, paired=True, base_first=first[:3])
    assert thin.verdict == TOO_FEW


def test_clearly_lower_latency_is_faster() -> None:
    c = compare(BASE, HEAD_10_PERCENT_LOWER, higher_is_better=False)
    assert c.verdict == "faster"
    assert c.significant
    assert compare(HEAD_10_PERCENT_LOWER, BASE, higher_is_better=False).verdict == "slower"
    assert compare(HEAD_10_PERCENT_LOWER, BASE, higher_is_better=True).verdict == "faster"


def test_tiny_separated_difference_is_no_significant_change() -> None:
    base = [[100.0 + d] for d in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)]
    head = [[99.0 + d] for d in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)]
    c = compare(base, head, higher_is_better=True)
    assert c.p_value < ALPHA
    assert abs(c.head_over_base - 1) < MIN_EFFECT
    assert c.direction == "slower"
    assert not c.significant
    assert c.verdict == "no significant change"
    assert compare(base, head, higher_is_better=True, min_effect=0.005).verdict == "slower"


def test_too_few_server_processes() -> None:
    assert MIN_PROCESSES == 3
    # two processes a side, however many windows and however far apart: too few
    two = compare([[100.0] * 5, [101.0] * 5], [[50.0] * 5, [51.0] * 5], higher_is_better=True)
    assert two.verdict == TOO_FEW == "too few server processes"
    assert not two.significant and two.direction == "slower"
    assert two.head_over_base_interval is not None  # Welch has a degree of freedom
    one = compare([[100.0]], [[50.0]], higher_is_better=True)
    assert one.verdict == TOO_FEW and one.head_over_base_interval is None
    # paired: complete rounds count, not processes
    base = [[100.0], [101.0], [99.0]]
    head = [[50.0], [51.0], []]
    assert compare(base, head, higher_is_better=True, paired=True).verdict == TOO_FEW
    assert compare(base, [*head[:2], [49.0]], higher_is_better=True, paired=True).verdict == (
        "slower"
    )


def test_equal_samples_on_both_sides() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compare([[5.0, 5.0]] * 3, [[5.0]] * 3, higher_is_better=True)
        p = compare([[5.0]] * 3, [[5.0]] * 3, higher_is_better=True, paired=True)
    for x in (c, p):
        assert x.p_value == 1.0
        assert x.head_over_base == pytest.approx(1.0)
        assert x.head_over_base_interval == pytest.approx((1.0, 1.0))
        assert x.verdict == "no significant change"


def test_compare_is_deterministic() -> None:
    rng = np.random.default_rng(3)
    base, head = _processes(rng, 100, 4), _processes(rng, 95, 4)
    assert compare(base, head, higher_is_better=True) == compare(base, head, higher_is_better=True)


@pytest.mark.parametrize(
    ("base", "head"),
    [([], [[1.0], [2.0]]), ([[1.0], [2.0]], [[0.0], [1.0]]), ([[1.0, float("nan")]], [[1.0]])],
)
def test_compare_rejects_bad_samples(base: list[list[float]], head: list[list[float]]) -> None:
    with pytest.raises(ValueError):
        compare(base, head, higher_is_better=True)


def test_paired_sides_need_the_same_rounds() -> None:
    with pytest.raises(ValueError, match="same rounds"):
        compare([[1.0], [2.0], [3.0]], [[1.0], [2.0]], higher_is_better=True, paired=True)


@pytest.mark.parametrize("paired", [False, True])
def test_calibration(paired: bool) -> None:  # paired: the crossover of 6 rounds
    """A/A comparisons of figures whose processes vary (5 % between, 3 % within) are called
    faster or slower at most about 1 time in 100; a 20 % slowdown is found with 6
    processes a side. Pooling the windows, as before, called about 1 A/A in 10."""
    rng = np.random.default_rng(2024)
    pairs = 400

    def verdicts(head_scale: float) -> list[str]:
        return [
            compare(
                _processes(rng, 100, 6), _processes(rng, 100 * head_scale, 6),
                higher_is_better=True, paired=paired,
                base_first=[r % 2 == 0 for r in range(6)] if paired else None,
            ).verdict
            for _ in range(pairs)
        ]  # fmt: skip

    same = verdicts(1.0)
    assert same.count("no significant change") >= 0.985 * pairs
    slower = verdicts(0.8)
    assert slower.count("slower") >= 0.90 * pairs
    assert "faster" not in slower


# ties


def _row(m: float, low: float | None = None, high: float | None = None) -> Summary:
    interval = None if low is None or high is None else (low, high)
    return Summary(
        n=3, windows=6, value=m, interval=interval, confidence=0.95, cv=0.01, unstable=False,
        too_few=interval is None,
    )  # fmt: skip


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


def test_ties_without_intervals_compare_values() -> None:
    rows = [_row(5), _row(5), _row(4, 3, 6), _row(7, 6, 8)]
    assert ties(rows, higher_is_better=True) == [2, 2, 4, 1]


def test_benjamini_hochberg_scales_each_p_value_by_the_family_over_its_rank() -> None:
    # Sorted: 0.001, 0.01, 0.03, 0.04 (m = 4): p * m / rank = 0.004, 0.02, 0.04, 0.04, each
    # then the smallest of its own and those of the larger p-values.
    assert benjamini_hochberg([0.04, 0.001, 0.03, 0.01]) == pytest.approx([0.04, 0.004, 0.04, 0.02])
    assert benjamini_hochberg([0.2]) == [0.2] and benjamini_hochberg([]) == []
    assert benjamini_hochberg([0.02, 0.9, 0.9]) == pytest.approx([0.06, 0.9, 0.9])
    for bad in ([0.5, 1.5], [-0.1], [math.nan]):
        with pytest.raises(ValueError, match=r"p-values must be in \[0, 1\]"):
            benjamini_hochberg(bad)


def test_a_figure_in_a_family_is_decided_by_its_adjusted_p_value() -> None:
    alone = compare(BASE, HEAD_10_PERCENT_LOWER, higher_is_better=True)
    assert alone.verdict == "slower" and alone.family_p is None and alone.alpha == ALPHA
    kept = in_family(alone, 0.049)
    assert (kept.verdict, kept.significant, kept.family_p, kept.alpha) == (
        "slower", True, 0.049, FAMILY_RATE
    )  # fmt: skip
    assert kept.p_value == alone.p_value and kept.head_over_base == alone.head_over_base
    lost = in_family(alone, FAMILY_RATE)
    assert (lost.verdict, lost.significant) == ("no significant change", False)
    # The effect size still holds: 3 % lower at any p is no change.
    small = compare(BASE, [[v * 0.97 for v in g] for g in BASE], higher_is_better=True)
    assert in_family(small, 0.0).verdict == "no significant change"
    too_few = compare(BASE[:2], HEAD_10_PERCENT_LOWER[:2], higher_is_better=True)
    assert too_few.verdict == TOO_FEW and in_family(too_few, 0.0).verdict == TOO_FEW
    with pytest.raises(ValueError, match="family_p"):
        in_family(alone, 1.5)
    with pytest.raises(ValueError, match="alpha"):
        in_family(alone, 0.01, alpha=0.0)
