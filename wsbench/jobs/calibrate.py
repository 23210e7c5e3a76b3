"""``./bench calibrate``: how often this machine's verdicts are wrong, and how often a real
slowdown is found, measured rather than assumed.

- **A/A** (the default): each repeat is one interleaved session in which every chosen server
  is measured on both sides (base, head, base, head ..., one fresh process a side and
  round, :mod:`wsbench.instrument.interleave`), so every figure compared is a server against
  itself: any *faster* or *slower* verdict is false. The default servers and sets are the
  issue's calibration: websockets, aiohttp and the native reference at echo 16 B x 1 and
  x 64 and push 16 B (messages/s, p50 and p99 of the round trips).
- **Power** (``--slowdown F``): the calibration server (:data:`SPIN_SERVER`, a websockets
  echo that spins a given time per message) against itself slowed so that its rate falls by
  the fraction F (the spin time is set from a quick measurement at the start of each
  repeat), beside the same server unslowed on both sides as the control, at echo 16 B x 64.
  A *slower* verdict of the slowed server's messages/s is a detection.

Each repeat's documents are kept under ``--output`` (``<machine>/<run id>-base|head/``, not
the results store); ``--documents DIR`` analyses earlier ones instead of measuring, and
``--rounds R --windows W`` analyses the first R rounds and W windows of each, so that one
generous measurement gives the verdicts of every smaller plan. The verdicts are
:func:`wsbench.results.compare.compare_runs`'s (Welch's test over the server processes), and
the report gives how alike the two sides of a round are (:func:`round_correlation`: why the
rounds are not analysed paired). The options are
:class:`CalibrateOptions` (the command line is :mod:`wsbench.commands.calibrate`'s).
"""

from __future__ import annotations

import math
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from wsbench.impls import Impl, get_impl
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.interleave import Arm, measure_interleaved
from wsbench.instrument.measure import MeasureConfig, measure
from wsbench.instrument.sampling import SamplingPlan
from wsbench.paths import REPO_ROOT
from wsbench.results import compare, metrics, stats, store
from wsbench.results.runformat import Benchmark, Run, Sample
from wsbench.results.stats import TOO_FEW
from wsbench.scenarios import Params, Scenario, params_label

SPIN_SERVER = Path(__file__).parent / "calibration"
"""The folder of the calibration server, ``spin_echo.py``."""
DEFAULT_SERVERS = ("websockets:asyncio", "aiohttp:asyncio", "native:websocket")
"""The servers of an A/A calibration: two Python servers and the native reference."""
AA_GRID: dict[Scenario, list[Params]] = {
    "echo": [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 16, "in_flight": 64}],
    "stream": [{"size_bytes": 16}],
}
"""The parameter sets of an A/A calibration."""
SLOWED_GRID: dict[Scenario, list[Params]] = {"echo": [{"size_bytes": 16, "in_flight": 64}]}
"""The parameter set of a power calibration."""
DEFAULT_PLAN = SamplingPlan(processes=6, windows_per_process=2)
"""A generous plan, so that smaller ones can be analysed from the same documents."""
DEFAULT_OUTPUT = REPO_ROOT / "calibration"
SLOWED = "slowed"
CONTROL = "control"


class CalibrateError(ValueError):
    """The calibration cannot run as asked (bad options, no documents to analyse)."""


@dataclass(frozen=True)
class CalibrateOptions:
    """What ``./bench calibrate`` measures or analyses.

    Attributes:
        servers: ``IMPL[:CONFIG]`` of each server of an A/A calibration.
        slowdown: a power calibration: the fraction by which the slowed server's rate
            falls (0.2: to 80 %); None: A/A.
        repeats: interleaved sessions (comparisons) to measure.
        plan: each session's plan; ``plan.processes`` is its rounds.
        output: where the documents go.
        machine: the machine's name in the documents.
        documents: analyse the documents under this folder instead of measuring.
        rounds: analyse only the first ``rounds`` rounds (None: all).
        windows: analyse only the first ``windows`` windows of each round (None: all).
    """

    servers: Sequence[str] = DEFAULT_SERVERS
    slowdown: float | None = None
    repeats: int = 10
    plan: SamplingPlan = field(default_factory=lambda: DEFAULT_PLAN)
    output: Path = DEFAULT_OUTPUT
    machine: str = "wsbench-local"
    documents: Path | None = None
    rounds: int | None = None
    windows: int | None = None


