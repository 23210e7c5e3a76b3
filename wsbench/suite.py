"""What the asv benchmarks run: every parameter set of one scenario, once per environment.

asv calls ``setup_cache`` once per benchmark class and environment; it measures each
parameter set with a fresh server (:func:`wsbench.measure.measure`), writes the wsbench
record after each one (so a crash keeps what was measured), and returns plain figures that
the ``track_*`` methods look up. Settings come from environment variables so that the main
job (and anyone calling ``asv run`` directly) can choose them:

- ``WSBENCH_IMPL`` and ``WSBENCH_CONFIG``: the implementation and its configuration in this
  environment (set by asv.conf.json; the configuration defaults to the first).
- ``WSBENCH_WARMUP_S`` (default 1) and ``WSBENCH_DURATION_S`` (default 3): seconds.
- ``WSBENCH_CONNECTIONS`` (default 1).
- ``WSBENCH_SERVER_CPUS`` / ``WSBENCH_LOADGEN_CPUS``: CPU lists (default: 0 and 1).
- ``WSBENCH_MACHINE``: asv's machine name (default: the only one in ~/.asv-machine.json).
- ``WSBENCH_RECORDS_DIR``: where records go (default ``.asv/records``).
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from wsbench.cpus import placement_from
from wsbench.impls import get_impl
from wsbench.measure import MeasureConfig, Measurement, Scenario, measure
from wsbench.paths import INSTALL_ERROR_FILE, RECORDS_DIR
from wsbench.record import add_measurement, new_record, record_path, write_record

Figures = dict[str, float | str | None]
"""One parameter set's figures: ``{metric: value}``, or ``{"error": text}`` when it failed."""


class SuiteError(RuntimeError):
    """The benchmark environment is not set up for wsbench (e.g. no ``WSBENCH_IMPL``)."""


