"""Statistics of benchmark samples with the server process as the unit of replication:
figures, confidence intervals, comparisons and ranks.

One *window* is one measurement (for example the messages per second of one load generator
run); windows come from several fresh server processes. Windows of one process are not
independent: a process that starts on a slow memory layout, an unlucky hash seed or a busy
spell of the host stays slow for all its windows. So every figure, interval and verdict here
is computed over the **server processes**, each reduced to one value first, never over the
windows pooled (which counts one unlucky process several times, pseudo-replication, and
makes p-values too small and intervals too narrow).

The model and its sources:

- Kalibera & Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013): executions
  (here: server processes) and iterations (here: windows) are the levels of a random-effects
  model; the confidence interval of the mean is Student's t over the means of the top level,
  ``t(n - 1) * sqrt(S_n^2 / n)`` with ``S_n^2`` the variance of the n process means (their
  section 5, and ``libkalibera``'s ``confidence95``). For a balanced nested design this is
  the exact test of the mixed model (Montgomery, *Design and Analysis of Experiments*, ch. 14,
  nested designs): the windows only sharpen each process's value.
- Ratio-scale figures (rates, latencies, bytes) vary multiplicatively, so the model is on a
  log scale: a process's value is the geometric mean of its windows, the figure is the
  geometric mean of the process values (Fleming & Wallace, "How not to lie with
  statistics: the correct way to summarize benchmark results", CACM 1986), and a change is a
  ratio whose interval is ``exp`` of a difference's. Figures that are not all positive (a
  memory growth can be 0 or negative) use the arithmetic means on the linear scale instead.
- Comparisons: Welch's t test on the process values of the two sides. That includes two
  sides measured interleaved (base and head of a round back to back, the "duet" or
  randomized-multiple-interleaved-trials design: Bulej et al., "Duet benchmarking", EMSE
  2020; Abedi & Brecht, "Conducting repeatable experiments in highly variable cloud
  computing environments", ICPE 2017): the interleaving spreads drift, and the effect of the
  order within a round (the side measured second read about 2 % lower in 544 A/A round
  pairs here), evenly over the two sides, but on this machine the two sides of a round
  share nothing more than any two processes do (their correlation is about 0: ``./bench
  calibrate`` measures it,
  :func:`wsbench.jobs.calibrate.round_correlation`), so a paired analysis gains nothing and
  spends degrees of freedom and every round one side lost to a disturbed window (a 20 %
  slower server: found in 3 of 10 calibration sessions paired, 9 of 10 by Welch's test, the
  same false verdicts in A/A). The paired analyses stay here (``paired=True``) for designs
  whose rounds are alike: the two-period **crossover** when the rounds alternate their order
  (the order's effect is estimated and taken out: Hills & Armitage, "The two-period
  cross-over clinical trial", Br. J. Clin. Pharmac. 1979; Senn, *Cross-over Trials in
  Clinical Research*, 2002, ch. 3), else the paired t test.
  A verdict needs ``p < ALPHA`` and a change of at least ``MIN_EFFECT`` (asv's
  ``--factor``), and a test whose variance has at least :data:`MIN_DEGREES_OF_FREEDOM`:
  :data:`MIN_PROCESSES` server processes a side, or as many complete rounds with both
  orders (:data:`MIN_ROUNDS`); below that the method says "too few server processes".
- Why not a bootstrap: with the 3 to 8 processes a run has, a (two-level) bootstrap
  percentile interval is far too narrow: with 3 processes it is about their range, a 75 %
  interval called 95 % (the chance that 3 values all fall on one side of the median is
  1/4). Student's t is exact for normal process values and widens honestly with few.
- The spread rule: pyperf warns when the standard deviation exceeds 10 % of the mean
  (``pyperf check``); here of the process values.

Only :func:`median` is needed inside the benchmark environments, which have no numpy nor
scipy: this module imports scipy lazily, inside the functions that use it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

ALPHA = 0.01
"""Significance level of the t tests of :func:`compare`.

