"""The calibration's tally: false verdicts of A/A sessions, detections of a slowed server,
plans analysed from one generous measurement, and its bad input."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tests.runs import ECHO_16_64, benchmark, impl, run
from wsbench.jobs.calibrate import (
    CONTROL,
    SLOWED,
    CalibrateError,
    CalibrateOptions,
    report,
    round_correlation,
    spin_for,
    stored_repeats,
    subset,
    tally,
)
from wsbench.jobs.calibrate import run as calibrate
from wsbench.results import store
from wsbench.results.runformat import Run

STEM = "20261127T220000Z-c0ffee"


def _side(label: str, name: str, levels: list[float], factor: float, seed: int) -> Run:
    """A side's document of ``name``: round r at ``levels[r] * factor``, 2 windows within
    1 % of it."""
    rng = np.random.default_rng(seed)
    rates = [lv * factor * math.exp(rng.normal(0, 0.01)) for lv in levels for _ in range(2)]
    return run(
        [], run_id=f"{STEM}-{label}", impl_info=impl(name=name, version=None, config="default"),
        benchmarks=[benchmark("echo", ECHO_16_64, rates)],
    )  # fmt: skip


def _session(slowed_by: float, seed: int) -> tuple[list[Run], list[Run]]:
    # the rounds' levels vary by 10 %, both sides alike (the machine's state of the moment)
    rng = np.random.default_rng(seed)
    levels = [float(1000 * math.exp(rng.normal(0, 0.10))) for _ in range(6)]
    base = [_side("base", CONTROL, levels, 1.0, seed), _side("base", SLOWED, levels, 1.0, seed + 1)]
    head = [_side("head", CONTROL, levels, 1.0, seed + 2),
            _side("head", SLOWED, levels, 1 - slowed_by, seed + 3)]  # fmt: skip
    return base, head


def test_a_slowed_server_is_detected_and_its_control_is_not() -> None:
    sessions = [_session(0.2, seed) for seed in range(0, 40, 4)]
    t = tally(sessions, None, None)
    assert (t.detected, t.slowed) == (10, 10)
    assert t.compared == 30 and t.false == 0  # the control's messages/s, p50 and p99
    text = report(t, len(sessions), None, None)
    assert "A/A: 0 of 30 figures called faster or slower (0.0 %)" in text
    assert "slowed server: called slower in 10 of 10 comparisons (100 %)" in text


def test_the_correlation_within_rounds_is_measured_over_the_aa_comparisons() -> None:
    # The sessions' rounds move both sides alike: a correlation near 1, over the control's
    # 10 comparisons of 6 rounds (the slowed server's are not A/A).
    alike = {c.metric: c for c in round_correlation(
        [_session(0.2, seed) for seed in range(0, 40, 4)], None, None
    )}  # fmt: skip
    shared = alike["messages_per_s"]
    assert (shared.rounds, shared.comparisons) == (60, 10)
    assert shared.r > 0.9
    # Each side at levels of its own: near 0 (this machine's case, issue 41's calibration).
    rng = np.random.default_rng(7)
    sessions = []
    for seed in range(10):
        own = [[float(1000 * math.exp(rng.normal(0, 0.10))) for _ in range(6)] for _ in "bh"]
        sessions.append(([_side("base", CONTROL, own[0], 1.0, seed)],
                         [_side("head", CONTROL, own[1], 1.0, seed + 100)]))  # fmt: skip
    apart = {c.metric: c for c in round_correlation(sessions, None, None)}["messages_per_s"]
    assert apart.rounds == 60 and abs(apart.r) < 0.3
    # Fewer rounds analysed: fewer pairs.
    three = {c.metric: c for c in round_correlation(sessions, 3, None)}["messages_per_s"]
    assert (three.rounds, three.comparisons) == (30, 10)


def test_fewer_rounds_are_analysed_from_the_same_documents() -> None:
    sessions = [_session(0.2, seed) for seed in range(0, 40, 4)]
    t = tally(sessions, 2, 1)
    assert t.verdicts["too few server processes"] == 60  # 2 rounds: every figure (10 x 2 x 3)
    assert t.detected == 0
    doc = sessions[0][0][0]
    cut = subset(doc, 3, 1)
    assert [(s.process, s.window) for s in cut.benchmarks[0].samples] == [(0, 0), (1, 0), (2, 0)]
    assert subset(doc, None, None) is doc


def test_false_verdicts_are_named() -> None:
    rng = np.random.default_rng(7)
    levels = [float(1000 * math.exp(rng.normal(0, 0.10))) for _ in range(6)]
    # the control 20 % slower in every round of the head: each of its figures is a false
    # verdict (messages/s and p50 and p99 of the round trips: all slower)
    base = [_side("base", CONTROL, levels, 1.0, 1)]
    head = [_side("head", CONTROL, levels, 0.8, 2)]
    t = tally([(base, head)], None, None)
    assert t.false == 3 and t.compared == 3
    text = report(t, 1, None, None)
    assert "false slower: control · default, echo" in text


def test_stored_sessions_are_read_back(tmp_path: Path) -> None:
    base, head = _session(0.1, 1)
    for doc in [*base, *head]:
        store.save(doc, tmp_path)
    (read,) = stored_repeats(tmp_path)
    assert sorted(d.impl.name for d in read[0]) == [CONTROL, SLOWED]
    assert {d.run_id for d in read[1]} == {f"{STEM}-head"}
    with pytest.raises(CalibrateError, match="no interleaved session"):
        stored_repeats(tmp_path / "none")


def test_the_spin_lowers_the_rate_by_the_fraction() -> None:
    # 20,000 messages/s is 50 µs a message; 20 % slower is 40,000 / 2.5 = 62.5 µs: 12.5 more
    assert spin_for(0.2, 20_000) == pytest.approx(12.5)
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(CalibrateError):
            spin_for(bad, 20_000)
    with pytest.raises(CalibrateError):
        calibrate(CalibrateOptions(slowdown=1.5, documents=Path("/nonexistent")))
