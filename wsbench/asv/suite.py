"""What the asv benchmarks run: every parameter set of every selected scenario, sampled,
once per environment.

Every benchmark class shares one ``setup_cache`` (:class:`ScenarioSuite`), which asv runs
once per environment: it samples every parameter set of every selected scenario in the
same server processes (:func:`wsbench.instrument.sampling.sample_scenarios`: memory has its own),
saves the run document (:mod:`wsbench.results.runformat`) after every window (so a crash keeps what
was measured), and returns the figures the ``track_*`` methods hand to asv: the median of
the samples that count, derived from the document (which stays the one source of truth).
Settings come from environment variables so that the main job (and anyone calling ``asv
run`` directly) can choose them:

- ``WSBENCH_IMPL`` and ``WSBENCH_CONFIG``: the implementation and its configuration in this
  environment (set by asv.conf.json; the configuration defaults to the first).
- ``WSBENCH_PROCESSES``, ``WSBENCH_WINDOWS``, ``WSBENCH_WARMUP_S``, ``WSBENCH_WINDOW_S``:
  the sampling plan (defaults: :class:`wsbench.instrument.sampling.SamplingPlan`).
- ``WSBENCH_MAX_OTHER_CPU_PERCENT``, ``WSBENCH_MAX_STEAL_PERCENT``: the thresholds above
  which a window is disturbed (defaults: :class:`wsbench.instrument.sampling.SamplingPlan`'s).
- ``WSBENCH_CONNECTIONS`` (default 1): connections in the scenarios whose parameters do
  not set them.
- ``WSBENCH_GRID``: ``default`` (the main job's) or ``full`` (the nightly's) grid of
  parameter sets (:mod:`wsbench.scenarios`; default ``default``).
- ``WSBENCH_SCENARIOS``: the scenarios to measure, comma-separated (default: every one with
  a parameter set in the grid); ``WSBENCH_PARAMS`` narrows their parameter sets.
- ``WSBENCH_SERVER_CPUS`` / ``WSBENCH_LOADGEN_CPUS``: CPU lists (default: 0 and 1).
- ``WSBENCH_MACHINE``: asv's machine name (default: the only one in ~/.asv-machine.json).
- ``WSBENCH_RESULTS``: the results store (default ``results/``).
- ``WSBENCH_WAIT_BUDGET_S``: seconds the waited retries of the run may take together.
- ``WSBENCH_WAIT_ACCOUNT``: the run's wait account, which the waited retries of every
  benchmark process of a run share (:mod:`wsbench.instrument.waitbudget`; the main job sets
  it; without it, each process has a budget of its own).
- ``WSBENCH_RUN_ID``: the run this belongs to (the main job sets it; without it, each
  environment starts a run of its own).
- ``WSBENCH_INSTRUCTIONS``: ``1`` to also count the server's instructions per message under
  valgrind (:mod:`wsbench.instrument.instructions`) after the samples, in the same document (the
  sets of the scenarios ``WSBENCH_SCENARIOS`` names, or every set).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import platform
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import msgspec

from wsbench import mainplan
from wsbench.asv import profiling
from wsbench.impls import Impl, get_impl
from wsbench.instrument import instructions, lifetime, provenance, waitbudget
from wsbench.instrument.cpus import CpuPlacement, placement_from
from wsbench.instrument.sampling import SamplingPlan, refusal, sample_scenarios
from wsbench.instrument.waitbudget import WaitBudget
from wsbench.paths import INSTALL_ERROR_FILE
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results import metrics, store
from wsbench.results.runformat import Benchmark, FormatError, Run, all_disturbed, load
from wsbench.results.stats import median
from wsbench.scenarios import (
    GRIDS,
    SCENARIOS,
    Grid,
    Params,
    Scenario,
    canonical,
    params_key,
    selection,
    spec,
)

Figures = dict[str, float | str | None]
"""One parameter set's figures: ``{metric: value}``, or ``{"error": text}`` when it failed."""


