"""The client libraries' job (``./bench clients``): every client environment measured against
the native reference server, each result a run document in the client store.

A client environment is one (client library, configuration, version) of ``clients/*/
meta.toml`` (:func:`client_envs`), installed with uv like the servers' environments
(:func:`wsbench.asv.venvs.ensure`: the library at its version, the configuration's pins and the
kit's own, :data:`KIT_REQUIRES`). Its program drives the native reference server in the
load generator's place (:class:`wsbench.instrument.measure.ServerSession`, ``client``): the server
on the server CPUs, the client on the load generator's, one fresh client process per window,
over :data:`wsbench.scenarios.CLIENT_GRID`, sampled by the plan like a server (fresh server
processes, windows per process, disturbed windows measured again). The documents go to
``<store>/clients/`` (:func:`wsbench.results.store.client_store`), apart from the servers' so that
a client run never becomes the servers' newest run; a version that does not install is a
document whose benchmarks failed with uv's reason.

The options are :class:`ClientsOptions` (the command line is :mod:`wsbench.commands.clients`'s).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from wsbench.asv import venvs
from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.asv.suite import default_machine_name
from wsbench.impls import ImplError, all_impls, get_impl
from wsbench.instrument import loadgen, provenance
from wsbench.instrument.cpus import CpuPlacement, placement_from
from wsbench.instrument.measure import HOST
from wsbench.instrument.sampling import SamplingPlan, sample_scenario
from wsbench.paths import CLIENTS_DIR
from wsbench.results import store
from wsbench.results.runformat import Benchmark, Run
from wsbench.scenarios import CLIENT_GRID, Scenario, params_key

KIT_REQUIRES = {"hdrhistogram": "0.10.8"}
"""What the client kit (``clients/clientkit.py``) needs beside the library: hdrhistogram
for the latency summary, the same 3-significant-digit HdrHistogram as the load
generator's."""
REFERENCE = "native"
"""The server every client library drives: the native reference (its ``websocket`` or
``socketio`` configuration, as the library's protocol)."""


def client_envs(
    names: Sequence[str] | None = None,
    configs: Sequence[str] | None = None,
    versions: str = "latest",
    root: Path = CLIENTS_DIR,
) -> list[BenchEnv]:
    """The client environments to measure: every (library, configuration, version) of
    ``root``'s metadata, narrowed to the libraries ``names`` and configurations ``configs``
    (None: all), at the latest version each configuration exists at (``versions =
    "latest"``) or every version (``"all"``); the kit's requirements are added to each.

    Raises:
        ImplError: an unknown library or configuration (the message lists the known ones).
    """
    clients = all_impls(root)
    known = {c.name for c in clients}
    for name in names or ():
        if name not in known:
            raise ImplError(f"unknown client {name!r} (known: {', '.join(sorted(known))})")
    chosen = [c for c in clients if not names or c.name in names]
    ids = {config.id for c in chosen for config in c.configs}
    for config_id in configs or ():
        if config_id not in ids:
            raise ImplError(f"no client configuration {config_id!r} (known: {sorted(ids)})")
    envs = []
    for env in bench_envs(chosen):
        if configs and env.config.id not in configs:
            continue
        if versions == "latest" and not env.is_default:
            continue
        config = dataclasses.replace(env.config, requires={**KIT_REQUIRES, **env.config.requires})
        envs.append(dataclasses.replace(env, config=config))
    return envs


@dataclass(frozen=True)
class Outcome:
    """One client environment's result: the row name, the document's path, and the failed
    benchmarks' reasons (``{"echo in_flight=1,size_bytes=16": reason}``; empty when all
    passed)."""

    row_name: str
    version: str
    path: Path
    failures: dict[str, str]

    @property
    def passed(self) -> bool:
        """True when every benchmark of the environment passed."""
        return not self.failures


