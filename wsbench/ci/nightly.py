"""``./bench nightly STEP``: the steps of the nightly workflow, each a command that runs here
as it runs on the runners (``.github/workflows/nightly.yml`` calls them in this order).

- ``plan --shards N``: a run id and the shard list, as GitHub step outputs.
- (each shard, on a runner) ``measure --shard I/N --run-id ID --store STORE --remote R``:
  ``./bench run --new-releases --grid full`` of the shard's implementations into a store of
  its own, then ``./bench run`` of their older versions that are due (:mod:`wsbench.ci.matrix`:
  none in the comparison group of the night's documents on the results branch, or measured
  a week ago or more) on the default grid with the same settings, then by the same rule the
  latest releases on every other Python the runner has (``--python`` among the run options,
  default ``all``), their instructions counted too, within ``OTHER_PYTHONS_MINUTES``
  (:mod:`wsbench.policy`); then
  ``confirm STORE --run-id ID``: every new release flagged slower is measured again,
  interleaved with the previous release (:mod:`wsbench.ci.confirm`); then
  ``grade --shard I/N --run-id ID --store STORE --remote R``: the shard's new releases, and
  its listed versions without a grade of tonight's suite, graded by the Autobahn|Testsuite
  into the store's ``conformance/`` folder (:mod:`wsbench.ci.nightly_grades`); then
  ``profile --shard I/N --run-id ID --store STORE --remote R``: the shard's latest releases
  (and its new releases flagged slower, with the release each is compared with) profiled
  with py-spy into the store's ``profiles/`` folder (:mod:`wsbench.ci.nightly_profiles`);
  the store is uploaded as an artifact.
- ``publish --remote R --store-dir DIR SHARD_STORE...``: clone the results branch, add
  every shard's documents (never replacing one), refuse if a document records an untuned
  machine (unless ``--allow-untuned``), commit and push; then write the regression reports
  of the run's new releases, slower in the run and in its confirmation (with the
  differential profile of each slowed set both releases were profiled at), or newly failing
  a conformance case (``--reports DIR``); a slower release's report says what else differs
  between the two releases' environments (:func:`wsbench.results.regressions.environments`).
- ``issues --reports DIR --repo OWNER/NAME``: open or update one issue per report.
- ``failure --repo OWNER/NAME --where TEXT``: open or update the issue saying where the
  nightly failed.
- ``all --remote R``: every step here, shard after shard (``--shards N``), then the site
  from the whole history: the nightly end to end without GitHub.

The command line is :mod:`wsbench.commands.nightly`'s: the steps here take its values
(:class:`MeasureOptions`, :class:`AllOptions`, a :class:`SamplingPlan`, keyword arguments).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.ci import confirm, github, matrix, nightly_grades, nightly_profiles
from wsbench.ci import results_branch as resultsbranch
from wsbench.impls import all_impls
from wsbench.instrument.autobahn import SuiteError
from wsbench.instrument.profile import ProfileError
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs.main import grid_processes, grid_windows
from wsbench.jobs.selection import MainJobError, on_pythons, run_pythons
from wsbench.paths import REPO_ROOT
from wsbench.policy import OTHER_PYTHONS_MINUTES
from wsbench.pythons import DEFAULT_PYTHON, PYTHONS
from wsbench.results import (
    compare,
    env_diff,
    instruction_verdicts,
    profile_diff,
    regressions,
    store,
)
from wsbench.results.runformat import Run

BRANCH = "results"
"""The results branch's default name."""
FAILURE_TITLE = "The nightly benchmark run failed"
SHARDS = 4
"""The scheduled night's shards (``plan``'s default; the repository variable
``WSBENCH_SHARDS`` overrides it): the fewest whose longest shard fits the measuring job's
240-minute limit on a night that measures every older version, by the estimate from
measured times in README "The version matrix". Shards wait for a free runner, so they also
run on fewer runners, one after another."""
REPORTS_INDEX = "reports.json"
"""In a reports folder: ``[{"title", "body_file"}, ...]``, one per regression."""


