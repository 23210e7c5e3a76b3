"""The CPU profiles of a pull request's slowed sets (``./bench pr-compare``,
:mod:`wsbench.ci.pull_request`).

Where the wall-clock comparison reads *slower* (any figure of a configuration at a set),
that configuration is profiled at that set on both sides, at most
:data:`SETS_PER_COMPARISON` (configuration, set) pairs in the comparison's order: each
side's configuration as its commit defines it (its checkout's ``impls/``: server code and
pins, :func:`wsbench.ci.pr_conformance.envs_at`), started and profiled by this harness
(:mod:`wsbench.jobs.profile`, with the nightly's choice of frames:
:data:`wsbench.instrument.profiled.NATIVE`). The comment gets, per slowed set, the
functions whose share of the samples grew most from base to head
(:mod:`wsbench.results.profile_diff`), naming both profiles. A change of the harness or the
load generator is profiled the same way: the profiles then show the servers' side only.
The documents go to the comparisons' store's ``profiles/`` folder, run ids ``<id>-base``
and ``<id>-head``, each recording its side's commit (:func:`wsbench.jobs.commits.recording`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.ci.pr_conformance import envs_at
from wsbench.instrument import profile
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.profiled import NATIVE, WARMUP_S, WINDOW_S
from wsbench.jobs import commits as commitcompare
from wsbench.jobs.profile import Outcome, profile_env
from wsbench.results import compare, profile_diff, store
from wsbench.results.compare import SIDE_LABELS
from wsbench.results.runformat import Run, load
from wsbench.scenarios import Params, Scenario, params_key, spec

SETS_PER_COMPARISON = 3
"""At most this many slowed (configuration, set) pairs profiled per pull request: each
costs 2 sides x (a server start, 0.6-2.5 s, + 3 windows x (warm-up
:data:`~wsbench.instrument.profiled.WARMUP_S` + window
:data:`~wsbench.instrument.profiled.WINDOW_S`)),
about 20 s, so the comment comes at most a minute later; a change that slows more sets
is explained by its first ones."""
TITLE = "CPU profiles of the slower sets (py-spy)"


@dataclass(frozen=True)
class Slowed:
    """A configuration that read *slower* at one set.

    Attributes:
        impl: the implementation's name.
        config: the configuration's id.
        row: its row name in the comparison.
        scenario: e.g. ``"echo"``.
        params: e.g. ``{"size_bytes": 1024, "in_flight": 64}``.
    """

    impl: str
    config: str
    row: str
    scenario: Scenario
    params: Params


def slowed(lines: Sequence[compare.Line], base: Sequence[Run], head: Sequence[Run]) -> list[Slowed]:
    """The (configuration, set) pairs of ``lines`` (:func:`wsbench.results.compare.
    compare_runs` of ``base`` and ``head``, paired by configuration) with a *slower*
    figure, each once, in the lines' order, scenarios with measurement windows only, at
    most :data:`SETS_PER_COMPARISON`."""
    rows = compare.paired_rows(base, head)
    out: list[Slowed] = []
    for line in lines:
        if line.verdict != "slower" or line.row not in rows or not spec(line.scenario).windowed:
            continue
        doc = rows[line.row][0]
        found = Slowed(doc.impl.name, doc.impl.config, line.row, line.scenario, dict(line.params))
        if found in out:
            continue
        if len(out) == SETS_PER_COMPARISON:
            break
        out.append(found)
    return out


def profile_commits(
    commits: tuple[str, str],
    chosen: Sequence[Slowed],
    *,
    root: Path,
    machine: str,
    log: Callable[[str], None],
    profiler: Callable[[], str] = lambda: profile.py_spy_version(profile.py_spy()),
    take: Callable[..., Outcome] = profile_env,
    checkout: Callable[[str], Path] = commitcompare.checkout,
) -> tuple[list[Run], list[Run]]:
    """Profile ``chosen`` at ``commits`` (base, head), each side in its own checkout; the
    documents go to ``root``'s profile store.

    Returns:
        The base's profile documents and the head's.

    Raises:
        wsbench.instrument.profile.ProfileError: py-spy is not installed or does not run.
        wsbench.results.compare.CompareError: a checkout could not be made.
        wsbench.impls.ImplError: a checkout's ``meta.toml`` cannot be read.
    """
    name = profiler()
    run_id = store.new_run_id()
    impls = sorted({s.impl for s in chosen})
    sides: list[list[Run]] = []
    for sha, label in zip(commits, SIDE_LABELS, strict=True):
        docs = []
        for env in envs_at(checkout(sha), impls):
            sets: dict[Scenario, list[Params]] = {}
            for s in chosen:
                if (s.impl, s.config) == (env.impl.name, env.config.id):
                    sets.setdefault(s.scenario, []).append(s.params)
            if not sets:
                continue
            log(f"profile of {label} {sha[:8]}: {env.row_name}")
            with commitcompare.recording(sha):
                done = take(
                    env, sets, native=NATIVE, warmup_s=WARMUP_S, window_s=WINDOW_S,
                    placement=placement_from(None, None), root=store.profile_store(root),
                    machine=machine, run_id=f"{run_id}-{label}", profiler=name, log=log,
                )  # fmt: skip
            docs.append(load(done.path))
        sides.append(docs)
    return sides[0], sides[1]


def to_markdown(chosen: Sequence[Slowed], base: Sequence[Run], head: Sequence[Run]) -> str:
    """A heading and, per slowed configuration and set, its differential profile
    (:func:`wsbench.results.profile_diff.to_markdown`), or why there is none."""
    out = [
        f"#### {TITLE}",
        "",
        f"Each configuration and set that read slower (at most {SETS_PER_COMPARISON}), "
        "profiled on both sides: the functions whose share of the samples grew most.",
        "",
    ]
    for s in chosen:
        d = profile_diff.differential(base, head, impl=s.impl, config=s.config,
                                      scenario=s.scenario, params=s.params)  # fmt: skip
        out.append(f"**{s.row}**, {s.scenario} {params_key(s.params)}")
        out.append("")
        if d is None:
            out += ["Not profiled on both sides (see the job's log).", ""]
        else:
            out.append(profile_diff.to_markdown(d))
    return "\n".join(out)
