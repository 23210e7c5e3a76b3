"""The conformance job (``./bench conformance``): each selected environment's server graded
by the Autobahn|Testsuite's fuzzing client, each grade a run document in the conformance
store.

For each environment (the same choices as ``./bench run``, new releases and shards
included: :func:`wsbench.jobs.selection.run_envs`) the job installs it
(:func:`wsbench.asv.venvs.ensure`), starts its server as the benchmarks do
(:class:`wsbench.instrument.measure.ServerSession`, on the server CPUs) and runs the fuzzing
client against its ``/echo`` (:mod:`wsbench.instrument.autobahn`, on
the load generator's CPUs). ``/echo`` is a plain WebSocket echo in every implementation
(``impls/PROTOCOL.md``), so the suite needs nothing else; the servers run with the settings
of their ``meta.toml`` (compression off, a 16 MiB message limit), shown with every grade.

The cases (:data:`CASES`): groups 1-7 and 10 on the default grid, 9 (limits: messages up to
16 MiB) too on the full grid. Groups 12-13 (permessage-deflate) are probed with their first
case each (:data:`DEFLATE_PROBES`): a server that does not agree to the extension gets
UNIMPLEMENTED there, and the group is recorded as *not offered*, with why. A Socket.IO
configuration is *not applicable*: Engine.IO frames every message in its own packets, which
the suite does not speak. A version that does not install, a server that does not start and
a suite that does not finish are recorded as an ungraded document with the reason.

The documents go to ``<store>/conformance/`` (:func:`wsbench.results.store.conformance_store`),
apart from the measurements, with the same provenance and never-overwrite rules; the suite's
own HTML report of every case that did not pass goes beside them (``<run folder>/reports/
<env_name>/``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import msgspec

from wsbench.asv import venvs
from wsbench.asv.conf import BenchEnv
from wsbench.asv.suite import default_machine_name
from wsbench.impls import Impl
from wsbench.instrument import autobahn, provenance
from wsbench.instrument.autobahn import Suite, SuiteError
from wsbench.instrument.cpus import CpuPlacement, placement_from
from wsbench.instrument.measure import ServerSession
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs.selection import MainJobError, run_envs
from wsbench.results import conformance as grading
from wsbench.results import store
from wsbench.results.runformat import Conformance, ConformanceCase, Run

CASES: dict[str, tuple[str, ...]] = {
    "default": ("1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "10.*"),
    "full": ("1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "9.*", "10.*"),
}
"""The case patterns of each grid (``--grid``)."""
DEFLATE_PROBES = ("12.1.1", "13.1.1")
"""One case of each permessage-deflate group: UNIMPLEMENTED there means the server did not
agree to the extension, and the group is not offered (:data:`NOT_OFFERED`)."""
NOT_OFFERED = (
    "the server refused permessage-deflate when the suite offered it: compression is off in "
    "this configuration (its meta.toml says how)"
)
"""Why groups 12-13 are not run when the probe finds the extension refused. A server that
agrees (hypercorn has no switch to refuse it: impls/asgi_serve.toml) keeps the probe's case
in its grade, and its groups 12-13 are not run unless asked for (``--cases 12.*``)."""
NOT_APPLICABLE = (
    "Socket.IO: Engine.IO frames each message in its own packets over the WebSocket, which "
    "the suite's plain-WebSocket cases do not speak"
)
"""Why a Socket.IO configuration is not graded."""
TIMEOUT_S: dict[str, float] = {"default": 600.0, "full": 1800.0}
"""Seconds the fuzzing client may take for one server on each grid (about 12-30 s here on
the default grid; group 9's 16 MiB messages take minutes on the slowest servers)."""
AT_ONCE = 3
"""How many servers are graded at the same time by default (``./bench conformance``, the
main job): the suite mostly waits for the servers (README "Conformance": the time, and
the grades compared with grading one at a time)."""
CLIENTS = 4
"""How many fuzzing clients grade one server at the same time by default, each a share of
its cases (``./bench conformance``, the main job)."""
REPORTS_SUBDIR = "reports"
"""The folder, in a run's folder of the conformance store, of the suite's HTML reports."""


class ConformanceError(RuntimeError):
    """Bad options: unknown names, a grid or a case pattern the job does not know."""


@dataclass(frozen=True)
class Outcome:
    """One environment's result: its row name and version, its document's path, and the
    grade (:func:`wsbench.results.conformance.grade`)."""

    row_name: str
    version: str
    path: Path
    conformance: Conformance

    @property
    def graded(self) -> bool:
        """True when the suite graded the server, or it is not applicable."""
        return self.conformance.outcome != "failed"


def _suite_cases(cases: Sequence[str]) -> list[str]:
    return [*cases, *(p for p in DEFLATE_PROBES if not any(_covers(c, p) for c in cases))]


def _covers(pattern: str, case_id: str) -> bool:
    return pattern == case_id or (pattern.endswith("*") and case_id.startswith(pattern[:-1]))


def _not_offered(cases: list[ConformanceCase], asked: Sequence[str]) -> tuple[
    list[ConformanceCase], dict[str, str]
]:  # fmt: skip
    """Leave out the deflate probes the user did not ask for, and name their groups not
    offered when the server refused the extension."""
    kept, not_offered = [], {}
    for case in cases:
        probe = case.id in DEFLATE_PROBES and not any(_covers(c, case.id) for c in asked)
        if probe and case.behavior == "UNIMPLEMENTED":
            not_offered[grading.group_of(case.id)] = NOT_OFFERED
        else:
            kept.append(case)
    return kept, not_offered


def grade_server(
    impl: Impl,
    config_id: str | None,
    suite: Suite,
    cases: Sequence[str],
    *,
    python: str,
    placement: CpuPlacement,
    timeout_s: float,
    reports_to: Path | None = None,
    clients: int = 1,
) -> Conformance:
    """Grade ``impl``'s server in configuration ``config_id`` over the case patterns
    ``cases``.

    Args:
        impl: the implementation.
        config_id: its configuration (None: the first).
        suite: the suite (:func:`wsbench.instrument.autobahn.find_suite`).
        cases: case patterns, e.g. ``["1.*", "7.1.5"]``.
        python: the interpreter of its environment.
        placement: the server's CPUs and the client's.
        timeout_s: seconds the fuzzing client may take.
        reports_to: a folder for the suite's HTML reports of the cases that did not pass
            (None: not kept).
        clients: fuzzing clients at the same time against the server, each with a share
            of the cases (:func:`wsbench.instrument.autobahn.run_fuzzing_clients`).

    Returns:
        The grade: ``outcome`` is ``"not applicable"`` for a Socket.IO configuration, and
        ``"failed"`` with the reason when the server does not start or the suite did not
        finish; a server that exits during the suite is graded, with ``error`` saying so.
    """
    asked = list(cases)
    blank = Conformance(suite.version, suite.route, asked, "failed", None, 0.0)
    if impl.config(config_id).protocol == "socketio":
        return msgspec.structs.replace(blank, outcome="not applicable", error=NOT_APPLICABLE)
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="wsbench-autobahn-") as work,
        ServerSession(impl, config_id, python=python, placement=placement) as server,
    ):
        if server.start_error is not None:
            return msgspec.structs.replace(blank, error=server.start_error)
        try:
            found = autobahn.run_fuzzing_clients(
                suite, server.url("echo"), _suite_cases(asked), Path(work),
                timeout_s=timeout_s, cpus=placement.loadgen, clients=clients,
            )  # fmt: skip
        except SuiteError as exc:
            return msgspec.structs.replace(
                blank, error=str(exc), wall_s=round(time.monotonic() - started, 1)
            )
        died = None
        if not server.alive():
            died = f"the server exited during the suite:\n{server.server.log_tail(10)}"
        kept, not_offered = _not_offered(found, asked)
        if reports_to is not None:
            _keep_reports(Path(work), kept, reports_to)
    return Conformance(
        suite=suite.version, route=suite.route, cases_selected=asked, outcome="graded",
        error=died, wall_s=round(time.monotonic() - started, 1), cases=kept,
        not_offered=not_offered,
    )  # fmt: skip


