"""The nightly's CPU profiles (``./bench nightly profile``, README "CPU profiles").

After a shard is measured, confirmed and graded, the configurations it measured tonight are
profiled with py-spy (:mod:`wsbench.jobs.profile`: one fresh server process per set, three
windows, the middle one profiled; Python frames only, :data:`NATIVE`) at the four sets of
:data:`SETS`, into the shard store's ``profiles/`` folder under the night's run id and
machine name, which travel with the shard's artifact and are published with its documents
(:data:`wsbench.ci.results_branch.DOCUMENTS`). Which, at most :data:`PROFILES_PER_NIGHT` a
shard and night (:func:`plan`):

1. every new release flagged slower tonight (a wall-clock figure significantly slower than
   the last listed release's in the run, :func:`wsbench.results.regressions.
   compare_new_releases`: the confirmation's candidates) and that last listed release,
   each at :data:`SETS` and at the sets where it was slower (at most
   :data:`SLOWER_SETS_PER_RELEASE`), so that ``publish`` can print the differential
   profile (:mod:`wsbench.results.profile_diff`) under a regression's verdict;
2. then the latest listed release of each configuration, those without a profile on the
   results branch first, then the longest unprofiled; the others wait for a later night.

The native reference is not profiled: py-spy reads CPython's frames, and the reference is
a Rust program.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.impls import all_impls
from wsbench.instrument import profile
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.profiled import NATIVE, WARMUP_S, WINDOW_S
from wsbench.jobs import releases
from wsbench.jobs.profile import Outcome, profile_env, to_text
from wsbench.jobs.selection import run_envs
from wsbench.results import regressions, store
from wsbench.results.regressions import ReleaseComparison
from wsbench.results.runformat import Run
from wsbench.scenarios import Params, Scenario, spec

SETS: dict[Scenario, list[Params]] = {
    "echo": [{"size_bytes": 16, "in_flight": 64}, {"size_bytes": 65536, "in_flight": 64}],
    "broadcast": [{"subscribers": 100, "rate": 0, "size_bytes": 16}],
    "clients": [{"connections": 1000, "size_bytes": 16, "in_flight": 1}],
}
"""The sets every nightly profile takes (all in the full grid the night measures): echo
16 B x 64 in flight (the per-message cost), 64 KiB x 64 (the per-byte cost: where
gunicorn's ``_unmask`` shows), broadcast to 100 subscribers (the fan-out) and 1,000
clients at once (the per-connection cost)."""
PROFILES_PER_NIGHT = 16
"""At most this many configurations profiled per shard and night. Each costs its sets'
server starts and windows: 4 sets x (a server start, 0.6-2.5 s, + 3 windows x (warm-up
:data:`~wsbench.instrument.profiled.WARMUP_S` + window
:data:`~wsbench.instrument.profiled.WINDOW_S`)) =
4 x (9 s + a start), 38-46 s, so 16 take 10-12 minutes of a shard's 240. The default plan's
largest shard (:data:`wsbench.ci.nightly.SHARDS` shards) holds 14 latest Python
configurations (Starlette's among them), so 16 profile every latest configuration every
night, and a slower new release with the release it is compared with besides; with fewer
shards the others are profiled on the next nights, those profiled longest ago first
(README "CPU profiles")."""
SLOWER_SETS_PER_RELEASE = 3
"""At most this many of a slower new release's slowed sets profiled beside :data:`SETS`
(each 2 x 9.6-11.5 s: the release and the one it is compared with)."""
SLOWER = "a new release flagged slower tonight"
PREVIOUS = "the release a new release flagged slower is compared with"
NEVER = "no profile on the results branch"


def _say(line: str) -> None:
    print(f"nightly: {line}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Planned:
    """An environment to profile tonight, where, and why.

    Attributes:
        env: its environment.
        sets: scenario -> parameter sets.
        reason: :data:`SLOWER`, :data:`PREVIOUS`, :data:`NEVER` or when it was last
            profiled.
    """

    env: BenchEnv
    sets: dict[Scenario, list[Params]]
    reason: str


def slower_sets(c: ReleaseComparison) -> dict[Scenario, list[Params]]:
    """The sets where ``c``'s head has a wall-clock figure significantly slower, in the
    comparison's order, scenarios with measurement windows only, at most
    :data:`SLOWER_SETS_PER_RELEASE`."""
    found: dict[Scenario, list[Params]] = {}
    count = 0
    for line in c.lines:
        if line.verdict != "slower" or not spec(line.scenario).windowed:
            continue
        scenario = line.scenario
        if line.params in found.get(scenario, []):
            continue
        if count == SLOWER_SETS_PER_RELEASE:
            break
        found.setdefault(scenario, []).append(dict(line.params))
        count += 1
    return found


def with_sets(
    base: Mapping[Scenario, Sequence[Params]], more: Mapping[Scenario, Sequence[Params]]
) -> dict[Scenario, list[Params]]:
    """``base``'s sets then ``more``'s not among them, by scenario."""
    out = {s: list(sets) for s, sets in base.items()}
    for scenario, sets in more.items():
        mine = out.setdefault(scenario, [])
        mine += [p for p in sets if p not in mine]
    return out


def last_profiled(published: Sequence[Run]) -> dict[str, str]:
    """Per environment name, the newest run id of its profile documents in ``published``
    (the results branch's profile store) that hold an ok profile."""
    last: dict[str, str] = {}
    for doc in published:
        if any(p.status == "ok" for p in doc.profiles):
            name = doc.environment.env_name
            last[name] = max(last.get(name, ""), doc.run_id)
    return last


def plan(
    envs: Sequence[BenchEnv],
    candidates: Sequence[ReleaseComparison],
    published: Sequence[Run],
    *,
    limit: int = PROFILES_PER_NIGHT,
) -> list[Planned]:
    """What to profile tonight (see the module's docstring), at most ``limit``.

    Args:
        envs: the shard's environments tonight: the latest listed release of each
            configuration (:attr:`BenchEnv.is_default`) and the new releases.
        candidates: tonight's new releases flagged slower.
        published: the results branch's profile documents.
        limit: at most this many environments.
    """
    by_name = {e.name: e for e in envs}
    out: list[Planned] = []
    for c in candidates:
        extra = slower_sets(c)
        sides = ((c.head, SLOWER), (c.base, PREVIOUS))
        for doc, reason in sides:
            env = by_name.get(doc.environment.env_name) if doc else None
            if env is not None and all(p.env.name != env.name for p in out):
                out.append(Planned(env, with_sets(SETS, extra), reason))
    last = last_profiled(published)
    latest = [e for e in envs if e.is_default and all(p.env.name != e.name for p in out)]
    latest.sort(key=lambda e: last.get(e.name, ""))  # stable: never profiled first
    for env in latest:
        when = last.get(env.name)
        reason = f"last profiled in run {when}" if when else NEVER
        out.append(Planned(env, with_sets(SETS, {}), reason))
    return out[:limit]


def profile_shard(
    shard: str,
    run_id: str,
    shard_store: Path,
    *,
    published: Sequence[Run],
    fetch: releases.Fetch = releases.fetch_project,
    profiler: Callable[[], str] = lambda: profile.py_spy_version(profile.py_spy()),
    take: Callable[..., Outcome] = profile_env,
    limit: int = PROFILES_PER_NIGHT,
) -> list[Outcome]:
    """The ``profile`` step: the configurations of run ``run_id``'s documents in
    ``shard_store`` (shard ``shard``, ``"I/N"``, named in what it prints) profiled into its
    profile store (:func:`wsbench.results.store.profile_store`) with those documents'
    machine name and the night's run id (none there: nothing is profiled).

    Args:
        published: the results branch's profile documents (which were profiled when).
        fetch: reads the package index (tests give one).
        profiler: the profiler's name and version (tests give one).
        take: profiles one environment (:func:`wsbench.jobs.profile.profile_env`; tests
            give one).
        limit: at most this many environments (:data:`PROFILES_PER_NIGHT`).

    Returns:
        One outcome per environment profiled.

    Raises:
        wsbench.instrument.profile.ProfileError: py-spy is not installed or does not run.
    """
    root = shard_store
    tonight = [d for d in store.load_store(root).runs if d.run_id == run_id]
    if not tonight:
        print(f"nightly: {root} holds no document of run {run_id}: nothing to profile")
        return []
    name = profiler()
    measured = {(d.impl.name, d.impl.config) for d in tonight}
    names = sorted({n for n, _ in measured})
    listed = {e.name for e in bench_envs()}
    every = run_envs(names, "all", new_releases=True, fetch=fetch)
    envs = [
        e for e in every
        if (e.impl.name, e.config.id) in measured and not e.impl.reference
        and (e.is_default or e.name not in listed)
    ]  # fmt: skip
    compared = regressions.compare_new_releases(tonight, run_id, all_impls())
    chosen = plan(envs, [c for c in compared if c.slower], published, limit=limit)
    print(f"nightly: shard {shard}: {len(chosen)} environment(s) to profile ({name}, native "
          f"frames: {NATIVE}; at most {limit} a night):", flush=True)  # fmt: skip
    for p in chosen:
        version = f" {p.env.version.version}" if p.env.version else ""
        print(f"nightly:   {p.env.row_name}{version}: {p.reason}", flush=True)
    outcomes = []
    for p in chosen:
        done = take(
            p.env, p.sets, native=NATIVE, warmup_s=WARMUP_S, window_s=WINDOW_S,
            placement=placement_from(None, None), root=store.profile_store(root),
            machine=tonight[0].machine.name, run_id=run_id, profiler=name, log=_say,
        )  # fmt: skip
        outcomes.append(done)
    if outcomes:
        print(to_text(outcomes), flush=True)
    return outcomes
