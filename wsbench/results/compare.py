"""Comparisons of two sets of run documents, figure by figure, with verdicts.

The two sides are paired benchmark by benchmark: the same implementation and configuration
(and the same version, unless versions are what is compared), scenario and parameter set.
Each figure gets the ratio head/base of its figures with a confidence interval and a verdict
from :func:`wsbench.results.stats.compare`: Welch's t test over server processes (the unit
of replication), plus a minimum effect size. Sides measured interleaved (:func:`interleaved`)
are compared the same way: the interleaving balances drift and the order within a round
between the sides (:func:`base_first`), and the two sides of a round are no more alike than
any two processes (``./bench calibrate`` measures the correlation within rounds: about 0 on
this machine, the Methodology page), so pairing them would only cost degrees of freedom and
every round one side lost to a disturbed window.
Sides measured with different settings or load generator builds are refused: their figures
are not comparable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from wsbench.results import metrics, stats
from wsbench.results.runformat import Benchmark, Run, all_disturbed
from wsbench.scenarios import params_label

Match = Literal["environment", "configuration"]
"""How the two sides are paired: the same environment (implementation, configuration and
version), or the same configuration whatever the version (to compare two versions)."""
DEFAULT_METRICS = ("messages_per_s", "latency_p50", "latency_p99")
"""The figures compared unless others are asked for."""


SIDE_LABELS = ("base", "head")
"""The suffixes of the run ids of an interleaved measurement's two sides: round ``r`` of
``<stem>-base`` and round ``r`` of ``<stem>-head`` were measured back to back
(:mod:`wsbench.instrument.interleave`, :mod:`wsbench.jobs.commits`)."""


def base_first(round_index: int) -> bool:
    """Whether an interleaved measurement measures the base side first in round
    ``round_index`` (0-based): in the even rounds (A B, B A, A B ...: counterbalanced, so
    that the order's own effect, about 2 % against the side measured second here, falls on
    both sides alike; :func:`wsbench.instrument.interleave.side_order` follows it)."""
    return round_index % 2 == 0


def interleaved(base: Run, head: Run) -> bool:
    """Whether ``base`` and ``head`` are the two sides of one interleaved measurement: their
    run ids are ``<stem>-base`` and ``<stem>-head`` (:data:`SIDE_LABELS`), so that their
    process ``r`` is the same round (:func:`wsbench.jobs.calibrate.round_correlation`)."""
    b_label, h_label = SIDE_LABELS
    if not (base.run_id.endswith(f"-{b_label}") and head.run_id.endswith(f"-{h_label}")):
        return False
    return base.run_id.removesuffix(f"-{b_label}") == head.run_id.removesuffix(f"-{h_label}")


class CompareError(ValueError):
    """The two sides cannot be compared (nothing in common, or not comparable settings)."""


@dataclass(frozen=True)
class Line:
    """One figure of one benchmark on both sides.

    Attributes:
        row: the configuration's row name (with both versions when they differ).
        scenario: ``"echo"`` or ``"stream"``.
        params: the parameter set, e.g. ``{"size_bytes": 16, "in_flight": 64}``.
        metric: the figure.
        result: the comparison, or None when a side has no usable sample.
        problem: why there is no comparison (a failure on one side), or None.
    """

    row: str
    scenario: str
    params: dict[str, int]
    metric: metrics.Metric
    result: stats.Comparison | None
    problem: str | None = None

    @property
    def verdict(self) -> str:
        """The verdict, or ``"not compared"``."""
        return self.result.verdict if self.result else "not compared"


def pair_key(run: Run, match: Match) -> tuple[str, ...]:
    """What pairs a base document with a head document (see :data:`Match`), on the same
    Python: documents of two Pythons are never one figure's two sides."""
    base = (run.machine.name, run.impl.name, run.impl.config, run.python)
    return base if match == "configuration" else (*base, run.impl.version or "")