SCENARIOS_ENV = "WSBENCH_SCENARIOS"
"""The environment variable naming the scenarios to measure, comma-separated (``./bench
run --scenario``; default: every scenario with a parameter set in the grid)."""
SETUP_CACHE_TIMEOUT_S = 8 * 3600
"""asv's bound on the shared ``setup_cache`` (every scenario of one environment), seconds:
the full grid's scenarios together once had bounds of 30 to 60 min each, 8 h in all."""
GRID_ENV = "WSBENCH_GRID"
"""The environment variable choosing the grid of parameter sets (``default`` or ``full``)."""
PARAMS_ENV = "WSBENCH_PARAMS"
"""The environment variable narrowing the grid: ``NAME=V[,V...]`` items separated by ``;``
(``./bench run --param``), by :mod:`wsbench.scenarios.selection`'s rule."""
INSTRUCTIONS_ENV = "WSBENCH_INSTRUCTIONS"
"""The environment variable that turns instruction counting on (``1``)."""
SECOND_PYTHON_ENV = "WSBENCH_SECOND_PYTHON"
"""The environment variable naming the main job's second Python (:func:`on_second_python`)."""
DEPLOYMENT_ENV = "WSBENCH_DEPLOYMENT_ENVS"
"""The environment variable naming the environments also measured at
:func:`wsbench.mainplan.deployment_sets`, comma-separated, each ``impl:config@python``
(``./bench run``'s axis configurations)."""


class SuiteError(RuntimeError):
    """The benchmark environment is not set up for wsbench (e.g. no ``WSBENCH_IMPL``)."""


@dataclass(frozen=True)
class SuiteSettings:
    """Settings of a benchmark run, read from ``WSBENCH_*`` environment variables."""

    impl: str
    config: str | None
    plan: SamplingPlan
    connections: int
    server_cpus: str | None
    loadgen_cpus: str | None
    machine: str
    results_dir: Path
    run_id: str
    grid: Grid = "default"
    instructions: bool = False

    @classmethod
    def from_env(cls) -> SuiteSettings:
        """Read the settings.

        Raises:
            SuiteError: ``WSBENCH_IMPL`` is not set, or a number is malformed or out of range.
        """
        env = os.environ
        impl = env.get("WSBENCH_IMPL")
        if not impl:
            raise SuiteError("WSBENCH_IMPL is not set: run the benchmarks through asv.conf.json")
        default = SamplingPlan()
        try:
            plan = dataclasses.replace(
                default,
                processes=int(env.get("WSBENCH_PROCESSES") or default.processes),
                windows_per_process=int(env.get("WSBENCH_WINDOWS") or default.windows_per_process),
                warmup_s=float(env.get("WSBENCH_WARMUP_S") or default.warmup_s),
                window_s=float(env.get("WSBENCH_WINDOW_S") or default.window_s),
                max_other_cpu_percent=float(
                    env.get("WSBENCH_MAX_OTHER_CPU_PERCENT") or default.max_other_cpu_percent
                ),
                max_steal_percent=float(
                    env.get("WSBENCH_MAX_STEAL_PERCENT") or default.max_steal_percent
                ),
                wait_budget_s=float(env.get(waitbudget.BUDGET_ENV) or default.wait_budget_s),
            )
            plan.validate()
            grid = env.get(GRID_ENV) or "default"
            if grid not in GRIDS:
                raise ValueError(f"{GRID_ENV}={grid!r} (known: {', '.join(GRIDS)})")
            return cls(
                impl=impl,
                config=env.get("WSBENCH_CONFIG") or None,
                plan=plan,
                connections=int(env.get("WSBENCH_CONNECTIONS", "1")),
                server_cpus=env.get("WSBENCH_SERVER_CPUS") or None,
                loadgen_cpus=env.get("WSBENCH_LOADGEN_CPUS") or None,
                machine=env.get("WSBENCH_MACHINE") or default_machine_name(),
                results_dir=store.root_from_env(),
                run_id=env.get(store.RUN_ID_ENV) or store.new_run_id(),
                grid=grid,
                instructions=env.get(INSTRUCTIONS_ENV, "") == "1",
            )
        except ValueError as exc:
            raise SuiteError(f"bad WSBENCH_* setting: {exc}") from exc


def default_machine_name() -> str:
    """The machine name in ``~/.asv-machine.json`` if it holds exactly one, else the host name."""
    path = Path.home() / ".asv-machine.json"
    try:
        names = [k for k in json.loads(path.read_text(encoding="utf-8")) if k != "version"]
    except (OSError, ValueError):
        names = []
    return names[0] if len(names) == 1 else platform.node()


