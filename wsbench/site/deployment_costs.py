"""What each deployment profile costs against tuned (issue 44): computed once, for the What
your deployment costs page (:mod:`wsbench.site.deployment_page`) and the home page's
question (:mod:`wsbench.site.home`).

Per machine, configuration (the environment of its latest release:
:func:`wsbench.site.clients.latest_runs`), profiled parameter set
(:attr:`wsbench.scenarios.base.ScenarioSpec.profiled`) and profile other than tuned
(:data:`wsbench.deployment.PROFILES`) in which that set was measured, a :class:`Cost`: the
profile's figures as ratios to the same environment's tuned figures of the same set
(:func:`figures_of`: the scenario's headline figure, messages/s, connections/s or memory per
connection; the server's CPU per message or per connection; the p99 latency of a round trip
or a handshake). Each ratio is :func:`wsbench.results.stats.compare` of the two rows' server
processes (the unit of replication; Welch's t test on their logarithms), the profile's over
tuned, with its 99 % interval (:data:`wsbench.results.stats.COMPARISON_CONFIDENCE`) and
verdict. Beside them, what the server agreed to when offered permessage-deflate and the
compression ratio (payload bytes over wire bytes, the median over the windows) from the
profile's samples, and what its ``meta.toml`` states it does as shipped
(:attr:`wsbench.results.runformat.ImplInfo.shipped_compression`).

The answer first (:func:`answer`): per machine, a few sentences from the same costs: how
many configurations agree to compression as shipped, what they keep at the median of their
tuned figures, and what the configurations that decline keep (their as-shipped figures are
uncompressed).
"""

# The page's typography (en dash in intervals) is as published.
# ruff: noqa: RUF002

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from wsbench.cpulist import cpu_list
from wsbench.deployment import PROFILES, TUNED, Profile, in_profile
from wsbench.results import stats
from wsbench.results.metrics import BY_NAME, Metric
from wsbench.results.runformat import Sample
from wsbench.scenarios import SPECS
from wsbench.site.clients import latest_runs
from wsbench.site.markup import EN_DASH, TIMES, and_list, cell, first_line, params_title
from wsbench.site.render import SCENARIO_TITLES, checks_fail, memory_check
from wsbench.site.results import EnvRun, Results, by_environment, natural_key
from wsbench.site.rows import Params, Row, headline_of
from wsbench.site.sweeps import KIB


def _cpu_per(rate: str) -> Callable[[Sample], float | None]:
    """A sample's server CPU seconds per unit of its ``rate`` figure (``server_cpu_percent``
    / 100 / the rate); None when either is missing or not above 0."""

    def value(sample: Sample) -> float | None:
        cpu, per_s = sample.server_cpu_percent, getattr(sample, rate)
        if cpu is None or per_s is None or cpu <= 0 or per_s <= 0:
            return None
        return float(cpu) / 100.0 / float(per_s)

    return value


CPU_PER_MESSAGE = Metric(
    "server_cpu_per_message", "server CPU per message", "s", False, _cpu_per("messages_per_s")
)
"""The server's CPU time per message in one window, seconds: its CPU (percent of one core)
over the messages/s of the same window."""
CPU_PER_CONNECTION = Metric(
    "server_cpu_per_connection",
    "server CPU per connection",
    "s",
    False,
    _cpu_per("connections_per_s"),
)
"""The server's CPU time per connection set up in one window, seconds (connection setup:
connect, handshake, one message, close)."""
CPU_PER: dict[str, Metric] = {
    "messages_per_s": CPU_PER_MESSAGE,
    "connections_per_s": CPU_PER_CONNECTION,
}
"""The CPU figure of a scenario ranked by a rate, by the rate's metric name."""
FIGURE_WORDS: dict[str, tuple[str, str, float]] = {
    "messages_per_s": ("Messages/s", ",.0f", 1.0),
    "connections_per_s": ("Connections/s", ",.0f", 1.0),
    "memory_slope_bytes": ("Memory per connection (KiB)", ",.1f", KIB),
    "server_cpu_per_message": ("Server CPU per message", ",.1f", 1e-6),
    "server_cpu_per_connection": ("Server CPU per connection", ",.1f", 1e-6),
    "latency_p99": ("p99 latency", ",.1f", 1e-6),
    "handshake_p99": ("Handshake p99", ",.1f", 1e-6),
}
"""A figure's column words, number format and the unit its value is divided by, by metric
name (others: their label, capitalized)."""
LATENCIES = ("latency_p99", "handshake_p99")
"""The p99 latency a scenario's costs show: of its round trips, else of its handshakes."""
ANSWER_SET: tuple[str, Params] = ("echo", (("size_bytes", 1024), ("in_flight", 64), ("corpus", 1)))
"""The set the answer's throughput sentence (and the home page's chart) quotes when it was
measured: echo of the JSON corpus (1 KiB), 64 in flight per connection; else the set with
the most configurations compared."""
MEMORY_SCENARIO = "memory"
"""The scenario of the answer's sentence on memory per connection."""
DEFLATE_NAME = "permessage-deflate"

