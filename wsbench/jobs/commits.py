"""Two commits measured interleaved in one session (``./bench compare --commits BASE HEAD``).

Each commit is checked out into a git worktree of its own (``.wsbench/trees/<sha>``), and
every measurement of that commit runs its own harness, implementations and load generator
(built from its ``loadgen/``, cached per source hash): the comparing harness starts
:mod:`wsbench.jobs.commit_worker` inside the checkout, once to list and install the environments,
then once per round and side. Rounds alternate base, head, base, head ..., one fresh server
process per configuration and round, so that the machine's drift over the session falls on
both sides alike (as :mod:`wsbench.instrument.interleave` does for two versions).

Configurations are paired by implementation and configuration: a pull request that changes
a version's pins compares the old pins with the new ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from wsbench.asv.venvs import ENVS_DIR
from wsbench.instrument import loadgen, system
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.interleave import merge_round, side_order
from wsbench.instrument.sampling import SamplingPlan
from wsbench.paths import REPO_ROOT
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results import store
from wsbench.results.compare import SIDE_LABELS, CompareError
from wsbench.results.runformat import Benchmark, FormatError, Run, SystemCheck, load
from wsbench.scenarios import Params

TREES_DIR = REPO_ROOT / ".wsbench" / "trees"
"""Where the commits' worktrees live (ignored by git); each is reused while it exists."""
LABELS = SIDE_LABELS
"""The two sides' labels: their documents' run ids end with them, which marks them as one
interleaved measurement (:func:`wsbench.results.compare.interleaved`)."""


def git(*args: str, cwd: Path = REPO_ROOT) -> str:
    """Run git; its output, stripped.

    Raises:
        CompareError: git failed (the message ends with git's own).
    """
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise CompareError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def resolve(ref: str, repo: Path = REPO_ROOT) -> str:
    """The full hash of commit ``ref`` (a hash, branch, tag or ``HEAD~1``).

    Raises:
        CompareError: ``ref`` names no commit.
    """
    try:
        return git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", cwd=repo)
    except CompareError:
        raise CompareError(f"no commit {ref!r} in {repo}") from None


def checkout(sha: str, repo: Path = REPO_ROOT, root: Path = TREES_DIR) -> Path:
    """A clean checkout of commit ``sha`` (a worktree of ``repo``, detached), made when needed.

    Raises:
        CompareError: git could not make it.
    """
    path = root / sha
    if (path / ".git").exists() and git("rev-parse", "HEAD", cwd=path) == sha:
        git("checkout", "--quiet", "--force", sha, cwd=path)  # undo any local edit
        return path
    git("worktree", "prune", cwd=repo)
    root.mkdir(parents=True, exist_ok=True)
    git("worktree", "add", "--quiet", "--force", "--detach", str(path), sha, cwd=repo)
    return path


COMMIT_ENV = "ASV_COMMIT"
"""The variable :func:`wsbench.instrument.provenance.harness_commit` reads as the commit
being measured (asv's, inside a benchmark)."""


@contextmanager
def recording(sha: str) -> Iterator[None]:
    """Inside, the documents this process makes record commit ``sha`` as their harness's
    (``harness.commit``, and the commit in their file names), by :data:`COMMIT_ENV`; the
    variable as it was afterwards. For a side of a comparison that this harness measures
    from the side's checkout (a pull request's profiles and grades, each side's
    ``impls/``): its documents would otherwise record this tree's ``HEAD``, whichever side
    they are. The side's own harness measures its wall-clock rounds (:func:`_worker`), and
    its documents record its commit without this."""
    before = os.environ.get(COMMIT_ENV)
    os.environ[COMMIT_ENV] = sha
    try:
        yield
    finally:
        if before is None:
            del os.environ[COMMIT_ENV]
        else:
            os.environ[COMMIT_ENV] = before


WORKERS = ("wsbench.jobs.commit_worker", "wsbench.commitworker")
"""The worker's module in a commit, newest first: before the harness's package layout it was
``wsbench.commitworker``, with the same command line."""
WORKER = WORKERS[0]
BOOTSTRAP = f"""\
import importlib.util, runpy, sys
sys.meta_path[:] = [f for f in sys.meta_path
                    if not getattr(f, "__module__", "").startswith("__editable__")]
def found(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
name = next((n for n in {WORKERS!r} if found(n)), None)
if name is None:
    sys.exit("No module named {WORKER}")
runpy.run_module(name, run_name="__main__", alter_sys=True)
"""
"""Runs the worker (the first of :data:`WORKERS` the checkout has) with only the checkout's
modules: this interpreter's editable install of the comparing tree would otherwise supply
any module the checkout lacks."""


