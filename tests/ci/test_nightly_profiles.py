"""The nightly profiles a shard's latest releases (those profiled longest ago first, a
bounded number a night) and its new releases flagged slower with the release each is
compared with (first, also at their slowed sets), with the night's run id and machine, into
the shard store's profiles folder; a profiler that cannot run is named and leaves the
shard's measurements as they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.runs import benchmark, impl, run
from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.ci import nightly_profiles
from wsbench.ci.nightly import SHARDS, profile
from wsbench.ci.nightly_profiles import (
    NEVER,
    PREVIOUS,
    PROFILES_PER_NIGHT,
    SETS,
    SLOWER,
    plan,
    profile_shard,
    slower_sets,
)
from wsbench.impls import get_impl
from wsbench.instrument.profile import NoProfilerError
from wsbench.instrument.profiled import NATIVE
from wsbench.jobs.profile import Outcome
from wsbench.jobs.selection import run_envs
from wsbench.jobs.shards import select
from wsbench.results import store
from wsbench.results.regressions import compare_new_releases
from wsbench.results.runformat import ProfileSet, Run
from wsbench.scenarios import spec

RUN = "20261124T020000Z-bbbbbb"
INDEX: dict[str, object] = {"releases": {"99.0": [{"filename": "x.whl", "yanked": False}]}}
WEBSOCKETS = get_impl("websockets")
LAST = WEBSOCKETS.versions[-1].version
FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
SLOW = [r * 0.8 for r in FAST]
JSON_64 = {"in_flight": 64}


def _index(project: str) -> dict[str, object]:
    return INDEX


def test_the_sets_are_in_the_full_grid_the_night_measures() -> None:
    assert sum(len(sets) for sets in SETS.values()) == 4
    for scenario, sets in SETS.items():
        assert spec(scenario).windowed
        for params in sets:
            assert params in spec(scenario).grid("full"), (scenario, params)


def _envs() -> list[BenchEnv]:
    """websockets' latest listed releases (asyncio, uvloop) and its new release 99.0."""
    every = run_envs(["websockets"], "all", new_releases=True, fetch=_index)
    return [e for e in every if e.is_default or (e.version and e.version.version == "99.0")]


def _doc(version: str, config: str, rates: list[float], env: str, run_id: str = RUN) -> Run:
    info = msgspec.structs.replace(
        impl("websockets", version, config), display_name=WEBSOCKETS.display_name
    )
    benchmarks = [benchmark("echo", {"size_bytes": 16, "in_flight": 64}, rates),
                  benchmark("json", JSON_64, rates)]  # fmt: skip
    return run([], run_id=run_id, impl_info=info, env_name=env, benchmarks=benchmarks)


def _tonight(envs: list[BenchEnv]) -> list[Run]:
    """Tonight's documents: the new release (asyncio) slower than the last listed one; the
    uvloop configuration's latest release as fast as ever."""
    name = {(e.config.id, e.version.version if e.version else ""): e.name for e in envs}
    return [
        _doc(LAST, "asyncio", FAST, name[("asyncio", LAST)]),
        _doc("99.0", "asyncio", SLOW, name[("asyncio", "99.0")]),
        _doc(LAST, "uvloop", FAST, name[("uvloop", LAST)]),
    ]


def _profiled(doc: Run, run_id: str) -> Run:
    found = ProfileSet("echo", {"size_bytes": 16, "in_flight": 64}, "ok", None, 2.0, 250,
                       stacks={"a;b (s.py:1)": 10})  # fmt: skip
    return msgspec.structs.replace(doc, run_id=run_id, benchmarks=[], profiles=[found])