def figures_of(benchmark: Benchmark) -> Figures:
    """asv's figures for one benchmark: the median of its usable samples of every figure of
    its scenario (:func:`wsbench.results.metrics.for_scenario`), plus the inverses asv can treat as
    lower-is-better (``seconds_per_message`` of the median messages/s,
    ``seconds_per_message_slowest`` of the slowest connection's, ``seconds_per_connection``
    of the median connections/s); or ``{"error": text}`` when it failed or no sample counts
    (every window disturbed: :func:`~wsbench.results.runformat.all_disturbed` says what
    they read)."""
    if benchmark.status != "ok":
        return {"error": benchmark.error}
    usable = benchmark.usable()
    if not usable:
        return {"error": all_disturbed(benchmark)}
    figures: Figures = {}
    for metric in metrics.for_scenario(benchmark.scenario):
        found = metrics.values(metric, usable)
        figures[metric.name] = median(found) if found else None
    for inverse, of in (
        ("seconds_per_message", "messages_per_s"),
        ("seconds_per_message_slowest", "per_connection_min"),
        ("seconds_per_connection", "connections_per_s"),
    ):
        rate = figures.get(of)
        if isinstance(rate, float) and rate > 0:
            figures[inverse] = 1.0 / rate
    return figures


def install_error(prefix: Path | None = None) -> dict[str, Any] | None:
    """Why this environment's requirements did not install, or None when they did.

    Reads the file :mod:`wsbench.asv.uv` leaves at the environment's root (``sys.prefix``)
    after a failed install: ``{"requirements": {name: version}, "error": str}``.
    """
    path = (prefix or Path(sys.prefix)) / INSTALL_ERROR_FILE
    try:
        error: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return error


def _earlier_part(path: Path, scenarios: Collection[str]) -> Run | None:
    """This run's document for this environment, if an earlier part of the run already
    wrote it, minus the benchmarks of ``scenarios``.

    Raises:
        SuiteError: the file exists but is not a valid document (it is left as it is).
    """
    if not path.exists():
        return None
    try:
        run = load(path)
    except FormatError as exc:
        raise SuiteError(f"not overwriting {path}: {exc}") from exc
    kept = [b for b in run.benchmarks if b.scenario not in scenarios]
    return msgspec.structs.replace(run, benchmarks=kept)


def run_scenarios(grids: Mapping[Scenario, list[Params]]) -> dict[str, dict[str, Figures]]:
    """Sample every scenario of ``grids`` at each of its parameter sets in this environment
    (the same server processes serve them, memory apart:
    :func:`wsbench.instrument.sampling.sample_scenarios`)
    and save the run document after every window.

    Args:
        grids: parameter sets by scenario, e.g. ``{"echo": [{"size_bytes": 16,
            "in_flight": 1}, ...]}``.

    Returns:
        ``{scenario: {params_key(params): figures}}`` (see
        :func:`wsbench.scenarios.params_key` and :func:`figures_of`).

    Raises:
        SuiteError: the environment is not a wsbench environment, or a file in the way is
            not a run document.
        wsbench.impls.ImplError: ``WSBENCH_IMPL`` names no implementation, or
            ``WSBENCH_CONFIG`` none of its configurations.
    """
    settings = SuiteSettings.from_env()
    impl = get_impl(settings.impl)
    run_config = impl.config(settings.config)
    placement = placement_from(settings.server_cpus, settings.loadgen_cpus)
    env_name = os.environ.get("ASV_ENV_NAME", f"existing-{impl.name}-{run_config.id}")
    path = store.run_path(
        settings.results_dir,
        machine=settings.machine,
        run_id=settings.run_id,
        commit=provenance.harness_commit(),
        env_name=env_name,
    )
    not_installed = install_error()
    version = (not_installed or {}).get("requirements", {}).get(impl.package)
    run = _earlier_part(path, list(grids)) or provenance.new_run(
        run_id=settings.run_id,
        machine_name=settings.machine,
        settings=settings.plan.settings(placement, settings.connections),
        impl=impl,
        config=run_config,
        env_name=env_name,
        version=version,
        install_error=(not_installed or {}).get("error"),
    )
    earlier = list(run.benchmarks)
    grids = with_deployment_sets(grids, f"{impl.name}:{run_config.id}", run.python)
    grids = on_second_python(grids, run.python)

    def save(found: dict[Scenario, list[Benchmark]]) -> None:
        benchmarks = [b for scenario in grids for b in found.get(scenario, [])]
        done = msgspec.structs.replace(
            run, benchmarks=[*earlier, *benchmarks], finished_at=store.now_iso()
        )
        try:
            store.save(done, settings.results_dir)
        except store.StoreError as exc:
            # Measuring on is pointless: say why on the line asv shows, and stop.
            line = f"{impl.name}:{run_config.id} {exc}"
            print(f"wsbench: {line}", file=sys.stderr, flush=True)
            store.report_fault(line)
            raise

    if not_installed:
        reason = f"does not install: {not_installed['error']}"
        if run.python != DEFAULT_PYTHON:  # a release that this Python cannot take
            reason = f"not supported on Python {run.python}: {reason}"
        found = {
            scenario: [Benchmark(scenario, params, "failed", reason, []) for params in grid]
            for scenario, grid in grids.items()
        }
        save(found)
    else:
        profiler = profiling.profiler_of()
        hook = None
        if profiler is not None and not impl.reference and run.python == DEFAULT_PYTHON:
            hook = profiling.ProfiledSetHook(placement, profiler)
        found = sample_scenarios(
            impl,
            run_config.id,
            grids,
            settings.plan,
            placement=placement,
            connections=settings.connections,
            on_progress=save,
            budget=WaitBudget.from_env(settings.plan.wait_budget_s),
            log=lambda line: print(f"wsbench: {impl.name}:{run_config.id} {line}", file=sys.stderr),
            after_set=hook,
        )
        if hook is not None and profiler is not None:
            profiling.save_profile(run, hook.found, settings.results_dir, profiler)
        refused = refused_by_python(
            found, run.python, lambda s, p: refusal(run_config, placement, s, p)
        )
        if refused is not found:
            found = refused
            save(found)
    if settings.instructions and not not_installed:
        run = count_instructions(run, impl, run_config.id, placement)
        save(found)
    return {
        scenario: {params_key(b.params): figures_of(b) for b in benchmarks}
        for scenario, benchmarks in found.items()
    }


