"""The nightly's conformance grades (``./bench nightly grade``, README "Conformance").

After a shard is measured (and its slower releases confirmed), its environments are graded
by the Autobahn|Testsuite (:mod:`wsbench.jobs.conformance`): new releases on the full
grid's cases (:data:`GRID`), listed versions on the default grid's (:data:`MATRIX_GRID`),
as each is measured, into the shard store's ``conformance/`` folder under the
night's run id and machine name, which travel with the shard's artifact and are published
with its documents (:mod:`wsbench.ci.results_branch`):

- every new release of the configurations the shard measured tonight (found as the
  measuring step's ``--new-releases`` finds them: :func:`wsbench.jobs.selection.run_envs`),
  every night;
- the listed versions of those configurations (every version in the matrix) by
  ``--matrix``: "auto"
  those without a grade of tonight's suite on the results branch
  (:func:`wsbench.ci.matrix.grades_due`), at most :data:`MATRIX_GRADES_PER_NIGHT` a night;
  "always" all; "never" none.

At ``publish``, each new release's grade is compared with the last listed release's
(:mod:`wsbench.results.conformance_regressions`); a newly failed case is a report and an
issue like a slower release (:func:`new_release_grades`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.ci import matrix
from wsbench.impls import Impl
from wsbench.instrument import autobahn
from wsbench.instrument.autobahn import Suite
from wsbench.instrument.cpus import placement_from
from wsbench.jobs import conformance, releases
from wsbench.jobs.conformance import Outcome
from wsbench.jobs.selection import run_envs
from wsbench.results import conformance_regressions, store
from wsbench.results.regressions import Regression
from wsbench.results.runformat import Run

GRID = "full"
"""The grid the nightly grades new releases on (:data:`wsbench.jobs.conformance.CASES`),
as it measures them."""
MATRIX_GRID = "default"
"""The grid of the listed versions' grades, as their measurements: group 9 (messages up to
16 MiB) takes 56 s on websockets and can take the full :data:`wsbench.jobs.conformance.
TIMEOUT_S` on the slowest servers; groups 1-7 and 10 took 9-17 s per configuration here, and
116 s and 325 s on Robyn's two (2026-11-28)."""
MATRIX_GRADES_PER_NIGHT = 20
"""At most this many listed versions graded per shard and night (new releases always are):
a grade is made once per suite version, so only the first nights have many due, and 20 at
the slowest measured (325 s) is under 2 hours of a shard's 240 minutes; typically 5 min."""
NEW_RELEASE = "a new release (graded every night)"


def _say(line: str) -> None:
    print(f"nightly: {line}", file=sys.stderr, flush=True)


def to_grade(
    envs: Sequence[BenchEnv], mode: str, grades: Sequence[Run], suite: str
) -> list[matrix.Due]:
    """The environments of ``envs`` (a shard's, new releases included) to grade tonight with
    ``suite``, with why: the new releases, then the listed versions by ``mode``
    (:data:`wsbench.ci.matrix.MODES`; "auto": :func:`wsbench.ci.matrix.grades_due` against
    ``grades``, the results branch's conformance documents)."""
    listed = {e.name for e in bench_envs()}
    new = [matrix.Due(e, NEW_RELEASE) for e in envs if e.name not in listed]
    older = [e for e in envs if e.name in listed]
    if mode == "never":
        return new
    if mode == "always":
        return [*new, *(matrix.Due(e, "every listed version (--matrix always)") for e in older)]
    # "auto": the first :data:`MATRIX_GRADES_PER_NIGHT` due; the others the next nights
    return [*new, *matrix.grades_due(older, grades, suite)[:MATRIX_GRADES_PER_NIGHT]]


def grade_shard(
    shard: str,
    run_id: str,
    shard_store: Path,
    *,
    mode: str,
    grades: Sequence[Run],
    fetch: releases.Fetch = releases.fetch_project,
    find_suite: Callable[..., Suite] = autobahn.find_suite,
) -> list[Outcome]:
    """The ``grade`` step: the configurations of run ``run_id``'s documents in
    ``shard_store`` (shard ``shard``, ``"I/N"``, named in what it prints) graded into its
    conformance store (see the module's docstring), with those documents' machine name
    (none there: nothing is graded). Their configurations, not ``shard``, choose: the
    measuring step's own selection (``--impl``, ``--config``) is kept without being read.

    Args:
        mode: ``--matrix`` (:func:`to_grade`).
        grades: the results branch's conformance documents (read in "auto" mode only).
        fetch: reads the package index (tests give one).
        find_suite: finds the suite (tests give one).

    Returns:
        One outcome per environment graded.

    Raises:
        wsbench.instrument.autobahn.SuiteError: the suite cannot be found or made.
    """
    tonight = [d for d in store.load_store(shard_store).runs if d.run_id == run_id]
    if not tonight:
        print(f"nightly: {shard_store} holds no document of run {run_id}: nothing to grade")
        return []
    measured = {(d.impl.name, d.impl.config) for d in tonight}
    names = sorted({name for name, _ in measured})
    every = run_envs(names, "all", new_releases=True, fetch=fetch)
    envs = [e for e in every if (e.impl.name, e.config.id) in measured]
    suite = find_suite(log=_say)
    due = to_grade(envs, mode, grades, suite.version)
    print(f"nightly: shard {shard}: {len(due)} environment(s) to grade ({suite.version}, "
          f"{suite.route}):", flush=True)  # fmt: skip
    for d in due:
        version = f" {d.env.version.version}" if d.env.version else ""
        print(f"nightly:   {d.env.row_name}{version}: {d.reason}", flush=True)
    outcomes = []
    for grid, part in ((GRID, [d for d in due if d.reason == NEW_RELEASE]),
                       (MATRIX_GRID, [d for d in due if d.reason != NEW_RELEASE])):  # fmt: skip
        outcomes += conformance.grade_all(
            [d.env for d in part], suite, grid, placement=placement_from(None, None),
            root=store.conformance_store(shard_store), machine=tonight[0].machine.name,
            run_id=run_id, log=_say,
        )  # fmt: skip
    if outcomes:
        print(conformance.to_text(outcomes), flush=True)
    return outcomes


def new_release_grades(
    grades: Sequence[Run], run_ids: Sequence[str], impls: Sequence[Impl]
) -> list[Regression]:
    """Each new release's grade of the runs ``run_ids`` compared with the last listed
    release's in ``grades`` (every conformance document: the results branch's, tonight's
    among them), one line printed per comparison; the regressions found (reports, as
    :func:`wsbench.ci.nightly.write_reports` writes them)."""
    found = []
    for run_id in run_ids:
        compared = conformance_regressions.compare_new_grades(grades, run_id, impls)
        for c in compared:
            if c.problem:
                verdict = f"not compared: {c.problem}"
            elif c.cases:
                verdict = f"newly fails {', '.join(case.id for case in c.cases)}"
            else:
                verdict = f"no case newly failed (base: run {c.base and c.base.run_id})"
            print(f"nightly: new release {c.heading}: conformance: {verdict}")
        found += conformance_regressions.find(compared, run_id)
    return found