def spin_impl(name: str, spin_us: float = 0.0) -> Impl:
    """The calibration server as an implementation called ``name``, spinning ``spin_us``
    microseconds per message."""
    args = ("--spin-us", f"{spin_us:.3f}") if spin_us else ()
    return Impl(
        name=name, display_name=name, directory=SPIN_SERVER, package=None,
        server="calibration server (websockets)", event_loop="asyncio", protocol="websocket",
        homepage="", reference=False, versions=(), deviations={},
        command=("{python}", "{dir}/spin_echo.py", "--host", "{host}", "--port", "{port}",
                 *args),
    )  # fmt: skip


def spin_for(slowdown: float, messages_per_s: float) -> float:
    """The spin per message, microseconds, that lowers a server's rate of ``messages_per_s``
    by the fraction ``slowdown``: a message took ``1 / rate`` s and must take ``1 / (rate *
    (1 - slowdown))``.

    Raises:
        CalibrateError: ``slowdown`` not in (0, 1) or the rate not above 0.
    """
    if not 0 < slowdown < 1 or messages_per_s <= 0:
        raise CalibrateError(
            f"a slowdown in (0, 1) and a rate > 0, got {slowdown}, {messages_per_s}"
        )
    return 1e6 / messages_per_s * (1 / (1 - slowdown) - 1)


def server_arm(server: str) -> Arm:
    """The arm of ``IMPL[:CONFIG]`` at its newest listed version (its environment made when
    needed; the native reference runs from this interpreter).

    Raises:
        wsbench.impls.ImplError: unknown implementation or configuration.
        wsbench.asv.venvs.VenvError: the environment does not install.
    """
    from wsbench.asv import venvs
    from wsbench.asv.conf import listed_env

    name, _, config_id = server.partition(":")
    impl = get_impl(name)
    config = impl.config(config_id or None)
    if impl.reference or not impl.versions:
        return Arm(impl, config.id, sys.executable, f"{impl.name}-{config.id}")
    latest = impl.versions[-1].version
    env = listed_env(impl, config.id, latest)
    assert env is not None  # the newest listed version of a listed configuration
    return Arm(impl, config.id, str(venvs.ensure(env)), env.name, latest)


Measure = Callable[..., list[list[Run]]]


def measure_repeats(
    options: CalibrateOptions,
    *,
    measure_sides: Measure = measure_interleaved,
    log: Callable[[str], None] = lambda _: None,
) -> list[tuple[list[Run], list[Run]]]:
    """Measure ``options.repeats`` interleaved sessions and save their documents under
    ``options.output``; per repeat, the base and head documents.

    Raises:
        CalibrateError: a bad option.
    """
    if options.repeats < 1:
        raise CalibrateError("--repeats must be at least 1")
    placement = default_placement()
    out = []
    for repeat in range(options.repeats):
        log(f"repeat {repeat + 1}/{options.repeats}")
        if options.slowdown is None:
            arms = [server_arm(s) for s in options.servers]
            sides, grid = [arms, arms], AA_GRID
        else:
            quick = measure(
                MeasureConfig(impl=SLOWED, scenario="echo", in_flight=64, warmup_s=0.25,
                              duration_s=1.0),
                impl=spin_impl(SLOWED), placement=placement,
            )  # fmt: skip
            if not quick.messages_per_s:
                raise CalibrateError(f"the calibration server failed: {quick.error}")
            spin_us = spin_for(options.slowdown, quick.messages_per_s)
            log(f"calibration server at {quick.messages_per_s:,.0f} messages/s: {spin_us:.2f} µs")
            control = Arm(spin_impl(CONTROL), "default", sys.executable, CONTROL)
            base = Arm(spin_impl(SLOWED), "default", sys.executable, SLOWED)
            head = Arm(spin_impl(SLOWED, spin_us), "default", sys.executable, SLOWED)
            sides, grid = [[control, base], [control, head]], SLOWED_GRID
        base_docs, head_docs = measure_sides(
            sides, sorted(grid), options.plan, placement=placement,
            machine_name=options.machine, grids=grid, log=log,
        )  # fmt: skip
        for doc in [*base_docs, *head_docs]:
            store.save(doc, options.output)
        out.append((base_docs, head_docs))
    return out


