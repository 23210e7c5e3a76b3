"""Confirming a new release's slower figures by measuring again, interleaved, before anyone
is told of a regression.

The nightly measures a new release and the last listed release of each configuration one
after the other in one asv run, a few minutes apart, and compares every figure at
p < 0.01 (:func:`wsbench.results.regressions.compare_new_releases`): with dozens of figures per
release some are flagged slower by chance, and drift between the two measurements adds
more. On this project's development VM two nights of the same two releases flagged
different figures each night. So a flagged release is a *candidate*: on the same runner,
right after its shard's run, the flagged configurations are measured again at the flagged
parameter sets only, interleaved (previous, new, previous, new, ...,
:func:`wsbench.instrument.interleave.measure_interleaved`) with
:data:`CONFIRM_PLAN`'s rounds and windows.
Only a figure that is slower in both measurements, independent samples, makes a regression
report (:func:`wsbench.results.regressions.find`): a two-stage test, screening then confirmation,
in the way performance CI systems retrigger a suspected regression before filing it.

The confirmation's documents go into the shard's store under :data:`CONFIRMATIONS`
(``<store>/confirmations/<machine>/<run id>-confirm-base|head/``), where neither the
results branch nor the site looks: ``publish`` reads them to decide.

A pull request's comparison (``./bench pr-compare``, :mod:`wsbench.ci.pull_request`) is
confirmed the same way (:func:`confirm_commits`): the configurations and sets with a figure
faster or slower in its screening are measured again, interleaved, with
:data:`CONFIRM_PLAN`, each side by its own commit's harness
(:func:`wsbench.jobs.commits.measure_commits`); there the confirmation's verdicts are the
final ones, decided as one family (:mod:`wsbench.results.confirmation`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from wsbench.asv.conf import BenchEnv, listed_env
from wsbench.impls import Impl, ImplVersion
from wsbench.instrument.cpus import CpuPlacement
from wsbench.instrument.interleave import Arm, measure_interleaved
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import commits as commitcompare
from wsbench.jobs.commits import CommitSides
from wsbench.results import compare, store
from wsbench.results.confirmation import moved, union
from wsbench.results.regressions import CONFIRM_SUFFIX, ReleaseComparison, confirmation_sides
from wsbench.results.runformat import Run
from wsbench.scenarios import Params, Scenario

CONFIRMATIONS = "confirmations"
"""The store's sub-folder for the confirmations' documents."""
CONFIRM_PLAN = SamplingPlan(processes=8, windows_per_process=2)
"""The plan of a confirmation (``./bench nightly confirm``'s defaults): 8 rounds (server
processes per side) x 2 windows, the plan whose power was measured (``./bench calibrate
--slowdown``, 2026-11-28, the Methodology page): a server slowed by 20 % was called slower
in 9 of 10 sessions, by 10 % in 4 of 10, with no false verdict in the sessions' 60 A/A
figures; with 1 window per process, 7 of 10 and 0 of 10."""

Measure = Callable[..., list[list[Run]]]
""":func:`wsbench.instrument.interleave.measure_interleaved`'s signature (the tests pass
their own)."""
Ensure = Callable[[BenchEnv], Path]
""":func:`wsbench.asv.venvs.ensure`'s signature: the interpreter of an environment."""


def release_env(env_impl: Impl, config_id: str, version: str) -> BenchEnv:
    """The environment of ``version`` of a configuration: a listed version as listed, a new
    release with the pins of the last listed version (as the nightly installs it).

    Raises:
        wsbench.impls.ImplError: no such configuration.
    """
    config = env_impl.config(config_id)
    listed = listed_env(env_impl, config_id, version)
    if listed is not None:
        return listed
    last = env_impl.versions[-1]
    return BenchEnv(env_impl, config, ImplVersion(version, dict(last.requires)), False)


def flagged_grids(candidate: ReleaseComparison) -> dict[Scenario, list[Params]]:
    """The parameter sets, per scenario, of the candidate's slower figures."""
    return union(moved(candidate.lines, ("slower",)).values())


