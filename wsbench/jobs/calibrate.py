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
- **A pull request's plan** (``--pr-compare``, :class:`PullRequestPlan`): each repeat is one
  comparison as ``./bench pr-compare`` makes it: the servers (by default
  :data:`PR_SERVERS`, the configurations of one implementation) measured on both sides
  at the pull request's screening sets, what moved measured again with its confirmation's
  plan, and the verdicts decided as one family (:mod:`wsbench.results.confirmation`). With
  ``--slowdown F``, the slowed calibration server is one more configuration of the
  comparison, at its one parameter set (echo 16 B x 64): one set of the comparison slowed.
  The report gives the comparisons with at least one false verdict (the rate per
  comparison) and, with ``--slowdown``, the comparisons whose slowed set was called slower
  (the power).

Each repeat's documents are kept under ``--output`` (``<machine>/<run id>-base|head/``, not
the results store); ``--documents DIR`` analyses earlier ones instead of measuring, and
``--rounds R --windows W`` analyses the first R rounds and W windows of each, so that one
generous measurement gives the verdicts of every smaller plan. The verdicts are
:func:`wsbench.results.compare.compare_runs`'s (Welch's test over the server processes), and
the report gives how alike the two sides of a round are (:func:`round_correlation`: why the
rounds are not analysed paired). A pull request's plan is analysed as measured (its
confirmation measured what its screening moved), never with fewer rounds. The options are
:class:`CalibrateOptions` (the command line is :mod:`wsbench.commands.calibrate`'s).
"""

from __future__ import annotations

import math
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import msgspec

from wsbench.impls import Impl, get_impl
from wsbench.instrument.cpus import CpuPlacement, default_placement
from wsbench.instrument.interleave import Arm, measure_interleaved
from wsbench.instrument.measure import MeasureConfig, measure
from wsbench.instrument.sampling import SamplingPlan
from wsbench.paths import REPO_ROOT
from wsbench.results import compare, confirmation, metrics, stats, store
from wsbench.results.confirmation import MOVED
from wsbench.results.regressions import CONFIRM_SUFFIX
from wsbench.results.runformat import Benchmark, Run, Sample
from wsbench.results.stats import FAMILY_RATE, TOO_FEW
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
PR_SERVERS = ("aiohttp:asyncio", "aiohttp:uvloop")
"""The servers of a pull request's calibration: the configurations of the implementation
whose pull request issue 58 timed."""
DEFAULT_OUTPUT = REPO_ROOT / "calibration"
SLOWED = "slowed"
CONTROL = "control"


class CalibrateError(ValueError):
    """The calibration cannot run as asked (bad options, no documents to analyse)."""


@dataclass(frozen=True)
class PullRequestPlan:
    """What a pull request's comparison measures beyond its screening's plan
    (:mod:`wsbench.ci.pull_request` gives both).

    Attributes:
        grid: the screening's parameter sets, by scenario.
        confirm: the plan of the confirmation of what moved.
    """

    grid: dict[Scenario, list[Params]]
    confirm: SamplingPlan


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
        pull_request: each repeat a pull request's comparison, screened at ``plan`` and
            confirmed as this says (None: each repeat one interleaved session).
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
    pull_request: PullRequestPlan | None = None


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
Session = tuple[list[Run], list[Run]]
"""One interleaved session: its base and head documents."""
PrSession = tuple[Session, Session]
"""A pull request's comparison: its screening's session and its confirmation's (both sides
empty when nothing moved)."""


def slowed_arms(
    slowdown: float, placement: CpuPlacement, log: Callable[[str], None]
) -> tuple[Arm, Arm]:
    """The calibration server unslowed (base) and slowed so that its rate falls by
    ``slowdown`` (head), the spin set from a quick measurement of it now.

    Raises:
        CalibrateError: the calibration server failed, or ``slowdown`` not in (0, 1).
    """
    quick = measure(
        MeasureConfig(impl=SLOWED, scenario="echo", in_flight=64, warmup_s=0.25,
                      duration_s=1.0),
        impl=spin_impl(SLOWED), placement=placement,
    )  # fmt: skip
    if not quick.messages_per_s:
        raise CalibrateError(f"the calibration server failed: {quick.error}")
    spin_us = spin_for(slowdown, quick.messages_per_s)
    log(f"calibration server at {quick.messages_per_s:,.0f} messages/s: {spin_us:.2f} µs")
    base = Arm(spin_impl(SLOWED), "default", sys.executable, SLOWED)
    return base, Arm(spin_impl(SLOWED, spin_us), "default", sys.executable, SLOWED)


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
            base, head = slowed_arms(options.slowdown, placement, log)
            control = Arm(spin_impl(CONTROL), "default", sys.executable, CONTROL)
            sides, grid = [[control, base], [control, head]], SLOWED_GRID
        base_docs, head_docs = measure_sides(
            sides, sorted(grid), options.plan, placement=placement,
            machine_name=options.machine, grids=grid, log=log,
        )  # fmt: skip
        for doc in [*base_docs, *head_docs]:
            store.save(doc, options.output)
        out.append((base_docs, head_docs))
    return out


def measure_pr_repeats(
    options: CalibrateOptions,
    *,
    measure_sides: Measure = measure_interleaved,
    log: Callable[[str], None] = lambda _: None,
) -> list[PrSession]:
    """Measure ``options.repeats`` pull requests' comparisons (``options.pull_request``)
    and save their documents under ``options.output``.

    Each is a screening of ``options.servers`` against themselves at the pull request's
    sets with ``options.plan`` (run id ``<stem>-base``, ``-head``), with ``slowdown``
    beside it the slowed calibration server's session at :data:`SLOWED_GRID` under the same
    run id, then, when a figure moved, the configurations that moved measured again at
    every set that moved in any (as :func:`wsbench.ci.confirm.confirm_commits` does), with
    the confirmation's plan (``<stem>-confirm-base``, ``-head``).

    Raises:
        CalibrateError: a bad option, or the calibration server failed.
    """
    plan = options.pull_request
    if plan is None or options.repeats < 1:
        raise CalibrateError("a pull request's plan and at least one repeat")
    placement = default_placement()
    out: list[PrSession] = []
    for repeat in range(options.repeats):
        log(f"comparison {repeat + 1}/{options.repeats}: screening")
        stem = store.new_run_id()
        arms = [server_arm(s) for s in options.servers]
        groups = [((arms, arms), plan.grid)]
        if options.slowdown is not None:
            base_arm, head_arm = slowed_arms(options.slowdown, placement, log)
            groups.append((([base_arm], [head_arm]), SLOWED_GRID))
        screening: Session = ([], [])
        by_row: dict[str, tuple[Arm, Arm]] = {}
        for (base_arms, head_arms), grid in groups:
            base, head = measure_sides(
                [base_arms, head_arms], sorted(grid), options.plan, placement=placement,
                machine_name=options.machine, run_id=stem, grids=grid, log=log,
            )  # fmt: skip
            for b_arm, h_arm, b, h in zip(base_arms, head_arms, base, head, strict=True):
                by_row[compare.row_name(b, h)] = (b_arm, h_arm)
            screening[0].extend(base)
            screening[1].extend(head)
        found = confirmation.moved(compare.compare_runs(*screening, match="configuration"))
        again: Session = ([], [])
        if found:
            log(f"comparison {repeat + 1}/{options.repeats}: confirming {', '.join(found)}")
            grid = confirmation.union(found.values())
            pairs = [by_row[row] for row in found]
            base, head = measure_sides(
                [[b for b, _ in pairs], [h for _, h in pairs]], sorted(grid), plan.confirm,
                placement=placement, machine_name=options.machine,
                run_id=f"{stem}{CONFIRM_SUFFIX}", grids=grid, log=log,
            )  # fmt: skip
            again = (base, head)
        for doc in [*screening[0], *screening[1], *again[0], *again[1]]:
            store.save(doc, options.output)
        out.append((screening, again))
    return out


def _stored_pairs(folder: Path) -> dict[str, Session]:
    """Every pair of ``<stem>-base`` and ``<stem>-head`` runs under ``folder``, by stem,
    oldest first.

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
    out = {}
    for run_id in sorted(by_id):
        if run_id.endswith(f"-{b_label}"):
            stem = run_id.removesuffix(f"-{b_label}")
            head = by_id.get(f"{stem}-{h_label}")
            if head:
                out[stem] = (by_id[run_id], head)
    if not out:
        raise CalibrateError(f"no interleaved session (<id>-base, <id>-head) under {folder}")
    return out