def _keep_reports(work: Path, cases: list[ConformanceCase], to: Path) -> None:
    """Copy the suite's HTML report of each case that did not pass (in any client's
    ``reports`` folder under ``work``) into ``to``."""
    for case in cases:
        if case.behavior in grading.PASSING:
            continue
        for page in work.glob(f"client-*/reports/*_case_{case.id.replace('.', '_')}.html"):
            to.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, to / page.name)


@dataclass(frozen=True)
class ConformanceOptions:
    """What ``./bench conformance`` grades (its options, :mod:`wsbench.commands.conformance`).

    Attributes:
        impl: implementations by name (None: all).
        config: configuration ids (None: all).
        versions: ``"latest"`` or ``"all"``.
        environment: exactly these environments by asv name (without ``impl``/``config``).
        grid: ``"default"`` or ``"full"`` (:data:`CASES`).
        cases: case patterns instead of the grid's (e.g. ``["6.*", "7.1.5"]``).
        results: the results store; documents go to its ``conformance/`` folder (None:
            ``WSBENCH_RESULTS`` or ``results/``).
        machine: the machine's name in the documents (None: asv's, else the host name).
        server_cpus: CPU list for the servers (None: the default, 0).
        client_cpus: CPU list for the fuzzing client (None: the load generator's, 1).
        new_releases: also every release newer than the last listed (as ``./bench run
            --new-releases``).
        shard: ``"I/N"``: only shard I of N of the environments (as ``./bench run
            --shard``).
        run_id: the documents' run id (None: a new one).
        at_once: how many servers are graded at the same time (:func:`grade_all`).
        clients: how many fuzzing clients grade each server (:func:`grade_server`).
    """

    impl: Sequence[str] | None = None
    config: Sequence[str] | None = None
    versions: str = "latest"
    environment: Sequence[str] | None = None
    grid: str = "default"
    cases: Sequence[str] | None = None
    results: Path | None = None
    machine: str | None = None
    server_cpus: str | None = None
    client_cpus: str | None = None
    new_releases: bool = False
    shard: str | None = None
    run_id: str | None = None
    at_once: int = AT_ONCE
    clients: int = CLIENTS