def deployment_configs(environ: Mapping[str, str] | None = None) -> set[str]:
    """The environments :data:`DEPLOYMENT_ENV` names, as ``impl:config@python``."""
    text = (os.environ if environ is None else environ).get(DEPLOYMENT_ENV, "")
    return {item for item in text.split(",") if item}


def with_deployment_sets(
    grids: Mapping[Scenario, list[Params]], config: str, python: str
) -> dict[Scenario, list[Params]]:
    """``grids`` with :func:`wsbench.mainplan.deployment_sets` added when ``config``
    (``impl:config``) on ``python`` is one :data:`DEPLOYMENT_ENV` names and ``grids`` hold
    their scenario; ``grids`` as they are otherwise."""
    scenario = mainplan.DEPLOYMENT_SET[0]
    if f"{config}@{python}" not in deployment_configs() or scenario not in grids:
        return dict(grids)
    extra = [p for p in mainplan.deployment_sets() if p not in grids[scenario]]
    return {**grids, scenario: [*grids[scenario], *extra]}


def on_second_python(
    grids: Mapping[Scenario, list[Params]], python: str, environ: Mapping[str, str] | None = None
) -> dict[Scenario, list[Params]]:
    """``grids`` narrowed to :data:`wsbench.mainplan.SECOND_PYTHON_SCENARIOS` when
    ``python`` is the second Python :data:`SECOND_PYTHON_ENV` names (the main job's); as
    they are otherwise (every other run on another Python measures its whole grid)."""
    named = (os.environ if environ is None else environ).get(SECOND_PYTHON_ENV, "")
    if not named or python != named:
        return dict(grids)
    return {s: list(p) for s, p in grids.items() if s in mainplan.SECOND_PYTHON_SCENARIOS}