def check_comparable(base: Sequence[Run], head: Sequence[Run]) -> None:
    """Refuse sides whose settings (:meth:`~wsbench.results.runformat.Settings.comparable`)
    or load generator builds differ.

    Raises:
        CompareError: naming the first difference.
    """
    keys = {(r.loadgen, r.settings.comparable()) for r in [*base, *head]}
    if len(keys) > 1:
        builds = sorted({r.loadgen.source_sha256[:12] for r in [*base, *head]})
        settings = sorted({repr(r.settings) for r in [*base, *head]})
        raise CompareError(
            "the two sides were measured with different settings or load generator builds "
            f"(builds {builds}; settings {settings}): their figures are not comparable"
        )


def row_name(base: Run, head: Run) -> str:
    """The pair's row name, with both versions when they differ."""
    if base.impl.version == head.impl.version:
        return base.impl.row_name
    return f"{base.impl.row_name} {base.impl.version} → {head.impl.version}"


def paired_rows(
    base: Sequence[Run], head: Sequence[Run], match: Match = "configuration"
) -> dict[str, tuple[Run, Run]]:
    """The documents of each row of :func:`compare_runs` of ``base`` and ``head``: row name
    -> (base document, head document), paired by ``match``."""
    heads = {pair_key(r, match): r for r in head}
    return {
        row_name(b, heads[pair_key(b, match)]): (b, heads[pair_key(b, match)])
        for b in base
        if pair_key(b, match) in heads
    }


def _line(row: str, b: Benchmark, h: Benchmark, metric: metrics.Metric) -> Line:
    problem = None
    if b.status != "ok" or h.status != "ok":
        side, bench = ("base", b) if b.status != "ok" else ("head", h)
        problem = f"{side} failed: {(bench.error or '').splitlines()[0] if bench.error else ''}"
    base_values = metrics.by_process(metric, b.usable())
    head_values = metrics.by_process(metric, h.usable())
    if problem is None and not (base_values and head_values):
        problem = "no usable sample on one side"
        for side, bench in (("base", b), ("head", h)):
            if not bench.usable():
                problem = f"{side}: {all_disturbed(bench)}"
                break
    if problem is not None:
        return Line(row, b.scenario, b.params, metric, None, problem)
    result = stats.compare(base_values, head_values, higher_is_better=metric.higher_is_better)
    return Line(row, b.scenario, b.params, metric, result)


def compare_runs(
    base: Sequence[Run],
    head: Sequence[Run],
    *,
    match: Match = "environment",
    metric_names: Sequence[str] = DEFAULT_METRICS,
) -> list[Line]:
    """Every figure the two sides have in common, compared.

    Args:
        base, head: the run documents of each side (one per environment).
        match: how environments are paired (see :data:`Match`).
        metric_names: the figures to compare (names in :data:`wsbench.results.metrics.BY_NAME`).

    Every pair of sides, interleaved or not, is compared by Welch's test over their server
    processes (the module's docstring says why interleaved rounds are not paired).

    Returns:
        One line per (environment pair, benchmark, figure), in the base's order.

    Raises:
        CompareError: nothing in common, or the sides are not comparable
            (:func:`check_comparable`).
        KeyError: an unknown metric name.
    """
    check_comparable(base, head)
    chosen = [metrics.BY_NAME[name] for name in metric_names]
    heads = {pair_key(r, match): r for r in head}
    lines: list[Line] = []
    for b_run in base:
        h_run = heads.get(pair_key(b_run, match))
        if h_run is None:
            continue
        h_benches = {(x.scenario, tuple(sorted(x.params.items()))): x for x in h_run.benchmarks}
        for b in b_run.benchmarks:
            h = h_benches.get((b.scenario, tuple(sorted(b.params.items()))))
            if h is None:
                continue
            for metric in chosen:
                if b.scenario in metric.scenarios:
                    lines.append(_line(row_name(b_run, h_run), b, h, metric))
    if not lines:
        raise CompareError("the two sides have no benchmark in common")
    return lines


def _value(metric: metrics.Metric, value: float) -> str:
    if metric.unit == "s":
        return f"{value * 1e6:,.0f} µs"
    return f"{value:,.0f}"


