"""The scenarios wsbench measures: the registry of the scenario modules.

Each scenario is one module of this package (``echo.py``, ``market.py``...) holding its
``SPEC`` (:class:`~wsbench.scenarios.base.ScenarioSpec`): what the load generator does,
against which endpoint, over which parameter sets (the full grid and the default grid), how
its report is checked, its figures and its leaderboard's columns and notes. The registry
finds the modules (:data:`SPECS`, in each spec's ``position``); every other module takes
scenario names, parameters and grids from here: the asv benchmark classes
(``benchmarks/``), the measurement, the sampling, the metrics, the comparisons, the site
and the CLI choices. Adding a scenario is adding its module (and, for a new load generator
mode, that mode, the protocol document and its asv benchmark file).

Grids. The **full grid** is what the nightly run measures (``./bench run --grid full``);
the **default grid** is the main job's (``./bench run``), chosen so that every
configuration's latest release (42 configurations) stays within its 30-minute budget on
2 cores: echo 16 B at 1 and 64 in flight and 64 KiB at 64 in flight (latency, message
rate, bandwidth); push 16 B; 1,000 concurrent clients; memory with 1,000 connections; one
fan-out set (broadcast to 100 subscribers, as fast as delivered, 16 B); and
:data:`DEFAULT_GRID_WINDOWS_PER_PROCESS` window per parameter set in each of
:data:`DEFAULT_GRID_PROCESSES` server processes.

What was cut, and why. With 25 configurations the main job took 28 min 28 s from a clean
clone over a grid that also had echo 1 KiB at 64 in flight and 100 concurrent clients, two
windows per process: about 60 s per configuration. Timed on 2026-11-26 (Starlette on
uvicorn, quiet machine), a window costs its 0.75 s plus 0.03 s, a server start 0.63 s
(0.49 s of it importing the framework), a window of 1,000 clients 2.1 s (the connections
are opened again each window), one of broadcast to 100 subscribers 1.1 s and one of memory
2.0 s: about 53 s per configuration with two windows per process, about 37 min for 42
configurations before any window disturbed by the hypervisor is measured again. So the
default grid takes one window per server process: three samples per figure, one per
process (the spread between processes is the larger one: 8 % against 5 % within a process
for websockets at 16 B x 64), about 34 s per configuration. The middle sets (echo 1 KiB,
100 clients) are bracketed by sets that stay. The JSON, text, connection-setup and soak
scenarios' full grids took 17 min for 25 configurations with one server process each
instead of three, and the market, offered-load and ping scenarios are in the full grid only
(the nightly).

Client libraries (``clients/``, ``./bench clients``) are measured at the parameter sets of
:data:`CLIENT_GRID` (echo: ping-pong and pipelined; stream: receive throughput from a
push), against the native reference server.

asv's ``params`` are the product of each axis's values (:attr:`ScenarioSpec.axes`); a
combination outside the grid that was measured is skipped (asv shows it as n/a), so the
one asv benchmark definition serves both grids.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import get_args

from wsbench.scenarios import base
from wsbench.scenarios.base import (
    BROADCAST_IN_FLIGHT,
    FANOUT_MAX_CLIENT_MESSAGES_PER_S,
    SOURCE_ADDRESSES,
    SWITCHES,
    Grid,
    Params,
    Scenario,
    ScenarioSpec,
    canonical,
)
from wsbench.scenarios.params import (
    PARAM_DOCS,
    PARAM_WORDS,
    ZERO_WORDS,
    params_key,
    params_label,
    params_words,
)

__all__ = [
    "BROADCAST_IN_FLIGHT", "CLIENT_GRID", "DEFAULT_GRID_PROCESSES",
    "DEFAULT_GRID_WINDOWS_PER_PROCESS",
    "FANOUT_MAX_CLIENT_MESSAGES_PER_S", "GRIDS", "PARAM_DOCS", "PARAM_NAMES", "PARAM_WORDS",
    "SCENARIOS", "SOURCE_ADDRESSES", "SPECS", "SWITCHES", "ZERO_WORDS", "Grid", "Params",
    "Scenario", "ScenarioSpec", "canonical", "client_messages_per_s", "grid", "in_grid",
    "params_key", "params_label", "params_words", "spec",
]  # fmt: skip

_NOT_SCENARIOS = frozenset({"base", "params", "selection"})
"""The package's modules that are not scenarios."""