def cases_of(grid: str, cases: Sequence[str] | None = None) -> list[str]:
    """The case patterns to run: ``cases`` checked (:func:`check_cases`), else ``grid``'s.

    Raises:
        ConformanceError: an unknown grid or case pattern.
    """
    if grid not in CASES:
        raise ConformanceError(f"unknown grid {grid!r} (known: {', '.join(CASES)})")
    return check_cases(cases) if cases else list(CASES[grid])


def check_cases(patterns: Sequence[str]) -> list[str]:
    """``patterns`` checked: each a case id or a prefix ending in ``*`` (``"6.*"``,
    ``"7.1.5"``) of a known group.

    Raises:
        ConformanceError: a pattern of no known group (the message lists the groups).
    """
    for pattern in patterns:
        if grading.group_of(pattern) not in grading.GROUPS:
            groups = ", ".join(grading.GROUPS)
            raise ConformanceError(
                f"case pattern {pattern!r}: no case group {grading.group_of(pattern)!r} "
                f"(the suite's groups: {groups}; e.g. 6.* or 7.1.5)"
            )
    return list(patterns)


def grade_env(
    env: BenchEnv,
    suite: Suite,
    cases: Sequence[str],
    *,
    placement: CpuPlacement,
    timeout_s: float,
    root: Path,
    machine: str,
    run_id: str,
    clients: int = 1,
) -> Outcome:
    """Grade ``env`` (:func:`grade_server`, with ``clients`` fuzzing clients) and save its
    document in ``root`` (a conformance store) under ``run_id``."""
    version = env.version.version if env.version else None
    try:  # a Socket.IO configuration is not applicable: nothing to install
        python = sys.executable if env.config.protocol == "socketio" else str(venvs.ensure(env))
        why = None
    except venvs.VenvError as exc:
        python, why = "", f"does not install: {exc}".split("\n")[0]
    run: Run = provenance.new_run(
        run_id=run_id, machine_name=machine, settings=SamplingPlan().settings(placement, 1),
        impl=env.impl, config=env.config, env_name=env.name, version=version,
        install_error=why, python=python or None,
    )  # fmt: skip
    path = store.run_path(
        root, machine=machine, run_id=run_id, commit=run.harness.commit, env_name=env.name
    )
    reports_to = path.parent / REPORTS_SUBDIR / env.name
    if why is not None:
        graded = Conformance(suite.version, suite.route, list(cases), "failed", why, 0.0)
    else:
        graded = grade_server(
            env.impl, env.config.id, suite, cases, python=python, placement=placement,
            timeout_s=timeout_s, reports_to=reports_to, clients=clients,
        )  # fmt: skip
    done = msgspec.structs.replace(run, conformance=graded, finished_at=store.now_iso())
    store.save(done, root)
    return Outcome(env.row_name, version or "", path, graded)


