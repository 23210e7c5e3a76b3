"""Variance components of a figure (between server processes, between windows of one
process) and the sampling plan they call for: Kalibera & Jones's two-level model.

A figure's windows come from several server processes (:data:`wsbench.results.stats.Groups`).
On the log scale (the figures are ratio-scale, :mod:`wsbench.results.stats`), with ``n``
processes of ``m`` windows each, Kalibera & Jones ("Rigorous benchmarking in reasonable
time", ISMM 2013, section 4, with the correction to the estimators of section 9.2 that
``libkalibera`` carries):

- ``S1^2``: the variance of the windows around their process's mean, pooled over the
  processes (the within-process level);
- ``S2^2``: the variance of the process means;
- ``T1^2 = S1^2`` and ``T2^2 = S2^2 - S1^2 / m``: unbiased estimates of the variance a new
  window adds within a process, and of the variance between processes (a negative estimate
  is 0: no variance between processes beyond what the windows carry).

The **optimal windows per process** for a given cost of a process (``c2``: starting and
stopping a server) and of a window (``c1``: warm-up plus window) is ``sqrt(c2 / c1 * T1^2 /
T2^2)`` (their section 6; ``libkalibera.optimalreps``); then the processes needed for a
confidence interval of relative half-width ``h`` is the smallest ``n`` with ``t(n - 1) *
sqrt((T2^2 + T1^2 / m) / n) <= h``. A server process here serves every parameter set of its
scenarios in turn, so its cost is shared by the sets: ``c2`` is a server's start and stop
divided by the sets it serves.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.results.stats import CONFIDENCE, Groups, t_quantile

MAX_PROCESSES = 1000
"""The most processes :func:`processes_for` looks at (a plan beyond is no plan)."""


@dataclass(frozen=True)
class Components:
    """A figure's variance components on the log scale (a standard deviation of logs of
    0.05 is about 5 % of the figure).

    Attributes:
        processes: server processes with at least two windows.
        windows: mean windows per process among them.
        within: ``T1``: standard deviation of a window's log value within its process.
        between: ``T2``: standard deviation of the processes' true log values (0 when the
            estimate is negative).
        process_means: ``S2``: standard deviation of the processes' mean logs (carries
            ``within / sqrt(windows)`` too).
    """

    processes: int
    windows: float
    within: float
    between: float
    process_means: float

    @property
    def share_between(self) -> float:
        """The share of the variance of one window that lies between processes:
        ``T2^2 / (T1^2 + T2^2)`` (0 when both are 0)."""
        total = self.within**2 + self.between**2
        return self.between**2 / total if total else 0.0

    def process_sd(self, windows: int) -> float:
        """The standard deviation of one process's mean log over ``windows`` windows:
        ``sqrt(T2^2 + T1^2 / windows)``."""
        return math.sqrt(self.between**2 + self.within**2 / windows)


def components(groups: Groups) -> Components | None:
    """The variance components of ``groups`` (values > 0), from the processes with at least
    two windows; None with fewer than two such processes.

    Raises:
        ValueError: a value not finite or not > 0.
    """
    logs: list[list[float]] = []
    for group in groups:
        for v in group:
            if not (math.isfinite(v) and v > 0):
                raise ValueError(f"variance components need finite values > 0, got {v!r}")
        if len(group) >= 2:
            logs.append([math.log(v) for v in group])
    if len(logs) < 2:
        return None
    windows = statistics.fmean(len(g) for g in logs)
    squares = sum((x - statistics.fmean(g)) ** 2 for g in logs for x in g)
    s1_sq = squares / sum(len(g) - 1 for g in logs)
    s2_sq = statistics.variance([statistics.fmean(g) for g in logs])
    t2_sq = max(0.0, s2_sq - s1_sq / windows)
    return Components(len(logs), windows, math.sqrt(s1_sq), math.sqrt(t2_sq), math.sqrt(s2_sq))


def pooled(parts: Sequence[Components]) -> Components | None:
    """The components of several studies of one figure pooled (e.g. one configuration's set
    measured in several sessions, each its own processes): ``S1^2`` and ``S2^2`` averaged
    with their degrees of freedom as weights (``n (m - 1)`` and ``n - 1``), the windows per
    process averaged, ``T2^2 = S2^2 - S1^2 / m`` again (0 when negative). None for no part.
    """
    if not parts:
        return None
    within_df = [p.processes * (p.windows - 1) for p in parts]
    means_df = [p.processes - 1 for p in parts]
    s1_sq = sum(d * p.within**2 for d, p in zip(within_df, parts, strict=True)) / sum(within_df)
    s2_sq = sum(d * p.process_means**2 for d, p in zip(means_df, parts, strict=True)) / sum(
        means_df
    )
    windows = statistics.fmean(p.windows for p in parts)
    t2_sq = max(0.0, s2_sq - s1_sq / windows)
    processes = sum(p.processes for p in parts)
    return Components(processes, windows, math.sqrt(s1_sq), math.sqrt(t2_sq), math.sqrt(s2_sq))


def optimal_windows(c: Components, process_cost_s: float, window_cost_s: float) -> float:
    """Kalibera & Jones's optimal windows per process, not rounded: ``sqrt(process_cost_s /
    window_cost_s * T1^2 / T2^2)``; ``inf`` when there is no variance between processes
    (then one process would do, with as many windows as the width asks).

    Raises:
        ValueError: a cost not above 0.
    """
    if process_cost_s <= 0 or window_cost_s <= 0:
        raise ValueError("the costs of a process and of a window must be above 0")
    if c.between == 0:
        return math.inf
    return math.sqrt(process_cost_s / window_cost_s * c.within**2 / c.between**2)


def processes_for(
    c: Components, windows: int, half_width: float, confidence: float = CONFIDENCE
) -> int | None:
    """The fewest server processes (at least 2) whose Student's t interval of the figure
    has a half-width of at most ``half_width`` on the log scale (0.05: about ± 5 %), with
    ``windows`` windows each; None when even :data:`MAX_PROCESSES` are not enough.

    Raises:
        ValueError: ``windows`` < 1, ``half_width`` not above 0.
    """
    if windows < 1 or half_width <= 0:
        raise ValueError("windows must be at least 1 and the half-width above 0")
    sd = c.process_sd(windows)
    for n in range(2, MAX_PROCESSES + 1):
        if t_quantile((1 + confidence) / 2, n - 1) * sd / math.sqrt(n) <= half_width:
            return n
    return None


@dataclass(frozen=True)
class Plan:
    """A sampling plan for one figure and what it costs.

    Attributes:
        processes: server processes.
        windows: windows per process.
        seconds: ``processes * (process_cost_s + windows * window_cost_s)``.
    """

    processes: int
    windows: int
    seconds: float


def best_plan(
    c: Components,
    *,
    process_cost_s: float,
    window_cost_s: float,
    half_width: float,
    confidence: float = CONFIDENCE,
    max_windows: int = 10,
) -> Plan | None:
    """The cheapest plan (processes x windows, windows from 1 to ``max_windows``) whose
    interval is at most ``half_width`` on the log scale; the windows per process of
    :func:`optimal_windows` is where the cost is lowest for a large number of processes,
    and the integers around it are tried here with the t quantile of each size. None when
    no plan reaches the width.

    Raises:
        ValueError: a cost not above 0, ``half_width`` not above 0.
    """
    if process_cost_s <= 0 or window_cost_s <= 0:
        raise ValueError("the costs of a process and of a window must be above 0")
    best: Plan | None = None
    for windows in range(1, max_windows + 1):
        n = processes_for(c, windows, half_width, confidence)
        if n is None:
            continue
        plan = Plan(n, windows, n * (process_cost_s + windows * window_cost_s))
        if best is None or plan.seconds < best.seconds:
            best = plan
    return best