def _discover() -> dict[Scenario, ScenarioSpec]:
    """Every scenario module's ``SPEC``, by name, in ``position`` order.

    Raises:
        TypeError: a scenario module without a ``SPEC``, or two with one name or position.
    """
    found: list[ScenarioSpec] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_SCENARIOS or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        defined = getattr(module, "SPEC", None)
        if not isinstance(defined, ScenarioSpec) or defined.name != info.name:
            raise TypeError(f"{module.__name__} has no SPEC named {info.name!r}")
        found.append(defined)
    found.sort(key=lambda d: d.position)
    if len({d.position for d in found}) != len(found):
        raise TypeError("two scenario modules share a position")
    return {d.name: d for d in found}


SPECS: dict[Scenario, ScenarioSpec] = _discover()
"""Every scenario's definition, by name, in the order tables and pages list them."""
SCENARIOS: tuple[Scenario, ...] = tuple(SPECS)
"""Every scenario, in the order tables and pages list them."""
GRIDS: tuple[Grid, ...] = get_args(Grid)
DEFAULT_GRID_WINDOWS_PER_PROCESS = 1
"""Windows per parameter set in each server process on the default grid (``./bench run``
without ``--windows``; the full grid takes the sampling plan's default): why in the
module's docstring."""
DEFAULT_GRID_PROCESSES = 3
"""Server processes on the default grid (``./bench run`` without ``--processes``; the full
grid takes the sampling plan's default): the fewest that give Welch's test of two figures
its 2 degrees of freedom (:data:`wsbench.results.stats.MIN_PROCESSES`) within the main job's
30-minute budget."""
PARAM_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(
        [name for s in SPECS.values() for name in s.axes]
        + [name for s in SPECS.values() for name in s.asv_axes()]
    )
)
"""Every parameter of the scenarios, in first-seen order: the axes', then the switches
(:data:`SWITCHES`) some full grid sets."""


def spec(scenario: str) -> ScenarioSpec:
    """The definition of ``scenario``.

    Raises:
        ValueError: unknown scenario (the message lists the known ones).
    """
    try:
        return SPECS[scenario]
    except KeyError:
        raise ValueError(f"unknown scenario {scenario!r} (known: {', '.join(SCENARIOS)})") from None


def grid(scenario: Scenario, which: Grid = "full") -> list[Params]:
    """The parameter sets of ``scenario`` in the ``which`` grid."""
    return SPECS[scenario].grid(which)


def in_grid(which: Grid) -> list[Scenario]:
    """The scenarios with at least one parameter set in the ``which`` grid."""
    return [s for s in SCENARIOS if SPECS[s].grid(which)]


def client_messages_per_s(scenario: str, p: Params) -> int:
    """Messages per second the fan-out set ``p`` of ``scenario`` asks of the load generator
    (0 for ``rate`` 0, which follows the server): subscribers x rate x the messages per
    delivery (:attr:`~wsbench.scenarios.base.FanoutMode.messages_per_delivery`)."""
    return base.client_messages_per_s(p, getattr(spec(scenario), "messages_per_delivery", 1))


CLIENT_PING_PONG_SIZES = (16, 256, 1024, 65536)
"""Message sizes of the client libraries' ping-pong and push sets, bytes: the servers' echo
sizes and 256 B (the clients' headline size)."""
CLIENT_PIPELINED_IN_FLIGHT = 64
"""Messages in flight of the client libraries' pipelined echo (the servers' pipelined
echo's)."""
CLIENT_GRID: dict[Scenario, tuple[Params, ...]] = {
    "echo": (
        *({"size_bytes": s, "in_flight": 1} for s in CLIENT_PING_PONG_SIZES),
        *({"size_bytes": s, "in_flight": CLIENT_PIPELINED_IN_FLIGHT} for s in (16, 1024)),
    ),
    "stream": tuple({"size_bytes": s} for s in CLIENT_PING_PONG_SIZES),
}
"""The parameter sets a client library is measured at, by scenario: echo ping-pong at
:data:`CLIENT_PING_PONG_SIZES`, pipelined echo (:data:`CLIENT_PIPELINED_IN_FLIGHT` in
flight) at 16 B and 1 KiB, receive throughput from a push at the ping-pong sizes."""