A change is significant only when p < ALPHA (and the effect is at least :data:`MIN_EFFECT`):
at most 1 figure in 100 of a server compared with itself is called faster or slower when the
process values are as the model says. For comparison: asv uses p < 0.002 with ``--factor``
1.1, google-benchmark 0.05.
"""

FAMILY_RATE = 0.05
"""The false discovery rate held over a comparison's family of figures where one is
controlled (a pull request's confirmed figures, :mod:`wsbench.results.confirmation`): the
Benjamini-Hochberg procedure (:func:`benjamini_hochberg`) at this level. When nothing
changed (every figure's null hypothesis true) a false discovery is any faster or slower
verdict, so this also bounds the chance that a comparison shows at least one, however many
figures it has.
"""

MIN_EFFECT = 0.05
"""Minimum effect size of :func:`compare`: ``|head/base - 1|`` must reach it (5 %).

Smaller changes are reported as "no significant change" however small their p-value: the
idea of asv's ``--factor``.
"""

MIN_DEGREES_OF_FREEDOM = 2
"""The fewest degrees of freedom of a test's variance for a verdict.

With 1, the variance rests on one difference and Student's t at p < :data:`ALPHA` asks for
a difference of 64 standard errors: no change this machine's process-to-process noise
(5-20 %) allows could reach it. With 2 the quantile is 9.9, with 4 (Welch's test of 3
against 3, or 6 interleaved rounds) 4.6: a large change is told at once, a small one needs
more processes (:mod:`wsbench.results.variance` gives the plan)."""

MIN_PROCESSES = MIN_DEGREES_OF_FREEDOM + 1
"""The fewest server processes a side a verdict of Welch's test needs (3: its
Welch-Satterthwaite degrees of freedom are at least the smaller side's less 1)."""

MIN_ROUNDS = MIN_DEGREES_OF_FREEDOM + 2
"""The fewest complete interleaved rounds a crossover verdict needs (4: the two orders'
means take 2 of the rounds' degrees of freedom); with rounds in one order only, the plain
paired test needs :data:`MIN_PROCESSES`."""

CONFIDENCE = 0.95
"""Confidence level of a figure's interval (:func:`summarize`)."""

COMPARISON_CONFIDENCE = 1 - ALPHA
"""Confidence level of a comparison's interval of the ratio (:func:`compare`): 99 %, so
that the interval excludes 1 exactly when the test's p < :data:`ALPHA`."""

UNSTABLE_CV = 0.10
"""Default threshold of the coefficient of variation (of the process values) above which a
figure is unstable. pyperf's rule: it warns when the standard deviation exceeds 10 % of the
mean."""

Groups = Sequence[Sequence[float]]
"""A figure's windows grouped by server process: one sequence of window values per process
(a process without a usable window of the figure is left out), e.g. ``[[980.0, 1010.0],
[1040.0, 1020.0], [950.0, 990.0]]`` for 3 processes of 2 windows."""

FrozenGroups = tuple[tuple[float, ...], ...]
""":data:`Groups` as nested tuples: hashable, the key of the site's caches."""


def frozen(groups: Groups) -> FrozenGroups:
    """``groups`` as :data:`FrozenGroups` (same processes, same windows, same order)."""
    return tuple(tuple(g) for g in groups)


Verdict = Literal["faster", "slower", "no significant change", "too few server processes"]
"""The verdict of :func:`compare`, from the point of view of the head."""

TOO_FEW: Verdict = "too few server processes"
"""The verdict of a comparison whose design cannot reach a verdict
(:data:`MIN_DEGREES_OF_FREEDOM`)."""

Direction = Literal["faster", "slower", "unchanged"]
"""The sign of the observed change, significant or not (see :class:`Comparison`)."""

Method = Literal["crossover", "paired", "welch"]
"""The test of :func:`compare`: the crossover analysis of interleaved rounds in both orders,
the paired t test of rounds in one order, or Welch's t test of two independent sets of
processes."""


def median(values: Sequence[float]) -> float:
    """The median of ``values`` (the mean of the two middle values for an even count).

    ``statistics.median`` of the standard library; needs no numpy.

    Raises:
        ValueError: ``values`` is empty.
    """
    if not values:
        raise ValueError("median of no values")
    return float(statistics.median(values))


def _check_groups(groups: Groups, name: str = "values") -> list[list[float]]:
    """The groups as lists of floats, empty groups dropped; ValueError when none is left or
    a value is not finite."""
    if any(isinstance(g, int | float) for g in groups):
        raise ValueError(f"{name}: give the windows grouped by server process (lists of values)")
    found = [[float(v) for v in g] for g in groups if len(g)]
    if not found:
        raise ValueError(f"{name}: no samples")
    for g in found:
        if not all(math.isfinite(v) for v in g):
            raise ValueError(f"{name}: samples must be finite, got {g!r}")
    return found


def _check_fraction(value: float, name: str) -> None:
    if not 0 < value < 1:
        raise ValueError(f"{name} must be between 0 and 1 (exclusive), got {value!r}")


def on_log_scale(groups: Groups) -> bool:
    """Whether a figure is modelled on the log scale: every window value is above 0."""
    return all(v > 0 for g in groups for v in g)


def _mean(values: Sequence[float], log: bool) -> float:
    """The geometric mean of ``values`` (``log``) or their arithmetic mean; exactly the value
    when all are equal."""
    if min(values) == max(values):
        return float(values[0])
    if log:
        return math.exp(statistics.fmean(math.log(v) for v in values))
    return statistics.fmean(values)


def process_values(groups: Groups, *, log: bool | None = None) -> list[float]:
    """Each server process's value: the geometric mean of its windows (the arithmetic mean
    when not every value is above 0, or ``log=False``), in the groups' order.

    Raises:
        ValueError: no group has a value, or a value is not finite.
    """
    found = _check_groups(groups)
    use_log = on_log_scale(found) if log is None else log
    return [_mean(g, use_log) for g in found]


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom:
    ``scipy.special.stdtrit``, the function ``scipy.stats.t.ppf`` evaluates (the same
    figures), without importing ``scipy.stats``: 0.5 s to import against 1.6 s on a 2-core
    machine, in every process that summarizes (each site build, each comparison)."""
    from scipy import special

    return float(special.stdtrit(df, p))


def _t_p_value(t: float, df: float) -> float:
    """Two-sided p-value of Student's t statistic ``t`` with ``df`` degrees of freedom:
    twice the t distribution's lower tail at ``-|t|`` (``scipy.special.stdtr``, what
    ``scipy.stats.t.sf`` evaluates; :func:`t_quantile` says why not ``scipy.stats``)."""
    from scipy import special

    return float(2 * special.stdtr(df, -abs(t)))


@dataclass(frozen=True)
class Summary:
    """The statistics of one figure over its server processes (see :func:`summarize`).

    ``value`` and ``interval`` are in the unit of the samples; ``cv`` is a fraction (0.03
    is 3 %).
    """

    n: int
    """Number of server processes with a value (the unit of replication)."""
    windows: int
    """Number of windows over those processes."""
    value: float
    """The figure: the geometric mean of the process values (each the geometric mean of
    its windows), or the arithmetic means when not every value is above 0."""
    interval: tuple[float, float] | None
    """Student's t confidence interval ``(low, high)`` of ``value`` over the processes;
    None when ``too_few``."""
    confidence: float
    """Confidence level of ``interval``, e.g. 0.95."""
    cv: float | None
    """Coefficient of variation of the process values: standard deviation / mean; None
    when ``too_few``."""
    unstable: bool
    """``cv > unstable_cv`` (pyperf's rule); False when ``too_few``."""
    too_few: bool
    """Fewer than 2 server processes: no interval, no spread."""


def summarize(
    groups: Groups,
    *,
    confidence: float = CONFIDENCE,
    unstable_cv: float = UNSTABLE_CV,
) -> Summary:
    """A figure, its confidence interval and its spread, over the server processes.

    Args:
        groups: the figure's windows grouped by server process (:data:`Groups`); at least
            one value.
        confidence: confidence level of the interval, between 0 and 1.
        unstable_cv: the figure is ``unstable`` when the process values' ``cv`` exceeds it
            (pyperf's rule: 10 %, the default).

    Each process is reduced to its value (:func:`process_values`); the figure is their
    geometric mean and its interval ``exp(mean ± t(n - 1) * sd / sqrt(n))`` of their logs
    (Kalibera & Jones 2013, section 5: Student's t over the top level's means); when not
    every value is above 0, the same on the linear scale. All-equal process values give the
    interval ``(v, v)`` and cv 0. With one process, ``too_few`` is True, ``interval`` and
    ``cv`` are None.

    Raises:
        ValueError: no value, a value not finite, ``confidence`` not in (0, 1), or
            ``unstable_cv`` negative.
    """
    found = _check_groups(groups)
    _check_fraction(confidence, "confidence")
    if unstable_cv < 0:
        raise ValueError(f"unstable_cv must not be negative, got {unstable_cv!r}")
    log = on_log_scale(found)
    values = process_values(found, log=log)
    n, windows = len(values), sum(len(g) for g in found)
    value = _mean(values, log)
    if n < 2:
        return Summary(n, windows, value, None, confidence, None, False, True)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values)
    cv = sd / abs(mean) if mean else (0.0 if sd == 0 else math.inf)
    if sd == 0:
        return Summary(n, windows, value, (value, value), confidence, 0.0, False, False)
    scaled = [math.log(v) for v in values] if log else values
    center = statistics.fmean(scaled)
    half = t_quantile((1 + confidence) / 2, n - 1) * statistics.stdev(scaled) / math.sqrt(n)
    low, high = center - half, center + half
    interval = (math.exp(low), math.exp(high)) if log else (low, high)
    return Summary(n, windows, value, interval, confidence, cv, cv > unstable_cv, False)


@dataclass(frozen=True)
class Comparison:
    """The change of a figure from ``base`` to ``head`` (see :func:`compare`)."""

    n_base: int
    """Server processes of the base with a value."""
    n_head: int
    """Server processes of the head with a value."""
    base_value: float
    """The base's figure (:attr:`Summary.value`), in its unit."""
    head_value: float
    """The head's figure, in its unit."""
    head_over_base: float
    """The ratio head/base (1.10 means head is 10 % higher): ``head_value / base_value``, or
    when paired the test's estimate over the complete rounds, ``exp`` of the mean of their
    ``log(head) - log(base)`` (the same when every round is complete)."""
    head_over_base_interval: tuple[float, float] | None
    """Student's t confidence interval of ``head_over_base``; None when the test has no
    degree of freedom (fewer than 2 processes a side, or 2 rounds paired)."""
    confidence: float
    """Confidence level of ``head_over_base_interval`` (:data:`COMPARISON_CONFIDENCE`)."""
    p_value: float
    """Two-sided p-value of the t test (1.0 without a degree of freedom)."""
    alpha: float
    """Significance level the p-value was compared with."""
    min_effect: float
    """Minimum effect size ``|head_over_base - 1|`` of a significant change."""
    method: Method
    """The test: ``"crossover"`` or ``"paired"`` over interleaved rounds, or ``"welch"``."""
    pairs: int | None
    """Complete rounds (both sides have a value) of an interleaved comparison; None for
    Welch's."""
    degrees_of_freedom: float
    """Of the test's variance (0 without one)."""
    significant: bool
    """``p_value < alpha`` and ``|head_over_base - 1| >= min_effect``, with enough
    processes."""
    direction: Direction
    """Whether head is better ("faster"), worse ("slower") or equal ("unchanged") than base
    by the observed figures, significant or not."""
    verdict: Verdict
    """``direction`` when significant; otherwise "no significant change", or "too few
    server processes" when the test has fewer than :data:`MIN_DEGREES_OF_FREEDOM`."""
    family_p: float | None = None
    """The p-value adjusted over the comparison's family of figures (:func:`in_family`),
    which the verdict compared with ``alpha`` instead of ``p_value``; None: the figure was
    decided on its own."""

    @property
    def processes(self) -> int:
        """The processes the verdict rests on: complete rounds when paired, else the
        smaller side."""
        return self.pairs if self.pairs is not None else min(self.n_base, self.n_head)


Test = tuple[float, tuple[float, float] | None, float, float]
"""A t test's estimate (a difference of logs), its interval, its p-value and its degrees of
freedom (0 and no interval without any)."""


def _t_test(estimate: float, se: float, df: float, confidence: float) -> Test:
    if df <= 0:
        return estimate, None, 1.0, 0.0
    if se == 0:
        return estimate, (estimate, estimate), 1.0 if estimate == 0 else 0.0, df
    half = t_quantile((1 + confidence) / 2, df) * se
    return estimate, (estimate - half, estimate + half), _t_p_value(estimate / se, df), df


def _welch(b: list[float], h: list[float], confidence: float) -> Test:
    """Welch's t test of ``h - b`` (means of scaled process values), with the
    Welch-Satterthwaite degrees of freedom."""
    diff = statistics.fmean(h) - statistics.fmean(b)
    if len(b) < 2 or len(h) < 2:
        return _t_test(diff, 0.0, 0, confidence)
    vb, vh = statistics.variance(b) / len(b), statistics.variance(h) / len(h)
    if vb + vh == 0:
        return _t_test(diff, 0.0, len(b) + len(h) - 2, confidence)
    df = (vb + vh) ** 2 / (vb**2 / (len(b) - 1) + vh**2 / (len(h) - 1))
    return _t_test(diff, math.sqrt(vb + vh), df, confidence)


def _paired(diffs: list[float], confidence: float) -> Test:
    """The paired t test of the rounds' differences (their mean against 0)."""
    if not diffs:
        return _t_test(0.0, 0.0, 0, confidence)
    mean = statistics.fmean(diffs)
    if len(diffs) < 2:
        return _t_test(mean, 0.0, 0, confidence)
    se = statistics.stdev(diffs) / math.sqrt(len(diffs))
    return _t_test(mean, se, len(diffs) - 1, confidence)


def _crossover(first: list[float], second: list[float], confidence: float) -> Test:
    """The two-period crossover analysis (Hills & Armitage 1979) of the rounds'
    differences ``log(head) - log(base)``: ``first`` of the rounds with the base measured
    first (AB), ``second`` of those with the head first (BA), both non-empty. With an order
    effect ``p`` (the side measured second reads ``p`` more), AB rounds read ``d + p`` and BA
    rounds ``d - p``: the change is the mean of the two orders' means, whatever ``p``, its
    variance ``s^2 / 4 * (1 / n_AB + 1 / n_BA)`` with ``s^2`` pooled within the two orders
    (``n_AB + n_BA - 2`` degrees of freedom)."""
    estimate = (statistics.fmean(first) + statistics.fmean(second)) / 2
    df = len(first) + len(second) - 2
    if df <= 0:
        return _t_test(estimate, 0.0, 0, confidence)
    squares = sum((x - statistics.fmean(g)) ** 2 for g in (first, second) for x in g)
    se = math.sqrt(squares / df / 4 * (1 / len(first) + 1 / len(second)))
    return _t_test(estimate, se, df, confidence)


def compare(
    base: Groups,
    head: Groups,
    *,
    higher_is_better: bool,
    paired: bool = False,
    base_first: Sequence[bool] | None = None,
    alpha: float = ALPHA,
    min_effect: float = MIN_EFFECT,
    confidence: float = COMPARISON_CONFIDENCE,
) -> Comparison:
    """Compare a figure before (``base``) and after (``head``) a change, over server
    processes.

    Args:
        base, head: each side's windows grouped by server process (:data:`Groups`), all
            finite and > 0, in the figure's unit (messages/s, seconds ...). When
            ``paired``, group ``r`` of each side is round ``r`` of an interleaved
            measurement (an empty group: that side has no value in that round).
        higher_is_better: True for throughput-like figures (a ratio above 1 is "faster"),
            False for latency-like figures (a ratio above 1 is "slower").
        paired: pair the sides round by round (the crossover analysis, or the paired t
            test, over the complete rounds), for rounds whose two sides are alike; else
            two sets of processes (Welch's t test: what the harness uses, interleaved or
            not, see the module's docstring).
        base_first: when ``paired``, whether round ``r`` measured the base first (an
            interleaved measurement alternates: :func:`wsbench.results.compare.base_first`);
            None: the order is not known and the paired t test is used.
        alpha: significance level (default :data:`ALPHA`).
        min_effect: minimum ``|head/base - 1|`` of a significant change (default
            :data:`MIN_EFFECT`, asv's ``--factor`` idea).
        confidence: confidence level of the interval of the ratio (default
            :data:`COMPARISON_CONFIDENCE`, 1 - alpha).

    Each process is reduced to the log of its value (:func:`process_values`). Welch's test
    compares the two sides' mean logs. An interleaved comparison takes, in each round where
    both sides have a value, ``log(head) - log(base)``: with rounds in both orders, the
    crossover analysis (the change is the mean of the two orders' mean differences, so that
    the order's own effect cancels: :func:`_crossover`); with the order unknown or one order
    only, the paired t test of their mean against 0. When disturbed windows left too few
    complete rounds for either, but each side has :data:`MIN_PROCESSES` processes, Welch's
    test compares the sides (their processes are independent samples all the same; the
    choice depends on which windows were usable, never on their values). The ratio
    is ``head_value / base_value`` (the geometric means) for Welch's test, ``exp`` of the
    test's estimate for an interleaved one (the same when every round is complete and the
    orders balance; a round one side lost to disturbed windows would otherwise move the
    ratio but not the test), and its interval
    is ``exp`` of the difference's t interval, widened if needed to contain the ratio.

    The verdict rule:

    1. "too few server processes" when the test's variance has fewer than
       :data:`MIN_DEGREES_OF_FREEDOM` (Welch's: fewer than :data:`MIN_PROCESSES` processes
       on a side; crossover: fewer than :data:`MIN_ROUNDS` complete rounds; paired: fewer
       than :data:`MIN_PROCESSES`);
    2. otherwise significant when both ``p < alpha`` and ``|head_over_base - 1| >=
       min_effect``;
    3. a significant change is "faster" when head is better than base (ratio above 1 when
       higher is better, below 1 otherwise), "slower" when worse; an insignificant one is
       "no significant change".

    Raises:
        ValueError: either side has no value, or a value not finite or not > 0; ``alpha``
            or ``confidence`` not in (0, 1); ``min_effect`` negative; ``paired`` with sides
            (or ``base_first``) of different numbers of rounds.
    """
    if paired and len(base) != len(head):
        raise ValueError(
            f"compare: paired sides need the same rounds, got {len(base)} and {len(head)}"
        )
    if paired and base_first is not None and len(base_first) != len(base):
        raise ValueError(
            f"compare: {len(base_first)} round orders for {len(base)} rounds (base_first)"
        )
    b_groups, h_groups = _check_groups(base, "base"), _check_groups(head, "head")
    if not (on_log_scale(b_groups) and on_log_scale(h_groups)):
        raise ValueError("compare: samples must be positive")
    _check_fraction(alpha, "alpha")
    _check_fraction(confidence, "confidence")
    if min_effect < 0:
        raise ValueError(f"min_effect must not be negative, got {min_effect!r}")

    b_logs = [math.log(v) for v in process_values(b_groups, log=True)]
    h_logs = [math.log(v) for v in process_values(h_groups, log=True)]
    base_value, head_value = math.exp(statistics.fmean(b_logs)), math.exp(statistics.fmean(h_logs))
    ratio = head_value / base_value

    pairs: int | None = None
    method: Method = "welch"
    if paired:
        orders = base_first if base_first is not None else [True] * len(base)
        diffs = [
            (math.log(process_values([h])[0]) - math.log(process_values([b])[0]), first)
            for b, h, first in zip(base, head, orders, strict=True)
            if len(b) and len(h)
        ]
        pairs = len(diffs)
        ab = [d for d, first in diffs if first]
        ba = [d for d, first in diffs if not first]
        if base_first is not None and ab and ba:
            method = "crossover"
            estimate, interval_logs, p, df = _crossover(ab, ba, confidence)
        else:
            method = "paired"
            estimate, interval_logs, p, df = _paired([d for d, _ in diffs], confidence)
        if diffs:  # the test's own estimate: over the complete rounds only
            ratio = math.exp(estimate)
        enough = df >= MIN_DEGREES_OF_FREEDOM
        if not enough and min(len(b_logs), len(h_logs)) >= MIN_PROCESSES:
            # Too few complete rounds (disturbed windows took one side of some), but enough
            # processes a side: they are still independent samples of each side.
            paired, method = False, "welch"
            ratio = head_value / base_value
    if not paired:
        _, interval_logs, p, df = _welch(b_logs, h_logs, confidence)
        enough = min(len(b_logs), len(h_logs)) >= MIN_PROCESSES

    interval: tuple[float, float] | None = None
    if interval_logs is not None:
        low, high = math.exp(interval_logs[0]), math.exp(interval_logs[1])
        interval = (min(low, ratio), max(high, ratio))

    direction: Direction
    if ratio == 1:
        direction = "unchanged"
    elif (ratio > 1) == higher_is_better:
        direction = "faster"
    else:
        direction = "slower"

    significant, verdict = _decide(enough, p, alpha, ratio, min_effect, direction)
    return Comparison(
        n_base=len(b_logs),
        n_head=len(h_logs),
        base_value=base_value,
        head_value=head_value,
        head_over_base=ratio,
        head_over_base_interval=interval,
        confidence=confidence,
        p_value=p,
        alpha=alpha,
        min_effect=min_effect,
        method=method,
        pairs=pairs,
        degrees_of_freedom=df,
        significant=significant,
        direction=direction,
        verdict=verdict,
    )


def _decide(
    enough: bool, p: float, alpha: float, ratio: float, min_effect: float, direction: Direction
) -> tuple[bool, Verdict]:
    """Whether a change is significant, and its verdict (:func:`compare`'s rule)."""
    if not enough:
        return False, TOO_FEW
    significant = p < alpha and abs(ratio - 1) >= min_effect and direction != "unchanged"
    if not significant:
        return False, "no significant change"
    return True, "faster" if direction == "faster" else "slower"


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """The p-values adjusted for their family by the Benjamini-Hochberg procedure
    (Benjamini & Hochberg, "Controlling the false discovery rate: a practical and powerful
    approach to multiple testing", J. R. Stat. Soc. B 57, 1995): figure ``i`` is a discovery
    at false discovery rate ``q`` when its adjusted value is below ``q``. Computed by
    ``scipy.stats.false_discovery_control(method="bh")``. The procedure holds the rate for
    independent tests and for positively dependent ones (Benjamini & Yekutieli, "The control
    of the false discovery rate in multiple testing under dependency", Ann. Statist. 29,
    2001); the figures of one set move together, and ``./bench calibrate --pr-compare``
    measures the rate that results.

    Args:
        p_values: the family's p-values, each in [0, 1], in any order.

    Returns:
        The adjusted values, in the order of ``p_values`` (each at least its own p-value,
        at most 1); ``[]`` for no p-value.

    Raises:
        ValueError: a p-value outside [0, 1] or not finite.
    """
    if not p_values:
        return []
    if not all(0 <= p <= 1 for p in p_values):  # NaN fails too
        raise ValueError(f"p-values must be in [0, 1], got {list(p_values)!r}")
    from scipy.stats import false_discovery_control

    return [float(q) for q in false_discovery_control(list(p_values), method="bh")]


def in_family(c: Comparison, family_p: float, alpha: float = FAMILY_RATE) -> Comparison:
    """``c`` decided as one figure of a family: its verdict by :func:`compare`'s rule, with
    ``family_p`` (its p-value adjusted over the family, :func:`benjamini_hochberg`) compared
    with ``alpha`` in place of its own p-value. The ratio, interval, effect size and
    degrees of freedom stay ``c``'s; "too few server processes" stays so.

    Raises:
        ValueError: ``family_p`` not in [0, 1] or ``alpha`` not in (0, 1).
    """
    if not 0 <= family_p <= 1:
        raise ValueError(f"family_p must be in [0, 1], got {family_p!r}")
    _check_fraction(alpha, "alpha")
    significant, verdict = _decide(
        c.verdict != TOO_FEW, family_p, alpha, c.head_over_base, c.min_effect, c.direction
    )
    return replace(c, family_p=family_p, alpha=alpha, significant=significant, verdict=verdict)


def _overlap(a: Summary, b: Summary) -> bool:
    """Whether the closed intervals of ``a`` and ``b`` overlap (values equal if one is None)."""
    if a.interval is None or b.interval is None:
        return a.value == b.value
    return a.interval[0] <= b.interval[1] and b.interval[0] <= a.interval[1]


def ties(summaries: Sequence[Summary], *, higher_is_better: bool) -> list[int]:
    """Leaderboard ranks in which rows not significantly different from a leader share its rank.

    The rule: sort the rows by value, best first (highest when ``higher_is_better``,
    otherwise lowest; equal values keep their input order). The first row is the leader of
    rank 1. Each following row, in that order, shares the rank of the current leader when its
    confidence interval overlaps the leader's (closed intervals: touching ends overlap);
    otherwise it starts a new rank, equal to its 1-based position in the sorted order, and
    becomes the leader ("competition ranking": 1, 1, 3). A row whose interval (or whose
    leader's interval) is None is tied only when the two values are equal. Overlap is tested
    against the leader only, never against the previous row, so ties do not chain.

    Returns:
        The rank of each summary, in the input order (an empty list for no summaries).
    """
    order = sorted(
        range(len(summaries)),
        key=lambda i: -summaries[i].value if higher_is_better else summaries[i].value,
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
