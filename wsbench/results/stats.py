"""Statistics of benchmark samples: medians, confidence intervals, comparisons and ranks.

One *sample* is one measurement window (for example the messages per second of one load
generator run); samples come from several server processes. Every published figure is the
median of several samples, shown with a bootstrap confidence interval of that median.

Only :func:`median` is needed inside the benchmark environments, which have no numpy: this
module imports numpy and scipy lazily, inside the functions that use them.

Methods and their sources:

- confidence intervals: the bootstrap percentile interval (Efron & Tibshirani, *An
  Introduction to the Bootstrap*, 1993, ch. 13), computed by ``scipy.stats.bootstrap``;
- the spread rule: pyperf warns when the standard deviation exceeds 10 % of the mean
  (``pyperf check``);
- comparisons: the two-sided Mann-Whitney U test (``scipy.stats.mannwhitneyu``), as in asv
  (``asv compare``) and google-benchmark (``compare.py``), plus a minimum effect size, as in
  asv's ``--factor``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ALPHA = 0.01
"""Significance level of the Mann-Whitney U test in :func:`compare`.

A change is significant only when p < ALPHA (and the effect is at least :data:`MIN_EFFECT`).
For comparison: asv uses p < 0.002 (with ``--factor`` 1.1), google-benchmark 0.05. With 0.01,
at least 5 samples on each side are needed (4 vs 6 also works): see :func:`min_p_value`.
"""

MIN_EFFECT = 0.05
"""Minimum effect size of :func:`compare`: ``|head/base - 1|`` must reach it (5 %).

Smaller changes are reported as "no significant change" however small their p-value: the
idea of asv's ``--factor``. It also absorbs the drift between runs on the same machine that a
rank test on samples from one run cannot see.
"""

CONFIDENCE = 0.95
"""Default confidence level of the bootstrap intervals."""

UNSTABLE_CV = 0.10
"""Default threshold of the coefficient of variation above which a figure is unstable.

