"""The main job (``./bench run``): build the load generator, benchmark with asv, grade, build
the site.

Steps, each announced as ``[i/n]``:

1. build the load generator (``cargo build --release``) when missing or stale;
2. register this machine with asv under clean names (:mod:`wsbench.asv.machines`);
3. write asv.conf.json from the metadata if it is stale (never needed on a clean clone);
4. ``asv run HEAD^!`` (or the ``--commits`` given) over the selected environments
   (default: the latest version of each implementation and the native reference) with the
   chosen sampling plan, as one run (one run id, :mod:`wsbench.results.store`), holding the
   results store (a second run writing to the same store waits for this one,
   :func:`wsbench.results.store.held`); then check that every document was written whole
   (:mod:`wsbench.jobs.written`). Beside the grid (:mod:`wsbench.mainplan`), every Python
   configuration is profiled in one more window of its last server process
   (:mod:`wsbench.asv.profiling`), and the axis configurations are measured in the
   deployment profiles and on a second Python;
5. grade every selected configuration by the Autobahn|Testsuite
   (:func:`wsbench.jobs.conformance.grade_all`), into the store's conformance folder;
6. ``mkdocs build --strict`` into ``public/`` (:func:`build_site`: a warning, e.g. a
   malformed document in the store, fails it).

``--grid-only`` leaves out everything but the grid (the nightly's runs, which grade and
profile in steps of their own). Earlier results are never deleted: each run adds its own
documents to the results store.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from wsbench import mainplan
from wsbench.asv import conf as asvconf
from wsbench.asv import machines, profiling
from wsbench.asv.conf import BenchEnv
from wsbench.asv.suite import (
    DEPLOYMENT_ENV,
    GRID_ENV,
    INSTRUCTIONS_ENV,
    PARAMS_ENV,
    SCENARIOS_ENV,
    SECOND_PYTHON_ENV,
    grid_combinations,
)
from wsbench.cpulist import cpu_list
from wsbench.instrument import autobahn, lifetime, loadgen, machine, profile, system, waitbudget
from wsbench.instrument.cpus import (
    LOADGEN_CPUS_ENV,
    SERVER_CPUS_ENV,
    CpuPlacement,
    placement_from,
)
from wsbench.instrument.sampling import SamplingPlan
from wsbench.instrument.waitbudget import WaitBudget, waits_spent
from wsbench.jobs import conformance
from wsbench.jobs.commits import resolve
from wsbench.jobs.selection import MainJobError, run_envs, run_pythons
from wsbench.jobs.written import unwritten
from wsbench.paths import REPO_ROOT, SITE_DIR
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results import store
from wsbench.results.compare import CompareError
from wsbench.scenarios import (
    DEFAULT_GRID_PROCESSES,
    DEFAULT_GRID_WINDOWS_PER_PROCESS,
    Grid,
    Params,
    Scenario,
    selection,
)

STEPS = 6
ASV = (sys.executable, "-m", "wsbench.asv.main")
"""asv's command line, run as :mod:`wsbench.asv.main` (its configuration read faster)."""
ASV_DONE_CODES = (0, 2)
"""asv run's exit codes when it ran: 0 all passed, 2 some benchmark failed (recorded as such)."""
THIS_COMMIT = "HEAD^!"
"""``asv run``'s commit argument for the checked-out commit alone (the default)."""