Stated = Literal["accepts", "declines", ""]
"""What a configuration's ``meta.toml`` states its server does with an offer of
permessage-deflate as shipped (the statement's first word), "" when not stated."""


def figures_of(scenario: str) -> tuple[Metric, ...]:
    """The figures a cost of ``scenario`` compares, in column order: its headline
    (:func:`wsbench.site.rows.headline_of`), the server's CPU per message or connection when
    the headline is a rate (:data:`CPU_PER`) and then its p99 latency when it has one
    (:data:`LATENCIES`), e.g. ``(messages/s, CPU per message, round trip p99)`` for echo,
    ``(memory per connection,)`` for memory."""
    headline = headline_of(scenario)
    if headline.name not in CPU_PER:
        return (headline,)
    found = [headline, CPU_PER[headline.name]]
    latency = next((BY_NAME[n] for n in LATENCIES if scenario in BY_NAME[n].scenarios), None)
    if latency is not None:
        found.append(latency)
    return tuple(found)


@dataclass(frozen=True)
class Ratio:
    """One figure of a profile over the same figure tuned.

    Attributes:
        metric: the figure.
        comparison: tuned as the base, the profile as the head
            (:func:`wsbench.results.stats.compare`: ``head_over_base`` is the ratio, with
            its 99 % interval and verdict); None when there is none.
        problem: why there is no comparison ("" when there is one).
    """

    metric: Metric
    comparison: stats.Comparison | None
    problem: str = ""

    @property
    def value(self) -> float | None:
        """The ratio (the profile's figure over tuned), None without a comparison."""
        return self.comparison.head_over_base if self.comparison else None


def ratio_of(metric: Metric, tuned: Row, other: Row) -> Ratio:
    """``metric`` of ``other`` over ``tuned`` (any two rows: the head over the base), with
    its interval and verdict over their server processes; a problem instead where a side
    has no figure or one not above 0."""
    base, head = tuned.groups(metric), other.groups(metric)
    if not any(base) or not any(head):
        return Ratio(metric, None, f"no {metric.label} recorded")
    if not (stats.on_log_scale(base) and stats.on_log_scale(head)):
        return Ratio(metric, None, f"{metric.label} not above 0: no ratio")
    return Ratio(metric, stats.compare(base, head, higher_is_better=metric.higher_is_better))