def stored_repeats(folder: Path) -> list[tuple[list[Run], list[Run]]]:
    """The sessions under ``folder``: each pair of ``<stem>-base`` and ``<stem>-head``
    runs, oldest first.

    Raises:
        CalibrateError: a document that cannot be read, or no session.
    """
    found = store.load_store(folder)
    if found.problems:
        raise CalibrateError("; ".join(found.problems))
    by_id: dict[str, list[Run]] = {}
    for doc in found.runs:
        by_id.setdefault(doc.run_id, []).append(doc)
    b_label, h_label = compare.SIDE_LABELS
    out = []
    for run_id in sorted(by_id):
        if run_id.endswith(f"-{b_label}"):
            head = by_id.get(run_id.removesuffix(b_label) + h_label)
            if head:
                out.append((by_id[run_id], head))
    if not out:
        raise CalibrateError(f"no interleaved session (<id>-base, <id>-head) under {folder}")
    return out


def _first(bench: Benchmark, rounds: int | None, windows: int | None) -> Benchmark:
    kept: list[Sample] = []
    usable: dict[int, int] = {}
    for s in bench.samples:
        if rounds is not None and s.process >= rounds:
            continue
        if windows is not None and usable.get(s.process, 0) >= windows:
            continue
        kept.append(s)
        usable[s.process] = usable.get(s.process, 0) + s.usable
    return msgspec.structs.replace(bench, samples=kept)


def subset(doc: Run, rounds: int | None, windows: int | None) -> Run:
    """``doc`` with the windows of its first ``rounds`` rounds only, each round's windows up
    to its first ``windows`` usable ones (None: all): what a plan of ``windows`` windows per
    process would have kept, where a disturbed window is measured again."""
    if rounds is None and windows is None:
        return doc
    return msgspec.structs.replace(
        doc, benchmarks=[_first(b, rounds, windows) for b in doc.benchmarks]
    )


@dataclass(frozen=True)
class Tally:
    """The verdicts of a calibration.

    Attributes:
        lines: every figure compared, of every repeat.
        false: the A/A figures called faster or slower (every figure of an A/A
            calibration; the control's of a power calibration).
        compared: the A/A figures compared (not "not compared").
        decided: the A/A figures whose design reached a verdict (not "too few server
            processes").
        detected: a power calibration: repeats whose slowed server's messages/s was
            called slower.
        slowed: a power calibration: repeats with that figure compared.
    """

    lines: tuple[compare.Line, ...]
    false: int
    compared: int
    decided: int = 0
    detected: int = 0
    slowed: int = 0

    @property
    def verdicts(self) -> Counter[str]:
        """How many lines got each verdict."""
        return Counter(line.verdict for line in self.lines)


def tally(
    sessions: Sequence[tuple[list[Run], list[Run]]], rounds: int | None, windows: int | None
) -> Tally:
    """The verdicts of ``sessions`` analysed with the first ``rounds`` rounds and ``windows``
    windows of each (:func:`subset`)."""
    lines: list[compare.Line] = []
    false = compared = decided = detected = slowed = 0
    for base, head in sessions:
        found = compare.compare_runs(
            [subset(d, rounds, windows) for d in base],
            [subset(d, rounds, windows) for d in head],
            match="configuration",
        )
        lines += found
        for line in found:
            if line.row.startswith(SLOWED):
                if line.metric.name == "messages_per_s" and line.result is not None:
                    slowed += 1
                    detected += line.verdict == "slower"
                continue
            if line.result is not None:
                compared += 1
                decided += line.verdict != TOO_FEW
                false += line.verdict in ("faster", "slower")
    return Tally(tuple(lines), false, compared, decided, detected, slowed)


@dataclass(frozen=True)
class RoundCorrelation:
    """How alike the two sides of an interleaved round are, in A/A.

    Attributes:
        metric: the figure (a name of :data:`wsbench.results.metrics.BY_NAME`).
        r: Pearson's correlation of base and head over the complete rounds, of the logs of
            the two processes' values (:func:`wsbench.results.stats.process_values`), each
            comparison's mean taken out: near 0 when a round's two sides share nothing
            beyond what any two processes do, so that a paired test (the crossover
            analysis) would gain nothing over Welch's (its variance is ``2 s^2 (1 - r)``).
        rounds: complete rounds (both sides with a usable window).
        comparisons: A/A comparisons with at least 3 complete rounds.
    """

    metric: str
    r: float
    rounds: int
    comparisons: int


