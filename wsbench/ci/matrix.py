"""The version matrix on the published site: which older versions a night measures.

The site shows one comparison group per machine: the documents with the newest run's
:meth:`~wsbench.results.runformat.Run.comparable_key` (machine, load generator build, settings;
:mod:`wsbench.site.results`). A night measures the latest release of each configuration
and every new release on the full grid; an *older version* (an environment of
``meta.toml`` that is not its configuration's newest) is measured too, on the default
grid with the same settings, when it is **due**:

- it has no document in the comparison group of the night's own documents: the group
  changed (the load generator's source, the compiler, the settings, the machine name) or
  the version is new in ``meta.toml``; or
- its newest document in that group is :data:`MATRIX_PERIOD_DAYS` days old or older, so
  that every figure on the site is re-measured at least that often on the runners as they
  are now (a kernel or firmware update changes figures without changing the group).

Anything else is not due: its figures stay on the site from the run that measured them,
named on its framework page ("Last measured").

The matrix is kept graded too (:func:`grades_due`): a listed version is graded
(:mod:`wsbench.jobs.conformance`) when the results branch holds no grade of its environment
(graded, or not applicable), or only grades made with another version of the suite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from wsbench.asv.conf import BenchEnv
from wsbench.policy import MATRIX_PERIOD_DAYS
from wsbench.results.runformat import Conformance, Run

MODES = ("auto", "always", "never")
"""``--matrix``: older versions when due (:func:`due`), every older version, none."""
NEW_GROUP = "no document in tonight's comparison group (machine, load generator build, settings)"
NO_GRADE = "no conformance grade on the results branch"
GRADED = ("graded", "not applicable")
"""The outcomes of a grade that count (a failed one, :attr:`Conformance.outcome`, is made
again)."""


@dataclass(frozen=True)
class Due:
    """An older version to measure tonight and why.

    Attributes:
        env: its environment.
        reason: :data:`NEW_GROUP`, or how old its newest figures are and from which run.
    """

    env: BenchEnv
    reason: str


def run_started(run_id: str) -> datetime:
    """When run ``run_id`` started (its id's UTC time stamp,
    :func:`wsbench.results.store.new_run_id`).

    Raises:
        ValueError: the id does not start with ``YYYYmmddTHHMMSSZ``.
    """
    return datetime.strptime(run_id[:16] + "+0000", "%Y%m%dT%H%M%SZ%z")


def due(
    older: Sequence[BenchEnv],
    published: Sequence[Run],
    tonight: Sequence[Run],
    *,
    period_days: int = MATRIX_PERIOD_DAYS,
) -> list[Due]:
    """The environments of ``older`` due tonight (see the module's docstring).

    Args:
        older: the older versions that could be measured (e.g. those of the implementations
            of a shard).
        published: every document already published (the results branch).
        tonight: the documents the night has written so far (the latest releases); their
            comparison group is the one the site will show. With none, nothing is due.
        period_days: the schedule's period, days.

    Returns:
        One :class:`Due` per environment of ``older`` that is due, in ``older``'s order.
    """
    if not tonight:
        return []
    newest = max(tonight, key=lambda d: d.run_id)
    key = newest.comparable_key()
    now = run_started(newest.run_id)
    last: dict[str, str] = {}
    for doc in published:
        if doc.comparable_key() == key:
            name = doc.environment.env_name
            last[name] = max(last.get(name, ""), doc.run_id)
    out = []
    for env in older:
        run_id = last.get(env.name)
        if run_id is None:
            out.append(Due(env, NEW_GROUP))
            continue
        age = now - run_started(run_id)
        if age >= timedelta(days=period_days):
            out.append(Due(env, f"last measured {age.days} days ago, in run {run_id}"))
    return out


def grades_due(listed: Sequence[BenchEnv], grades: Sequence[Run], suite: str) -> list[Due]:
    """The environments of ``listed`` to grade with ``suite`` (e.g. ``"autobahntestsuite
    25.10.1"``): those without a grade in ``grades`` (the results branch's conformance
    documents) whose outcome is one of :data:`GRADED`, or whose newest such grade was made
    with another suite; in ``listed``'s order."""
    newest: dict[str, tuple[str, Conformance]] = {}
    for doc in grades:
        if doc.conformance is not None and doc.conformance.outcome in GRADED:
            name = doc.environment.env_name
            if doc.run_id >= newest.get(name, ("", doc.conformance))[0]:
                newest[name] = (doc.run_id, doc.conformance)
    out = []
    for env in listed:
        if env.name not in newest:
            out.append(Due(env, NO_GRADE))
            continue
        run_id, grade = newest[env.name]
        if grade.suite != suite:
            out.append(Due(env, f"graded with {grade.suite} in run {run_id}"))
    return out
