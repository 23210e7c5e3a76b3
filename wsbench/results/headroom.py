"""How many CPUs the load generator needs, and the layout of a benchmark runner with N cores.

A figure measures the server only while the load generator keeps up with it. Its **demand**
at a parameter set is the CPU it needs (percent of one core, summed over its threads) to
drive the server at the server's own pace, from the run documents:

- its reading (``loadgen_cpu_percent``, the median of the usable windows) when it was not
  client-bound (:func:`wsbench.results.metrics.client_bound`): the server set the pace;
- when it was client-bound, that reading scaled by how much faster the server could have
  gone on its CPUs: ``100 % x server CPUs / server_cpu_percent`` (the load generator's work
  grows with the messages, and the server was that far from saturating its CPUs). On one
  core, 96 % of load generator against a server at 48 % reads as a demand of 192 %.

The runner's load generator gets enough CPUs for :data:`HEADROOM` times the largest demand
of any Python server in any scenario and parameter set in the documents (the full grid's,
in the nightly's store); in practice that is the fastest Python server's. The native
reference server is left out: it is a yardstick, not a framework a figure is about, and
it outruns every Python server by far (sizing for it would ask for more CPUs than any
runner has). The layout (:func:`layout`) gives the operating system, the runner's own
process, the harness and interrupts CPUs 0-1 (the runner guide in the README), the server
the next CPU, and the load generator the CPUs after it, one runtime thread each
(``--loadgen-cpus``, the load generator's ``--cpus``).

The multi-CPU deployment profiles (:mod:`wsbench.deployment`: *2 CPUs*, and *workers*, one
worker process per CPU) give the server a set of N >= 2 CPUs from the server's CPU on
(``WSBENCH_MULTI_SERVER_CPUS``): the largest N for which the load generator still gets its
CPUs for N times the largest demand, the CPUs after them. A runner without room for two is
given none, and the full grid leaves those profiles out there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.cpulist import cpu_list
from wsbench.deployment import MIN_MULTI_SERVER_CPUS, MULTI_SERVER_CPUS_ENV
from wsbench.results import metrics
from wsbench.results.runformat import Run
from wsbench.results.stats import median

HEADROOM = 5.0
"""How many times its largest demand the load generator's CPUs must be able to give (issue
30: at least 5x headroom in every scenario of the full grid against the fastest Python
server)."""

SYSTEM_CPUS = 2
"""CPUs left to the operating system, the runner, the harness and interrupts (from CPU 0;
one on a runner of 3 CPUs)."""
SERVER_CPUS = 1
"""CPUs of the server: a Python server is one process, measured on one core."""

LOADGEN_CPU = metrics.BY_NAME["loadgen_cpu_percent"]
SERVER_CPU = metrics.BY_NAME["server_cpu_percent"]


@dataclass(frozen=True)
class Demand:
    """The load generator's demand at one parameter set against one server.

    Attributes:
        scenario, params: the parameter set.
        row_name, version: the server (its configuration's row name, the framework's version).
        loadgen_cpu_percent: its median reading, percent of one core.
        server_cpu_percent: the server's median CPU, percent of one core.
        loadgen_cpus, server_cpus: how many CPUs each ran on in that run.
        demand_percent: the CPU the load generator needs at the server's pace, percent of one
            core (the module's docstring says how).
    """

    scenario: str
    params: dict[str, int]
    row_name: str
    version: str | None
    loadgen_cpu_percent: float
    server_cpu_percent: float
    loadgen_cpus: int
    server_cpus: int
    demand_percent: float

    @property
    def client_bound(self) -> bool:
        """Whether the reading was client-bound (so the demand is scaled)."""
        return metrics.client_bound(self.loadgen_cpu_percent, self.loadgen_cpus)


def demands(runs: Sequence[Run]) -> list[Demand]:
    """The demand of every usable parameter set of the Python servers in ``runs`` (the
    reference and client libraries left out; sets with no usable window, no load generator
    reading or no server reading, e.g. memory, too), largest first."""
    found = []
    for run in runs:
        if run.impl.reference or run.impl.role != "server":
            continue
        lg_cpus, sv_cpus = len(run.settings.loadgen_cpus), len(run.settings.server_cpus)
        for bench in run.benchmarks:
            usable = bench.usable() if bench.status == "ok" else []
            loadgen = metrics.values(LOADGEN_CPU, usable)
            server = metrics.values(SERVER_CPU, usable)
            if not loadgen or not server or median(server) <= 0:
                continue
            lg, sv = median(loadgen), median(server)
            scale = max(1.0, 100.0 * sv_cpus / sv) if metrics.client_bound(lg, lg_cpus) else 1.0
            demand = Demand(
                bench.scenario, bench.params, run.impl.row_name, run.impl.version,
                lg, sv, lg_cpus, sv_cpus, lg * scale,
            )  # fmt: skip
            found.append(demand)
    return sorted(found, key=lambda d: d.demand_percent, reverse=True)


def loadgen_cpus_needed(largest_demand_percent: float, headroom: float = HEADROOM) -> int:
    """The load generator's CPUs for ``headroom`` times a demand of
    ``largest_demand_percent`` (percent of one core): at least 1."""
    return max(1, math.ceil(headroom * largest_demand_percent / 100.0 - 1e-9))


@dataclass(frozen=True)
class Layout:
    """Which CPUs of a runner do what.

    Attributes:
        cores: the runner's CPUs.
        system: CPUs left to the operating system and the harness.
        server: the server's CPUs (``--server-cpus``).
        loadgen: the load generator's CPUs (``--loadgen-cpus``), one runtime thread each.
        needed: the load generator CPUs :data:`HEADROOM` asks for.
        headroom: how many times the largest demand its CPUs can give (None: no demand known).
        multi_server: the server's CPUs in the multi-CPU profiles (``()``: no room for two);
            the first is :attr:`server`'s.
    """

    cores: int
    system: tuple[int, ...]
    server: tuple[int, ...]
    loadgen: tuple[int, ...]
    needed: int
    headroom: float | None
    multi_server: tuple[int, ...] = ()

    @property
    def enough(self) -> bool:
        """Whether the load generator has the CPUs :data:`HEADROOM` asks for."""
        return len(self.loadgen) >= self.needed


def layout(cores: int, largest_demand_percent: float | None) -> Layout:
    """The layout of a runner with ``cores`` CPUs (numbered from 0) for a load generator
    whose largest demand is ``largest_demand_percent`` (None: unknown, one CPU asked for).
    With 4 cores or more, CPUs 0-1 are the system's (:data:`SYSTEM_CPUS`), CPU 2 the
    server's and the load generator gets the CPUs it needs from CPU 3 on (those left, when
    fewer); with 3, the system keeps CPU 0 only. With 2 cores (this project's development
    machine) there is none to spare for the system: the server on CPU 0, the load generator
    on CPU 1 (the default placement). With 1, both share CPU 0.

    Where the CPUs after the system's hold N >= 2 server CPUs and N times the load
    generator's, the multi-CPU server set is the N from the server's CPU and the load
    generator takes the N x ``needed`` after them (the largest such N).

    Raises:
        ValueError: ``cores`` is below 1.
    """
    if cores < 1:
        raise ValueError(f"a runner has at least 1 CPU, not {cores}")
    needed = 1 if largest_demand_percent is None else loadgen_cpus_needed(largest_demand_percent)
    system: tuple[int, ...]
    server: tuple[int, ...]
    loadgen: tuple[int, ...]
    multi_server: tuple[int, ...] = ()
    if cores == 1:
        system, server, loadgen = (), (0,), (0,)
    elif cores == 2:
        system, server, loadgen = (), (0,), (1,)
    else:
        kept = min(SYSTEM_CPUS, cores - SERVER_CPUS - 1)
        system = tuple(range(kept))
        multi = (cores - kept) // (1 + needed)  # N + N x needed CPUs fit
        width = multi if multi >= MIN_MULTI_SERVER_CPUS else SERVER_CPUS
        first = kept + width
        server = tuple(range(kept, kept + SERVER_CPUS))
        loadgen = tuple(range(first, min(cores, first + needed * width)))
        if multi >= MIN_MULTI_SERVER_CPUS:
            multi_server = tuple(range(kept, first))
    headroom = None
    if largest_demand_percent:
        headroom = 100.0 * len(loadgen) / largest_demand_percent
    return Layout(cores, system, server, loadgen, needed, headroom, multi_server)


def newest_runs(runs: Sequence[Run]) -> list[Run]:
    """The newest run document of each (machine, environment) of ``runs``: the figures of
    the current versions and load generator, not of every night before."""
    newest: dict[tuple[str, str], Run] = {}
    for run in runs:
        key = (run.machine.name, run.environment.env_name)
        if key not in newest or run.run_id > newest[key].run_id:
            newest[key] = run
    return list(newest.values())


def describe(plan: Layout, found: Sequence[Demand], shown: int = 8) -> str:
    """``plan`` and the demands behind it as lines of text (``./bench system check`` and
    ``./bench system layout``): the CPUs of each role, the command line that applies them,
    the largest demand and the headroom, then the ``shown`` largest demands."""
    threads = "runtime thread" if len(plan.loadgen) == 1 else "runtime threads"
    lines = [
        f"a runner with {plan.cores} CPUs: system {cpu_list(plan.system)}, server "
        f"{cpu_list(plan.server)}, load generator {cpu_list(plan.loadgen)} "
        f"({len(plan.loadgen)} {threads})",
        f"  ./bench run --server-cpus {cpu_list(plan.server)} "
        f"--loadgen-cpus {cpu_list(plan.loadgen)}",
    ]
    lines.append(_multi_line(plan))
    if not found:
        lines.append(
            "  no measured Python server in the results store to size the load generator "
            "from: run ./bench run (or read the nightly's store with --results)"
        )
        return "\n".join(lines) + "\n"
    top = found[0]
    lines.append(
        f"  largest demand: {top.demand_percent:.0f} % of one core ({_where(top)}); "
        f"{HEADROOM:g}x headroom needs {plan.needed} load generator CPU(s)"
    )
    verdict = "enough" if plan.enough else "NOT enough: figures near it may be client-bound"
    lines.append(f"  this layout gives {plan.headroom or 0:.1f}x headroom: {verdict}")
    lines.append(f"  largest demands ({len(found)} parameter sets of Python servers):")
    lines += [f"    {d.demand_percent:6.0f} %  {_where(d)}" for d in found[:shown]]
    return "\n".join(lines) + "\n"


def _multi_line(plan: Layout) -> str:
    """The layout's line on the multi-CPU profiles: the environment variable that applies
    its server set, or why it has none."""
    if not plan.multi_server:
        n = MIN_MULTI_SERVER_CPUS
        return (
            f"  multi-CPU profiles (2 CPUs, workers): none, no room for {n} server CPUs and "
            f"{n * plan.needed} load generator CPUs (at least {SYSTEM_CPUS + n * (1 + plan.needed)}"
            " cores)"
        )
    n = len(plan.multi_server)
    return (
        f"  multi-CPU profiles: 2 CPUs on {cpu_list(plan.multi_server[:2])}, {n} workers on "
        f"{cpu_list(plan.multi_server)}: {MULTI_SERVER_CPUS_ENV}={cpu_list(plan.multi_server)}"
    )


def _where(d: Demand) -> str:
    params = " ".join(f"{k}={v}" for k, v in d.params.items())
    how = (
        f"read {d.loadgen_cpu_percent:.0f} % on {d.loadgen_cpus} CPU(s), client-bound, "
        f"server at {d.server_cpu_percent:.0f} %"
        if d.client_bound
        else f"read {d.loadgen_cpu_percent:.0f} %"
    )
    return f"{d.scenario} {params} against {d.row_name} {d.version or ''}".rstrip() + f": {how}"
