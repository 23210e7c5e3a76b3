"""Verdicts on instructions per message: two sides' counts (:mod:`wsbench.instrument.instructions`)
compared set by set.

A count is deterministic up to a small spread (measured A/A, README "Instructions per
message"), so no statistical test is needed: a set is *slower* when the head executes at
least :data:`THRESHOLD` more instructions per message than the base, *faster* when at least
that much fewer, else *no significant change*. What such a verdict can see: work the server
does in user space (Python, C extensions, the event loop). What it cannot: the kernel's work,
waiting (latency with TCP_NODELAY off, a timer), cache misses and parallelism; the wall-clock
verdict (:mod:`wsbench.results.compare`) sees those, with its wider noise.

Under a *slower* set the tables name the functions whose own instructions per message grew
most (:mod:`wsbench.results.function_diff`), when both sides kept their functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.results.compare import Match, aligned, pair_key, row_name
from wsbench.results.function_diff import FunctionGrowth, growers, growth_line
from wsbench.results.runformat import FUNCTIONS_KEPT, InstructionSet, Run
from wsbench.scenarios import params_label

THRESHOLD = 0.01
"""The smallest relative change in instructions per message that is a verdict (1 %): five
times the largest A/A difference measured (0.17 %, README "Instructions per message")."""
SPREAD_FACTOR = 3.0
"""A set whose counts spread (:attr:`~wsbench.results.runformat.InstructionSet.spread`, the larger
of the two sides') more than ``THRESHOLD / SPREAD_FACTOR`` is *not deterministic*: its
verdict needs a change of ``SPREAD_FACTOR`` times its spread."""
WHAT_IT_SEES = "instructions per message (user space, under valgrind)"
"""What the verdict is about, as every table labels it."""


def deterministic(spread: float | None) -> bool:
    """False when a set's counts spread (relative, 0.01 = 1 %) more than
    ``THRESHOLD / SPREAD_FACTOR``: a change of :data:`THRESHOLD` could be its noise."""
    return spread is None or spread * SPREAD_FACTOR <= THRESHOLD


@dataclass(frozen=True)
class CountLine:
    """One parameter set's instructions per message on both sides.

    Attributes:
        row: the configuration's row name (with both versions when they differ).
        scenario: the scenario.
        params: the parameter set.
        base: the base's instructions per message, or None.
        head: the head's, or None.
        problem: why there is no verdict (a failed count, different counting), or None.
        spread: the larger of the two sides' spreads (relative), or None.
        growers: the functions whose instructions per message grew most, most first
            (:func:`wsbench.results.function_diff.growers`); empty when a side kept no
            functions or the line has a problem.
    """

    row: str
    scenario: str
    params: dict[str, int]
    base: float | None
    head: float | None
    problem: str | None = None
    spread: float | None = None
    growers: tuple[FunctionGrowth, ...] = ()

    @property
    def deterministic(self) -> bool:
        """False when the counts spread more than ``THRESHOLD / SPREAD_FACTOR``
        (:func:`deterministic`)."""
        return deterministic(self.spread)

    @property
    def threshold(self) -> float:
        """The relative change this line's verdict needs: :data:`THRESHOLD`, or
        ``SPREAD_FACTOR`` times the spread when that is larger."""
        return max(THRESHOLD, SPREAD_FACTOR * (self.spread or 0.0))

    @property
    def ratio(self) -> float | None:
        """head / base, or None without both."""
        if self.base is None or self.head is None or self.base <= 0:
            return None
        return self.head / self.base

    @property
    def verdict(self) -> str:
        """``"slower"`` (more instructions per message by at least :data:`THRESHOLD`),
        ``"faster"``, ``"no significant change"``, or ``"not compared"``."""
        ratio = self.ratio
        if ratio is None or self.problem:
            return "not compared"
        if ratio >= 1 + self.threshold:
            return "slower"
        if ratio <= 1 - self.threshold:
            return "faster"
        return "no significant change"


def counting_key(run: Run) -> tuple[object, ...]:
    """What must be equal for two runs' counts to be compared: the counting tool and hash
    seed, the CPU model (its instruction set extensions choose code paths in C libraries)
    and the load generator build (how it batches its writes)."""
    return (run.counting, run.machine.cpu_model, run.loadgen)


def _problem(s: InstructionSet) -> str | None:
    if s.status != "ok":
        return "failed: " + ((s.error or "").splitlines() or [""])[0]
    if s.per_message is None:
        return "no messages between the two counts"
    return None


def compare_counts(base: Sequence[Run], head: Sequence[Run], *, match: Match) -> list[CountLine]:
    """Every counted set the two sides have in common, compared; empty when neither side
    was counted. Sides counted differently (:func:`counting_key`) get lines with that
    problem and no verdict.

    Args:
        base, head: the run documents of each side (one per environment).
        match: how environments are paired (:data:`wsbench.results.compare.Match`).
    """
    heads = {pair_key(r, match): r for r in head if r.instructions}
    lines: list[CountLine] = []
    for b_run in base:
        h_run = heads.get(pair_key(b_run, match))
        if h_run is None or not b_run.instructions:
            continue
        differ = None
        if counting_key(b_run) != counting_key(h_run):
            differ = (
                "counted differently (tool, hash seed, stack layout, CPU model or load "
                "generator build)"
            )
        found = {(s.scenario, tuple(sorted(s.params.items()))): s for s in h_run.instructions}
        for b in b_run.instructions:
            h = found.get((b.scenario, tuple(sorted(b.params.items()))))
            if h is None:
                continue
            why = differ
            if why is None and _problem(b):
                why = f"base {_problem(b)}"
            if why is None and _problem(h):
                why = f"head {_problem(h)}"
            spreads = [x for x in (b.spread, h.spread) if x is not None]
            grew: tuple[FunctionGrowth, ...] = ()
            if why is None and b.functions and h.functions:
                grew = tuple(growers(b.functions, h.functions, head_total=h.per_message))
            lines.append(
                CountLine(row_name(b_run, h_run), b.scenario, b.params, b.per_message,
                          h.per_message, why, max(spreads) if spreads else None, grew)
            )  # fmt: skip
    return lines


def _cells(line: CountLine) -> list[str]:
    def value(x: float | None) -> str:
        return "" if x is None else f"{x:,.0f}"

    ratio = line.ratio
    verdict = line.problem or line.verdict
    if not line.deterministic and not line.problem:
        verdict += f" (not deterministic: ±{line.threshold:.1%} needed)"
    return [
        line.row,
        f"{line.scenario} {params_label(line.params)}",
        value(line.base),
        value(line.head),
        "" if ratio is None else f"{ratio:.4f}",
        "" if line.spread is None else f"{line.spread:.2%}",
        verdict,
    ]


HEADERS = ["configuration", "benchmark", "base", "head", "head/base", "spread", "verdict"]


def summary(lines: Sequence[CountLine]) -> str:
    """The verdicts counted, e.g. ``"1 slower, 20 no significant change"``."""
    counts: dict[str, int] = {}
    for line in lines:
        counts[line.verdict] = counts.get(line.verdict, 0) + 1
    order = ["slower", "faster", "no significant change", "not compared"]
    return ", ".join(f"{counts[v]} {v}" for v in order if v in counts)


def rule() -> str:
    """The verdict rule, in one sentence."""
    return (
        f"Verdict on {WHAT_IT_SEES}: slower or faster when head and base differ by at least "
        f"{THRESHOLD:.0%}, or {SPREAD_FACTOR:g} times the spread of a repeated count where "
        "that is larger (not deterministic); the kernel's work, waiting and cache misses are "
        "not seen: the wall-clock verdict sees them."
    )


GROWERS_LEGEND = (
    "Under a slower set: the functions whose own instructions per message grew most "
    "(callgrind's C functions; Python code is the interpreter's: ./bench profile names it); "
    f"a function not among a side's {FUNCTIONS_KEPT} largest counts as 0 there, and had at "
    "most the figure shown."
)
"""What the lines under a *slower* set are, said once under a table that has them."""


def shown_growers(line: CountLine) -> tuple[FunctionGrowth, ...]:
    """The growers a table prints under ``line``: its :attr:`CountLine.growers` when it is
    *slower*, else none."""
    return line.growers if line.verdict == "slower" else ()


def to_text(lines: Sequence[CountLine]) -> str:
    """The comparison as an aligned terminal table (under a *slower* set, its growers, one
    line each, indented), its counts and its rule."""
    rows = [HEADERS, *(_cells(line) for line in lines)]
    table = aligned(rows, range(2, 6))
    text = [f"Instructions per message ({WHAT_IT_SEES})", "", *table[:2]]
    for line, row in zip(lines, table[2:], strict=True):
        text.append(row)
        text += [f"    {growth_line(g)}" for g in shown_growers(line)]
    text += ["", summary(lines), rule()]
    if any(shown_growers(line) for line in lines):
        text.append(GROWERS_LEGEND)
    return "\n".join(text) + "\n"


def to_markdown(lines: Sequence[CountLine]) -> str:
    """The comparison as Markdown: a heading, the counts, the table, then under each
    *slower* set's name its growers (one line each), the rule."""
    out = [f"### Instructions per message ({WHAT_IT_SEES})", "", summary(lines), ""]
    out.append("| " + " | ".join(HEADERS) + " |")
    out.append("|---|---|---:|---:|---:|---:|---|")
    out += ["| " + " | ".join(_cells(line)) + " |" for line in lines]
    grown = [line for line in lines if shown_growers(line)]
    for line in grown:
        out += ["", f"**{line.row}, {line.scenario} {params_label(line.params)}**: slower", ""]
        out += [f"- `{growth_line(g)}`" for g in shown_growers(line)]
    out += ["", rule()]
    if grown:
        out += ["", GROWERS_LEGEND]
    return "\n".join(out) + "\n"