def grade_all(
    envs: Sequence[BenchEnv],
    suite: Suite,
    grid: str,
    *,
    cases: Sequence[str] | None = None,
    placement: CpuPlacement,
    root: Path,
    machine: str,
    run_id: str,
    log: Callable[[str], None],
    at_once: int = 1,
    clients: int = 1,
) -> list[Outcome]:
    """Grade each of ``envs`` (:func:`grade_env`) on ``grid``'s cases (or ``cases``), up to
    ``at_once`` of them at the same time (each its own server and fuzzing client, on the
    same CPUs: the client mostly waits on the suite's timers), each with ``clients`` fuzzing
    clients (:func:`grade_server`), each document saved in the
    conformance store ``root`` under ``run_id``; ``log`` gets one line per environment as
    its grading starts.

    Returns:
        The outcomes in the order of ``envs``.

    Raises:
        ConformanceError: an unknown grid or case pattern, or ``at_once`` below 1.
    """
    patterns = cases_of(grid, cases)
    if at_once < 1:
        raise ConformanceError(f"at_once must be at least 1, not {at_once}")

    def one(i: int, env: BenchEnv) -> Outcome:
        version = env.version.version if env.version else ""
        log(f"[{i}/{len(envs)}] {env.row_name} {version}")
        return grade_env(
            env, suite, patterns, placement=placement, timeout_s=TIMEOUT_S[grid],
            root=root, machine=machine, run_id=run_id, clients=clients,
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=at_once) as pool:
        return list(pool.map(one, range(1, len(envs) + 1), envs))


def run(options: ConformanceOptions, log: Callable[[str], None] | None = None) -> int:
    """``./bench conformance``: grade (see :class:`ConformanceOptions`), then print one line
    per environment (counts per verdict, the failed cases) and the wall times.

    Returns:
        0 when every environment was graded (or is not applicable), 1 when one was not
        (its document says why).

    Raises:
        ConformanceError: an unknown grid or case pattern, or a malformed run id.
        wsbench.jobs.selection.MainJobError: an unknown implementation, configuration or
            environment, or a malformed shard.
        wsbench.instrument.autobahn.SuiteError: the suite's environment cannot be found
            or made.
        wsbench.cpulist.CpuSetError: a malformed CPU list.
    """
    say = log or (lambda line: print(f"wsbench: {line}", file=sys.stderr))
    cases = cases_of(options.grid, options.cases)
    if options.run_id:
        try:
            store.check_run_id(options.run_id)
        except ValueError as exc:
            raise ConformanceError(str(exc)) from exc
    envs = run_envs(
        options.impl, options.versions, options.config, options.environment,
        new_releases=options.new_releases, shard=options.shard,
    )  # fmt: skip
    if not envs:
        if options.shard:
            print(f"wsbench: shard {options.shard} has no environment: nothing to grade")
            return 0
        raise MainJobError("no environment selected")
    placement = placement_from(options.server_cpus, options.client_cpus)
    started = time.monotonic()
    suite = autobahn.find_suite(log=say)
    say(f"{suite.version} by {suite.route}; cases {', '.join(cases)}")
    root = store.conformance_store(options.results or store.root_from_env())
    machine = options.machine or default_machine_name()
    run_id = options.run_id or store.new_run_id()
    outcomes = grade_all(
        envs, suite, options.grid, cases=options.cases, placement=placement, root=root,
        machine=machine, run_id=run_id, log=say, at_once=options.at_once,
        clients=options.clients,
    )  # fmt: skip
    minutes, seconds = divmod(round(time.monotonic() - started), 60)
    print(to_text(outcomes))
    print(
        f"run {run_id}: {len(outcomes)} environments graded in {minutes} min {seconds} s; "
        f"documents in {root / machine / run_id}"
    )
    return 0 if all(o.graded for o in outcomes) else 1


def to_text(outcomes: Sequence[Outcome]) -> str:
    """A table of the outcomes: grade, counts per verdict, seconds, the failed cases."""
    head = ["configuration", "version", "grade", *grading.VERDICTS, "s", "failed cases"]
    rows = []
    for o in outcomes:
        graded = grading.grade(o.conformance)
        tally = [sum(1 for c in o.conformance.cases if c.behavior == v) for v in grading.VERDICTS]
        failed = ", ".join(c.id for c in grading.failed(o.conformance))
        if o.conformance.outcome != "graded":
            failed = graded.text.split("\n")[0][:60]
        rows.append(
            [
                o.row_name,
                o.version,
                graded.symbol,
                *(str(n) for n in tally),
                f"{o.conformance.wall_s:.1f}",
                failed,
            ]
        )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head) - 1)]
    lines = []
    for row in [head, *rows]:
        pairs = enumerate(zip(row, widths, strict=False))
        cells = [c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in pairs]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)