@dataclass(frozen=True)
class Cost:
    """One configuration's set in one profile against the same set tuned.

    Attributes:
        env: the environment's shown documents (:func:`wsbench.site.results.by_environment`;
            the first names it).
        scenario: the scenario.
        params: the set in the tuned profile, e.g. ``(("size_bytes", 1024), ("in_flight",
            64), ("corpus", 1))``.
        profile: the profile compared with tuned.
        tuned: the tuned row (None: not measured tuned).
        other: the profile's row.
        ratios: one per figure of :func:`figures_of`, in its order; empty when a row
            failed, was flagged or is missing (:attr:`problem` says why).
        problem: why nothing is compared ("" when the ratios are there).
        agreed: what the server agreed to when offered permessage-deflate, as the load
            generator read it, each distinct agreement of the profile's usable windows once
            (e.g. ``("permessage-deflate; client_max_window_bits=15",)``).
        declined: the profile offers permessage-deflate and no usable window recorded an
            agreement: the server declined it, and the profile's figures are uncompressed.
        compression: the median over the profile's usable windows of payload bytes over
            wire bytes (2.0: the messages took half their size on the wire); None when no
            window recorded both.
    """

    env: tuple[EnvRun, ...]
    scenario: str
    params: Params
    profile: Profile
    tuned: Row | None
    other: Row
    ratios: tuple[Ratio, ...] = ()
    problem: str = ""
    agreed: tuple[str, ...] = ()
    declined: bool = False
    compression: float | None = None

    @property
    def run(self) -> EnvRun:
        """The environment's first shown document (its name, version and metadata)."""
        return self.env[0]

    @property
    def headline(self) -> Ratio | None:
        """The ratio of the scenario's headline figure, None when nothing is compared."""
        return self.ratios[0] if self.ratios else None

    @property
    def compared(self) -> bool:
        """The headline figure has a ratio."""
        return self.headline is not None and self.headline.comparison is not None

    @property
    def stated(self) -> Stated:
        """What the configuration's ``meta.toml`` states its server does with an offer of
        permessage-deflate as shipped (:data:`Stated`)."""
        return stated(self.run.impl.shipped_compression)

    @property
    def mismatch(self) -> bool:
        """What the server did in this profile differs from what its ``meta.toml`` states
        (it agreed though stated to decline, or the reverse)."""
        if not self.profile.offers_deflate or not self.stated or not self.other.ok:
            return False
        return (self.stated == "accepts") != bool(self.agreed)

    @property
    def other_run(self) -> EnvRun:
        """The shown document the profile's row comes from."""
        return next(run for run in self.env if any(r is self.other for r in run.rows))

    @property
    def runs(self) -> tuple[EnvRun, ...]:
        """The shown documents the two rows come from."""
        rows = [r for r in (self.tuned, self.other) if r is not None]
        return tuple(run for run in self.env if any(r is w for r in run.rows for w in rows))


def stated(statement: str) -> Stated:
    """The first word of a ``shipped_compression`` statement (``"accepts: ..."`` ->
    ``"accepts"``); "" when it is empty or starts otherwise."""
    word = statement.partition(":")[0].strip().lower()
    return word if word in ("accepts", "declines") else ""  # type: ignore[return-value]


def agreed_words(agreement: str) -> str:
    """An agreement without the extension's name, its parameters joined by commas, e.g.
    ``"permessage-deflate; client_max_window_bits=15; server_no_context_takeover"`` ->
    ``"client_max_window_bits=15, server_no_context_takeover"``; ``"no parameters"`` for
    the bare extension."""
    parts = [p.strip() for p in agreement.split(";")]
    params = [p for p in parts if p and p != DEFLATE_NAME]
    return ", ".join(params) or "no parameters"


def _compression(samples: Sequence[Sample]) -> float | None:
    found = [
        s.payload_bytes / s.wire_bytes
        for s in samples
        if s.payload_bytes is not None and s.wire_bytes
    ]
    return stats.median(found) if found else None


def row_in(env: Sequence[EnvRun], scenario: str, params: dict[str, int]) -> Row | None:
    """The row of ``scenario`` at ``params`` among one environment's shown documents
    ``env`` (the first that has it), None when not measured."""
    for run in env:
        for row in run.rows:
            if row.scenario == scenario and dict(row.params) == params:
                return row
    return None


def _failed(row: Row, profile: Profile) -> str:
    return f"{profile.in_text}: {first_line(row.error or row.status)}"


def cost_of(env: Sequence[EnvRun], scenario: str, params: Params, profile: Profile) -> Cost | None:
    """``env``'s (one environment's shown documents) cost of ``profile`` at ``scenario``'s
    set ``params`` (in tuned); None when the environment did not measure that set in that
    profile."""
    wanted = dict(params)
    other = row_in(env, scenario, in_profile(wanted, profile))
    if other is None:
        return None
    tuned = row_in(env, scenario, wanted)
    samples = other.samples
    agreed = tuple(dict.fromkeys(s.deflate for s in samples if s.deflate))
    cost = Cost(
        tuple(env), scenario, params, profile, tuned, other,
        agreed=agreed,
        declined=profile.offers_deflate and other.ok and not agreed,
        compression=_compression(samples),
    )  # fmt: skip
    problem = ""
    if tuned is None:
        problem = "not measured tuned"
    elif not tuned.ok:
        problem = _failed(tuned, TUNED)
    elif not other.ok:
        problem = _failed(other, profile)
    else:
        flagged = [(p, r) for p, r in ((TUNED, tuned), (profile, other)) if checks_fail(r)]
        if flagged:
            which, row = flagged[0]
            problem = f"{which.in_text} flagged: {'; '.join(memory_check(row))}"
    if problem or tuned is None:
        return replace(cost, problem=problem)
    ratios = tuple(ratio_of(m, tuned, other) for m in figures_of(scenario))
    return replace(cost, ratios=ratios)