def refused_by_python(
    found: dict[Scenario, list[Benchmark]],
    python: str,
    refusal: Callable[[Scenario, Params], str | None],
) -> dict[Scenario, list[Benchmark]]:
    """``found`` with the reason of every set that was run prefixed ``"not supported on
    Python X: does not run: "`` when on a Python other than the default not one window of
    them ran (the server installed but did not start, or died at once, on that Python);
    ``found`` itself otherwise. ``refusal`` says why a set was never run (a scenario or
    profile the configuration does not support: :func:`wsbench.instrument.sampling.refusal`,
    None for a set that was run): such a set says nothing of the Python and keeps its
    reason, and a run of only such sets is ``found`` itself."""
    run = [b for group in found.values() for b in group if refusal(b.scenario, b.params) is None]
    ran = any(s.status == "ok" for b in run for s in b.samples)
    if python == DEFAULT_PYTHON or not run or ran:
        return found
    if any(b.status != "failed" for b in run):
        return found
    prefix = f"not supported on Python {python}: does not run: "
    return {
        scenario: [
            b
            if refusal(b.scenario, b.params) is not None
            else msgspec.structs.replace(b, error=prefix + (b.error or "no window ran"))
            for b in group
        ]
        for scenario, group in found.items()
    }


def count_instructions(run: Run, impl: Impl, config_id: str, placement: CpuPlacement) -> Run:
    """``run`` with the server's instruction counts (:mod:`wsbench.instrument.instructions`) of the
    sets whose scenario ``WSBENCH_SCENARIOS`` names (every set when it names none) that the
    filters of ``WSBENCH_PARAMS`` keep."""
    sets = instructions.sets_of(
        [n for n in os.environ.get(SCENARIOS_ENV, "").split(",") if n],
        [i for i in os.environ.get(PARAMS_ENV, "").split(";") if i],
    )
    print(f"wsbench: {impl.name}:{config_id} counting instructions ({len(sets)} sets)",
          file=sys.stderr)  # fmt: skip
    found = instructions.count_all(impl, config_id, sets, python=sys.executable,
                                   placement=placement)  # fmt: skip
    return msgspec.structs.replace(run, counting=found.counting, instructions=found.instructions)


def lookup(figures: dict[str, Figures], params: Params, metric: str) -> float:
    """The value of ``metric`` for ``params``, for a ``track_*`` method.

    Raises:
        RuntimeError: the measurement failed (asv records the benchmark as failed and shows
            this message), or has no such figure.
        NotImplementedError: ``params`` was not measured (outside the grid): asv skips it.
    """
    entry = figures.get(params_key(canonical(params)))
    if entry is None:
        raise NotImplementedError(f"{params} is not in this run's grid")
    if "error" in entry:
        raise RuntimeError(f"measurement failed: {entry['error']}")
    value = entry.get(metric)
    if not isinstance(value, float):
        raise RuntimeError(f"no {metric} for {params}")
    return value


def grid_of(params: list[list[int]], param_names: list[str]) -> list[Params]:
    """Every combination of an asv class's ``params``, as dicts keyed by ``param_names``."""
    combos: list[Params] = [{}]
    for name, values in zip(param_names, params, strict=True):
        combos = [{**c, name: v} for c in combos for v in values]
    return combos


def selected_grids() -> dict[Scenario, list[Params]]:
    """:func:`grids_for` the grid ``WSBENCH_GRID`` chooses, the scenarios
    ``WSBENCH_SCENARIOS`` names and the filters of ``WSBENCH_PARAMS``.

    Raises:
        SuiteError: a malformed ``WSBENCH_*`` setting, or an unknown scenario.
    """
    return grids_for(
        SuiteSettings.from_env().grid,
        [n for n in os.environ.get(SCENARIOS_ENV, "").split(",") if n],
        [i for i in os.environ.get(PARAMS_ENV, "").split(";") if i],
    )


def grids_for(
    which: Grid, names: Sequence[str], items: Sequence[str]
) -> dict[Scenario, list[Params]]:
    """The parameter sets to measure, by scenario: the grid ``which`` of the scenarios
    ``names`` (none: every scenario with a parameter set in that grid), narrowed by the
    ``NAME=V[,V...]`` filters ``items`` (:func:`wsbench.scenarios.selection.select`).

    Raises:
        SuiteError: an unknown scenario, or a malformed filter or one that selects nothing.
    """
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise SuiteError(f"{SCENARIOS_ENV}: unknown scenario(s) {unknown} (known: {SCENARIOS})")
    try:
        return selection.select(which, names, items)
    except ValueError as exc:
        raise SuiteError(str(exc)) from exc


def measure_grids() -> dict[str, dict[str, Figures]]:
    """The body of the ``setup_cache`` every asv class shares (asv runs it once per
    environment): :func:`run_scenarios` over :func:`selected_grids`.

    Raises:
        SuiteError: a malformed ``WSBENCH_*`` setting.
    """
    lifetime.die_with_parent()  # asv forked this process: Linux cleared the setting
    return run_scenarios(selected_grids())