def confirm(
    candidates: Sequence[ReleaseComparison],
    root: Path,
    *,
    impls: Sequence[Impl],
    plan: SamplingPlan,
    placement: CpuPlacement,
    machine_name: str,
    run_id: str,
    ensure: Ensure,
    measure: Measure = measure_interleaved,
    log: Callable[[str], None] = lambda _: None,
) -> list[Run]:
    """Measure every slower candidate again, interleaved, and save the documents under
    ``root / CONFIRMATIONS``.

    Args:
        candidates: new releases' comparisons; those without a slower figure are skipped.
        root: the shard's results store.
        impls: the implementations (to find each candidate's).
        plan: the sampling plan (``plan.processes`` rounds).
        placement: CPUs of server and load generator.
        machine_name: the machine's name in the documents.
        run_id: the nightly run's id; the documents' run ids are ``<run_id>-confirm-base``
            and ``<run_id>-confirm-head``.
        ensure: makes (or finds) an environment's interpreter.
        measure: the interleaved measurement.
        log: progress lines.

    Returns:
        The documents saved: per side, one per candidate configuration.

    Raises:
        wsbench.asv.venvs.VenvError: an environment does not install.
    """
    by_name = {i.name: i for i in impls}
    slower = [c for c in candidates if c.slower]
    if not slower:
        return []
    sides: tuple[list[Arm], list[Arm]] = ([], [])
    for c in slower:
        impl = by_name[c.impl]
        config_id = c.head.impl.config
        for side, version in zip(sides, (c.previous, c.release), strict=True):
            env = release_env(impl, config_id, version)
            log(f"confirming {c.heading}: preparing {version}")
            side.append(Arm(impl, config_id, str(ensure(env)), env.name, version))
    grids = union(flagged_grids(c) for c in slower)
    base, head = measure(
        [sides[0], sides[1]], sorted(grids), plan,
        placement=placement, machine_name=machine_name, run_id=f"{run_id}{CONFIRM_SUFFIX}",
        grids=grids, log=log,
    )  # fmt: skip
    docs = [*base, *head]
    for doc in docs:
        store.save(doc, root / CONFIRMATIONS)
    return docs


def confirmation_of(candidate: ReleaseComparison, docs: Sequence[Run]) -> list[compare.Line]:
    """The interleaved comparison of ``candidate``'s configuration in the confirmation
    documents ``docs`` (of its run), or ``[]`` when they hold none."""
    base, head = confirmation_sides(candidate, docs)
    if not base or not head:
        return []
    try:
        return compare.compare_runs(base, head, match="configuration")
    except compare.CompareError:
        return []


def confirm_commits(
    commits: tuple[str, str],
    screening: Sequence[compare.Line],
    sides: CommitSides,
    *,
    plan: SamplingPlan = CONFIRM_PLAN,
    machine_name: str,
    run_id: str,
    log: Callable[[str], None] = lambda _: None,
) -> CommitSides | None:
    """Measure again, interleaved, what moved in a comparison of two commits.

    Args:
        commits: the base and head commits (full hashes).
        screening: the comparison's lines (:func:`wsbench.results.compare.compare_runs` of
            ``sides``, paired by configuration).
        sides: the documents compared.
        plan: the confirmation's plan (``plan.processes`` rounds).
        machine_name: the machine's name in the documents.
        run_id: the comparison's run id stem; the confirmation's documents get
            ``<run_id>-confirm-base`` and ``<run_id>-confirm-head``.
        log: progress lines.

    Each configuration with a figure faster or slower
    (:func:`wsbench.results.confirmation.moved`) is measured on the Pythons it moved on (and
    the default Python, which the commit worker always measures), at every set that moved
    in any of them (one measurement, one grid: the nightly's
    :func:`confirm` merges its candidates' sets the same way; the lines of a set that did
    not move in a configuration are left out of its verdicts,
    :func:`wsbench.results.confirmation.final`).

    Returns:
        The confirmation's documents, or None when nothing moved (nothing is measured).

    Raises:
        wsbench.results.compare.CompareError: a commit cannot be measured
            (:func:`wsbench.jobs.commits.measure_commits`).
    """
    found = moved(screening)
    if not found:
        return None
    rows = compare.paired_rows(sides.base, sides.head)
    docs = [rows[row][0] for row in found if row in rows]
    if not docs:
        return None
    grid = union(found.values())
    log(f"confirming {len(docs)} configuration(s) at {sum(map(len, grid.values()))} set(s)")
    return commitcompare.measure_commits(
        commits[0], commits[1], impls=sorted({d.impl.name for d in docs}),
        configs=sorted({d.impl.config for d in docs}), grid=grid, plan=plan,
        machine_name=machine_name, run_id=f"{run_id}{CONFIRM_SUFFIX}", log=log,
        pythons=sorted({d.python for d in docs}),
    )  # fmt: skip