@dataclass(frozen=True)
class MainJobOptions:
    """What the main job runs (``./bench run``'s options, :mod:`wsbench.commands.run`).

    Attributes:
        impl: the implementations (None: all).
        config: the configuration ids (None: all).
        versions: ``"latest"`` (each one's latest release) or ``"all"`` (the matrix).
        environment: exactly these asv environments, by name (None: chosen by the above).
        scenario: the scenarios (None: every one with a parameter set in the grid).
        grid: ``"default"`` or ``"full"``.
        param: ``NAME=V[,V...]`` filters of the grid's parameter sets.
        plan: server processes, windows, warm-up and window.
        server_cpus, loadgen_cpus: CPU lists (None: the defaults, 0 and 1).
        machine: asv's machine name.
        commits: the commits, as asv run takes them.
        new_releases: also every release newer than the last listed (the nightly).
        python: the Pythons (``"3.12"``, ``"3.14t"``, or ``"all"``: every one of
            :data:`wsbench.pythons.PYTHONS` this machine has): the default Python's
            environments as selected, each other's with the latest releases only
            (:func:`wsbench.jobs.selection.run_pythons`).
        shard: ``"I/N"``: only shard I of N of the environments.
        run_id: the run's id (None: a new one).
        instructions: also count instructions per message under valgrind.
        no_site: skip building the site.
        grid_only: measure the grid only: no conformance grades, profiles, deployment
            profiles or second Python (:mod:`wsbench.mainplan`; the nightly's runs, which
            take those steps themselves).
    """

    impl: Sequence[str] | None = None
    config: Sequence[str] | None = None
    versions: str = "latest"
    environment: Sequence[str] | None = None
    scenario: Sequence[str] | None = None
    grid: Grid = "default"
    param: Sequence[str] = ()
    plan: SamplingPlan = field(default_factory=SamplingPlan)
    server_cpus: str | None = None
    loadgen_cpus: str | None = None
    machine: str = "wsbench-local"
    commits: str = THIS_COMMIT
    new_releases: bool = False
    python: Sequence[str] = (DEFAULT_PYTHON,)
    shard: str | None = None
    run_id: str | None = None
    instructions: bool = False
    no_site: bool = False
    grid_only: bool = False


def grid_windows(grid: str) -> int:
    """``--windows``' default on ``grid``: on the default grid
    :data:`~wsbench.scenarios.DEFAULT_GRID_WINDOWS_PER_PROCESS`, on the full grid the
    sampling plan's default."""
    if grid == "default":
        return DEFAULT_GRID_WINDOWS_PER_PROCESS
    return SamplingPlan().windows_per_process


def grid_processes(grid: str) -> int:
    """``--processes``' default on ``grid``: on the default grid
    :data:`~wsbench.scenarios.DEFAULT_GRID_PROCESSES`, on the full grid the sampling plan's
    default."""
    if grid == "default":
        return DEFAULT_GRID_PROCESSES
    return SamplingPlan().processes


ASV_COMMIT_WORDS = ("ALL", "NEW", "EXISTING")
"""``asv run``'s commit arguments that name no commit of their own."""


def commit_refs(commits: str) -> list[str]:
    """The commits an ``asv run`` commit argument names: both ends of ``A..B`` or
    ``A...B``, ``A`` of ``A^!`` or ``A``; none for asv's words (:data:`ASV_COMMIT_WORDS`) and
    ``HASHFILE:``."""
    if commits in ASV_COMMIT_WORDS or commits.startswith("HASHFILE:"):
        return []
    if commits.endswith("^!"):
        return [commits[:-2]]
    for separator in ("...", ".."):
        if separator in commits:
            return [part or "HEAD" for part in commits.split(separator, 1)]
    return [commits]


def check_commits(commits: str, repo: Path = REPO_ROOT) -> None:
    """Refuse ``--commits`` naming a commit this repository does not have, before asv does
    (asv ends in a traceback).

    Raises:
        MainJobError: ``"--commits zzz..HEAD: no commit 'zzz' in /repo"``.
    """
    for ref in commit_refs(commits):
        try:
            resolve(ref, repo)
        except CompareError as exc:
            raise MainJobError(f"--commits {commits}: {exc}") from None


def _step(i: int, text: str) -> None:
    print(f"\n[{i}/{STEPS}] {text}", flush=True)