class NightlyError(RuntimeError):
    """A nightly step cannot go on (the message says which and why)."""


@dataclass(frozen=True)
class MeasureOptions:
    """The ``measure`` step's options (``./bench nightly measure``,
    :mod:`wsbench.commands.nightly`).

    Attributes:
        run_id: the night's run id (``plan``'s), shared by its shards.
        store: the shard's results store.
        shard: ``"I/N"``: shard I of N of the environments.
        matrix: the older versions (:data:`wsbench.ci.matrix.MODES`): ``"auto"`` those due
            (reads the results branch), ``"always"`` all of them, ``"never"`` none.
        remote: the repository holding the results branch (None: not read; ``"auto"``
            needs it).
        branch: the results branch's name.
        run_args: more ``./bench run`` options for both runs (e.g. ``--machine``), passed on
            as given.
    """

    run_id: str
    store: Path
    shard: str = "1/1"
    matrix: str = "auto"
    remote: str | None = None
    branch: str = BRANCH
    run_args: Sequence[str] = ()


@dataclass(frozen=True)
class AllOptions:
    """The ``all`` step's options (``./bench nightly all``, :mod:`wsbench.commands.nightly`).

    Attributes:
        remote: the repository holding the results branch.
        branch: the results branch's name.
        shards: the shards, measured one after the other (at least 1).
        allow_untuned: publish documents that record an untuned machine.
        work_dir: where the shards' stores, the clone and the reports go (None: a new
            temporary folder).
        no_site: do not build the site from the results branch afterwards.
        no_grade: do not grade the shards (``grade``).
        no_profile: do not profile the shards (``profile``).
        matrix: the older versions, as :attr:`MeasureOptions.matrix`.
        run_args: more ``./bench run`` options for every shard's runs, passed on as given.
        confirm_args: the sampling plan's options given in ``run_args`` (``["--windows",
            "2", ...]``), passed on as given to each shard's ``./bench nightly confirm``.
    """

    remote: str
    branch: str = BRANCH
    shards: int = 1
    allow_untuned: bool = False
    work_dir: Path | None = None
    no_site: bool = False
    no_grade: bool = False
    no_profile: bool = False
    matrix: str = "auto"
    run_args: Sequence[str] = ()
    confirm_args: Sequence[str] = ()


PYTHONS_DELIMITER = "WSBENCH_PYTHONS_END"
"""What ends the multi-line ``pythons`` output of :func:`plan_outputs`."""


def plan_outputs(shards: int) -> str:
    """``run_id=...``, ``shards=[1, ..., N]`` and ``count=N`` lines, ``python``: the default
    Python, and ``pythons``: every other Python of :data:`wsbench.pythons.PYTHONS`, one a
    line (a multi-line value between delimiters), in ``$GITHUB_OUTPUT``'s format. The
    nightly workflow sets up the others (where the runner can) and then the default, which
    ``./bench`` itself runs on.

    Raises:
        NightlyError: fewer than one shard.
    """
    if shards < 1:
        raise NightlyError("--shards must be at least 1")
    shard_list = json.dumps(list(range(1, shards + 1)))
    others = "".join(f"{p}\n" for p in PYTHONS if p != DEFAULT_PYTHON)
    return (
        f"run_id={store.new_run_id()}\nshards={shard_list}\ncount={shards}\n"
        f"python={DEFAULT_PYTHON}\npythons<<{PYTHONS_DELIMITER}\n{others}{PYTHONS_DELIMITER}\n"
    )


def untuned(docs: Sequence[Run]) -> list[str]:
    """One line per document whose run recorded an untuned machine (or no check)."""
    out = []
    for doc in docs:
        if doc.system is None or not doc.system.tuned:
            bad = [i.name for i in doc.system.items if not i.ok] if doc.system else ["no check"]
            out.append(f"{doc.run_id} {doc.environment.env_name}: {', '.join(bad)}")
    return out