def _cells(line: Line) -> list[str]:
    cells = [line.row, f"{line.scenario} {params_label(line.params)}", line.metric.label]
    r = line.result
    if r is None:
        return [*cells, "", "", "", "", line.problem or ""]
    interval = r.head_over_base_interval
    ratio = f"{r.head_over_base:.3f}"
    if interval:
        ratio += f" [{interval[0]:.3f}, {interval[1]:.3f}]"
    return [
        *cells,
        _value(line.metric, r.base_value),
        _value(line.metric, r.head_value),
        ratio,
        f"{r.p_value:.3g}" + ("" if r.family_p is None else f" (family {r.family_p:.3g})"),
        r.verdict,
    ]


HEADERS = [
    "configuration", "benchmark", "figure", "base", "head",
    f"head/base [{stats.COMPARISON_CONFIDENCE:.0%} CI]", "p",
]  # fmt: skip


def summary(lines: Sequence[Line]) -> str:
    """One line counting the verdicts, e.g. ``"2 slower, 1 faster, 40 no significant change"``."""
    counts: dict[str, int] = {}
    for line in lines:
        counts[line.verdict] = counts.get(line.verdict, 0) + 1
    order = ["slower", "faster", "no significant change", stats.TOO_FEW, "not compared"]
    return ", ".join(f"{counts[v]} {v}" for v in order if v in counts)


def rule() -> str:
    """The verdict rule, in one sentence (printed under every comparison)."""
    return (
        "Verdict over server processes (each one value: the geometric mean of its windows): "
        "significant when Welch's t test on their logs gives "
        f"p < {stats.ALPHA:g} and the figures differ by at least {stats.MIN_EFFECT:.0%}, "
        f"with at least {stats.MIN_PROCESSES} server processes a side; "
        f"the interval is the test's {stats.COMPARISON_CONFIDENCE:.0%} interval of the ratio."
    )


def to_markdown(
    lines: Sequence[Line],
    title: str,
    skipped: Sequence[str] = (),
    environments: str = "",
    rule_text: str | None = None,
) -> str:
    """The comparison as Markdown: a title, the counts, what differs between the sides'
    environments (``environments``: :func:`wsbench.results.env_diff.to_markdown`, beside the
    verdicts it may explain), the table, what was not compared (``skipped``: one line each,
    with why), the rule (``rule_text``, default :func:`rule`)."""
    out = [f"### {title}", "", summary(lines), ""]
    if environments:
        out += [environments.rstrip("\n"), ""]
    out.append("| " + " | ".join([*HEADERS, "verdict"]) + " |")
    out.append("|" + "---|" * 3 + "---:|" * 4 + "---|")
    for line in lines:
        out.append("| " + " | ".join(_cells(line)) + " |")
    if skipped:
        out += ["", "Not compared:", "", *(f"- {s}" for s in skipped)]
    out += ["", rule_text or rule()]
    return "\n".join(out) + "\n"


def aligned(rows: Sequence[Sequence[str]], numeric: range) -> list[str]:
    """``rows`` (the header first) as aligned text lines, a rule under the header; the
    columns in ``numeric`` right-aligned, the others left-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    text = []
    for i, row in enumerate(rows):
        cells = [c.rjust(w) if j in numeric else c.ljust(w) for j, (c, w) in
                 enumerate(zip(row, widths, strict=True))]  # fmt: skip
        text.append("  ".join(cells).rstrip())
        if i == 0:
            text.append("  ".join("-" * w for w in widths))
    return text


def to_text(
    lines: Sequence[Line],
    title: str,
    skipped: Sequence[str] = (),
    environments: Sequence[str] = (),
    rule_text: str | None = None,
) -> str:
    """The comparison as an aligned terminal table, then the counts, what differs between
    the sides' environments (``environments``: :func:`wsbench.results.env_diff.to_text`'s
    lines), what was not compared (``skipped``) and the rule (``rule_text``, default
    :func:`rule`)."""
    rows = [[*HEADERS, "verdict"], *(_cells(line) for line in lines)]
    text = [title, "", *aligned(rows, range(3, 7))]
    text += ["", summary(lines), *environments]
    text += [f"not compared: {s}" for s in skipped]
    text.append(rule_text or rule())
    return "\n".join(text) + "\n"