def machine_info(name: str) -> dict[str, str]:
    """asv's description of this machine under ``name`` (:data:`wsbench.asv.machines.FIELDS`),
    read from the machine, with no spaces in the OS and CPU strings."""
    ram_gib = round(psutil.virtual_memory().total / 2**30)
    return {
        "machine": name,
        "os": re.sub(r"\s+", "_", machine.kernel()),
        "arch": platform.machine(),
        "cpu": re.sub(r"\s+", "_", machine.cpu_model()),
        "num_cpu": str(machine.cpu_count()),
        "ram": f"{ram_gib}GiB",
    }


def register_machine(name: str) -> None:
    """Record this machine with asv as ``name`` (:func:`wsbench.asv.machines.register`).

    Raises:
        MainJobError: asv's machine file cannot be read or written.
    """
    try:
        machines.register(machine_info(name))
    except machines.MachineFileError as exc:
        raise MainJobError(f"registering the asv machine: {exc}") from exc


EXTRA_CONF = REPO_ROOT / ".asv.new-releases.conf.json"
"""asv's configuration when a run has environments meta.toml does not list (new releases):
the committed one plus those. Ignored by git. Beside asv.conf.json because asv changes into
its configuration file's folder (``asv/main.py``), so the relative paths in it (the
repository ``"."``, the plugin, the benchmark and result folders) must mean the same."""


def bench_patterns(grids: Mapping[Scenario, Sequence[Params]], commits: str) -> list[str]:
    r"""asv's ``--bench`` regular expressions for a run of ``grids`` over ``commits``.

    asv matches a parameterized benchmark's ``name(v1, v2, ...)`` against them and runs
    only the combinations that match, recording the others as skipped without a process.
    Every combination it runs is a process forked for each ``track_*`` method, whether
    ``setup`` then skips it or not; asv's ``params`` are every value of every axis (echo:
    48 combinations, clients: 160), so over the default grid an environment forked 1,012
    processes, 38 of them for a measured set (about 12 ms each: a short main job of one set
    took 10.3-11.0 s from a clean clone with them all, 6.1-7.0 s without; the default main
    job 22 min 53 s, against 26 min 53 s to 29 min 48 s before). At :data:`THIS_COMMIT` the
    suite is this checkout's, so each scenario's pattern names exactly the combinations of
    its sets (:func:`wsbench.asv.suite.grid_combinations`). Another commit's suite may have
    other ``params``: its patterns name the scenarios only (``^(echo|stream)\.``), as every
    run did before.

    Returns:
        One pattern a scenario at :data:`THIS_COMMIT`; else one naming every scenario.
    """
    if commits != THIS_COMMIT:
        return ["^(" + "|".join(re.escape(s) for s in grids) + r")\."]
    patterns = []
    for scenario, sets in grids.items():
        combinations = "|".join(
            re.escape(", ".join(str(v) for v in c)) for c in grid_combinations(scenario, sets)
        )
        patterns.append(rf"^{re.escape(scenario)}\.\w+\.track_\w+\(({combinations})\)$")
    return patterns


def asv_command(
    envs: list[BenchEnv],
    patterns: Sequence[str],
    machine_name: str,
    commits: str = THIS_COMMIT,
    config: Path | None = None,
) -> list[str]:
    """The ``asv run`` command line for these environments, benchmark patterns
    (:func:`bench_patterns`) and commits (with ``config`` instead of ``asv.conf.json`` when
    given).

    ``--launch-method forkserver``: asv imports the benchmark suite once per environment
    and forks a process for each ``track_*`` method, instead of starting a Python
    interpreter for each (``spawn``). With one configuration of websockets over the
    default grid (15 ``track_*`` methods), ``spawn`` took 74.8 s and ``forkserver``
    49.5 s, with the same figures: the measurement itself runs once per class, in
    ``setup_cache``, in a fresh fork either way.
    """
    argv = [*ASV, "run", commits, "--machine", machine_name, "--launch-method", "forkserver"]
    if config is not None:
        argv += ["--config", str(config)]
    for env in envs:
        argv += ["--environment", env.name]
    for pattern in patterns:
        argv += ["--bench", pattern]
    return argv