def publish(
    shard_stores: Sequence[Path],
    *,
    remote: str,
    branch: str,
    store_dir: Path,
    allow_untuned: bool,
    reports: Path | None = None,
) -> list[regressions.Regression]:
    """Add the shards' documents (their conformance grades and CPU profiles too) to the
    results branch and push; print every new release's comparison with the last listed
    release (:func:`wsbench.results.regressions.compare_new_releases`), under a slower
    verdict the differential profile of each slowed set where the shards profiled both
    releases (:func:`wsbench.results.regressions.differentials`), and each new release's
    grade against that release's (:func:`wsbench.ci.nightly_grades.new_release_grades`,
    against every grade on the branch); return the regressions of the runs published,
    slower or newly failing a case (written into ``reports`` when given).

    What it reads, it refuses when it cannot read: a file of a shard store, or of its
    confirmations (:data:`wsbench.ci.confirm.CONFIRMATIONS`, which decide the reports), that
    is not a run document this wsbench reads stops it before the clone, and nothing is
    pushed. The documents already on the branch it only carries along: it never reads them
    to decide anything and never rewrites one (:func:`wsbench.ci.results_branch.add_documents`),
    so one it cannot read (malformed, or written by a newer wsbench) is named on stderr and
    kept byte for byte. Refusing would keep the night's documents off the branch for a
    file they do not depend on; the site, which reads every document, fails its build
    naming the file (:func:`wsbench.site.results.results_of`).

    Raises:
        NightlyError: no document, a shard's file this wsbench cannot read (the message
            names each with the reason), a document records an untuned machine and
            ``allow_untuned`` is false, or the results branch refused the documents (git's
            reason).
    """
    loaded = [store.load_store(root) for root in shard_stores]
    confirm_loaded = [store.load_store(root / confirm.CONFIRMATIONS) for root in shard_stores]
    graded = [store.load_store(store.conformance_store(root)) for root in shard_stores]
    profiled = [store.load_store(store.profile_store(root)) for root in shard_stores]
    new = [doc for shard in loaded for doc in shard.runs]
    problems = [
        problem
        for shard in (*loaded, *confirm_loaded, *graded, *profiled)
        for problem in shard.problems
    ]
    if problems:
        raise NightlyError("not published, unreadable documents: " + "; ".join(problems))
    if not new:
        raise NightlyError("not published: the shards hold no run document")
    bad = untuned(new)
    if bad and not allow_untuned:
        raise NightlyError(
            "not published: measured on an untuned machine (./bench system check), "
            "--allow-untuned to publish anyway:\n  " + "\n  ".join(bad)
        )
    try:
        resultsbranch.checkout(remote, branch, store_dir)
        for root in (store_dir, store.conformance_store(store_dir), store.profile_store(store_dir)):
            for problem in store.load_store(root).problems:
                print(f"nightly: on {branch}, carried along unchanged, unreadable: {problem}",
                      file=sys.stderr)  # fmt: skip
        added = resultsbranch.add_documents(shard_stores, store_dir)
        run_ids = sorted({d.run_id for d in new})
        commit = resultsbranch.commit_and_push(
            store_dir, branch, f"nightly {', '.join(run_ids)}: {len(added)} documents"
        )
    except resultsbranch.ResultsBranchError as exc:
        raise NightlyError(f"not published: {exc}") from exc
    print(f"nightly: {len(added)} documents added to {branch} ({commit or 'nothing new'})")
    confirm_docs = [doc for shard in confirm_loaded for doc in shard.runs]
    profile_docs = [doc for shard in profiled for doc in shard.runs]
    found = []
    for run_id in run_ids:
        compared = regressions.compare_new_releases(new, run_id, all_impls())
        confirmations = {}
        profiles = {}
        for c in compared:
            if c.counts:
                counted = instruction_verdicts.summary(c.counts)
                print(f"nightly: new release {c.heading}: instructions per message: {counted}")
                print(instruction_verdicts.to_text(c.counts))
            if c.problem:
                print(f"nightly: new release {c.heading}: not compared: {c.problem}")
                continue
            print(f"nightly: new release {c.heading}: {compare.summary(c.lines)}")
            described = env_diff.to_text(regressions.environments(c, confirm_docs))
            print(compare.to_text(c.lines, c.heading, environments=described))
            if c.slower:
                lines = confirm.confirmation_of(c, confirm_docs)
                confirmations[regressions.key(c)] = lines
                held = regressions.confirmed_lines(c, lines)
                verdict = (
                    "not measured again (no confirmation in the shard)" if not lines
                    else f"{len(held)} slower figure(s) confirmed" if held
                    else "not confirmed"
                )  # fmt: skip
                print(f"nightly: new release {c.heading}: interleaved confirmation: {verdict}")
                if lines:
                    print(compare.to_text(lines, f"{c.heading}: confirmation (interleaved)"))
                tonight = [d for d in profile_docs if d.run_id == run_id]
                profiles[regressions.key(c)] = regressions.differentials(c, tonight)
                for d in profiles[regressions.key(c)]:
                    print("\n".join(profile_diff.to_text(d)))
        found += regressions.find(
            compared, run_id, confirmations, profiles, confirmation_docs=confirm_docs
        )
    grade_runs = sorted({d.run_id for shard in graded for d in shard.runs})
    every_grade = store.load_store(store.conformance_store(store_dir)).runs
    found += nightly_grades.new_release_grades(every_grade, grade_runs, all_impls())
    if reports is not None:
        write_reports(found, reports)
    for r in found:
        print(f"nightly: {r.title} (against {r.previous})")
    return found


