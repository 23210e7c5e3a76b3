"""Each configuration's latest release on every Python it was measured on, against the
default Python (issue 45): computed once, for the framework pages' *By Python version*
(:mod:`wsbench.site.framework_pages`) and the home page's question *Does a newer Python make
it faster?* (:mod:`wsbench.site.home`).

Per machine and configuration, the environment of its latest release on each Python
(:func:`wsbench.site.clients.latest_runs`, which keeps one per Python). At each set of
:data:`PYTHON_SETS`, each figure of :func:`wsbench.site.deployment_costs.figures_of` on a
Python other than the default is a ratio to the same figure on the default
(:func:`wsbench.site.deployment_costs.ratio_of`: Welch's t test over the server processes,
the unit of replication, with its 99 % interval). Instructions per message at
:data:`COUNTED_SET` are a plain ratio: a count does not vary with the machine's noise, and
its spread says when it does (:mod:`wsbench.results.instruction_verdicts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.pythons import DEFAULT_PYTHON, parse_python
from wsbench.results.metrics import Metric
from wsbench.results.runformat import InstructionSet
from wsbench.site.clients import latest_runs
from wsbench.site.deployment_costs import Ratio, figures_of, ratio_of, row_in
from wsbench.site.markup import first_line
from wsbench.site.results import EnvRun, Results, by_environment, natural_key
from wsbench.site.rows import Params, Row

PYTHON_SETS: tuple[tuple[str, Params], ...] = (
    ("echo", (("size_bytes", 16), ("in_flight", 64))),
    ("broadcast", (("subscribers", 100), ("rate", 0), ("size_bytes", 16))),
    ("memory", (("connections", 1000),)),
)
"""The sets a configuration is shown at on each Python (all in the default grid): echo of
16 B messages, 64 in flight per connection (messages/s and the server's CPU per message), a
broadcast to 100 subscribers (deliveries/s), and the memory per connection at 1,000."""
NOT_COMPARED_ON = "on Python "
"""How a ratio's problem begins when a side's row has no figure (``"on Python 3.13: every
window was disturbed ..."``)."""
COUNTED_SET: tuple[str, Params] = ("echo", (("size_bytes", 16), ("in_flight", 64)))
"""The counted set whose instructions per message are shown on each Python."""


def python_order(python: str) -> tuple[int, int, bool]:
    """Sort key of a Python's name: by version, the free-threaded build after the other."""
    name = parse_python(python)
    return (name.major, name.minor, name.free_threaded)


def base_label(run: EnvRun) -> str:
    """A run's row name without the Python it names (``"websockets · asyncio · Python
    3.13"`` -> ``"websockets · asyncio"``)."""
    return run.label.removesuffix(f" · Python {run.doc.python}")


@dataclass(frozen=True)
class OnPython:
    """A configuration's latest release on one Python.

    Attributes:
        python: the Python, e.g. ``"3.13"``.
        env: the environment's shown documents (its figures may come from several runs).
    """

    python: str
    env: tuple[EnvRun, ...]

    @property
    def run(self) -> EnvRun:
        """The environment's first shown document (its name, version and metadata)."""
        return self.env[0]

    def row(self, scenario: str, params: Params) -> Row | None:
        """The row of ``scenario`` at ``params``, None when not measured."""
        return row_in(self.env, scenario, dict(params))

    def count(self, scenario: str, params: Params) -> InstructionSet | None:
        """The newest shown count of ``scenario`` at ``params``, None when not counted."""
        wanted = dict(params)
        for run in sorted(self.env, key=lambda e: e.run_id, reverse=True):
            for counted in run.doc.instructions:
                if counted.scenario == scenario and counted.params == wanted:
                    return counted
        return None


@dataclass(frozen=True)
class OnPythons:
    """One configuration's latest release on every Python it was measured on, on one
    machine.

    Attributes:
        machine: the machine.
        label: the configuration's row name, without a Python.
        pythons: one per Python, by version (:func:`python_order`).
    """

    machine: str
    label: str
    pythons: tuple[OnPython, ...]

    @property
    def default(self) -> OnPython | None:
        """The configuration on :data:`wsbench.pythons.DEFAULT_PYTHON`, None if not measured
        there."""
        return next((p for p in self.pythons if p.python == DEFAULT_PYTHON), None)

    @property
    def others(self) -> tuple[OnPython, ...]:
        """The configuration on every other Python."""
        return tuple(p for p in self.pythons if p.python != DEFAULT_PYTHON)

    def ratio(self, on: OnPython, metric: Metric, scenario: str, params: Params) -> Ratio | None:
        """``metric`` at ``scenario``'s set ``params`` on ``on``'s Python over the default's,
        with its 99 % interval; None for the default itself, or when a side did not measure
        the set (a failed or missing row: :attr:`Ratio.problem` says which)."""
        default = self.default
        if default is None or on is default:
            return None
        base, head = default.row(scenario, params), on.row(scenario, params)
        if base is None or head is None:
            return None
        if not base.ok or not head.ok:
            python, row = (DEFAULT_PYTHON, base) if not base.ok else (on.python, head)
            why = first_line(row.error or row.status)
            return Ratio(metric, None, f"{NOT_COMPARED_ON}{python}: {why}")
        return ratio_of(metric, base, head)

    def count_ratio(self, on: OnPython) -> float | None:
        """Instructions per message at :data:`COUNTED_SET` on ``on``'s Python over the
        default's; None for the default, or when a side has no figure."""
        default = self.default
        if default is None or on is default:
            return None
        base, head = (p.count(*COUNTED_SET) for p in (default, on))
        if base is None or head is None or not base.per_message or head.per_message is None:
            return None
        return head.per_message / base.per_message


def on_pythons(results: Results) -> list[OnPythons]:
    """Every configuration measured on a Python other than the default, per machine, with
    its latest release on each Python measured; in the order of machines and labels."""
    grouped: dict[tuple[str, str, str], dict[str, list[EnvRun]]] = {}
    for env in by_environment(latest_runs(results)):
        run = env[0]
        key = (run.machine, run.impl.name, run.impl.config or "")
        grouped.setdefault(key, {})[run.doc.python] = env
    out = []
    for key, by_python in grouped.items():
        if set(by_python) <= {DEFAULT_PYTHON}:
            continue
        pythons = tuple(
            OnPython(p, tuple(by_python[p])) for p in sorted(by_python, key=python_order)
        )
        first = (by_python.get(DEFAULT_PYTHON) or next(iter(by_python.values())))[0]
        out.append(OnPythons(key[0], base_label(first), pythons))
    out.sort(key=lambda o: (o.machine, natural_key(o.label)))
    return out


def newest_python(found: Sequence[OnPythons], machine: str) -> str | None:
    """The newest Python other than the default (the free-threaded build counted after the
    other) that at least half as many configurations of ``machine`` were measured on, beside
    the default, as the Python measured most: the home page's question asks about it. None
    when there is none."""
    counts: dict[str, int] = {}
    for o in found:
        if o.machine == machine and o.default is not None:
            for p in o.others:
                counts[p.python] = counts.get(p.python, 0) + 1
    if not counts:
        return None
    enough = max(counts.values()) / 2
    return max((p for p, n in counts.items() if n >= enough), key=python_order)


def headline_metric(scenario: str) -> Metric:
    """The headline figure a set of :data:`PYTHON_SETS` is compared by (its first figure)."""
    return figures_of(scenario)[0]