def test_a_slower_new_release_and_its_previous_come_first_then_the_least_recently_profiled() -> (
    None
):
    envs = _envs()
    docs = _tonight(envs)
    (candidate,) = [c for c in compare_new_releases(docs, RUN, [WEBSOCKETS]) if c.slower]
    assert slower_sets(candidate) == {"echo": [{"size_bytes": 16, "in_flight": 64}],
                                      "json": [JSON_64]}  # fmt: skip
    uvloop = next(e for e in envs if e.config.id == "uvloop")
    asyncio_last = next(e for e in envs if e.config.id == "asyncio" and e.is_default)
    published = [_profiled(docs[2], "20261101T020000Z-aaaaaa")]  # uvloop, profiled before
    chosen = plan(envs, [candidate], published)
    assert [(p.env.config.id, p.env.version.version if p.env.version else "", p.reason)
            for p in chosen] == [
        ("asyncio", "99.0", SLOWER),
        ("asyncio", LAST, PREVIOUS),
        ("uvloop", LAST, "last profiled in run 20261101T020000Z-aaaaaa"),
    ]  # fmt: skip
    assert chosen[0].sets == {**SETS, "json": [JSON_64]}  # its slowed echo set is in SETS
    assert chosen[2].sets == SETS
    # without a candidate, the latest releases: never profiled first
    assert [(p.env.name, p.reason) for p in plan(envs, [], published)] == [
        (asyncio_last.name, NEVER),
        (uvloop.name, "last profiled in run 20261101T020000Z-aaaaaa"),
    ]
    assert [p.env.name for p in plan(envs, [candidate], published, limit=1)] == [chosen[0].env.name]


def test_a_shard_is_profiled_under_the_nights_run_id_and_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    envs = _envs()
    for doc in _tonight(envs):
        store.save(msgspec.structs.replace(doc, machine=msgspec.structs.replace(
            doc.machine, name="runner-1")), tmp_path)  # fmt: skip
    calls: list[dict[str, Any]] = []

    def take(env: BenchEnv, sets: dict[str, Any], **kw: Any) -> Outcome:
        calls.append({"env": env.name, "sets": sets, **kw})
        return Outcome(env.row_name, env.version.version if env.version else "", tmp_path, [])

    outcomes = profile_shard("1/2", RUN, tmp_path, published=[], fetch=_index,
                             profiler=lambda: "py-spy 0.4.3", take=take)  # fmt: skip
    assert len(outcomes) == 3
    assert [c["env"] for c in calls] == [
        p.env.name
        for p in plan(
            envs,
            [c for c in compare_new_releases(_tonight(envs), RUN, [WEBSOCKETS]) if c.slower],
            [],
        )
    ]
    for call in calls:
        assert (call["machine"], call["run_id"], call["profiler"]) == (
            "runner-1",
            RUN,
            "py-spy 0.4.3",
        )
        assert call["root"] == tmp_path / "profiles"
        assert call["native"] is NATIVE
    out = capsys.readouterr().out
    assert "nightly: shard 1/2: 3 environment(s) to profile (py-spy 0.4.3, native frames: " in out
    assert f"nightly:   websockets · asyncio 99.0: {SLOWER}" in out


def test_nothing_is_profiled_without_the_nights_documents(tmp_path: Path) -> None:
    def no_profiler() -> str:
        raise AssertionError("not looked up")

    assert profile_shard("1/1", RUN, tmp_path, published=[], profiler=no_profiler) == []


def test_a_profiler_that_cannot_run_is_named_and_the_shard_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store.save(run([1000.0] * 6, run_id=RUN), tmp_path)

    def no_profiler(*args: Any, **kw: Any) -> list[Any]:
        raise NoProfilerError("py-spy is not installed")

    monkeypatch.setattr(nightly_profiles, "profile_shard", no_profiler)
    assert profile("1/1", RUN, tmp_path, published=[]) is False
    assert capsys.readouterr().err == "nightly: shard 1/1: not profiled: py-spy is not installed\n"
    assert not (tmp_path / "profiles").exists()


def test_the_bound_profiles_every_latest_configuration_of_the_default_plan_every_night() -> None:
    envs = bench_envs()
    largest = max(
        len([e for e in select(envs, f"{i}/{SHARDS}") if e.is_default and not e.impl.reference])
        for i in range(1, SHARDS + 1)
    )
    assert largest + 2 <= PROFILES_PER_NIGHT  # and a slower new release with its previous