def measure_env(
    env: BenchEnv,
    *,
    plan: SamplingPlan,
    scenarios: Sequence[Scenario],
    placement: CpuPlacement,
    root: Path,
    machine: str,
    run_id: str,
    log: Callable[[str], None] = lambda _: None,
) -> Outcome:
    """Install ``env`` and sample its program over :data:`CLIENT_GRID` of ``scenarios``
    against the native reference server; the document is saved after every window.

    Returns:
        The outcome; a version that does not install fails every benchmark with uv's reason
        (the document records it as ``environment.install_error``).

    Raises:
        wsbench.instrument.loadgen.LoadgenError: the load generator (the reference server) cannot be
            built.
    """
    version = env.version.version if env.version else None
    reference = get_impl(REFERENCE)
    server_config = "socketio" if env.config.protocol == "socketio" else "websocket"
    install_error = None
    command: list[str] = []
    try:
        python = venvs.ensure(env)
    except venvs.VenvError as exc:
        install_error = str(exc).split("\n", 1)[0]
    else:
        command = env.impl.argv(
            python=str(python),
            loadgen=loadgen.ensure_built(quiet=True),
            host=HOST,
            port=0,
            config=env.config,
        )
    run: Run = provenance.new_run(
        run_id=run_id,
        machine_name=machine,
        settings=plan.settings(placement, 1),
        impl=env.impl,
        config=env.config,
        env_name=env.name,
        version=version,
        install_error=install_error,
        python=str(python) if install_error is None else None,
    )
    benchmarks: list[Benchmark] = []

    path = store.run_path(
        root, machine=machine, run_id=run_id, commit=run.harness.commit, env_name=env.name
    )

    def save(current: list[Benchmark]) -> None:
        done = msgspec.structs.replace(
            run, benchmarks=[*benchmarks, *current], finished_at=store.now_iso()
        )
        store.save(done, root)

    save([])
    for scenario in scenarios:
        grid = [dict(p) for p in CLIENT_GRID[scenario]]
        if install_error is not None:
            why = f"does not install: {install_error}"
            found = [Benchmark(scenario, p, "failed", why, []) for p in grid]
        else:
            found = sample_scenario(
                reference, server_config, scenario, grid, plan,
                placement=placement, on_progress=save, client=command,
                log=lambda line: log(f"{env.impl.name}:{env.config.id} {version} {line}"),
            )  # fmt: skip
        benchmarks.extend(found)
        save([])
    failures = {
        f"{b.scenario} {params_key(b.params)}": b.error or "failed"
        for b in benchmarks
        if b.status != "ok"
    }
    return Outcome(env.row_name, version or "", path, failures)


@dataclass(frozen=True)
class ClientsOptions:
    """What ``./bench clients`` measures (its options, :mod:`wsbench.commands.clients`).

    Attributes:
        client: the client libraries, by name (None: all of ``clients/``).
        config: the configuration ids (None: all).
        versions: ``"latest"`` (the latest release of each configuration) or ``"all"``
            (every version).
        scenario: ``"echo"`` (ping-pong and pipelined) and/or ``"stream"`` (push); None:
            both (:data:`wsbench.scenarios.CLIENT_GRID`).
        results: the results store; the documents go to its ``clients/`` folder (None:
            ``WSBENCH_RESULTS`` or ``results/``).
        machine: the machine's name in the documents (None: asv's, else the host name).
        server_cpus: CPU list for the reference server (None: the default, 0).
        client_cpus: CPU list for the client (None: the default, 1).
        plan: the sampling plan; ``plan.processes`` is fresh reference-server processes per
            scenario. Checked by :func:`run`.
    """

    client: Sequence[str] | None = None
    config: Sequence[str] | None = None
    versions: str = "latest"
    scenario: Sequence[Scenario] | None = None
    results: Path | None = None
    machine: str | None = None
    server_cpus: str | None = None
    client_cpus: str | None = None
    plan: SamplingPlan = field(default_factory=SamplingPlan)


def run(options: ClientsOptions) -> int:
    """``./bench clients``: measure (see :class:`ClientsOptions`), then print one line per
    environment (passed, or failed with the reasons) and the wall time.

    Returns:
        0 when every environment passed, 1 when one failed (recorded in its document).

    Raises:
        ImplError: an unknown client or configuration.
        ValueError: a sampling option out of range.
        wsbench.cpulist.CpuSetError: a malformed CPU list.
    """
    started = time.monotonic()
    envs = client_envs(options.client, options.config, options.versions)
    plan = options.plan
    plan.validate()
    placement = placement_from(options.server_cpus, options.client_cpus)
    root = store.client_store(options.results or store.root_from_env())
    machine = options.machine or default_machine_name()
    run_id = store.new_run_id()
    scenarios: list[Scenario] = list(options.scenario or CLIENT_GRID)
    loadgen.ensure_built()
    outcomes = []
    for i, env in enumerate(envs, 1):
        version = env.version.version if env.version else ""
        print(f"wsbench: [{i}/{len(envs)}] {env.row_name} {version}", file=sys.stderr)
        outcomes.append(
            measure_env(
                env,
                plan=plan,
                scenarios=scenarios,
                placement=placement,
                root=root,
                machine=machine,
                run_id=run_id,
                log=lambda line: print(f"wsbench:   {line}", file=sys.stderr),
            )
        )
    print(f"run {run_id}: {len(envs)} client environments, documents in {root / machine / run_id}")
    for outcome in outcomes:
        status = "passed" if outcome.passed else f"FAILED ({len(outcome.failures)})"
        print(f"  {status:12} {outcome.row_name} {outcome.version}")
        for what, why in outcome.failures.items():
            print(f"      {what}: {why.splitlines()[0][:160]}")
    passed = sum(o.passed for o in outcomes)
    elapsed = time.monotonic() - started
    print(
        f"{passed} passed, {len(outcomes) - passed} failed in {elapsed / 60:.0f} min "
        f"{elapsed % 60:.0f} s"
    )
    return 0 if passed == len(outcomes) else 1