def cost_order(cost: Cost) -> tuple[object, ...]:
    """Sort key of a set's costs: compared first, most costly first (the lowest ratio of a
    figure where higher is better, the highest where lower is better), then by name and
    version."""
    ratio = cost.headline.value if cost.headline else None
    higher = headline_of(cost.scenario).higher_is_better
    key = 0.0 if ratio is None else (ratio if higher else -ratio)
    return (
        ratio is None,
        key,
        natural_key(cost.run.label),
        natural_key(cost.run.impl.version or ""),
    )


@dataclass(frozen=True)
class CostSet:
    """Every configuration's cost of one profile at one set on one machine.

    Attributes:
        machine: the machine.
        scenario: the scenario.
        params: the set in tuned.
        profile: the profile compared with tuned.
        costs: one per configuration that measured the set in the profile, in
            :func:`cost_order` (most costly first, the ones not compared last).
    """

    machine: str
    scenario: str
    params: Params
    profile: Profile
    costs: tuple[Cost, ...]

    @property
    def title(self) -> str:
        """E.g. ``"Echo, 1,024 B messages, the JSON corpus, 64 in flight per connection"``."""
        return f"{SCENARIO_TITLES.get(self.scenario, self.scenario)}, {params_title(self.params)}"

    @property
    def compared(self) -> tuple[Cost, ...]:
        """The costs with a headline ratio, in order."""
        return tuple(c for c in self.costs if c.compared)


@dataclass(frozen=True)
class Deployment:
    """What every measured profile costs against tuned.

    Attributes:
        sets: one per (machine, profile, scenario, set) measured in a profile other than
            tuned by some configuration, in machine, :data:`wsbench.deployment.PROFILES`,
            scenario and :attr:`~wsbench.scenarios.base.ScenarioSpec.profiled` order.
        statements: each configuration's latest release shown (its first document, on the
            first Python shown), for what its ``meta.toml`` states of compression as shipped,
            of TLS and of worker processes.
        answers: per machine, the answer in paragraphs (:func:`answer`, Markdown).
    """

    sets: tuple[CostSet, ...] = ()
    statements: tuple[EnvRun, ...] = ()
    answers: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def empty(self) -> bool:
        """No configuration was measured in a profile other than tuned."""
        return not self.sets

    @property
    def machines(self) -> list[str]:
        """The machines with a cost, sorted."""
        return sorted({s.machine for s in self.sets})

    def answer_of(self, machine: str) -> tuple[str, ...]:
        """The answer's paragraphs on ``machine`` (empty when it has no cost)."""
        return dict(self.answers).get(machine, ())

    def measured(self) -> list[Profile]:
        """The profiles other than tuned with a cost, in :data:`PROFILES` order."""
        found = {s.profile for s in self.sets}
        return [p for p in PROFILES if p in found]


def profiled_sets() -> list[tuple[str, Params]]:
    """Every scenario's profiled sets (in tuned), in scenario and set order."""
    return [(name, tuple(p)) for name, spec in SPECS.items() for p in spec.profiled]