def stored_repeats(folder: Path) -> list[Session]:
    """The sessions under ``folder``: each pair of ``<stem>-base`` and ``<stem>-head``
    runs, oldest first (a pull request's confirmations, ``<stem>-confirm-...``, left out).

    Raises:
        CalibrateError: a document that cannot be read, or no session.
    """
    pairs = _stored_pairs(folder)
    return [s for stem, s in pairs.items() if not stem.endswith(CONFIRM_SUFFIX)]


def stored_pr_repeats(folder: Path) -> list[PrSession]:
    """The pull requests' comparisons under ``folder`` (:func:`measure_pr_repeats`): each
    screening session with its confirmation's (empty sides when it has none), oldest first.

    Raises:
        CalibrateError: a document that cannot be read, or no session.
    """
    pairs = _stored_pairs(folder)
    return [
        (s, pairs.get(f"{stem}{CONFIRM_SUFFIX}", ([], [])))
        for stem, s in pairs.items()
        if not stem.endswith(CONFIRM_SUFFIX)
    ]


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
        comparisons: the repeats (each one comparison).
        with_false: the comparisons with at least one false verdict.
        confirmed: a pull request's plan: the comparisons whose screening moved a set,
            measured again (None: not that plan).
        confirmed_sets: a pull request's plan: the (configuration, set) pairs measured
            again, over all comparisons.
    """

    lines: tuple[compare.Line, ...]
    false: int
    compared: int
    decided: int = 0
    detected: int = 0
    slowed: int = 0
    comparisons: int = 0
    with_false: int = 0
    confirmed: int | None = None
    confirmed_sets: int = 0

    @property
    def verdicts(self) -> Counter[str]:
        """How many lines got each verdict."""
        return Counter(line.verdict for line in self.lines)


def _count(comparisons: Sequence[Sequence[compare.Line]]) -> Tally:
    """The tally of ``comparisons``' lines (each comparison's lines, as decided)."""
    lines: list[compare.Line] = []
    false = compared = decided = detected = slowed = with_false = 0
    for found in comparisons:
        lines += found
        before = false
        for line in found:
            if line.row.startswith(SLOWED):
                if line.metric.name == "messages_per_s" and line.result is not None:
                    slowed += 1
                    detected += line.verdict == "slower"
                continue
            if line.result is not None:
                compared += 1
                decided += line.verdict != TOO_FEW
                false += line.verdict in MOVED
        with_false += false > before
    return Tally(tuple(lines), false, compared, decided, detected, slowed,
                 comparisons=len(comparisons), with_false=with_false)  # fmt: skip


def tally(sessions: Sequence[Session], rounds: int | None, windows: int | None) -> Tally:
    """The verdicts of ``sessions`` analysed with the first ``rounds`` rounds and ``windows``
    windows of each (:func:`subset`)."""
    return _count([
        compare.compare_runs(
            [subset(d, rounds, windows) for d in base],
            [subset(d, rounds, windows) for d in head],
            match="configuration",
        )
        for base, head in sessions
    ])  # fmt: skip


def pr_tally(sessions: Sequence[PrSession], rate: float = FAMILY_RATE) -> Tally:
    """The final verdicts of pull requests' comparisons (:func:`measure_pr_repeats`): each
    screening's lines, those of the sets that moved decided by the confirmation as one
    family at ``rate`` (:func:`wsbench.results.confirmation.final`)."""
    finals = []
    confirmed = sets = 0
    for (base, head), (c_base, c_head) in sessions:
        screening = compare.compare_runs(base, head, match="configuration")
        found = confirmation.moved(screening)
        confirmed += bool(found)
        sets += sum(len(params) for grids in found.values() for params in grids.values())
        again = compare.compare_runs(c_base, c_head, match="configuration") if c_base else []
        finals.append(confirmation.final(screening, again, rate))
    return replace(_count(finals), confirmed=confirmed, confirmed_sets=sets)


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
    if t.comparisons:
        out.append(
            f"  comparisons with at least one false verdict: {t.with_false} of "
            f"{t.comparisons} ({100 * t.with_false / t.comparisons:.1f} %)"
        )
    if t.confirmed is not None:
        out.append(
            f"  a pull request's plan: {t.confirmed} of {t.comparisons} screenings moved a "
            f"set; {t.confirmed_sets} (configuration, set) pairs measured again, their "
            f"verdicts the confirmation's, decided as one family at {FAMILY_RATE:g}"
        )
    if t.slowed:
        out.append(
            f"  slowed server: called slower in {t.detected} of {t.slowed} comparisons "
            f"({100 * t.detected / t.slowed:.0f} %)"
        )

    def is_false(line: compare.Line) -> bool:  # the slowed server's figures are not A/A
        return line.verdict in MOVED and not line.row.startswith(SLOWED)

    wrong = [line for line in t.lines if is_false(line)]
    for line in wrong:
        r = line.result
        assert r is not None
        out.append(
            f"  false {line.verdict}: {line.row}, {line.scenario} {line.params}, "
            f"{line.metric.label}: {r.head_over_base:.3f}, p = {r.p_value:.2g}"
            + ("" if r.family_p is None else f" (family {r.family_p:.2g})")
        )
    return "\n".join(out)


def _log(line: str) -> None:
    print(f"calibrate: {line}", file=sys.stderr)


def run(options: CalibrateOptions) -> int:
    """Measure (or read) and report (see :class:`CalibrateOptions`); exit code 0.

    Raises:
        CalibrateError: bad options, or no documents to analyse.
        wsbench.impls.ImplError: an unknown server.
    """
    if options.slowdown is not None:
        spin_for(options.slowdown, 1.0)  # checks the fraction before anything is measured
    if options.pull_request is not None and (options.rounds or options.windows):
        raise CalibrateError(
            "a pull request's plan is analysed as measured (its confirmation measured what "
            "its screening moved): no --rounds or --analyse-windows"
        )
    if options.documents is None:
        options.plan.validate()
    if options.pull_request is not None:
        found = (
            stored_pr_repeats(options.documents) if options.documents is not None
            else measure_pr_repeats(options, log=_log)
        )  # fmt: skip
        sessions = [screening for screening, _ in found]
        t = pr_tally(found)
    else:
        sessions = (
            stored_repeats(options.documents) if options.documents is not None
            else measure_repeats(options, log=_log)
        )  # fmt: skip
        t = tally(sessions, options.rounds, options.windows)
    if options.documents is None:
        print(f"calibrate: documents in {options.output / options.machine}", file=sys.stderr)
    print(report(t, len(sessions), options.rounds, options.windows))
    for c in round_correlation(sessions, options.rounds, options.windows):
        print(
            f"  within a round, A/A base and head of {c.metric}: r = {c.r:+.2f} over {c.rounds} "
            f"complete rounds of {c.comparisons} comparisons"
        )
    return 0
