"""The Methodology page's generated sentences say what the comparisons print, from the
constants that decide it."""

from __future__ import annotations

from wsbench.results.function_diff import GROWERS_SHOWN
from wsbench.results.runformat import FUNCTIONS_KEPT
from wsbench.site.methodology import render_count_verdicts


def test_the_count_verdicts_say_which_functions_a_slower_set_names() -> None:
    text = render_count_verdicts()
    assert f"names the {GROWERS_SHOWN} functions whose own instructions per message" in text
    assert f"keeps its {FUNCTIONS_KEPT} functions with the most" in text
