"""A new release flagged slower is measured again, interleaved with the previous release:
its configuration only, at the flagged parameter sets only, in environments installed like
the nightly's; the documents go into the shard store's confirmations folder and are found
again by the candidate they confirm."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.runs import ECHO_16_64, benchmark, impl, run
from wsbench.asv.conf import BenchEnv
from wsbench.ci.confirm import (
    CONFIRM_PLAN,
    CONFIRMATIONS,
    confirm,
    confirm_commits,
    confirmation_of,
    flagged_grids,
    release_env,
)
from wsbench.impls import get_impl
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.interleave import Arm
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import commits as commitcompare
from wsbench.jobs.commits import CommitSides
from wsbench.results import store
from wsbench.results.compare import compare_runs
from wsbench.results.regressions import compare_new_releases, confirmed_lines
from wsbench.results.runformat import Run

WEBSOCKETS = get_impl("websockets")
LAST = WEBSOCKETS.versions[-1].version
RUN = "20261124T020000Z-abcdef"
FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
SLOW = [r * 0.8 for r in FAST]
ECHO_1K = {"size_bytes": 1024, "in_flight": 1}


def _doc(version: str, echo_16: list[float], config: str = "asyncio", run_id: str = RUN) -> Run:
    """Echo 16 B x 64 at ``echo_16`` and echo 1 KiB x 1 at FAST."""
    info = msgspec.structs.replace(
        impl("websockets", version, config), display_name=WEBSOCKETS.display_name
    )
    benchmarks = [benchmark("echo", ECHO_16_64, echo_16), benchmark("echo", ECHO_1K, FAST)]
    return run([], run_id=run_id, impl_info=info, env_name=f"ws-{version}-{config}",
               benchmarks=benchmarks)  # fmt: skip


def test_the_environment_of_a_listed_version_and_of_a_new_release() -> None:
    listed = release_env(WEBSOCKETS, "uvloop", LAST)
    assert listed.version is not None and listed.version.version == LAST
    assert listed.config.id == "uvloop"
    new = release_env(WEBSOCKETS, "uvloop", "99.0")
    assert new.requirements == {**listed.requirements, "websockets": "99.0"}
    assert not new.is_default


def test_only_the_flagged_configuration_and_parameter_sets_are_measured_again(
    tmp_path: Path,
) -> None:
    docs = [_doc(LAST, FAST), _doc("99.0", SLOW), _doc(LAST, FAST, "uvloop"),
            _doc("99.0", FAST, "uvloop")]  # fmt: skip
    candidates = compare_new_releases(docs, RUN, [WEBSOCKETS])
    flagged = [c for c in candidates if c.slower]
    assert [c.head.impl.config for c in flagged] == ["asyncio"]
    assert flagged_grids(flagged[0]) == {"echo": [ECHO_16_64]}

    calls: list[dict[str, Any]] = []
    ensured: list[BenchEnv] = []

    def fake_ensure(env: BenchEnv) -> Path:
        ensured.append(env)
        return Path(f"/envs/{env.name}/bin/python")

    def fake_measure(sides: list[list[Arm]], scenarios: list[str], plan: SamplingPlan,
                     **kw: Any) -> list[list[Run]]:  # fmt: skip
        calls.append({"sides": sides, "scenarios": scenarios, "plan": plan, **kw})
        label = kw["run_id"]
        return [
            [_doc(LAST, FAST, run_id=f"{label}-base")],
            [_doc("99.0", SLOW, run_id=f"{label}-head")],
        ]

    plan = SamplingPlan(processes=5)
    saved = confirm(
        candidates, tmp_path, impls=[WEBSOCKETS], plan=plan, placement=placement_from(None, None),
        machine_name="m", run_id=RUN, ensure=fake_ensure, measure=fake_measure,
    )  # fmt: skip
    (call,) = calls
    base, head = call["sides"]
    assert [(a.config_id, a.version) for a in base] == [("asyncio", LAST)]
    assert [(a.config_id, a.version) for a in head] == [("asyncio", "99.0")]
    assert head[0].python == f"/envs/{ensured[1].name}/bin/python"
    assert call["scenarios"] == ["echo"] and call["grids"] == {"echo": [ECHO_16_64]}
    assert call["plan"] is plan and call["run_id"] == f"{RUN}-confirm"

    # Saved where the results branch and the site do not look, found again by the candidate.
    assert len(saved) == 2 and store.load_store(tmp_path).runs == []
    again = store.load_store(tmp_path / CONFIRMATIONS).runs
    lines = confirmation_of(flagged[0], again)
    assert {line.verdict for line in lines if line.params == ECHO_16_64} == {"slower"}
    assert confirmed_lines(flagged[0], lines)
    uvloop = next(c for c in candidates if c.head.impl.config == "uvloop")
    assert confirmation_of(uvloop, again) == []


def test_nothing_flagged_nothing_measured(tmp_path: Path) -> None:
    docs = [_doc(LAST, FAST), _doc("99.0", FAST)]

    def never(*args: object, **kw: object) -> list[list[Run]]:
        raise AssertionError("measured")

    assert confirm(
        compare_new_releases(docs, RUN, [WEBSOCKETS]), tmp_path, impls=[WEBSOCKETS],
        plan=SamplingPlan(), placement=placement_from(None, None), machine_name="m",
        run_id=RUN, ensure=lambda env: Path("/x"), measure=never,
    ) == []  # fmt: skip
    assert not (tmp_path / CONFIRMATIONS).exists()


def test_a_pull_requests_configurations_and_sets_that_moved_are_measured_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # asyncio slower at echo 16 B x 64, uvloop unchanged: asyncio alone, at that set alone,
    # with the nightly's confirmation plan, each side its commit.
    base = [_doc(LAST, FAST, run_id=f"{RUN}-base"), _doc(LAST, FAST, "uvloop", f"{RUN}-base")]
    head = [_doc(LAST, SLOW, run_id=f"{RUN}-head"), _doc(LAST, FAST, "uvloop", f"{RUN}-head")]
    sides = CommitSides(("a" * 40, "b" * 40), base, head)
    asked: list[dict[str, Any]] = []

    def measure_commits(base_ref: str, head_ref: str, **kw: Any) -> CommitSides:
        asked.append({"refs": (base_ref, head_ref), **kw})
        return CommitSides((base_ref, head_ref), base[:1], head[:1])

    monkeypatch.setattr(commitcompare, "measure_commits", measure_commits)
    lines = compare_runs(base, head, match="configuration")
    found = confirm_commits(sides.commits, lines, sides, machine_name="m", run_id=RUN)
    assert found is not None and found.base == base[:1]
    ((call),) = asked
    assert call["refs"] == sides.commits and call["run_id"] == f"{RUN}-confirm"
    assert (call["impls"], call["configs"], call["pythons"]) == (["websockets"], ["asyncio"],
                                                                  ["3.11"])  # fmt: skip
    assert call["grid"] == {"echo": [ECHO_16_64]} and call["plan"] is CONFIRM_PLAN
    # Nothing moved: nothing measured.
    unchanged = compare_runs(base, base, match="configuration")
    assert confirm_commits(sides.commits, unchanged, sides, machine_name="m", run_id=RUN) is None
    assert len(asked) == 1
