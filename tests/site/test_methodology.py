"""The generated parts of the Methodology page (wsbench.site.methodology): the sentences on
count verdicts come from the constants that decide them, and the CPU profiles section names
the classes of the CPU from the one list of them."""

from __future__ import annotations

from pathlib import Path

from wsbench.results.function_diff import GROWERS_SHOWN
from wsbench.results.profile_shares import CLASSES
from wsbench.results.runformat import FUNCTIONS_KEPT
from wsbench.site.methodology import (
    METHODOLOGY_PAGE,
    PROFILE_CLASSES_MARKER,
    fill_markers,
    render_count_verdicts,
    render_profile_classes,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_count_verdicts_say_which_functions_a_slower_set_names() -> None:
    text = render_count_verdicts()
    assert f"names the {GROWERS_SHOWN} functions whose own instructions per message" in text
    assert f"keeps its {FUNCTIONS_KEPT} functions with the most" in text


def test_the_cpu_profiles_section_names_every_class_in_order() -> None:
    words = render_profile_classes()
    assert words == "*framework*, *event loop*, *Python runtime*, *C extensions* and *kernel*"
    assert [w.strip("* ") for w in words.replace(" and ", ", ").split(",")] == list(CLASSES)
    page = (ROOT / "site" / METHODOLOGY_PAGE).read_text(encoding="utf-8")
    assert "## CPU profiles" in page and PROFILE_CLASSES_MARKER in page
    filled = fill_markers(METHODOLOGY_PAGE, page)
    assert PROFILE_CLASSES_MARKER not in filled and words in filled
    assert fill_markers("index.md", PROFILE_CLASSES_MARKER) == PROFILE_CLASSES_MARKER