def run(options: MainJobOptions) -> int:
    """Run the main job; returns the exit code.

    Raises:
        MainJobError: bad input (an unknown implementation, a ``--param`` that is malformed
            or selects nothing: :mod:`wsbench.scenarios.selection`), checked before any
            step, or a step failed (build, asv or mkdocs failure).
        wsbench.results.store.StoreError: the results store cannot be written (checked before
            anything is built), or a document was not written or not finished (after asv).
    """
    placement = placement_from(options.server_cpus, options.loadgen_cpus)  # validate them first
    if options.run_id:
        try:
            store.check_run_id(options.run_id)
        except ValueError as exc:
            raise MainJobError(str(exc)) from exc
    plan = options.plan
    try:  # before anything is built: a --param that selects nothing is refused here
        grids = selection.select(options.grid, options.scenario or (), options.param)
    except ValueError as exc:
        raise MainJobError(str(exc)) from exc
    check_commits(options.commits)
    results = store.root_from_env()
    try:
        store.check_writable(results, options.machine)
    except store.StoreError as exc:
        raise store.StoreError(f"the results store {results}: {exc}", exc.errno) from exc
    pythons = run_pythons(options.python)
    envs = run_envs(
        options.impl, options.versions, options.config, options.environment,
        new_releases=options.new_releases, shard=options.shard, pythons=pythons,
    )  # fmt: skip
    axis: list[BenchEnv] = []
    second = None
    if not options.grid_only:
        narrowed = bool(options.impl or options.config or options.environment)
        axis = axis_envs(envs, narrowed)
        if list(options.python) == [DEFAULT_PYTHON] and not options.environment:
            second = mainplan.second_python(run_pythons(["all"], log=lambda _: None))
        if second is not None:
            envs += [asvconf.on_python(e, second) for e in axis if not e.impl.reference]
    if options.shard and not envs:
        print(f"wsbench: shard {options.shard} has no environment: nothing to measure")
        return 0
    if not envs:
        raise MainJobError("no environment selected")
    listed = {e.name for e in asvconf.bench_envs()}
    extra = [e for e in envs if e.name not in listed]
    if extra:
        added = ", ".join(f"{e.row_name} on Python {e.python}" for e in extra)
        print(f"  not in asv.conf.json (new releases, other Pythons): {added}")

    _step(1, "building the load generator")
    binary = loadgen.ensure_built()
    print(f"  {binary} ({loadgen.version(binary)})")

    _step(2, f"registering this machine with asv as {options.machine!r}")
    register_machine(options.machine)

    _step(3, "checking asv.conf.json against impls/*/meta.toml")
    if not asvconf.is_in_sync():
        asvconf.write()
        print("  asv.conf.json was stale: regenerated")
    else:
        print("  up to date")

    tuning = system.check(placement)
    print("  machine tuning (./bench system check):")
    print("".join(f"    {line}\n" for line in system.to_text(tuning).splitlines()), end="")
    conf_path = None
    if extra:
        EXTRA_CONF.write_text(asvconf.render(asvconf.asv_conf(extra=extra)), encoding="utf-8")
        conf_path = EXTRA_CONF
    names = ", ".join(e.name for e in envs)
    run_id = options.run_id or store.new_run_id()
    _step(4, f"benchmarking {len(envs)} environment(s) with asv as run {run_id}: {names}")
    print(
        f"  {plan.processes} server processes x {plan.windows_per_process} windows of "
        f"{plan.window_s:g} s (after {plan.warmup_s:g} s of warm-up each) per parameter set, "
        f"{options.grid} grid"
    )
    if placement.multi_server:
        print(f"  the multi-CPU profiles' server on CPUs {cpu_list(placement.multi_server)}")
    env = {
        **os.environ,
        "WSBENCH_PROCESSES": str(plan.processes),
        "WSBENCH_WINDOWS": str(plan.windows_per_process),
        "WSBENCH_WARMUP_S": str(plan.warmup_s),
        "WSBENCH_WINDOW_S": str(plan.window_s),
        waitbudget.BUDGET_ENV: str(plan.wait_budget_s),
        "WSBENCH_MACHINE": options.machine,
        store.ROOT_ENV: str(results),
        store.RUN_ID_ENV: run_id,
        system.SYSTEM_ENV: system.encode(tuning),
        SERVER_CPUS_ENV: cpu_list(placement.server),  # as resolved above, options first
        LOADGEN_CPUS_ENV: cpu_list(placement.loadgen),
        GRID_ENV: options.grid,
        PARAMS_ENV: ";".join(options.param),
        INSTRUCTIONS_ENV: "1" if options.instructions else "",
        DEPLOYMENT_ENV: ",".join(f"{e.impl.name}:{e.config.id}@{e.python}" for e in axis),
        SECOND_PYTHON_ENV: second or "",
        profiling.PROFILE_ENV: "" if options.grid_only else profile.py_spy(),
    }
    env[SCENARIOS_ENV] = ",".join(grids)  # measured together by the shared setup_cache
    holder = f"run {run_id} ({options.machine}), pid {os.getpid()}, since {store.now_iso()}"
    with (
        store.held(results, holder, lambda other: print(f"  waiting for {other}", flush=True)),
        tempfile.TemporaryDirectory(prefix="wsbench-run-") as scratch,
    ):
        env[store.FAULTS_ENV] = str(Path(scratch) / "faults.txt")
        budget = WaitBudget(plan.wait_budget_s, Path(scratch) / "waits.txt")
        env[waitbudget.ACCOUNT_ENV] = str(budget.account)
        patterns = bench_patterns(with_axis_sets(grids, axis), options.commits)
        code = subprocess.run(
            asv_command(envs, patterns, options.machine, options.commits, conf_path),
            cwd=REPO_ROOT,
            env=env,
            check=False,
            preexec_fn=lifetime.child_dies_with_parent(),  # see wsbench.instrument.lifetime
        ).returncode
        said = Path(env[store.FAULTS_ENV])
        why = said.read_text(encoding="utf-8").splitlines() if said.is_file() else []
        waited = budget.taken()
    if code not in ASV_DONE_CODES:
        raise MainJobError(f"asv run exited {code}")
    run_dir = results / options.machine / run_id
    head = resolve("HEAD")
    missing = unwritten(run_dir, [e.name for e in envs if e.python != second], grids, head)
    if second is not None:  # measured in fewer scenarios there (wsbench.mainplan)
        fewer = {s: g for s, g in grids.items() if s in mainplan.SECOND_PYTHON_SCENARIOS}
        missing += unwritten(run_dir, [e.name for e in envs if e.python == second], fewer, head)
    if missing:
        raise store.StoreError(
            f"run {run_id}: results not written to {run_dir}:\n"
            + "\n".join(f"  {line}" for line in [*missing, *why]),
            0,
        )
    print(f"  waited retries: {waits_spent(waited, plan.wait_budget_s)}")
    if code == 2:
        print("  some benchmarks failed: their reasons are in the run's documents and on the site")
    print(f"  run {run_id}: {run_dir}")

    ungraded = None
    if options.grid_only:
        _step(5, "conformance: not graded (--grid-only)")
    else:
        graded = [e for e in envs if e.python == DEFAULT_PYTHON]
        _step(5, f"grading {len(graded)} configuration(s) by the Autobahn|Testsuite, "
                 f"{conformance.AT_ONCE} at a time")  # fmt: skip
        ungraded = grade(graded, results, options.machine, run_id, placement)

    if not options.no_site:
        _step(6, "building the site (mkdocs build --strict)")
        build_site(results)
    if ungraded:
        raise MainJobError(ungraded)
    if not options.no_site:
        print(f"\nwsbench: done. Open {SITE_DIR / 'index.html'}")
    return 0


