"""The conformance grades of a pull request's changed implementations (``./bench
pr-compare``, :mod:`wsbench.ci.pull_request`).

The implementations the change touches (:func:`wsbench.ci.pull_request.select`; none when
the harness changed, which would grade every configuration) are graded on both sides: the
latest version of each configuration as each commit's own ``impls/`` defines it (its
checkout, :func:`wsbench.jobs.commits.checkout`: its server code and pins), by this
harness's suite on the default grid (:mod:`wsbench.jobs.conformance`; README "Quick
start" gives its cost per configuration, here paid on each side). The comment gets a
table: each configuration's grade on both sides, and the cases the head newly fails
(:func:`wsbench.results.conformance.newly_failed`). The documents go to the comparisons'
store's ``conformance/`` folder, run ids ``<id>-base`` and ``<id>-head``, each recording
its side's commit (:func:`wsbench.jobs.commits.recording`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.impls import all_impls
from wsbench.instrument import autobahn
from wsbench.instrument.autobahn import Suite
from wsbench.instrument.cpus import placement_from
from wsbench.jobs import commits as commitcompare
from wsbench.jobs import conformance
from wsbench.jobs.conformance import Outcome
from wsbench.results import conformance as grading
from wsbench.results import store
from wsbench.results.compare import SIDE_LABELS

GRID = "default"
"""The grid a pull request is graded on (:data:`wsbench.jobs.conformance.CASES`)."""
TITLE = "Conformance (Autobahn|Testsuite)"


def envs_at(tree: Path, impls: Sequence[str]) -> list[BenchEnv]:
    """The latest environment of each configuration of ``impls`` as the checkout ``tree``
    defines them (``tree/impls``).

    Raises:
        wsbench.impls.ImplError: a ``meta.toml`` of the checkout this harness cannot read.
    """
    found = [i for i in all_impls(tree / "impls") if i.name in impls]
    return [e for e in bench_envs(found) if e.is_default]


def grade_commits(
    commits: tuple[str, str],
    impls: Sequence[str],
    *,
    root: Path,
    machine: str,
    log: Callable[[str], None],
    find_suite: Callable[..., Suite] = autobahn.find_suite,
) -> tuple[list[Outcome], list[Outcome]]:
    """Grade ``impls`` at ``commits`` (base, head), each in its own checkout; the documents
    go to ``root``'s conformance store.

    Returns:
        The base's outcomes and the head's.

    Raises:
        wsbench.instrument.autobahn.SuiteError: the suite cannot be found or made.
        wsbench.results.compare.CompareError: a checkout could not be made.
        wsbench.impls.ImplError: a checkout's ``meta.toml`` cannot be read.
    """
    suite = find_suite(log=log)
    run_id = store.new_run_id()
    sides = []
    for sha, label in zip(commits, SIDE_LABELS, strict=True):
        envs = envs_at(commitcompare.checkout(sha), impls)
        log(f"conformance of {label} {sha[:8]}: {len(envs)} configuration(s)")
        with commitcompare.recording(sha):
            graded = conformance.grade_all(
                envs, suite, GRID, placement=placement_from(None, None),
                root=store.conformance_store(root), machine=machine,
                run_id=f"{run_id}-{label}", log=log,
            )  # fmt: skip
        sides.append(graded)
    return sides[0], sides[1]


def _cell(o: Outcome | None) -> str:
    if o is None:
        return "—"
    graded = grading.grade(o.conformance)
    return f"{graded.symbol} {graded.text}"


def to_markdown(base: Sequence[Outcome], head: Sequence[Outcome]) -> str:
    """A heading and one row per configuration (by row name, head's order, then those only
    the base has): both grades, and the cases the head newly fails with the suite's
    verdicts."""
    by_row = {o.row_name: o for o in base}
    heads = {o.row_name for o in head}
    rows: list[tuple[str, Outcome | None, Outcome | None]] = [
        (h.row_name, by_row.get(h.row_name), h) for h in head
    ]
    rows += [(b.row_name, b, None) for b in base if b.row_name not in heads]
    lines = [
        f"#### {TITLE}",
        "",
        "| configuration | base | head | newly failed on head |",
        "|---|---|---|---|",
    ]
    for name, b, h in rows:
        newly = grading.newly_failed(b.conformance, h.conformance) if b and h else []
        failed = ", ".join(f"{c.id} ({c.behavior})" for c in newly) or "none"
        lines.append(f"| {name} | {_cell(b)} | {_cell(h)} | {failed} |")
    return "\n".join(lines) + "\n"
