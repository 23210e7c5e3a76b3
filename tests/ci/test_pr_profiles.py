"""A pull request's configurations and sets that read slower (a bounded number) are profiled
on both sides, each as its commit's own impls/ defines it; the comment shows the functions
whose share of the samples grew most, or says why a set has no differential."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.runs import benchmark, impl, run
from wsbench.asv.conf import BenchEnv
from wsbench.ci.pr_profiles import SETS_PER_COMPARISON, Slowed, profile_commits, slowed, to_markdown
from wsbench.jobs.commits import COMMIT_ENV
from wsbench.jobs.profile import Outcome, profile_env
from wsbench.paths import REPO_ROOT
from wsbench.results import store
from wsbench.results.compare import compare_runs
from wsbench.results.runformat import ProfileSet, Profiling, Run

FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
SLOW = [r * 0.8 for r in FAST]
SIZES = [16, 1024, 65536, 4096]


def _side(rates: list[float], run_id: str, config: str = "asyncio") -> Run:
    """websockets in ``config``: echo x 64 at each of :data:`SIZES`, at ``rates``."""
    benchmarks = [benchmark("echo", {"size_bytes": s, "in_flight": 64}, rates) for s in SIZES]
    return run([], run_id=run_id, impl_info=impl("websockets", "15.0.1", config),
               benchmarks=benchmarks)  # fmt: skip


def test_the_slower_sets_each_once_at_most_a_bound() -> None:
    base = [_side(FAST, "20261124T020000Z-aaaaaa-base"),
            _side(FAST, "20261124T020000Z-aaaaaa-base", "uvloop")]  # fmt: skip
    head = [_side(SLOW, "20261124T020000Z-aaaaaa-head"),
            _side(FAST, "20261124T020000Z-aaaaaa-head", "uvloop")]  # fmt: skip
    lines = compare_runs(base, head, match="configuration")
    found = slowed(lines, base, head)
    assert SETS_PER_COMPARISON == 3 < len(SIZES)
    assert found == [
        Slowed("websockets", "asyncio", "websockets · asyncio", "echo",
               {"size_bytes": s, "in_flight": 64})
        for s in SIZES[:SETS_PER_COMPARISON]
    ]  # fmt: skip
    assert slowed(compare_runs(base, base, match="configuration"), base, base) == []


def _take(burns: dict[str, int]) -> Any:
    """A stand-in for the profile job: saves a profile document of each set, ``burns[label]``
    % of its samples in one function (the side's label from its run id)."""

    def take(env: BenchEnv, sets: dict[str, Any], *, root: Path, run_id: str, machine: str,
             **kw: Any) -> Outcome:  # fmt: skip
        burn = burns[run_id.rsplit("-", 1)[1]]
        stacks = {"p;burn (s.py:5)": burn, "p;send (s.py:9)": 100 - burn}
        found = [ProfileSet(s, p, "ok", None, 2.0, 250, stacks=stacks)
                 for s, params in sets.items() for p in params]  # fmt: skip
        version = env.version.version if env.version else None
        doc = run([], run_id=run_id, machine=machine, benchmarks=[], env_name=env.name,
                  impl_info=impl(env.impl.name, version, env.config.id))  # fmt: skip
        how = Profiling(kw["profiler"], kw["native"])
        doc = msgspec.structs.replace(doc, profiles=found, profiling=how)
        return Outcome(env.row_name, version or "", store.save(doc, root), found)

    return take


def test_both_sides_are_profiled_at_the_slowed_sets_and_the_comment_shows_the_growers(
    tmp_path: Path,
) -> None:
    chosen = [Slowed("websockets", "asyncio", "websockets · asyncio", "echo",
                     {"size_bytes": 1024, "in_flight": 64})]  # fmt: skip
    logged: list[str] = []
    base, head = profile_commits(
        ("a" * 40, "b" * 40), chosen, root=tmp_path, machine="m", log=logged.append,
        profiler=lambda: "py-spy 0.4.3", take=_take({"base": 5, "head": 60}),
        checkout=lambda sha: REPO_ROOT,
    )  # fmt: skip
    assert [(d.impl.config, [p.params for p in d.profiles]) for d in [*base, *head]] == [
        ("asyncio", [{"size_bytes": 1024, "in_flight": 64}])
    ] * 2
    assert base[0].run_id.endswith("-base") and head[0].run_id.endswith("-head")
    assert logged[0].startswith("profile of base aaaaaaaa: websockets · asyncio")
    text = to_markdown(chosen, base, head)
    assert "| `burn (s.py)` | 5.0 % | 60.0 % | +55.0 points |" in text
    assert f"Base: websockets · asyncio {base[0].impl.version}, run {base[0].run_id}" in text
    assert "Not profiled on both sides" in to_markdown(chosen, base, [])


@pytest.mark.usefixtures("nothing_installs")
def test_each_sides_profiles_record_that_sides_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The profile job itself, with environments that do not install here (no server
    # starts): each side's document, and its file's name, name the side's commit, not the
    # commit of the tree that profiles.
    monkeypatch.setenv(COMMIT_ENV, "e" * 40)
    chosen = [Slowed("websockets", "asyncio", "websockets · asyncio", "echo",
                     {"size_bytes": 16, "in_flight": 64})]  # fmt: skip
    commits = ("a" * 40, "b" * 40)
    base, head = profile_commits(
        commits, chosen, root=tmp_path, machine="m", log=lambda _: None,
        profiler=lambda: "py-spy 0.4.3", take=profile_env, checkout=lambda sha: REPO_ROOT,
    )  # fmt: skip
    assert [d.harness.commit for d in base] == [commits[0]]
    assert [d.harness.commit for d in head] == [commits[1]]
    assert [p.profiles[0].status for p in [*base, *head]] == ["failed", "failed"]
    names = sorted(f.name[:8] for f in store.profile_store(tmp_path).rglob("*.json"))
    assert names == ["aaaaaaaa", "bbbbbbbb"]
    assert os.environ[COMMIT_ENV] == "e" * 40  # as it was
