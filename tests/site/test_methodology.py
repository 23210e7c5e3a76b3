"""The generated parts of the Methodology page (wsbench.site.methodology): the sentences on
count verdicts come from the constants that decide them, and the CPU profiles section names
the classes of the CPU from the one list of them; the deployment profiles' table comes from
their definition."""

from __future__ import annotations

from pathlib import Path

from wsbench.deployment import PROFILES
from wsbench.results.function_diff import GROWERS_SHOWN
from wsbench.results.profile_shares import CLASSES
from wsbench.results.runformat import FUNCTIONS_KEPT
from wsbench.site.methodology import (
    DEPLOYMENT_MARKER,
    METHODOLOGY_PAGE,
    PROFILE_CLASSES_MARKER,
    fill_markers,
    render_count_verdicts,
    render_deployment_profiles,
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


def test_the_deployment_profiles_section_lists_every_profile_from_its_definition() -> None:
    page = (ROOT / "site" / METHODOLOGY_PAGE).read_text(encoding="utf-8")
    section = page[page.index("### Deployment profiles") : page.index("### The in-flight")]
    assert DEPLOYMENT_MARKER in section
    assert "earlier document stays comparable" in section and "JSON corpus" in section
    table = render_deployment_profiles()
    rows = [line for line in table.splitlines() if line.startswith("| *")]
    assert [row.split(" | ")[0] for row in rows] == [
        f"| *{p.title}* (`{p.name}`)" for p in PROFILES
    ]
    assert rows[1] == (
        "| *As shipped* (`as-shipped`) | the client offers permessage-deflate as a browser does "
        "and the server keeps its framework's default compression, plain TCP | `deflate` = 1 | "
        "`--shipped-compression` | yes |"
    )
    assert rows[3].endswith(
        "| `deflate` = 1, `tls` = 1 | `--shipped-compression --certfile CERT.pem --keyfile "
        "KEY.pem` | yes |"
    )
    assert "- Connection setup: 16 workers" in table
    filled = fill_markers(METHODOLOGY_PAGE, page)
    assert DEPLOYMENT_MARKER not in filled and rows[0] in filled