def round_correlation(
    sessions: Sequence[tuple[list[Run], list[Run]]], rounds: int | None, windows: int | None
) -> list[RoundCorrelation]:
    """The correlation within rounds of each compared figure over the A/A comparisons of
    ``sessions`` (the slowed server's left out), analysed like :func:`tally`; a figure with
    fewer than 3 complete rounds in all is left out."""
    centred: dict[str, list[tuple[float, float]]] = {}
    comparisons: Counter[str] = Counter()
    for base, head in sessions:
        heads = {compare.pair_key(d, "configuration"): d for d in head}
        for b_doc in base:
            h_doc = heads.get(compare.pair_key(b_doc, "configuration"))
            if h_doc is None or b_doc.impl.name == SLOWED:
                continue
            b_doc, h_doc = subset(b_doc, rounds, windows), subset(h_doc, rounds, windows)
            by_set = {(x.scenario, params_label(x.params)): x for x in h_doc.benchmarks}
            for b in b_doc.benchmarks:
                h = by_set.get((b.scenario, params_label(b.params)))
                if h is None:
                    continue
                for name in compare.DEFAULT_METRICS:
                    metric = metrics.BY_NAME[name]
                    if b.scenario not in metric.scenarios:
                        continue
                    b_groups = metrics.by_process(metric, b.usable())
                    h_groups = metrics.by_process(metric, h.usable())
                    pairs = [
                        (math.log(stats.process_values([x])[0]),
                         math.log(stats.process_values([y])[0]))
                        for x, y in zip(b_groups, h_groups, strict=False) if x and y
                    ]  # fmt: skip
                    if len(pairs) < 3:
                        continue
                    b_mean = statistics.fmean(p[0] for p in pairs)
                    h_mean = statistics.fmean(p[1] for p in pairs)
                    centred.setdefault(name, []).extend((x - b_mean, y - h_mean) for x, y in pairs)
                    comparisons[name] += 1
    out = []
    for name, pairs in centred.items():
        if len(pairs) >= 3:
            r = statistics.correlation([p[0] for p in pairs], [p[1] for p in pairs])
            out.append(RoundCorrelation(name, r, len(pairs), comparisons[name]))
    return out


def report(t: Tally, sessions: int, rounds: int | None, windows: int | None) -> str:
    """The tally in words: the plan, the false verdicts per figure compared, the power."""
    plan = f"{rounds or 'all'} rounds x {windows or 'all'} windows"
    out = [f"{sessions} interleaved sessions, analysed with {plan}:"]
    counts = ", ".join(f"{n} {v}" for v, n in sorted(t.verdicts.items()))
    out.append(f"  verdicts: {counts}")
    if t.compared:
        out.append(
            f"  A/A: {t.false} of {t.compared} figures called faster or slower "
            f"({100 * t.false / t.compared:.1f} %)"
        )
        if t.decided:
            out.append(
                f"  A/A: {t.false} of the {t.decided} that reached a verdict (faster, slower or "
                f"no significant change; the others had too few server processes): "
                f"{100 * t.false / t.decided:.1f} %"
            )
    if t.slowed:
        out.append(
            f"  slowed server: called slower in {t.detected} of {t.slowed} comparisons "
            f"({100 * t.detected / t.slowed:.0f} %)"
        )

    def is_false(line: compare.Line) -> bool:  # the slowed server's figures are not A/A
        return line.verdict in ("faster", "slower") and not line.row.startswith(SLOWED)

    wrong = [line for line in t.lines if is_false(line)]
    for line in wrong:
        r = line.result
        assert r is not None
        out.append(
            f"  false {line.verdict}: {line.row}, {line.scenario} {line.params}, "
            f"{line.metric.label}: {r.head_over_base:.3f}, p = {r.p_value:.2g}"
        )
    return "\n".join(out)


def run(options: CalibrateOptions) -> int:
    """Measure (or read) and report (see :class:`CalibrateOptions`); exit code 0.

    Raises:
        CalibrateError: bad options, or no documents to analyse.
        wsbench.impls.ImplError: an unknown server.
    """
    if options.slowdown is not None:
        spin_for(options.slowdown, 1.0)  # checks the fraction before anything is measured
    if options.documents is not None:
        sessions = stored_repeats(options.documents)
    else:
        options.plan.validate()
        sessions = measure_repeats(
            options, log=lambda line: print(f"calibrate: {line}", file=sys.stderr)
        )
        print(f"calibrate: documents in {options.output / options.machine}", file=sys.stderr)
    print(report(tally(sessions, options.rounds, options.windows), len(sessions),
                 options.rounds, options.windows))  # fmt: skip
    for c in round_correlation(sessions, options.rounds, options.windows):
        print(
            f"  within a round, A/A base and head of {c.metric}: r = {c.r:+.2f} over {c.rounds} "
            f"complete rounds of {c.comparisons} comparisons"
        )
    return 0
