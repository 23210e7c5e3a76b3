"""The profile job (``./bench profile``): each selected environment's server profiled with
py-spy during a measurement window at each selected parameter set, each environment's
profiles a run document in the profile store.

For each environment (the same choices as ``./bench run``: :func:`wsbench.jobs.main.
select_envs`) and each parameter set of the chosen scenarios (``--scenario``, ``--grid``,
``--param``: :func:`wsbench.scenarios.selection.select`; windowed scenarios only), one
fresh server process serves three windows in turn: one without the profiler, one with it
(:class:`wsbench.instrument.profile.Recording`, on the load generator's CPUs), and one
without it again. The profiled window's folded stacks and figures are kept with the two
others' figures, from which the profiler's own cost on the figure is stated; no window of a
profile is a measurement sample. The documents go to ``<store>/profiles/``
(:func:`wsbench.results.store.profile_store`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from wsbench.asv import venvs
from wsbench.asv.conf import BenchEnv
from wsbench.asv.suite import default_machine_name
from wsbench.instrument import profile, provenance
from wsbench.instrument.cpus import CpuPlacement, placement_from
from wsbench.instrument.measure import MeasureConfig, ServerSession
from wsbench.instrument.profiled import WARMUP_S, WINDOW_S, figures, profiled_window
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs.selection import select_envs
from wsbench.results import profile_shares, store
from wsbench.results.runformat import ProfileSet, Profiling, Run
from wsbench.scenarios import Grid, Params, Scenario, params_key, spec
from wsbench.scenarios.selection import select


class ProfileJobError(ValueError):
    """Bad options: a scenario without measurement windows (the message names it)."""


def profile_set(
    session: ServerSession,
    config: MeasureConfig,
    *,
    placement: CpuPlacement,
    native: bool,
    rate_hz: int = profile.RATE_HZ,
) -> ProfileSet:
    """Three windows of ``config`` against ``session``'s server: without, with and without
    the profiler (see the module's docstring).

    Returns:
        The profile; ``"failed"`` with the reason when a window or the profiler failed.
    """
    before = session.run(config)
    if before.status != "ok":
        return ProfileSet(config.scenario, config.params(), "failed", before.error,
                          config.duration_s, rate_hz)  # fmt: skip
    found = profiled_window(session, config, placement=placement, native=native,
                            unprofiled=[figures(before)], rate_hz=rate_hz)  # fmt: skip
    if found.status != "ok":
        return found
    after = session.run(config)
    if after.status != "ok":
        return found
    return msgspec.structs.replace(found, unprofiled=[*found.unprofiled, figures(after)])


def select_sets(
    grid: Grid, scenarios: Sequence[Scenario], params: Sequence[str]
) -> dict[Scenario, list[Params]]:
    """The parameter sets to profile (:func:`wsbench.scenarios.selection.select`), windowed
    scenarios only.

    Raises:
        ProfileJobError: a named scenario without measurement windows (memory).
        wsbench.scenarios.selection.ParamError: a filter that selects nothing.
    """
    for name in scenarios:
        if not spec(name).windowed:
            raise ProfileJobError(f"{name} has no measurement window to profile")
    chosen = select(grid, scenarios, params)
    return {s: sets for s, sets in chosen.items() if spec(s).windowed}


@dataclass(frozen=True)
class Outcome:
    """One environment's profiles: its row name and version, its document's path and the
    profiles."""

    row_name: str
    version: str
    path: Path
    profiles: list[ProfileSet]


def profile_env(
    env: BenchEnv,
    sets: dict[Scenario, list[Params]],
    *,
    native: bool,
    rate_hz: int = profile.RATE_HZ,
    warmup_s: float,
    window_s: float,
    placement: CpuPlacement,
    root: Path,
    machine: str,
    run_id: str,
    profiler: str,
    log: Callable[[str], None],
) -> Outcome:
    """Profile ``env``'s server at each of ``sets`` (a fresh server process each) and save
    its document in ``root`` (a profile store) under ``run_id``; a version that does not
    install fails every set with the installer's reason."""
    version = env.version.version if env.version else None
    try:
        python, why = str(venvs.ensure(env)), None
    except venvs.VenvError as exc:
        python, why = "", f"does not install: {exc}".split("\n")[0]
    run: Run = provenance.new_run(
        run_id=run_id, machine_name=machine, settings=SamplingPlan().settings(placement, 1),
        impl=env.impl, config=env.config, env_name=env.name, version=version,
        install_error=why, python=python or None,
    )  # fmt: skip
    run = msgspec.structs.replace(run, profiling=Profiling(profiler, native))
    found: list[ProfileSet] = []
    for scenario, grid in sets.items():
        for params in grid:
            config = MeasureConfig.for_params(
                env.impl.name, env.config.id, scenario, params,
                warmup_s=warmup_s, window_s=window_s,
            )  # fmt: skip
            log(f"{env.row_name} {version or ''}: {scenario} {params_key(params)}")
            if not python:
                why = run.environment.install_error or "does not install"
                found.append(ProfileSet(scenario, config.params(), "failed", why,
                                        config.duration_s, rate_hz))  # fmt: skip
                continue
            with ServerSession(env.impl, env.config.id, python=python,
                               placement=placement) as session:  # fmt: skip
                found.append(profile_set(session, config, placement=placement, native=native,
                                         rate_hz=rate_hz))  # fmt: skip
    done = msgspec.structs.replace(run, profiles=found, finished_at=store.now_iso())
    path = store.save(done, root)
    return Outcome(env.row_name, version or "", path, found)


def top_functions(stacks: dict[str, int], n: int = 3) -> list[tuple[str, float]]:
    """The ``n`` functions with the most self samples and their share of the busy samples
    (a process's own samples, without a Python frame, and a system call's left out, as in
    :mod:`wsbench.results.profile_shares`): ``[("burn (server.py)", 0.52), ...]``."""
    busy = profile_shares.busy_self_samples(stacks)
    total = sum(busy.values()) or 1
    return [(f, c / total) for f, c in list(busy.items())[:n]]


def cost(found: ProfileSet) -> float | None:
    """The profiler's cost on the throughput: the profiled window's rate over the mean of
    the unprofiled windows' rates, minus 1 (-0.05: 5 % fewer messages/s); None without
    both."""
    rates = [w.messages_per_s for w in found.unprofiled if w.messages_per_s]
    if not rates or not found.profiled or not found.profiled.messages_per_s:
        return None
    return found.profiled.messages_per_s / (sum(rates) / len(rates)) - 1


def shares_line(found: ProfileSet) -> str:
    """The server's CPU by class (:mod:`wsbench.results.profile_shares`), largest first:
    ``"framework 52 %, kernel 31 %, event loop 14 %, Python runtime 3 %"`` (classes under
    half a percent left out)."""
    split = profile_shares.shares_of(found).shares
    ranked = sorted(((k, v) for k, v in split.items() if v >= 0.005), key=lambda kv: -kv[1])
    return ", ".join(f"{k} {v:.0%}" for k, v in ranked)


def to_text(outcomes: Sequence[Outcome]) -> str:
    """One block per profile: the set, throughput without and with the profiler, the
    kernel's share of the server's CPU, its CPU by class (:func:`shares_line`), and the top
    functions by self time."""
    lines = []
    for o in outcomes:
        for found in o.profiles:
            head = f"{o.row_name} {o.version} · {found.scenario} {params_key(found.params)}"
            if found.status != "ok":
                lines.append(f"{head}: FAILED: {(found.error or '').splitlines()[0][:160]}")
                continue
            assert found.profiled is not None
            share = cost(found)
            kernel, cpu = (
                found.profiled.server_kernel_cpu_percent,
                found.profiled.server_cpu_percent,
            )
            said = [f"{found.profiled.messages_per_s or 0:,.0f} messages/s profiled"]
            said += [f"profiler's cost {share:+.1%}"] if share is not None else []
            said += [f"kernel {kernel / cpu:.0%} of the server's CPU"] if kernel and cpu else []
            lines.append(f"{head}: {'; '.join(said)}")
            lines.append(f"    {shares_line(found)}")
            for function, fraction in top_functions(found.stacks):
                lines.append(f"    {fraction:6.1%}  {function}")
    return "\n".join(lines)


@dataclass(frozen=True)
class ProfileOptions:
    """What ``./bench profile`` profiles (its options, :mod:`wsbench.commands.profile`).

    Attributes:
        impl, config, versions, environment: the environments, as ``./bench run`` takes them.
        scenario: scenarios (None: echo).
        grid: the grid whose sets are taken (``"default"`` or ``"full"``).
        param: ``NAME=V[,V...]`` filters of the sets.
        native: sample native frames too (the server paused for each sample).
        rate_hz: the profiler's samples per second.
        warmup_s: seconds of warm-up before each window.
        window_s: seconds of each window.
        results: the results store; documents go to its ``profiles/`` folder.
        machine: the machine's name in the documents (None: asv's, else the host name).
        server_cpus: CPU list for the servers (None: the default, 0).
        loadgen_cpus: CPU list for the load generator and the profiler (None: 1).
    """

    impl: Sequence[str] | None = None
    config: Sequence[str] | None = None
    versions: str = "latest"
    environment: Sequence[str] | None = None
    scenario: Sequence[Scenario] | None = None
    grid: Grid = "default"
    param: Sequence[str] = ()
    native: bool = False
    rate_hz: int = profile.RATE_HZ
    warmup_s: float = WARMUP_S
    window_s: float = WINDOW_S
    results: Path | None = None
    machine: str | None = None
    server_cpus: str | None = None
    loadgen_cpus: str | None = None


def run(options: ProfileOptions, log: Callable[[str], None] | None = None) -> int:
    """``./bench profile``: profile (see :class:`ProfileOptions`), print the profiles
    (:func:`to_text`) and where the documents are.

    Returns:
        0 when every profile was taken, 1 when one failed (its document says why).

    Raises:
        ProfileJobError: a scenario without windows, or only the reference server chosen
            (it is skipped: py-spy reads Python processes).
        wsbench.scenarios.selection.ParamError: a filter that selects nothing.
        wsbench.jobs.selection.MainJobError: an unknown implementation, configuration or
            environment.
        wsbench.instrument.profile.NoProfilerError: py-spy is not installed.
        wsbench.cpulist.CpuSetError: a malformed CPU list.
    """
    say = log or (lambda line: print(f"wsbench: {line}", file=sys.stderr))
    sets = select_sets(options.grid, list(options.scenario or ["echo"]), options.param)
    envs = select_envs(options.impl, options.versions, options.config, options.environment)
    for env in (e for e in envs if e.impl.reference):
        say(f"{env.row_name}: not profiled: the reference server runs no Python for py-spy")
    envs = [e for e in envs if not e.impl.reference]
    if not envs:
        raise ProfileJobError("nothing to profile: only the reference server was chosen")
    placement = placement_from(options.server_cpus, options.loadgen_cpus)
    profiler = profile.py_spy_version(profile.py_spy())
    root = store.profile_store(options.results or store.root_from_env())
    machine = options.machine or default_machine_name()
    run_id = store.new_run_id()
    started = time.monotonic()
    outcomes = []
    for env in envs:
        found = profile_env(
            env, sets, native=options.native, rate_hz=options.rate_hz, warmup_s=options.warmup_s,
            window_s=options.window_s, placement=placement, root=root, machine=machine,
            run_id=run_id, profiler=profiler, log=say,
        )  # fmt: skip
        outcomes.append(found)
    elapsed = time.monotonic() - started
    print(to_text(outcomes))
    print(f"run {run_id}: {len(envs)} environment(s) profiled with {profiler} in "
          f"{elapsed:.0f} s; documents in {root / machine / run_id}")  # fmt: skip
    ok = all(p.status == "ok" for o in outcomes for p in o.profiles)
    return 0 if ok else 1