def deployment_of(results: Results) -> Deployment:
    """The costs of every profile measured in ``results`` (the current comparison group of
    every machine), of each configuration's latest release, with the answers."""
    latest = latest_runs(results)
    envs = by_environment(latest)
    sets: list[CostSet] = []
    for machine in results.machines:
        mine = [env for env in envs if env[0].machine == machine]
        for profile in PROFILES:
            if profile is TUNED:
                continue
            for scenario, params in profiled_sets():
                found = [c for env in mine if (c := cost_of(env, scenario, params, profile))]
                if found:
                    costs = tuple(sorted(found, key=cost_order))
                    sets.append(CostSet(machine, scenario, params, profile, costs))
    # One row a configuration: its environments on other Pythons state the same.
    firsts: dict[tuple[str, str, str], EnvRun] = {}
    for env in envs:
        firsts.setdefault((env[0].machine, env[0].impl.name, env[0].impl.config), env[0])
    statements = tuple(firsts.values())
    answers = tuple((m, tuple(answer(sets, m))) for m in sorted({s.machine for s in sets}))
    return Deployment(tuple(sets), statements, answers)


def times(value: float) -> str:
    """A ratio in a sentence, e.g. ``"0.62×"``: two decimals, three below 0.1."""
    return f"{value:.2f}{TIMES}" if value >= 0.1 else f"{value:.3f}{TIMES}"


def _median(values: Sequence[float]) -> float:
    return stats.median(list(values))


def _range(values: Sequence[float]) -> str:
    low, high = min(values), max(values)
    return times(low) if low == high else f"{times(low)}{EN_DASH}{times(high)}"


def _ratios(costs: Sequence[Cost], metric: Metric) -> list[float]:
    return [r.value for c in costs for r in c.ratios if r.metric is metric and r.value is not None]


def _named(cost: Cost) -> str:
    return cell(f"{cost.run.label} {cost.run.impl.version or ''}".strip())


def headline_set(sets: Sequence[CostSet]) -> CostSet | None:
    """Of one machine's and profile's ``sets``, the one the answer quotes: :data:`ANSWER_SET`
    when some Python configuration was compared there, else the one with the most; None
    when none was."""
    python = [s for s in sets if any(not c.run.impl.reference for c in s.compared)]
    if not python:
        return None
    for s in python:
        if (s.scenario, s.params) == ANSWER_SET:
            return s
    return max(python, key=lambda s: len(s.compared))


def _figures_sentence(costs: Sequence[Cost], metrics: Sequence[Metric]) -> str:
    """``"a median 0.62× of their tuned messages/s (0.41×–0.95×; significantly lower in 6
    of 7), at 1.6× the server CPU per message and 1.5× the round trip p99"``."""
    head, *rest = metrics
    values = _ratios(costs, head)
    worse = sum(
        1
        for c in costs
        if c.headline and c.headline.comparison and c.headline.comparison.verdict == "slower"
    )
    text = f"a median **{times(_median(values))}** of their tuned {head.unit}"
    if len(values) > 1:
        way = "lower" if head.higher_is_better else "higher"
        text += f" ({_range(values)}; significantly {way} in {worse} of {len(values)})"
    parts = [f"{times(_median(found))} the {m.label}" for m in rest if (found := _ratios(costs, m))]
    return f"{text}, at {and_list(parts)}" if parts else text


def _deflate_sentences(chosen: CostSet, memory: CostSet | None) -> list[str]:
    """The lead sentence of a profile that offers compression, then one bullet each (what
    those that agree keep, the most costly, those that decline, memory per connection)."""
    python = [c for c in chosen.compared if not c.run.impl.reference]
    agreeing = [c for c in python if c.agreed]
    declining = [c for c in python if c.declined]
    metrics = figures_of(chosen.scenario)
    where = cell(chosen.title)
    failed = [
        c
        for c in chosen.costs
        if not c.run.impl.reference and not c.other.ok and c.tuned and c.tuned.ok
    ]  # not those that could not run tuned either (e.g. a scenario not supported)
    out = [
        f"**{chosen.profile.title}** ({where}): offered permessage-deflate as a browser "
        f"offers it, {len(agreeing)} of the {len(python)} Python configurations compared "
        f"agree to it with their framework's defaults and {len(declining)} decline it"
        + (f"; {len(failed)} more failed {chosen.profile.in_text}." if failed else ".")
    ]
    if agreeing:
        text = f"Those that agree keep {_figures_sentence(agreeing, metrics)}"
        ratios = [c.compression for c in agreeing if c.compression]
        if ratios:
            text += (
                f"; their messages shrink {_median(ratios):.1f}{TIMES} on the wire (median "
                "payload over wire bytes)"
            )
        out.append(f"- {text}.")
        worst = agreeing[0]  # the costs are most costly first
        if worst.headline and worst.headline.value is not None:
            out.append(f"- The most costly: {_named(worst)}, {times(worst.headline.value)}.")
    if declining:
        values = _ratios(declining, metrics[0])
        out.append(
            f"- Those that decline send uncompressed as shipped, so a ratio near 1{TIMES} is "
            f"expected: they keep a median {times(_median(values))} ({_range(values)})."
        )
    if memory is not None:
        kept = [c for c in memory.compared if not c.run.impl.reference and c.agreed]
        values = _ratios(kept, headline_of(memory.scenario))
        if values:
            top = kept[0]  # the most costly first: the highest memory ratio
            out.append(
                f"- Memory per connection ({cell(params_title(memory.params))}) of those that "
                f"agree: a median {times(_median(values))} of tuned, up to "
                f"{times(max(values))} ({_named(top)})."
            )
    return out


