"""Instructions per message as the site shows them: a cell of a leaderboard or a framework
page (:func:`count_text`) and the sentence that says what the figure is
(:data:`COUNT_LEGEND`).

The figure is :attr:`wsbench.results.runformat.InstructionSet.per_message`, counted by
:mod:`wsbench.instrument.instructions`; whether it is deterministic is
:func:`wsbench.results.instruction_verdicts.deterministic`'s rule, the same the verdicts use.
"""

from __future__ import annotations

from wsbench.results.instruction_verdicts import deterministic
from wsbench.results.runformat import InstructionSet
from wsbench.site.markup import DASH, cell, short_reason

COUNT_HEADER = "Instructions / message"
"""The column's header, on the leaderboards and the framework pages."""
COUNT_ANCHOR = "instructions-per-message"
"""The Methodology page's section on instruction counts (its heading's anchor)."""
COUNT_LEGEND = (
    "**Instructions / message** is the server's own work per message, counted under "
    "valgrind: user-space instructions (Python, C extensions, the event loop), lower is "
    "better. It does not depend on the machine's noise (two processes agree within 0.2 %), "
    "so it tells versions and frameworks apart where the wall-clock figures cannot; it does "
    "not count the kernel's work or waiting. Marked *not deterministic* where the server's "
    "own counts varied between two runs (a thread or a polling loop); a dash where the run "
    f"did not count. [How it is counted](METHODOLOGY#{COUNT_ANCHOR})."
)
"""The sentence under a page that shows the column; ``METHODOLOGY`` is replaced by the
Methodology page's path relative to that page (:func:`count_legend`)."""
REASON_CHARS = 80
"""A failed count's reason is shortened to this many characters in a cell."""


def count_legend(methodology: str) -> str:
    """:data:`COUNT_LEGEND` linking to ``methodology`` (the Methodology page's path relative
    to the page that shows it, e.g. ``"../methodology.md"``)."""
    return COUNT_LEGEND.replace("METHODOLOGY", methodology)


def count_text(counted: InstructionSet | None) -> str:
    """A cell: the instructions per message with no decimals (``"81,934"``); with the
    spread and *not deterministic* when its counts spread too much for a 1 % verdict;
    ``"failed: <reason>"`` when counting failed; a dash when not counted (None)."""
    if counted is None:
        return DASH
    value = counted.per_message
    if counted.status != "ok" or value is None:
        reason = counted.error or "no messages between the two counts"
        return f"failed: {cell(short_reason(reason, REASON_CHARS))}"
    text = f"{value:,.0f}"
    spread = counted.spread
    if not deterministic(spread):
        text += f" (±{spread or 0.0:.1%}, *not deterministic*)"
    return text