@dataclass(frozen=True)
class SuiteSettings:
    """Settings of a benchmark run, read from ``WSBENCH_*`` environment variables."""

    impl: str
    config: str | None
    warmup_s: float
    duration_s: float
    connections: int
    server_cpus: str | None
    loadgen_cpus: str | None
    machine: str
    records_dir: Path

    @classmethod
    def from_env(cls) -> SuiteSettings:
        """Read the settings.

        Raises:
            SuiteError: ``WSBENCH_IMPL`` is not set, or a number is malformed.
        """
        env = os.environ
        impl = env.get("WSBENCH_IMPL")
        if not impl:
            raise SuiteError("WSBENCH_IMPL is not set: run the benchmarks through asv.conf.json")
        try:
            return cls(
                impl=impl,
                config=env.get("WSBENCH_CONFIG") or None,
                warmup_s=float(env.get("WSBENCH_WARMUP_S", "1")),
                duration_s=float(env.get("WSBENCH_DURATION_S", "3")),
                connections=int(env.get("WSBENCH_CONNECTIONS", "1")),
                server_cpus=env.get("WSBENCH_SERVER_CPUS") or None,
                loadgen_cpus=env.get("WSBENCH_LOADGEN_CPUS") or None,
                machine=env.get("WSBENCH_MACHINE") or default_machine_name(),
                records_dir=Path(env.get("WSBENCH_RECORDS_DIR") or RECORDS_DIR),
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


def figures_of(m: Measurement) -> Figures:
    """The figures asv tracks for one measurement (all lower-is-better).

    Keys: ``latency_p50`` and ``latency_p99`` (seconds, echo only), ``seconds_per_message``
    (seconds, the inverse of messages/s), ``server_cpu_percent`` (percent of one core),
    ``server_rss_bytes`` (bytes, peak), ``loadgen_cpu_percent`` (percent of one core); or
    ``error`` (text) when the measurement failed.
    """
    if m.status != "ok":
        return {"error": m.error}
    rate = m.messages_per_s
    latency = m.latency_s or {}
    return {
        "latency_p50": latency.get("p50"),
        "latency_p99": latency.get("p99"),
        "seconds_per_message": 1.0 / rate if rate else None,
        "server_cpu_percent": m.server.cpu_percent if m.server else None,
        "server_rss_bytes": float(m.server.rss_bytes) if m.server else None,
        "loadgen_cpu_percent": m.loadgen_cpu_percent,
    }


def _load_record(path: Path, scenario: Scenario) -> dict[str, Any] | None:
    """This run's record (same commit and environment) if any, minus ``scenario``'s entries."""
    try:
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    record["measurements"] = [m for m in record["measurements"] if m["scenario"] != scenario]
    return record


def install_error(prefix: Path | None = None) -> dict[str, Any] | None:
    """Why this environment's requirements did not install, or None when they did.

    Reads the file :mod:`wsbench.asv_uv` leaves at the environment's root (``sys.prefix``)
    after a failed install: ``{"requirements": {name: version}, "error": str}``.
    """
    path = (prefix or Path(sys.prefix)) / INSTALL_ERROR_FILE
    try:
        error: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return error


def run_scenario(scenario: Scenario, grid: list[dict[str, int]]) -> dict[str, Figures]:
    """Measure ``scenario`` at every parameter set of ``grid`` in this environment.

    Args:
        scenario: ``"echo"`` or ``"stream"``.
        grid: parameter sets, e.g. ``[{"size_bytes": 16, "in_flight": 1}, ...]``.

    Returns:
        ``{params_key(params): figures}`` (see :func:`params_key` and :func:`figures_of`).

    Raises:
        SuiteError: the environment is not a wsbench environment.
        wsbench.impls.ImplError: ``WSBENCH_IMPL`` names no implementation, or
            ``WSBENCH_CONFIG`` none of its configurations.
    """
    settings = SuiteSettings.from_env()
    impl = get_impl(settings.impl)
    run_config = impl.config(settings.config)
    placement = placement_from(settings.server_cpus, settings.loadgen_cpus)
    commit = os.environ.get("ASV_COMMIT", "0" * 40)
    env_name = os.environ.get("ASV_ENV_NAME", f"existing-{impl.name}")
    path = record_path(
        settings.records_dir, machine_name=settings.machine, commit=commit, env_name=env_name
    )
    not_installed = install_error()
    record = _load_record(path, scenario) or new_record(
        impl,
        run_config,
        env_name=env_name,
        commit=commit,
        machine_name=settings.machine,
        placement=placement,
        version=(not_installed or {}).get("requirements", {}).get(impl.package),
    )
    out: dict[str, Figures] = {}
    for i, params in enumerate(grid, 1):
        config = MeasureConfig(
            impl=impl.name,
            config=run_config.id,
            scenario=scenario,
            size_bytes=params["size_bytes"],
            in_flight=params.get("in_flight", 1),
            connections=settings.connections,
            warmup_s=settings.warmup_s,
            duration_s=settings.duration_s,
        )
        print(
            f"wsbench: [{i}/{len(grid)}] {impl.name}:{run_config.id} {scenario} {params}",
            file=sys.stderr,
        )
        if not_installed:
            m = Measurement(config=config, placement=placement)
            m.fail(f"does not install: {not_installed['error']}")
        else:
            m = measure(config, placement=placement, impl=impl)
        out[params_key(params)] = figures_of(m)
        add_measurement(record, m)
        write_record(record, path)
    return out


def params_key(params: dict[str, int]) -> str:
    """A stable key for a parameter set, e.g. ``"in_flight=64,size_bytes=16"``."""
    return ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def lookup(figures: dict[str, Figures], params: dict[str, int], metric: str) -> float:
    """The value of ``metric`` for ``params``, for a ``track_*`` method.

    Raises:
        RuntimeError: the measurement failed (asv records the benchmark as failed and shows
            this message), or has no such figure.
    """
    entry = figures[params_key(params)]
    if "error" in entry:
        raise RuntimeError(f"measurement failed: {entry['error']}")
    value = entry.get(metric)
    if not isinstance(value, float):
        raise RuntimeError(f"no {metric} for {params}")
    return value


def grid_of(params: list[list[int]], param_names: list[str]) -> list[dict[str, int]]:
    """Every combination of an asv class's ``params``, as dicts keyed by ``param_names``."""
    combos: list[dict[str, int]] = [{}]
    for name, values in zip(param_names, params, strict=True):
        combos = [{**c, name: v} for c in combos for v in values]
    return combos


def tracker(metric: str, unit: str) -> Any:
    """An asv ``track_*`` method returning ``metric`` (see :func:`figures_of`) in ``unit``.

    The method receives ``setup_cache``'s figures and the class's parameters, in the order
    of its ``param_names``.
    """

    def track(self: Any, figures: dict[str, Figures], *params: int) -> float:
        return lookup(figures, dict(zip(self.param_names, params, strict=True)), metric)

    track.unit = unit  # type: ignore[attr-defined]
    track.__doc__ = f"{metric} ({unit}; lower is better)"
    return track


class ScenarioSuite:
    """Base of the asv benchmark classes: one measurement per parameter set, and the figures
    every scenario tracks. Subclasses set ``params``/``param_names`` and define their own
    ``setup_cache`` (asv keys its cache by the function's source location, so an inherited
    one would be shared between scenarios). Import it under a name starting with ``_`` so
    that asv does not collect the base class itself.
    """

    rounds = 1
    repeat = 1
    number = 1
    param_names: ClassVar[list[str]] = []

    track_seconds_per_message = tracker("seconds_per_message", "seconds")
    track_server_cpu_percent = tracker("server_cpu_percent", "percent")
    track_server_rss_bytes = tracker("server_rss_bytes", "bytes")
    track_loadgen_cpu_percent = tracker("loadgen_cpu_percent", "percent")