def server_cpus_words(profile: Profile, costs: Sequence[Cost]) -> str:
    """Where a multi-CPU profile's servers ran, from the settings of ``costs``' documents
    (:attr:`wsbench.results.runformat.Settings.multi_server_cpus`), e.g. ``"one process on
    CPUs 2-3"`` or ``"3 worker processes on CPUs 2-4, one per CPU"`` (several sets: each,
    joined by "or"); "" for a profile on one CPU or without costs."""
    if not profile.multi_cpu:
        return ""
    found = sorted({profile.cpus_of(c.other_run.doc.settings.multi_server_cpus) for c in costs})
    if profile.worker_processes:
        words = [
            f"{len(cpus)} worker processes on CPUs {cpu_list(cpus)}, one per CPU" for cpus in found
        ]
    else:
        words = [f"one process on CPUs {cpu_list(cpus)}" for cpus in found]
    return " or ".join(words)


def _other_sentences(chosen: CostSet) -> list[str]:
    python = [c for c in chosen.compared if not c.run.impl.reference]
    metrics = figures_of(chosen.scenario)
    where = server_cpus_words(chosen.profile, chosen.compared)
    return [
        f"**{chosen.profile.title}** ({cell(chosen.title)}{'; ' + where if where else ''}): "
        f"the {len(python)} Python configuration{'' if len(python) == 1 else 's'} compared "
        f"keep{'s' if len(python) == 1 else ''} {_figures_sentence(python, metrics)}."
    ]


def answer(sets: Sequence[CostSet], machine: str) -> list[str]:
    """The answer on ``machine`` in paragraphs (Markdown), one per profile (a lead sentence
    and a list, for a profile that offers compression): for a profile
    that offers compression, how many Python configurations agree to it and how many
    decline it, what those that agree keep at the median of their tuned figures at the
    quoted set (:func:`headline_set`) with the range and how many are significantly worse,
    their compression, the most costly, what those that decline keep (uncompressed: near
    1×), and their memory per connection; for another profile, what every configuration
    keeps; last, the profiles not measured."""
    mine = [s for s in sets if s.machine == machine]
    out: list[str] = []
    measured = []
    for profile in PROFILES:
        found = [s for s in mine if s.profile is profile]
        chosen = headline_set(found)
        if profile is TUNED or chosen is None:
            continue
        measured.append(profile)
        if profile.offers_deflate:
            memory = next((s for s in found if s.scenario == MEMORY_SCENARIO), None)
            lead, *bullets = _deflate_sentences(chosen, memory)
            out.append("\n\n".join(filter(None, [lead, "\n".join(bullets)])))
        else:
            out.append(" ".join(_other_sentences(chosen)))
    missing = [p for p in PROFILES if p is not TUNED and p not in measured]
    single = [p.title for p in missing if not p.multi_cpu]
    multi = [p.title for p in missing if p.multi_cpu]
    if single:
        out.append(f"Not measured in the shown runs: {and_list(single)}.")
    if multi:
        out.append(
            f"Not measured on this machine: {and_list(multi)}, which need a runner whose "
            "layout gives the server two CPUs or more beside the load generator's "
            "(`./bench system layout`); their figures come from such a runner."
        )
    return out
