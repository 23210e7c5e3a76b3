"""Variance components between and within server processes, and the plans they call for."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from wsbench.results.variance import (
    Components,
    best_plan,
    components,
    optimal_windows,
    pooled,
    processes_for,
)


def _simulated(
    rng: np.random.Generator, n: int, m: int, between: float, within: float
) -> list[list[float]]:
    out = []
    for _ in range(n):
        level = rng.normal(0, between)
        out.append([float(math.exp(level + rng.normal(0, within))) * 1000 for _ in range(m)])
    return out


def test_components_recover_the_simulated_levels() -> None:
    rng = np.random.default_rng(1)
    c = components(_simulated(rng, 400, 4, between=0.08, within=0.05))
    assert c is not None
    assert (c.processes, c.windows) == (400, 4.0)
    assert c.within == pytest.approx(0.05, rel=0.05)
    assert c.between == pytest.approx(0.08, rel=0.1)
    assert c.share_between == pytest.approx(0.08**2 / (0.08**2 + 0.05**2), abs=0.05)


def test_components_follow_kalibera_and_jones_estimators() -> None:
    groups = [[1.0, 2.0], [2.0, 4.0], [4.0, 4.0]]
    logs = [[math.log(v) for v in g] for g in groups]
    means = [sum(g) / 2 for g in logs]
    s1_sq = sum((x - mu) ** 2 for g, mu in zip(logs, means, strict=True) for x in g) / 3
    s2_sq = float(np.var(means, ddof=1))
    c = components(groups)
    assert c is not None
    assert c.within == pytest.approx(math.sqrt(s1_sq))
    assert c.process_means == pytest.approx(math.sqrt(s2_sq))
    assert c.between == pytest.approx(math.sqrt(max(0.0, s2_sq - s1_sq / 2)))


def test_no_variance_between_processes_beyond_the_windows_is_zero() -> None:
    # the process means differ by less than their windows' noise explains: T2^2 < 0 -> 0
    c = components([[90.0, 110.0], [110.0, 90.0], [95.0, 105.0]])
    assert c is not None and c.between == 0.0
    assert optimal_windows(c, 1.0, 1.0) == math.inf


def test_too_few_processes_with_two_windows_give_none() -> None:
    assert components([[1.0, 2.0], [3.0]]) is None
    with pytest.raises(ValueError, match="> 0"):
        components([[1.0, 0.0], [1.0, 2.0]])


def test_optimal_windows_is_kalibera_and_jones_formula() -> None:
    c = Components(processes=5, windows=3, within=0.10, between=0.05, process_means=0.07)
    assert optimal_windows(c, 4.0, 1.0) == pytest.approx(math.sqrt(4.0 * 0.01 / 0.0025))
    # a cheap process (its start shared by many sets): one window each is best
    assert optimal_windows(c, 0.1, 0.75) < 1
    with pytest.raises(ValueError):
        optimal_windows(c, 0.0, 1.0)


def test_processes_for_a_half_width(sps: types.ModuleType) -> None:
    c = Components(processes=5, windows=2, within=0.05, between=0.08, process_means=0.09)
    n = processes_for(c, 1, 0.05)
    assert n is not None
    sd = math.sqrt(0.08**2 + 0.05**2)

    def half(k: int) -> float:
        return float(sps.t.ppf(0.975, k - 1)) * sd / math.sqrt(k)

    assert half(n) <= 0.05 < half(n - 1)
    assert processes_for(c, 1, 1e-9) is None


def test_best_plan_prefers_one_window_when_processes_are_cheap_and_vary() -> None:
    c = Components(processes=5, windows=2, within=0.05, between=0.08, process_means=0.09)
    cheap = best_plan(c, process_cost_s=0.1, window_cost_s=0.75, half_width=0.10)
    assert cheap is not None and cheap.windows == 1
    # when processes agree and are dear, several windows per process pay
    quiet = Components(processes=5, windows=2, within=0.10, between=0.01, process_means=0.07)
    dear = best_plan(quiet, process_cost_s=20.0, window_cost_s=0.75, half_width=0.05)
    assert dear is not None and dear.windows > 1
    assert dear.seconds == pytest.approx(dear.processes * (20.0 + dear.windows * 0.75))


def test_pooled_components_weigh_each_study_by_its_degrees_of_freedom() -> None:
    a = Components(processes=3, windows=2, within=0.10, between=0.0, process_means=0.05)
    b = Components(processes=5, windows=2, within=0.20, between=0.0, process_means=0.15)
    c = pooled([a, b])
    assert c is not None and (c.processes, c.windows) == (8, 2)
    # within: 3 and 5 degrees of freedom; process means: 2 and 4
    assert c.within == pytest.approx(math.sqrt((3 * 0.01 + 5 * 0.04) / 8))
    assert c.process_means == pytest.approx(math.sqrt((2 * 0.0025 + 4 * 0.0225) / 6))
    assert c.between == pytest.approx(math.sqrt(c.process_means**2 - c.within**2 / 2))
    assert pooled([a]) == a
    assert pooled([]) is None