def axis_envs(envs: Sequence[BenchEnv], narrowed: bool) -> list[BenchEnv]:
    """The environments of ``envs`` measured on every axis (:mod:`wsbench.mainplan`): the
    latest releases on the default Python of :func:`wsbench.mainplan.axis_config_ids`."""
    latest = [e for e in envs if e.is_default and e.python == DEFAULT_PYTHON]
    wanted = mainplan.axis_config_ids([(e.impl.name, e.config.id) for e in latest], narrowed)
    return [e for e in latest if (e.impl.name, e.config.id) in wanted]


def with_axis_sets(
    grids: Mapping[Scenario, Sequence[Params]], axis: Sequence[BenchEnv]
) -> dict[Scenario, list[Params]]:
    """``grids`` with the deployment profiles' sets (:func:`wsbench.mainplan.
    deployment_sets`) when some environment is measured in them (``axis``) and ``grids``
    hold their scenario: the sets asv is to run (:func:`bench_patterns`)."""
    scenario = mainplan.DEPLOYMENT_SET[0]
    out = {s: list(sets) for s, sets in grids.items()}
    if axis and scenario in out:
        out[scenario] += [p for p in mainplan.deployment_sets() if p not in out[scenario]]
    return out


def grade(
    envs: Sequence[BenchEnv], results: Path, machine_name: str, run_id: str,
    placement: CpuPlacement,
) -> str | None:  # fmt: skip
    """Grade ``envs`` (:func:`wsbench.jobs.conformance.grade_all`, the default grid's cases,
    :data:`wsbench.jobs.conformance.AT_ONCE` at a time) into the conformance store of
    ``results`` under ``run_id``, and print their table.

    Returns:
        None when the suite ran (an environment it could not grade is recorded as such,
        with why, like a benchmark that failed); else why the suite could not run.
    """
    try:
        suite = autobahn.find_suite(log=lambda line: print(f"  {line}", flush=True))
    except autobahn.SuiteError as exc:
        return f"conformance not graded: {exc}"
    outcomes = conformance.grade_all(
        envs, suite, "default", placement=placement, root=store.conformance_store(results),
        machine=machine_name, run_id=run_id, at_once=conformance.AT_ONCE,
        clients=conformance.CLIENTS,
        log=lambda line: print(f"  {line}", flush=True),
    )  # fmt: skip
    print("".join(f"  {line}\n" for line in conformance.to_text(outcomes).splitlines()), end="")
    failed = [o.row_name for o in outcomes if not o.graded]
    if failed:
        print(f"  not graded (their documents and the site say why): {', '.join(failed)}")
    return None


