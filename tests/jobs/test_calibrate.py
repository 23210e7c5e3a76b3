"""The calibration's tally: false verdicts of A/A sessions, detections of a slowed server,
plans analysed from one generous measurement, and its bad input."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.runs import ECHO_16_64, benchmark, impl, run
from wsbench.ci.confirm import CONFIRM_PLAN
from wsbench.ci.pull_request import screening_grids
from wsbench.commands.calibrate import options_of
from wsbench.commands.cli import parser
from wsbench.instrument.interleave import Arm
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import calibrate as job
from wsbench.jobs.calibrate import (
    CONTROL,
    DEFAULT_PLAN,
    DEFAULT_SERVERS,
    PR_SERVERS,
    SLOWED,
    CalibrateError,
    CalibrateOptions,
    PullRequestPlan,
    measure_pr_repeats,
    pr_tally,
    report,
    round_correlation,
    spin_for,
    spin_impl,
    stored_pr_repeats,
    stored_repeats,
    subset,
    tally,
)
from wsbench.jobs.calibrate import run as calibrate
from wsbench.results import store
from wsbench.results.runformat import Run
from wsbench.scenarios import Params, Scenario

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
    assert "comparisons with at least one false verdict: 0 of 10 (0.0 %)" in text
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
    assert t.false == 3 and t.compared == 3 and (t.with_false, t.comparisons) == (1, 1)
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


X1 = {"size_bytes": 16, "in_flight": 1}
FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]


def test_a_pull_requests_comparisons_are_screened_confirmed_and_counted_per_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two comparisons of aiohttp's two configurations against themselves, the slowed server
    # beside them. Each screening reads asyncio 15 % slower at both its sets (falsely) and
    # the slowed server 20 % slower at its one; the first confirmation clears asyncio, the
    # second does not (false verdicts). Both confirm the slowed server.
    calls: list[dict[str, Any]] = []

    def fake_arm(server: str) -> Arm:
        name, _, config = server.partition(":")
        return Arm(spin_impl(name), config, "python", f"{name}-{config}")

    def fake_slowed(slowdown: float, placement: object, log: object) -> tuple[Arm, Arm]:
        return (Arm(spin_impl(SLOWED), "default", "python", SLOWED),
                Arm(spin_impl(SLOWED, 9.0), "default", "python", SLOWED))  # fmt: skip

    def factor(arm: Arm, confirming: bool) -> float:
        if "--spin-us" in arm.impl.command:
            return 0.8
        screenings = sum(not c["run_id"].endswith("-confirm") for c in calls) // 2
        if arm.config_id != "asyncio" or (confirming and screenings == 1):
            return 1.0
        return 0.85

    def measure_sides(sides: list[list[Arm]], scenarios: list[Scenario], plan: SamplingPlan,
                      *, run_id: str, grids: dict[Scenario, list[Params]],
                      **kw: Any) -> list[list[Run]]:  # fmt: skip
        calls.append({"sides": sides, "scenarios": scenarios, "plan": plan, "run_id": run_id,
                      "grids": grids})  # fmt: skip
        out = []
        for label, arms in zip(("base", "head"), sides, strict=True):
            docs = []
            for arm in arms:
                by = factor(arm, run_id.endswith("-confirm")) if label == "head" else 1.0
                found = [benchmark(sc, p, [r * by for r in FAST]) for sc in scenarios
                         for p in grids[sc]]  # fmt: skip
                docs.append(run([], run_id=f"{run_id}-{label}", benchmarks=found,
                                impl_info=impl(arm.impl.name, None, arm.config_id)))  # fmt: skip
            out.append(docs)
        return out

    monkeypatch.setattr(job, "server_arm", fake_arm)
    monkeypatch.setattr(job, "slowed_arms", fake_slowed)
    screen, confirm = SamplingPlan(processes=3), SamplingPlan(processes=5, windows_per_process=2)
    options = CalibrateOptions(
        servers=PR_SERVERS, slowdown=0.2, repeats=2, plan=screen, output=tmp_path,
        pull_request=PullRequestPlan({"echo": [ECHO_16_64, X1]}, confirm),
    )  # fmt: skip
    sessions = measure_pr_repeats(options, measure_sides=measure_sides)

    # Per comparison: the servers at the screening's sets, the slowed server at its one
    # set, then only what moved, at every set that moved in any, with the confirmation's
    # plan (the slowed server's echo x 1 is measured there, and left out of the verdicts).
    assert [(len(c["sides"][0]), c["grids"], c["plan"]) for c in calls[:3]] == [
        (2, {"echo": [ECHO_16_64, X1]}, screen),
        (1, {"echo": [ECHO_16_64]}, screen),
        (2, {"echo": [ECHO_16_64, X1]}, confirm),
    ]
    stem = calls[0]["run_id"]
    assert calls[1]["run_id"] == stem and calls[2]["run_id"] == f"{stem}-confirm"
    assert [a.config_id for a in calls[2]["sides"][0]] == ["asyncio", "default"]
    assert "--spin-us" in calls[2]["sides"][1][1].impl.command
    assert len(calls) == 6

    t = pr_tally(sessions)
    assert (t.comparisons, t.with_false, t.false, t.compared) == (2, 1, 6, 24)
    assert (t.detected, t.slowed, t.confirmed, t.confirmed_sets) == (2, 2, 2, 6)
    text = report(t, len(sessions), None, None)
    assert "comparisons with at least one false verdict: 1 of 2 (50.0 %)" in text
    assert "a pull request's plan: 2 of 2 screenings moved a set; 6 (configuration, set)" in text
    assert "slowed server: called slower in 2 of 2 comparisons (100 %)" in text
    assert text.count("false slower: aiohttp · asyncio, echo") == 6 == text.count("false slower")
    assert text.count(", p = 1e-06 (family 1e-06)") == 6  # 9 figures alike: p x 9 / 9

    # Read back: the same comparisons, the confirmations with their screenings.
    again = pr_tally(stored_pr_repeats(tmp_path))
    assert replace(again, lines=()) == replace(t, lines=())  # the documents' order aside
    assert sorted(map(repr, again.lines)) == sorted(map(repr, t.lines))
    assert len(stored_repeats(tmp_path)) == 2


def test_a_pull_requests_plan_from_the_command_line() -> None:
    chosen = options_of(parser().parse_args(["calibrate", "--pr-compare"]))
    assert chosen.plan == SamplingPlan() and chosen.servers == PR_SERVERS
    assert chosen.pull_request == PullRequestPlan(screening_grids(everything=False), CONFIRM_PLAN)
    wider = options_of(parser().parse_args(["calibrate", "--pr-compare", "--windows", "2"]))
    assert wider.plan == SamplingPlan(windows_per_process=2)
    plain = options_of(parser().parse_args(["calibrate"]))
    assert (plain.plan, plain.servers, plain.pull_request) == (DEFAULT_PLAN, DEFAULT_SERVERS, None)
    with pytest.raises(CalibrateError, match="analysed as measured"):
        calibrate(CalibrateOptions(pull_request=chosen.pull_request, rounds=3,
                                   documents=Path("/nonexistent")))  # fmt: skip