def write_reports(found: Sequence[regressions.Regression], folder: Path) -> None:
    """One Markdown file per regression and :data:`REPORTS_INDEX` listing them."""
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for i, r in enumerate(found):
        name = f"{i:03d}-{r.impl}-{r.release}.md"
        (folder / name).write_text(r.body, encoding="utf-8")
        index.append({"title": r.title, "body_file": name})
    (folder / REPORTS_INDEX).write_text(json.dumps(index, indent=1), encoding="utf-8")


def file_issues(folder: Path, repo: str, gh: str = github.GH) -> list[str]:
    """Open or update one issue per report of ``folder`` (see :func:`write_reports`).

    Raises:
        NightlyError: the index is missing or malformed, or names a file outside ``folder``.
        wsbench.ci.github.GitHubError: gh failed.
    """
    try:
        index = json.loads((folder / REPORTS_INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NightlyError(f"no readable {REPORTS_INDEX} in {folder}: {exc}") from exc
    done = []
    for entry in index:
        body_file = (folder / str(entry["body_file"])).resolve()
        if body_file.parent != folder.resolve():
            raise NightlyError(f"{REPORTS_INDEX}: {entry['body_file']!r} is not in {folder}")
        body = body_file.read_text(encoding="utf-8")
        done.append(github.upsert_issue(str(entry["title"]), body, repo=repo, gh=gh))
    return done


def failure_body(where: str, run_url: str) -> str:
    """The failure issue's Markdown."""
    link = f" ([the run]({run_url}))" if run_url else ""
    return (
        f"The nightly benchmark run failed in **{where}**{link}.\n\n"
        "This issue is updated by every failing nightly; close it once a nightly passes.\n"
    )


def confirm_shard(root: Path, run_id: str, plan: SamplingPlan) -> list[Run]:
    """The ``confirm`` step: every new release of run ``run_id`` in the shard store
    ``root`` with a slower figure measured again, interleaved (:func:`wsbench.ci.confirm.confirm`).

    Every document of the store is read (the run's are chosen among them), so a file that is
    not a run document this wsbench reads (malformed, or written by a newer wsbench) stops
    it before anything is measured or written.

    Raises:
        NightlyError: the store holds a file this wsbench cannot read (the message names
            each with the reason).
        wsbench.asv.venvs.VenvError: an environment does not install.
    """
    from wsbench.asv import venvs
    from wsbench.instrument.cpus import placement_from

    loaded = store.load_store(root)
    if loaded.problems:
        raise NightlyError("nothing confirmed, unreadable documents: " + "; ".join(loaded.problems))
    docs = [d for d in loaded.runs if d.run_id == run_id]
    if not docs:
        print(f"nightly: {root} holds no document of run {run_id}: nothing to confirm")
        return []
    impls = all_impls()
    candidates = [c for c in regressions.compare_new_releases(docs, run_id, impls) if c.slower]
    if not candidates:
        print("nightly: no new release was flagged slower: nothing to confirm")
        return []
    for c in candidates:
        print(f"nightly: confirming {c.heading} ({compare.summary(c.lines)})", flush=True)
    return confirm.confirm(
        candidates, root, impls=impls, plan=plan, placement=placement_from(None, None),
        machine_name=docs[0].machine.name, run_id=run_id, ensure=venvs.ensure,
        log=lambda line: print(f"nightly: {line}", file=sys.stderr, flush=True),
    )  # fmt: skip


SELECTION_OPTIONS = ("--impl", "--config", "--versions", "--environment", "--grid", "--shard",
                     "--run-id")  # fmt: skip
"""``./bench run`` options with a value that choose what a shard measures: the nightly sets
them itself for the older versions."""
SELECTION_FLAGS = ("--new-releases", "--no-site", "--instructions")
"""Flags of the first run only: the older versions are measured without new releases, site
or instruction counts (about 2 minutes per environment and layout: the latest releases'
are counted every night, README: Instructions per message); the other Pythons' latest
releases keep ``--instructions``."""


def without_selection(argv: Sequence[str]) -> list[str]:
    """``argv`` (``./bench run`` options) without :data:`SELECTION_OPTIONS` (as ``--opt V``
    or ``--opt=V``) and :data:`SELECTION_FLAGS`."""
    out: list[str] = []
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token in SELECTION_OPTIONS:
            skip = True
        elif token not in SELECTION_FLAGS and not token.startswith(
            tuple(f"{o}=" for o in SELECTION_OPTIONS)
        ):
            out.append(token)
    return out


def _bench_run(argv: Sequence[str], shard_store: Path, what: str) -> None:
    """``./bench run ARGV`` into ``shard_store``.

    Raises:
        NightlyError: it exited non-zero (``what`` names it).
    """
    argv = [sys.executable, "-m", "wsbench.commands.cli", "run", *argv]
    print(f"nightly: {what}: ./bench {' '.join(argv[3:])}", flush=True)
    env = {**os.environ, store.ROOT_ENV: str(shard_store)}
    code = subprocess.run(argv, cwd=REPO_ROOT, env=env, check=False).returncode
    if code != 0:
        raise NightlyError(f"{what}: ./bench run exited {code}")


def published_runs(remote: str, branch: str, folder: str = "") -> list[Run]:
    """Every readable document of the results branch ``branch`` of ``remote`` (none when
    the branch does not exist yet), in its ``folder`` (e.g.
    :data:`wsbench.results.store.CONFORMANCE_SUBDIR`; "": the runs'); an unreadable one
    (malformed, or written by a newer wsbench) is named on stderr and left out, not refused:
    these documents only decide which older versions are due, measured or graded
    (:func:`wsbench.ci.matrix.due`, :func:`wsbench.ci.matrix.grades_due`), and one left out
    can only make a version due that was not, so the night does more, never less, and the
    branch is not touched.

    Raises:
        NightlyError: the branch could not be cloned.
    """
    with tempfile.TemporaryDirectory(prefix="wsbench-published-") as tmp:
        try:
            resultsbranch.checkout(remote, branch, Path(tmp) / "branch")
        except resultsbranch.ResultsBranchError as exc:
            raise NightlyError(f"reading the results branch: {exc}") from exc
        loaded = store.load_store(Path(tmp) / "branch" / folder)
    for problem in loaded.problems:
        print(f"nightly: results branch: unreadable document left out: {problem}",
              file=sys.stderr)  # fmt: skip
    return loaded.runs


PYTHON_OPTION = "--python"
"""The ``./bench run`` option, among the nightly's run options, that names the Pythons the
latest releases are kept measured on (repeatable, or ``all``; default ``all``): the nightly
takes it out of every run and measures the other Pythons itself (:func:`other_pythons_due`)."""


def split_pythons(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """The :data:`PYTHON_OPTION` values of ``argv`` (as ``--python V`` or ``--python=V``;
    ``["all"]`` when there are none) and ``argv`` without them."""
    pythons: list[str] = []
    rest: list[str] = []
    tokens = iter(argv)
    for token in tokens:
        if token == PYTHON_OPTION:
            pythons.append(next(tokens, ""))
        elif token.startswith(f"{PYTHON_OPTION}="):
            pythons.append(token.split("=", 1)[1])
        else:
            rest.append(token)
    return pythons or ["all"], rest


def other_pythons_due(
    tonight: Sequence[Run],
    mode: str,
    published: Sequence[Run] | None,
    pythons: Sequence[str],
) -> list[matrix.Due]:
    """The latest releases of the configurations measured in ``tonight`` on every Python of
    ``pythons`` (``--python`` values) other than the default that this machine has: all of
    them (``mode`` "always"), none ("never"), or those due against ``published`` ("auto",
    :func:`wsbench.ci.matrix.due`: a Python new to the runner has no document in the
    comparison group, so it is due on its first night, as a new version is), in the order
    of the Pythons and the configurations (:func:`measure_shard` measures them within
    :data:`~wsbench.policy.OTHER_PYTHONS_MINUTES`; the rest stay due, and the next night
    takes them first, as these are then measured).

    Raises:
        NightlyError: a Python named (not ``all``) that this machine does not have.
    """
    if mode == "never":
        return []
    try:
        found = run_pythons(pythons, log=lambda line: print(f"nightly: {line}", flush=True))
    except MainJobError as exc:
        raise NightlyError(str(exc)) from exc
    measured = {(d.impl.name, d.impl.config) for d in tonight}
    latest = [e for e in bench_envs() if e.is_default and (e.impl.name, e.config.id) in measured]
    envs = on_pythons(latest, [p for p in found if p != DEFAULT_PYTHON])
    if mode == "always":
        return [matrix.Due(e, "every Python (--matrix always)") for e in envs]
    return matrix.due(envs, published or [], tonight)


def within_budget(
    found: Sequence[matrix.Due],
    run_one: Callable[[matrix.Due], None],
    budget_s: float,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> list[matrix.Due]:
    """``run_one`` on each of ``found`` in order, starting none once ``budget_s`` seconds
    have passed since the first started (``clock``: seconds); those run. The one started
    last may end after the budget: an environment is never stopped half measured."""
    started = clock()
    done: list[matrix.Due] = []
    for d in found:
        if done and clock() - started >= budget_s:
            break
        run_one(d)
        done.append(d)
    return done


def older_versions_due(
    tonight: Sequence[Run], mode: str, published: Sequence[Run] | None
) -> list[matrix.Due]:
    """The older versions (:mod:`wsbench.ci.matrix`) of the configurations measured in
    ``tonight``: all of them (``mode`` "always"), none ("never"), or those due against
    ``published`` ("auto")."""
    measured = {(d.impl.name, d.impl.config) for d in tonight}
    older = [e for e in bench_envs()
             if not e.is_default and (e.impl.name, e.config.id) in measured]  # fmt: skip
    if mode == "never":
        return []
    if mode == "always":
        return [matrix.Due(e, "every older version (--matrix always)") for e in older]
    return matrix.due(older, published or [], tonight)


def measure_shard(
    shard: str,
    run_id: str,
    shard_store: Path,
    run_args: Sequence[str],
    *,
    mode: str = "auto",
    published: Sequence[Run] | None = None,
) -> list[matrix.Due]:
    """The ``measure`` step: shard ``shard`` (``"I/N"``) of run ``run_id`` into
    ``shard_store``: the latest and new releases on the full grid (on the default Python),
    then the older versions due (:func:`older_versions_due`), then the latest releases due
    on the other Pythons (:func:`other_pythons_due`; instructions counted when
    ``run_args`` ask for them; one environment a ``./bench run``, none started once
    :data:`~wsbench.policy.OTHER_PYTHONS_MINUTES` have passed: :func:`within_budget`), each
    on the default grid with the full grid's windows per
    process, so that their documents share the night's comparison group. ``run_args``:
    more ``./bench run`` options for every run (e.g. ``--machine``), passed on as given but
    for :data:`PYTHON_OPTION` (:func:`split_pythons`).

    Returns:
        The older versions and other Pythons measured, with why.

    Raises:
        NightlyError: a ``./bench run`` failed, the store holds a file this wsbench cannot
            read, ``mode`` is "auto" and ``published`` is None, or a Python named is not on
            this machine.
    """
    if mode == "auto" and published is None:
        raise NightlyError("--matrix auto reads the results branch: give --remote")
    pythons, extra = split_pythons(run_args)
    _bench_run(["--new-releases", "--no-site", "--grid-only", "--grid", "full", "--shard", shard,
                "--run-id", run_id, *extra], shard_store, f"shard {shard}")  # fmt: skip
    loaded = store.load_store(shard_store)
    if loaded.problems:
        raise NightlyError("unreadable documents: " + "; ".join(loaded.problems))
    tonight = [d for d in loaded.runs if d.run_id == run_id]
    rest = without_selection(extra)

    def given(flag: str) -> bool:
        return any(t == flag or t.startswith(f"{flag}=") for t in rest)

    windows = [] if given("--windows") else ["--windows", str(grid_windows("full"))]
    windows += [] if given("--processes") else ["--processes", str(grid_processes("full"))]
    steps = [
        ("older versions", older_versions_due(tonight, mode, published), [], None),
        # counted when the latest releases are: the interpreter's own change, without noise
        ("other Pythons", other_pythons_due(tonight, mode, published, pythons),
         [f for f in SELECTION_FLAGS if f == "--instructions" and f in extra],
         OTHER_PYTHONS_MINUTES),
    ]  # fmt: skip

    def run(what: str, flags: list[str], *group: matrix.Due) -> None:
        names = [token for d in group for token in ("--environment", d.env.name)]
        _bench_run(["--no-site", "--grid-only", "--grid", "default", *windows, "--run-id",
                    run_id, *names, *flags, *rest], shard_store,
                   f"shard {shard}: {what}")  # fmt: skip

    measured: list[matrix.Due] = []
    for what, found, flags, minutes in steps:
        if not found:
            why = "none due" if mode == "auto" else f"--matrix {mode}"
            print(f"nightly: shard {shard}: {what}: {why}", flush=True)
            continue
        print(f"nightly: shard {shard}: {what} due: {len(found)}", flush=True)
        for d in found:
            print(f"nightly:   {due_name(d.env)}: {d.reason}", flush=True)
        if minutes is None:
            run(what, flags, *found)
            measured += found
            continue
        done = within_budget(found, functools.partial(run, what, flags), minutes * 60.0)
        if len(done) < len(found):
            print(f"nightly: shard {shard}: {what}: {len(done)} of {len(found)} measured "
                  f"in {minutes} minutes (OTHER_PYTHONS_MINUTES); the rest stay due",
                  flush=True)  # fmt: skip
        measured += done
    return measured


def due_name(env: BenchEnv) -> str:
    """How the nightly names an environment it measures: the configuration's row, its
    version, and its Python when not the default (``websockets · asyncio 16.0 on Python
    3.13``)."""
    version = f" {env.version.version}" if env.version else ""
    python = "" if env.python == DEFAULT_PYTHON else f" on Python {env.python}"
    return f"{env.row_name}{version}{python}"


def measure(options: MeasureOptions) -> list[matrix.Due]:
    """The ``measure`` step (:func:`measure_shard`), the results branch read first when
    ``options.matrix`` is "auto".

    Returns:
        The older versions measured, with why.

    Raises:
        NightlyError: "auto" without a remote, the results branch could not be cloned, or
            :func:`measure_shard` failed.
    """
    published = None
    if options.matrix == "auto":
        if options.remote is None:
            raise NightlyError("--matrix auto reads the results branch: give --remote")
        published = published_runs(options.remote, options.branch)
    return measure_shard(options.shard, options.run_id, options.store, options.run_args,
                         mode=options.matrix, published=published)  # fmt: skip


def grade(shard: str, run_id: str, shard_store: Path, *, mode: str, grades: Sequence[Run]) -> bool:
    """The ``grade`` step (:func:`wsbench.ci.nightly_grades.grade_shard`); a suite that
    cannot be found or made is named on stderr, not raised: the shard's measurements are
    published without grades, and the versions left ungraded are due again the next night
    (the workflow's step continues on error likewise).

    Returns:
        False when the suite could not run.

    Raises:
        NightlyError: an implementation of the shard's documents is unknown here.
    """
    try:
        nightly_grades.grade_shard(shard, run_id, shard_store, mode=mode, grades=grades)
    except SuiteError as exc:
        print(f"nightly: shard {shard}: not graded: {exc}", file=sys.stderr, flush=True)
        return False
    except MainJobError as exc:
        raise NightlyError(str(exc)) from exc
    return True


def profile(shard: str, run_id: str, shard_store: Path, *, published: Sequence[Run]) -> bool:
    """The ``profile`` step (:func:`wsbench.ci.nightly_profiles.profile_shard`); a profiler
    that cannot run is named on stderr, not raised: the shard's measurements are published
    without profiles, and the configurations left unprofiled come first the next night (the
    workflow's step continues on error likewise).

    Returns:
        False when the profiler could not run.

    Raises:
        NightlyError: an implementation of the shard's documents is unknown here.
    """
    try:
        nightly_profiles.profile_shard(shard, run_id, shard_store, published=published)
    except ProfileError as exc:
        print(f"nightly: shard {shard}: not profiled: {exc}", file=sys.stderr, flush=True)
        return False
    except MainJobError as exc:
        raise NightlyError(str(exc)) from exc
    return True


def run_all(options: AllOptions) -> int:
    """The nightly end to end here: every shard one after the other with ``./bench run``,
    its confirmation, its grades and its profiles, publish, reports, then the site from the
    whole results branch.

    Raises:
        NightlyError: fewer than one shard, or a step failed.
    """
    if options.shards < 1:
        raise NightlyError("--shards must be at least 1")
    work = options.work_dir or Path(tempfile.mkdtemp(prefix="wsbench-nightly-"))
    work.mkdir(parents=True, exist_ok=True)
    run_id = store.new_run_id()
    extra = list(options.run_args)
    published, grades = None, []
    if options.matrix == "auto":
        published = published_runs(options.remote, options.branch)
        grades = published_runs(options.remote, options.branch, store.CONFORMANCE_SUBDIR)
    profiles = [] if options.no_profile else published_runs(
        options.remote, options.branch, store.PROFILES_SUBDIR
    )  # fmt: skip
    shard_stores = []
    for i in range(1, options.shards + 1):
        shard_store = work / f"shard-{i}"
        measure_shard(f"{i}/{options.shards}", run_id, shard_store, extra, mode=options.matrix,
                      published=published)  # fmt: skip
        argv = [sys.executable, "-m", "wsbench.commands.cli", "nightly", "confirm",
                str(shard_store), "--run-id", run_id, *options.confirm_args]  # fmt: skip
        env = {**os.environ, store.ROOT_ENV: str(shard_store)}
        code = subprocess.run(argv, cwd=REPO_ROOT, env=env, check=False).returncode
        if code != 0:
            raise NightlyError(f"shard {i}/{options.shards}: nightly confirm exited {code}")
        if not options.no_grade:
            grade(f"{i}/{options.shards}", run_id, shard_store, mode=options.matrix,
                  grades=grades)  # fmt: skip
        if not options.no_profile:
            profile(f"{i}/{options.shards}", run_id, shard_store, published=profiles)
        shard_stores.append(shard_store)
    clone = work / "results-branch"
    publish(
        shard_stores, remote=options.remote, branch=options.branch, store_dir=clone,
        allow_untuned=options.allow_untuned, reports=work / "reports",
    )  # fmt: skip
    print(f"nightly: reports in {work / 'reports'}")
    if not options.no_site:
        from wsbench.jobs.main import build_site

        build_site(clone)
    return 0