pyperf's rule: it warns when the standard deviation exceeds 10 % of the mean.
"""

RESAMPLES = 9999
"""Default number of bootstrap resamples (scipy's default)."""

SEED = 0
"""Default seed of the bootstrap's random generator, so that results are reproducible."""

Verdict = Literal["faster", "slower", "no significant change", "too few samples"]
"""The verdict of :func:`compare`, from the point of view of the head."""

Direction = Literal["faster", "slower", "unchanged"]
"""The sign of the observed change, significant or not (see :class:`Comparison`)."""


def median(values: Sequence[float]) -> float:
    """The median of ``values`` (the mean of the two middle values for an even count).

    ``statistics.median`` of the standard library; needs no numpy.

    Raises:
        ValueError: ``values`` is empty.
    """
    if not values:
        raise ValueError("median of no values")
    return float(statistics.median(values))


@dataclass(frozen=True)
class Summary:
    """The statistics of the samples of one figure (see :func:`summarize`).

    All values are in the unit of the samples, except ``cv`` (a fraction: 0.03 is 3 %).
    """

    n: int
    """Number of samples."""
    median: float
    """Median of the samples."""
    interval: tuple[float, float] | None
    """Bootstrap confidence interval ``(low, high)`` of the median; None when ``too_few``."""
    confidence: float
    """Confidence level of ``interval``, e.g. 0.95."""
    cv: float | None
    """Coefficient of variation: sample standard deviation / mean; None when ``too_few``."""
    unstable: bool
    """``cv > unstable_cv`` (pyperf's rule); False when ``too_few``."""
    too_few: bool
    """Fewer than 2 samples: no interval, no spread."""


def _check_samples(values: Sequence[float], name: str = "values") -> list[float]:
    """The values as floats, sorted; ValueError when empty or not all finite."""
    if not values:
        raise ValueError(f"{name}: no samples")
    floats = sorted(float(v) for v in values)
    if not all(math.isfinite(v) for v in floats):
        raise ValueError(f"{name}: samples must be finite, got {list(values)!r}")
    return floats


def _check_fraction(value: float, name: str) -> None:
    if not 0 < value < 1:
        raise ValueError(f"{name} must be between 0 and 1 (exclusive), got {value!r}")


def _widen(low: float, high: float, point: float) -> tuple[float, float]:
    """``(low, high)`` widened, if needed, to contain ``point`` (the observed statistic)."""
    return min(low, point), max(high, point)


def _median_axis(x: npt.NDArray[np.float64], axis: int) -> npt.NDArray[np.float64]:
    import numpy as np

    return np.median(x, axis=axis)


def _ratio_of_medians(
    base: npt.NDArray[np.float64], head: npt.NDArray[np.float64], axis: int
) -> npt.NDArray[np.float64]:
    import numpy as np

    result: npt.NDArray[np.float64] = np.median(head, axis=axis) / np.median(base, axis=axis)
    return result


def summarize(
    values: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    unstable_cv: float = UNSTABLE_CV,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Summary:
    """The median of the samples, its confidence interval and the spread of the samples.

    Args:
        values: the samples (one float per measurement window), in any order; at least one.
        confidence: confidence level of the interval, between 0 and 1.
        unstable_cv: the figure is ``unstable`` when ``cv > unstable_cv``. pyperf's rule:
            it warns when the standard deviation exceeds 10 % of the mean (the default).
        resamples: number of bootstrap resamples.
        seed: seed of the numpy random Generator of the bootstrap.

    The interval is the bootstrap percentile interval of the median (Efron & Tibshirani
    1993, ch. 13; ``scipy.stats.bootstrap(method="percentile")``). Percentile rather than
    BCa: with 4-12 samples and tied values, BCa's jackknife acceleration of the median is
    often undefined (scipy warns and returns NaN), while the percentile interval is always
    defined and always lies within ``[min(values), max(values)]``. It is widened, if needed,
    to contain the median. The samples are sorted before resampling and the generator is
    seeded, so the same samples (in any order) always give the same interval. All-equal
    samples give the interval ``(m, m)`` and cv 0.

    With a single sample, ``too_few`` is True, ``interval`` and ``cv`` are None and
    ``unstable`` is False (a spread cannot be estimated from one sample). The cv is
    ``inf`` when the mean is 0 but the samples differ.

    Raises:
        ValueError: ``values`` is empty or not all finite; ``confidence`` not in (0, 1);
            ``unstable_cv`` negative; ``resamples`` < 1.
    """
    floats = _check_samples(values)
    _check_fraction(confidence, "confidence")
    if unstable_cv < 0:
        raise ValueError(f"unstable_cv must not be negative, got {unstable_cv!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples!r}")
    n = len(floats)
    m = median(floats)
    if n < 2:
        return Summary(n, m, None, confidence, None, False, True)
    if floats[0] == floats[-1]:
        return Summary(n, m, (m, m), confidence, 0.0, False, False)

    import numpy as np
    from scipy import stats as sps

    result = sps.bootstrap(
        (np.asarray(floats),),
        _median_axis,
        n_resamples=resamples,
        vectorized=True,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    interval = _widen(float(ci.low), float(ci.high), m)
    mean = statistics.fmean(floats)
    stdev = statistics.stdev(floats)
    cv = stdev / abs(mean) if mean else math.inf
    return Summary(n, m, interval, confidence, cv, cv > unstable_cv, False)


def min_p_value(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the exact Mann-Whitney U test can give for n1 vs n2.

    ``2 / C(n1 + n2, n1)``: the probability, under the null hypothesis, of the two most
    extreme of the ``C(n1 + n2, n1)`` equally likely rank arrangements (no ties). When it is
    >= alpha, the test can never be significant at alpha, whatever the samples: for alpha
    0.01, 4 vs 4 gives 0.029, 5 vs 5 0.0079, 6 vs 6 0.0022.

    Raises:
        ValueError: n1 or n2 < 1.
    """
    if n1 < 1 or n2 < 1:
        raise ValueError(f"sample sizes must be at least 1, got {n1} and {n2}")
    return min(1.0, 2 / math.comb(n1 + n2, n1))


@dataclass(frozen=True)
class Comparison:
    """The change of a figure from ``base`` to ``head`` (see :func:`compare`)."""

    n_base: int
    """Number of base samples."""
    n_head: int
    """Number of head samples."""
    base_median: float
    """Median of the base samples, in their unit."""
    head_median: float
    """Median of the head samples, in their unit."""
    head_over_base: float
    """The ratio of medians ``head_median / base_median`` (1.10 means head is 10 % higher)."""
    head_over_base_interval: tuple[float, float] | None
    """Bootstrap confidence interval of ``head_over_base``; None with a single sample on
    either side. Informative only: the verdict does not use it."""
    confidence: float
    """Confidence level of ``head_over_base_interval``."""
    p_value: float
    """Two-sided Mann-Whitney U p-value (1.0 when every sample is equal)."""
    alpha: float
    """Significance level the p-value was compared with."""
    min_effect: float
    """Minimum effect size ``|head_over_base - 1|`` of a significant change."""
    significant: bool
    """``p_value < alpha`` and ``|head_over_base - 1| >= min_effect`` (and enough samples)."""
    direction: Direction
    """Whether head is better ("faster"), worse ("slower") or equal ("unchanged") than base
    by the observed medians, significant or not."""
    verdict: Verdict
    """``direction`` when significant; otherwise "no significant change", or "too few
    samples" when the test could never be significant with these sample sizes."""


def compare(
    base: Sequence[float],
    head: Sequence[float],
    *,
    higher_is_better: bool,
    alpha: float = ALPHA,
    min_effect: float = MIN_EFFECT,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Comparison:
    """Compare the samples of one figure before (``base``) and after (``head``) a change.

    Args:
        base, head: the samples of each side (independent, any order), all finite and > 0,
            in the unit of the figure (messages/s, µs ...).
        higher_is_better: True for throughput-like figures (a ratio above 1 is "faster"),
            False for latency-like figures (a ratio above 1 is "slower").
        alpha: significance level of the Mann-Whitney U test (default :data:`ALPHA`).
        min_effect: minimum ``|head/base - 1|`` of a significant change (default
            :data:`MIN_EFFECT`, asv's ``--factor`` idea).
        confidence: confidence level of the interval of the ratio.
        resamples: number of bootstrap resamples.
        seed: seed of the numpy random Generator of the bootstrap.

    The verdict rule:

    1. "too few samples" when :func:`min_p_value` ``(len(base), len(head)) >= alpha``: the
       exact test could never reach the significance level;
    2. otherwise significant when both ``p < alpha`` (two-sided Mann-Whitney U test,
       ``scipy.stats.mannwhitneyu(method="auto")``: exact without ties and up to 8 samples
       per side, else the normal approximation with continuity correction) and
       ``|head_over_base - 1| >= min_effect``;
    3. a significant change is "faster" when head is better than base (ratio above 1 when
       higher is better, below 1 otherwise), "slower" when worse; an insignificant one is
       "no significant change".

    The interval of the ratio of medians is the bootstrap percentile interval with the two
    sides resampled independently (``scipy.stats.bootstrap(paired=False,
    method="percentile")``), widened if needed to contain the observed ratio. It is not
    part of the verdict.

    Raises:
        ValueError: either side is empty, or has a value that is not finite or not > 0;
            ``alpha`` or ``confidence`` not in (0, 1); ``min_effect`` negative;
            ``resamples`` < 1.
    """
    b = _check_samples(base, "base")
    h = _check_samples(head, "head")
    if b[0] <= 0 or h[0] <= 0:
        raise ValueError("compare: samples must be positive")
    _check_fraction(alpha, "alpha")
    _check_fraction(confidence, "confidence")
    if min_effect < 0:
        raise ValueError(f"min_effect must not be negative, got {min_effect!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples!r}")

    import numpy as np
    from scipy import stats as sps

    base_median, head_median = median(b), median(h)
    ratio = head_median / base_median

    interval: tuple[float, float] | None
    if len(b) < 2 or len(h) < 2:
        interval = None
    elif b[0] == b[-1] and h[0] == h[-1]:
        interval = (ratio, ratio)
    else:
        result = sps.bootstrap(
            (np.asarray(b), np.asarray(h)),
            _ratio_of_medians,
            n_resamples=resamples,
            vectorized=True,
            paired=False,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
        ci = result.confidence_interval
        interval = _widen(float(ci.low), float(ci.high), ratio)

    p = float(sps.mannwhitneyu(b, h, alternative="two-sided", method="auto").pvalue)
    if math.isnan(p):  # every sample equal
        p = 1.0

    direction: Direction
    if ratio == 1:
        direction = "unchanged"
    elif (ratio > 1) == higher_is_better:
        direction = "faster"
    else:
        direction = "slower"

    verdict: Verdict
    if min_p_value(len(b), len(h)) >= alpha:
        significant = False
        verdict = "too few samples"
    else:
        significant = p < alpha and abs(ratio - 1) >= min_effect and direction != "unchanged"
        if not significant:
            verdict = "no significant change"
        else:
            verdict = "faster" if direction == "faster" else "slower"

    return Comparison(
        n_base=len(b),
        n_head=len(h),
        base_median=base_median,
        head_median=head_median,
        head_over_base=ratio,
        head_over_base_interval=interval,
        confidence=confidence,
        p_value=p,
        alpha=alpha,
        min_effect=min_effect,
        significant=significant,
        direction=direction,
        verdict=verdict,
    )


def _overlap(a: Summary, b: Summary) -> bool:
    """Whether the closed intervals of ``a`` and ``b`` overlap (medians equal if one is None)."""
    if a.interval is None or b.interval is None:
        return a.median == b.median
    return a.interval[0] <= b.interval[1] and b.interval[0] <= a.interval[1]


def ties(summaries: Sequence[Summary], *, higher_is_better: bool) -> list[int]:
    """Leaderboard ranks in which rows not significantly different from a leader share its rank.

    The rule: sort the rows by median, best first (highest when ``higher_is_better``,
    otherwise lowest; equal medians keep their input order). The first row is the leader of
    rank 1. Each following row, in that order, shares the rank of the current leader when its
    confidence interval overlaps the leader's (closed intervals: touching ends overlap);
    otherwise it starts a new rank, equal to its 1-based position in the sorted order, and
    becomes the leader ("competition ranking": 1, 1, 3). A row whose interval (or whose
    leader's interval) is None is tied only when the two medians are equal. Overlap is tested
    against the leader only, never against the previous row, so ties do not chain.

    Returns:
        The rank of each summary, in the input order (an empty list for no summaries).
    """
    order = sorted(
        range(len(summaries)),
        key=lambda i: -summaries[i].median if higher_is_better else summaries[i].median,
    )
    ranks = [0] * len(summaries)
    leader: Summary | None = None
    leader_rank = 0
    for position, i in enumerate(order, start=1):
        row = summaries[i]
        if leader is None or not _overlap(leader, row):
            leader, leader_rank = row, position
        ranks[i] = leader_rank
    return ranks