def _worker(
    tree: Path, *args: str, capture: bool = False, tuning: SystemCheck | None = None
) -> str:
    """Run the commit's worker (``python -m wsbench.jobs.commit_worker ARGS``) in ``tree``
    (see :data:`BOOTSTRAP`); its standard output.

    The worker builds its own load generator: a prebuilt one given to this process
    (``WSBENCH_LOADGEN_BINARY``) is not passed on, nor is asv's commit. ``tuning`` is the
    machine check its documents record (:data:`wsbench.instrument.system.SYSTEM_ENV`).

    Raises:
        CompareError: the commit has no worker, or the worker failed (the message ends with
            its error output).
    """
    env = {k: v for k, v in os.environ.items() if k not in (loadgen.BINARY_ENV, COMMIT_ENV)}
    env["PYTHONPATH"] = str(tree)
    if tuning is not None:
        env[system.SYSTEM_ENV] = system.encode(tuning)
    proc = subprocess.run(
        [sys.executable, "-c", BOOTSTRAP, *args],
        cwd=tree, env=env, check=False, text=True,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    if proc.returncode != 0:
        detail = proc.stderr.strip()[-2000:]
        if f"No module named {WORKER}" in detail or f"No module named '{WORKER}'" in detail:
            raise CompareError(
                f"commit {tree.name[:12]} predates {WORKER}: it cannot be measured by "
                "./bench compare --commits (compare stored runs of it instead)"
            )
        raise CompareError(
            f"the harness of {tree.name[:12]} failed ({args[0]}, exit code {proc.returncode})"
            + (f":\n{detail}" if detail else "")
        )
    return proc.stdout or ""


@dataclass
class CommitSides:
    """What :func:`measure_commits` measured.

    Attributes:
        commits: the base and head commits' full hashes.
        base, head: one run document per paired configuration (same order on both sides).
        skipped: one line per configuration not compared, with why (only on one side, or
            its environment did not install).
    """

    commits: tuple[str, str]
    base: list[Run] = field(default_factory=list)
    head: list[Run] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _pair(listed: Sequence[list[dict[str, Any]]]) -> tuple[list[list[dict[str, Any]]], list[str]]:
    """Arms present and installed on both sides, in the same order; the others, with why."""
    keyed = [
        {(e["impl"], e["config_id"], e.get("python_name", DEFAULT_PYTHON)): e for e in side}
        for side in listed
    ]
    sides: list[list[dict[str, Any]]] = [[], []]
    skipped = []
    for key in sorted(keyed[0].keys() | keyed[1].keys()):
        entries = [side.get(key) for side in keyed]
        python = "" if key[2] == DEFAULT_PYTHON else f", Python {key[2]}"
        name = f"{key[0]} ({key[1]}{python})"
        missing = [label for label, e in zip(LABELS, entries, strict=True) if e is None]
        errors = [f"{label}: {e['error']}" for label, e in zip(LABELS, entries, strict=True)
                  if e is not None and "error" in e]  # fmt: skip
        if missing:
            skipped.append(f"{name}: not in {' and '.join(missing)}")
        elif errors:
            skipped.append(f"{name}: does not install ({'; '.join(errors)})")
        else:
            for side, entry in zip(sides, entries, strict=True):
                side.append(entry)  # type: ignore[arg-type]
    return sides, skipped


def measure_commits(
    base_ref: str,
    head_ref: str,
    *,
    impls: Sequence[str],
    configs: Sequence[str],
    grid: dict[str, list[Params]],
    plan: SamplingPlan,
    machine_name: str,
    run_id: str | None = None,
    repo: Path = REPO_ROOT,
    trees: Path = TREES_DIR,
    envs_dir: Path = ENVS_DIR,
    log: Callable[[str], None] = lambda _: None,
    count: Sequence[str] | None = None,
    wall_clock: bool = True,
    pythons: Sequence[str] = (),
) -> CommitSides:
    """Measure two commits interleaved: ``plan.processes`` rounds, base then head in even
    rounds and head then base in odd ones (:func:`wsbench.instrument.interleave.side_order`).

    Args:
        base_ref, head_ref: the commits (anything ``git rev-parse`` takes).
        impls, configs: implementations and configurations to measure (empty: all), each at
            its newest listed version in that commit.
        grid: scenario -> parameter sets (e.g. ``{"echo": [{"size_bytes": 16,
            "in_flight": 64}]}``); every parameter set of every scenario is measured.
        plan: the sampling plan; ``plan.processes`` is the number of rounds.
        machine_name: the machine's name in the documents.
        run_id: the documents' run id stem (default: a new one); base's documents get
            ``<run_id>-base``, head's ``<run_id>-head``.
        repo, trees, envs_dir: the repository, where its worktrees go, where environments
            are installed.
        log: progress lines.
        count: also count the instructions per message of the sets of these scenarios
            (:mod:`wsbench.instrument.instructions`; empty: every set), each side once (the counts
            are deterministic: no rounds); None: no counting.
        wall_clock: measure the rounds (False: the documents hold only the counts).
        pythons: other Pythons each configuration's latest release is also measured on
            (the commit worker's ``arms --python``), each an arm of its own.

    Raises:
        CompareError: a commit does not exist or cannot run the worker, no configuration
            exists on both sides, or a worker's document cannot be read.
    """
    plan.validate()
    commits = (resolve(base_ref, repo), resolve(head_ref, repo))
    sides = CommitSides(commits=commits)
    run_id = run_id or store.new_run_id()
    checkouts = [checkout(sha, repo, trees) for sha in commits]
    tuning = system.check(placement_from(None, None))  # before the session loads the machine
    listed = []
    for label, sha, tree in zip(LABELS, commits, checkouts, strict=True):
        log(f"{label} {sha[:12]}: preparing environments")
        selection = [a for i in impls for a in ("--impl", i)]
        selection += [a for c in configs for a in ("--config", c)]
        # only the other Pythons: a commit from before them takes no --python
        selection += [a for p in pythons if p != DEFAULT_PYTHON for a in ("--python", p)]
        out = _worker(tree, "arms", *selection, "--envs-dir", str(envs_dir), capture=True)
        listed.append(json.loads(out))
    arms, sides.skipped = _pair(listed)
    if not arms[0]:
        raise CompareError(
            "no configuration to compare on both commits"
            + (": " + "; ".join(sides.skipped) if sides.skipped else "")
        )
    merged: list[list[list[Benchmark]]] = [[[] for _ in arms[0]] for _ in LABELS]
    firsts: list[list[Run]] = [[], []]
    counted: list[list[Run]] = [[], []]
    with tempfile.TemporaryDirectory(prefix="wsbench-commits-") as tmp:
        (Path(tmp) / "grid.json").write_text(json.dumps(grid))
        for k, side_arms in enumerate(arms):
            (Path(tmp) / f"arms-{k}.json").write_text(json.dumps(side_arms))
        for k, label in enumerate(LABELS) if count is not None else ():
            log(f"{label} {commits[k][:12]}: counting instructions under valgrind")
            out_dir = Path(tmp) / f"count-{label}"
            _worker(
                checkouts[k], "count", "--arms", str(Path(tmp) / f"arms-{k}.json"),
                "--scenarios", ",".join(count or ()), "--run-id", run_id, "--label", label,
                "--machine", machine_name, "--out", str(out_dir), tuning=tuning,
            )  # fmt: skip
            counted[k] = _load_round(out_dir, len(arms[k]))
        for r in range(plan.processes if wall_clock else 0):
            for k in side_order(len(LABELS), r):
                label, tree = LABELS[k], checkouts[k]
                log(f"round {r + 1}/{plan.processes} {label} {commits[k][:12]}")
                out_dir = Path(tmp) / f"round-{r}-{label}"
                _worker(
                    tree, "round", "--arms", str(Path(tmp) / f"arms-{k}.json"),
                    "--grid", str(Path(tmp) / "grid.json"), "--run-id", run_id,
                    "--label", label, "--machine", machine_name, "--out", str(out_dir),
                    "--windows", str(plan.windows_per_process),
                    "--warmup", str(plan.warmup_s), "--window", str(plan.window_s),
                    *_threshold_args(plan),
                    tuning=tuning,
                )  # fmt: skip
                docs = _load_round(out_dir, len(arms[k]))
                if r == 0:
                    firsts[k] = docs
                for i, doc in enumerate(docs):
                    merged[k][i] = merge_round(merged[k][i], doc.benchmarks, r)
    for k, out_side in enumerate((sides.base, sides.head)):
        if not wall_clock:
            out_side.extend(counted[k])
            continue
        for i, (first, benchmarks) in enumerate(zip(firsts[k], merged[k], strict=True)):
            settings = msgspec.structs.replace(first.settings, processes=plan.processes)
            doc = msgspec.structs.replace(
                first, benchmarks=benchmarks, settings=settings, finished_at=store.now_iso()
            )
            if counted[k]:
                doc = msgspec.structs.replace(
                    doc, counting=counted[k][i].counting, instructions=counted[k][i].instructions
                )
            out_side.append(doc)
    return sides


def _load_round(folder: Path, expected: int) -> list[Run]:
    files = sorted(folder.glob("*.json"))
    if len(files) != expected:
        raise CompareError(f"{folder.name}: {len(files)} documents, expected {expected}")
    try:
        return [load(f) for f in files]
    except FormatError as exc:
        raise CompareError(f"{folder.name}: the worker's document cannot be read: {exc}") from exc


def _threshold_args(plan: SamplingPlan) -> list[str]:
    """The worker's options for the disturbed-window thresholds that differ from the
    defaults (a commit older than these options measures with its own defaults, so they
    are passed only when asked for)."""
    default = SamplingPlan()
    args: list[str] = []
    if plan.max_other_cpu_percent != default.max_other_cpu_percent:
        args += ["--max-other-cpu", str(plan.max_other_cpu_percent)]
    if plan.max_steal_percent != default.max_steal_percent:
        args += ["--max-steal", str(plan.max_steal_percent)]
    return args