MKDOCS_CHATTER = re.compile(r"(DEBUG|INFO)\s+-  ")
"""How a line of mkdocs' output that is only progress (a DEBUG or INFO record) starts."""


def mkdocs_report(output: str) -> list[str]:
    """The lines of mkdocs' ``output`` a reader must see: every non-blank line but its
    DEBUG and INFO records (warnings, errors, tracebacks, the strict mode's verdict)."""
    return [line for line in output.splitlines() if line.strip() and not MKDOCS_CHATTER.match(line)]


def build_site(results: Path, site_dir: Path = SITE_DIR) -> None:
    """``mkdocs build --strict`` of the site from the results store ``results`` into
    ``site_dir``: any warning fails it, among them a file of the store that is not a valid
    run document (:func:`wsbench.site.results.results_of` logs one warning per file, naming
    its path and reason).

    Not ``--quiet``: it sets mkdocs' logger to ERROR, which drops the warnings before the
    strict mode counts them. Instead mkdocs' output is captured and only
    :func:`mkdocs_report` of it is shown (on stderr when the build passes).

    Raises:
        MainJobError: mkdocs failed; the message holds its warnings and errors.
    """
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", store.ROOT_ENV: str(results.resolve())}
    argv = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    proc = subprocess.run(argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)
    report = mkdocs_report(proc.stderr + "\n" + proc.stdout)
    if proc.returncode != 0:
        said = "\n".join(report) or "(no output)"
        raise MainJobError(
            f"building the site failed (mkdocs build --strict exited {proc.returncode}):\n{said}"
        )
    if report:
        print("\n".join(report), file=sys.stderr)