def tracker(metric: str, unit: str) -> Any:
    """An asv ``track_*`` method returning ``metric`` (see :func:`figures_of`) in ``unit``.

    The method receives ``setup_cache``'s figures and the class's parameters, in the order
    of its ``param_names``.
    """

    def track(self: Any, figures: dict[str, dict[str, Figures]], *params: int) -> float:
        found = figures.get(self.scenario, {})
        return lookup(found, dict(zip(self.param_names, params, strict=True)), metric)

    track.unit = unit  # type: ignore[attr-defined]
    track.__doc__ = f"{metric} ({unit}; lower is better; median of the samples)"
    return track


class ScenarioSuite:
    """Base of the asv benchmark classes: the grid's parameter sets sampled; a combination
    of asv's ``params`` outside the grid is skipped in ``setup`` (asv shows it as n/a).
    Subclasses set ``scenario``, ``params``/``param_names`` (:func:`asv_params`) and their
    ``track_*`` figures, and inherit ``setup_cache``: asv keys its cache by the function's
    source location, so this one is shared by every class and runs once per environment,
    measuring every selected scenario in the same server processes
    (:func:`measure_grids`). Import it under a name starting with ``_`` so that asv does
    not collect the base class itself.
    """

    rounds = 1
    repeat = 1
    number = 1
    scenario: ClassVar[Scenario]
    param_names: ClassVar[list[str]] = []

    def setup_cache(self) -> dict[str, dict[str, Figures]]:
        """Every selected scenario measured (:func:`measure_grids`)."""
        return measure_grids()

    setup_cache.timeout = SETUP_CACHE_TIMEOUT_S  # type: ignore[attr-defined]

    def setup(self, figures: dict[str, dict[str, Figures]], *params: int) -> None:
        """Skip a combination that was not measured (raises ``NotImplementedError``)."""
        key = combination_key(self.param_names, params)
        if key not in figures.get(self.scenario, {}):
            raise NotImplementedError(f"{key} is not in this run's grid")


class WindowedSuite(ScenarioSuite):
    """Base of the scenarios with a measurement window: the server's CPU and RSS and the
    load generator's CPU over it."""

    track_server_cpu_percent = tracker("server_cpu_percent", "percent")
    track_server_rss_bytes = tracker("server_rss_bytes", "bytes")
    track_loadgen_cpu_percent = tracker("loadgen_cpu_percent", "percent")


class MessagingSuite(WindowedSuite):
    """Base of the scenarios that carry messages: seconds per message (the inverse of the
    throughput)."""

    track_seconds_per_message = tracker("seconds_per_message", "seconds")


def combination_key(param_names: Sequence[str], values: Sequence[int]) -> str:
    """The key (:func:`wsbench.scenarios.params_key`) of the parameter set an asv
    combination is: ``values`` named by ``param_names``, switches at 0 left out
    (:func:`wsbench.scenarios.canonical`). A combination runs when its key is a measured
    set's (:meth:`ScenarioSuite.setup`)."""
    return params_key(canonical(dict(zip(param_names, values, strict=True))))


def grid_combinations(scenario: Scenario, sets: Sequence[Params]) -> list[tuple[int, ...]]:
    """The combinations of ``scenario``'s asv ``params`` (:func:`asv_params`, values in
    ``param_names`` order) that are the parameter sets ``sets``: those
    :meth:`ScenarioSuite.setup` lets run when ``sets`` were measured, every other one it
    skips. ``./bench run`` selects these alone (:func:`wsbench.jobs.main.bench_patterns`)."""
    params, names = asv_params(scenario)
    wanted = {params_key(canonical(s)) for s in sets}
    return [c for c in itertools.product(*params) if combination_key(names, c) in wanted]


def asv_params(scenario: Scenario) -> tuple[list[list[int]], list[str]]:
    """asv's ``params`` and ``param_names`` of ``scenario``: every value of every axis, then
    0 and 1 of each switch its full grid sets
    (:meth:`~wsbench.scenarios.base.ScenarioSpec.asv_axes`)."""
    axes = spec(scenario).asv_axes()
    return [list(values) for values in axes.values()], list(axes)
