"""A comparison's verdicts in two stages, screening then confirmation, with the false
verdicts of the comparison as a whole held to a stated rate (``./bench pr-compare``,
``./bench calibrate --pr-compare``).

Each figure's own verdict (:func:`wsbench.results.stats.compare`) is called faster or slower
by chance at most :data:`~wsbench.results.stats.ALPHA` of the time when nothing changed. A
comparison is a family of figures: a pull request's holds dozens (three figures per set,
every set of each configuration it touches), so figure by figure, a change that changes
nothing would show some false verdict in many comparisons. So the verdicts come in two
stages:

1. **Screening**: every figure, by its own rule.
2. **Confirmation**: each configuration and parameter set with a figure faster or slower in
   the screening (:func:`moved`) is measured again, interleaved, with more rounds (the
   nightly's confirmation does the same for a new release's slower sets), and every figure
   of those sets takes the confirmation's verdict, decided as one family (:func:`final`,
   :func:`family`): faster or slower when its p-value adjusted by the Benjamini-Hochberg
   procedure over every confirmed figure of the comparison is below
   :data:`~wsbench.results.stats.FAMILY_RATE` (and the figures differ by at least
   :data:`~wsbench.results.stats.MIN_EFFECT`). Every other figure keeps its screening
   verdict, which is neither faster nor slower.

Why that holds the rate per comparison: a final faster or slower verdict can only come from
the confirmation, whose samples are new, independent of the screening's that chose what it
measures. Whatever the choice, when nothing changed the Benjamini-Hochberg procedure holds
the chance of at least one false verdict among the confirmed figures at
:data:`~wsbench.results.stats.FAMILY_RATE` (with every null hypothesis true, the false
discovery rate is that chance), so the chance of one per comparison is at most that rate
times the chance that the screening moved anything, however many figures the comparison
has. The screening's own level decides only what is measured again: the power and the
cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from wsbench.results import compare, stats
from wsbench.results.compare import Line
from wsbench.results.stats import FAMILY_RATE, TOO_FEW, Verdict
from wsbench.scenarios import Params, Scenario, params_key, params_label

MOVED: tuple[Verdict, ...] = ("faster", "slower")
"""The screening verdicts that send a figure's set to the confirmation."""
NOT_MEASURED_AGAIN = "not measured again"
"""A confirmed figure's problem when the confirmation has no such figure."""

Grids = dict[Scenario, list[Params]]
"""Parameter sets by scenario, e.g. ``{"echo": [{"size_bytes": 16, "in_flight": 64}]}``."""


def moved(lines: Sequence[Line], verdicts: Sequence[str] = MOVED) -> dict[str, Grids]:
    """Per row (configuration), the parameter sets of each scenario with a figure of
    ``lines`` whose verdict is one of ``verdicts``: rows, scenarios and sets in the lines'
    order, each once."""
    out: dict[str, Grids] = {}
    for line in lines:
        if line.verdict in verdicts:
            sets = out.setdefault(line.row, {}).setdefault(line.scenario, [])
            if line.params not in sets:
                sets.append(dict(line.params))
    return out


def union(grids: Iterable[Grids]) -> Grids:
    """Every parameter set of ``grids``, by scenario, each once, in the order first met."""
    merged: Grids = {}
    for grid in grids:
        for scenario, sets in grid.items():
            into = merged.setdefault(scenario, [])
            into += [dict(p) for p in sets if p not in into]
    return merged


def family(lines: Sequence[Line], rate: float = FAMILY_RATE) -> list[Line]:
    """``lines`` decided as one family: each figure with a verdict to give (a comparison
    with enough server processes) gets its p-value adjusted over all of them
    (:func:`wsbench.results.stats.benjamini_hochberg`) and its verdict from that at level
    ``rate`` (:func:`wsbench.results.stats.in_family`); the others as they are. Same order.

    Raises:
        ValueError: ``rate`` not in (0, 1).
    """
    decided = [
        (i, line.result) for i, line in enumerate(lines)
        if line.result is not None and line.result.verdict != TOO_FEW
    ]  # fmt: skip
    adjusted = stats.benjamini_hochberg([r.p_value for _, r in decided])
    out = list(lines)
    for (i, result), q in zip(decided, adjusted, strict=True):
        out[i] = replace(lines[i], result=stats.in_family(result, q, rate))
    return out


def _set(line: Line) -> tuple[str, str, str]:
    return line.row, line.scenario, params_key(line.params)


def final(
    screening: Sequence[Line],
    confirmation: Sequence[Line],
    rate: float = FAMILY_RATE,
    missing: str = NOT_MEASURED_AGAIN,
) -> list[Line]:
    """The comparison's verdicts: ``screening``'s lines, those of every set that
    :func:`moved` replaced by the same figure of ``confirmation`` (the sets measured again,
    compared by :func:`wsbench.results.compare.compare_runs`), decided as one
    :func:`family` at ``rate``. A moved figure the confirmation lacks is not compared, with
    ``missing`` as its problem; the confirmation's figures of sets that did not move are
    left out (measured only because another configuration moved there).

    Raises:
        ValueError: ``rate`` not in (0, 1).
    """
    chosen = {_set(line) for line in screening if line.verdict in MOVED}
    again = family([line for line in confirmation if _set(line) in chosen], rate)
    by_figure = {(*_set(line), line.metric.name): line for line in again}
    out = []
    for line in screening:
        if _set(line) not in chosen:
            out.append(line)
            continue
        found = by_figure.get((*_set(line), line.metric.name))
        out.append(found or replace(line, result=None, problem=missing))
    return out


def rule(
    screening: tuple[int, int], confirmation: tuple[int, int], rate: float = FAMILY_RATE
) -> str:
    """The two stages' verdict rule in words (printed under a pull request's comparison):
    ``screening`` and ``confirmation`` are each stage's (rounds, windows per round)."""
    return (
        f"Verdicts in two stages. Screening, {_plan(screening)}: each figure on its own, "
        f"by the rule: {compare.rule()} Confirmation: each configuration and set with a "
        f"figure faster or slower in the screening, measured again, interleaved, "
        f"{_plan(confirmation)}; its figures take the confirmation's verdicts, decided as "
        "one family: significant when the figure's p-value adjusted by the "
        "Benjamini-Hochberg procedure over every confirmed figure of the comparison (the "
        f"p column's family value) is below {rate:g}, with the same effect size. Every "
        "other figure keeps its screening verdict, never faster or slower. So a change "
        "that changes nothing gets any faster or slower verdict in at most "
        f"{rate:.0%} of comparisons, however many figures they have."
    )


def _plan(plan: tuple[int, int]) -> str:
    rounds, windows = plan
    return f"{rounds} rounds x {windows} window{'s' if windows != 1 else ''} a side"


def to_markdown(screening: Sequence[Line], confirmation: tuple[int, int]) -> str:
    """Which sets the confirmation measured again (those :func:`moved` in ``screening``),
    per configuration, with its plan ``confirmation`` (rounds, windows per round); or that
    none moved."""
    found = moved(screening)
    if not found:
        return "No figure moved in the screening: nothing was measured again."
    out = [f"Confirmed (measured again, {_plan(confirmation)}; these sets' verdicts are the "
           "confirmation's):", ""]  # fmt: skip
    for row, grids in found.items():
        sets = [f"{s} {params_label(p)}" for s, params in grids.items() for p in params]
        out.append(f"- {row}: {', '.join(sets)}")
    return "\n".join(out)
