"""The differential of an instruction count: which functions' own instructions per message
grew most from the base to the head of one counted set.

Each side of a comparison keeps its counted set's functions with the most instructions per
message (:attr:`~wsbench.results.runformat.InstructionSet.functions`, callgrind's exclusive
counts: a function's own instructions, not its callees'). A function is the same on both
sides when its name and its object's file name are (:attr:`FunctionCount.key`). One kept on
one side only counts as 0 on the other; what it really had there is at most the smallest
figure that side kept (:func:`not_kept_bound`), which the line printed says, so that a
function that only crossed the edge of the kept list is not taken for one that appeared.
Where a comparison says *slower* (:mod:`wsbench.results.instruction_verdicts`), the
:data:`GROWERS_SHOWN` functions that grew most are printed under it.

What it names: C functions (the interpreter's, the extension modules', the libraries').
Python code is not named: its work is the interpreter's (``_PyEval_EvalFrameDefault`` and
the functions it calls); ``./bench profile`` names the Python functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.results.runformat import FunctionCount

GROWERS_SHOWN = 3
"""How many growers a comparison prints under a *slower* set."""


@dataclass(frozen=True)
class FunctionGrowth:
    """One function's instructions per message on both sides of a comparison.

    Attributes:
        name: the function (:attr:`FunctionCount.name`).
        file: its object's file name (:attr:`FunctionCount.file`).
        base: its instructions per message in the base; 0 when the base did not keep it.
        head: the same in the head; 0 when the head did not keep it.
        head_total: the head's instructions per message of the whole set, or None.
        base_at_most: None when the base kept it; else the most it can have had there
            (:func:`not_kept_bound`: 0 when the base kept every function it counted).
        head_at_most: the same for the head.
    """

    name: str
    file: str
    base: float
    head: float
    head_total: float | None
    base_at_most: float | None = None
    head_at_most: float | None = None

    @property
    def growth(self) -> float:
        """``head - base``: instructions per message (negative: it shrank)."""
        return self.head - self.base

    @property
    def share(self) -> float | None:
        """The growth as a share of the head's total per message (0.01 = 1 %), or None
        without a positive total."""
        if not self.head_total or self.head_total <= 0:
            return None
        return self.growth / self.head_total


def not_kept_bound(kept: Sequence[FunctionCount]) -> float:
    """The most instructions per message a function a side did not keep can have had: the
    smallest figure it kept, or 0 when that is not above 0 (the side kept every function
    with instructions, down to those without) or it kept none."""
    return max(0.0, min((f.per_message for f in kept), default=0.0))


def growth(
    base: Sequence[FunctionCount], head: Sequence[FunctionCount], *, head_total: float | None
) -> list[FunctionGrowth]:
    """Every function kept on either side with its growth, the largest growth first (ties by
    name, then file); a function kept on one side only counts as 0 on the other.

    Args:
        base, head: each side's kept functions (:attr:`InstructionSet.functions`).
        head_total: the head's instructions per message (:attr:`InstructionSet.per_message`),
            for :attr:`FunctionGrowth.share`; None when unknown.
    """
    in_base = {f.key: f for f in base}
    in_head = {f.key: f for f in head}
    base_bound, head_bound = not_kept_bound(base), not_kept_bound(head)
    out = []
    for key in {**in_base, **in_head}:
        b, h = in_base.get(key), in_head.get(key)
        out.append(
            FunctionGrowth(key[0], key[1], b.per_message if b else 0.0,
                           h.per_message if h else 0.0, head_total,
                           None if b else base_bound, None if h else head_bound)
        )  # fmt: skip
    return sorted(out, key=lambda g: (-g.growth, g.name, g.file))


def growers(
    base: Sequence[FunctionCount],
    head: Sequence[FunctionCount],
    *,
    head_total: float | None,
    limit: int = GROWERS_SHOWN,
) -> list[FunctionGrowth]:
    """The ``limit`` functions whose instructions per message grew most (growth above 0),
    most first (:func:`growth`); empty when neither side kept functions."""
    return [g for g in growth(base, head, head_total=head_total) if g.growth > 0][:limit]


def _figure(value: float, at_most: float | None) -> str:
    if at_most is None:
        return f"{value:,.0f}"
    return "0" if at_most == 0 else f"≤{at_most:,.0f} (not kept)"


def growth_line(g: FunctionGrowth) -> str:
    """One grower in one line, e.g. ``"+412 instructions/message (0.3% of the head's)
    burn (libfoo.so)  (base ≤180 (not kept) → head 412)"``: a side that did not keep the
    function counts 0 for the growth, and says the most it can have had."""
    share = "" if g.share is None else f" ({g.share:.1%} of the head's)"
    return (
        f"{g.growth:+,.0f} instructions/message{share}  {g.name} ({g.file})  "
        f"(base {_figure(g.base, g.base_at_most)} → head {_figure(g.head, g.head_at_most)})"
    )
