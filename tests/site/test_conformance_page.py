"""The Conformance page and the case report pages (wsbench.site.conformance_page): the
table's counts per group, the failed cases and where they link, the not applicable rows,
each case's report regenerated from its document."""

from __future__ import annotations

import re

import pytest

from tests.runs import case, conformance, conformance_run, run
from tests.site.test_conformance import text_of
from tests.site_runs import SOCKETIO_NOT_APPLICABLE, conformance_runs
from wsbench.site.conformance import CONFORMANCE_PAGE, Grades, graded_of, report_page
from wsbench.site.conformance_page import fenced, render_conformance, suite_text

REPO = "https://github.com/wsbench/wsbench"
GROUP_HEADERS = ["1 framing", "2 ping/pong", "3 reserved bits", "4 opcodes", "5 fragmentation",
                 "6 UTF-8", "7 close", "9 limits", "10 misc"]  # fmt: skip


@pytest.fixture(scope="module")
def grades() -> Grades:
    return graded_of(conformance_runs())


@pytest.fixture(scope="module")
def pages(grades: Grades) -> dict[str, str]:
    return render_conformance(grades, REPO, {"starlette": "frameworks/starlette.md"})


def markdown_table(markdown: str) -> list[dict[str, str]]:
    """The first table of ``markdown`` as rows of ``{header: cell text}``."""
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    split = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    header, _, *rows = split
    return [dict(zip(header, (text_of(c) for c in row), strict=True)) for row in rows]


def anchors(markdown: str) -> set[str]:
    """The ids a page defines: headings' ``{ #id }`` and raw HTML ``id="..."``."""
    return set(re.findall(r"\{ #([\w-]+) \}", markdown)) | set(
        re.findall(r'id="([\w-]+)"', markdown)
    )


def test_a_row_per_configuration_with_its_counts_per_group(pages: dict[str, str]) -> None:
    rows = markdown_table(pages[CONFORMANCE_PAGE])
    assert list(rows[0]) == ["Configuration", "Version", *GROUP_HEADERS, "Not offered", "Grade"]
    by_name = {r["Configuration"]: r for r in rows}
    assert len(rows) == 6
    uvloop = by_name["Starlette · uvicorn 0.54 · websockets · uvloop"]
    assert uvloop["Version"] == "1.10.0"
    assert uvloop["1 framing"] == "16 ok"
    assert uvloop["6 UTF-8"] == "1 failed · 1 non-strict · 143 ok"
    assert uvloop["7 close"] == "1 failed · 1 informational · 35 ok"
    assert uvloop["9 limits"] == "54 ok" and uvloop["10 misc"] == "1 ok"
    assert (uvloop["Not offered"], uvloop["Grade"]) == ("12, 13", "⚠ 2 failed")
    aiohttp = by_name["aiohttp · asyncio"]
    assert (aiohttp["6 UTF-8"], aiohttp["Grade"]) == ("145 ok", "✓")
    sio = by_name["python-socketio · uvicorn 0.54 · asyncio Socket.IO"]
    assert sio["Grade"] == "n/a" and sio["6 UTF-8"] == "—"
    page = pages[CONFORMANCE_PAGE]
    assert (
        "Every row was graded by autobahntestsuite 25.10.1, run as `Python 2.7.18 virtualenv`, "
        in page
    )
    assert (
        "Groups 12 \\(permessage-deflate\\) and 13 \\(permessage-deflate parameters\\) are not "
        "run, as not offered: compression is off in every configuration."
    ) in page
    # What passes is said from the grading's own list.
    assert "A case passes when its verdict is **OK**, **NON-STRICT** or **INFORMATIONAL**" in page


def test_every_failed_case_is_named_and_linked_to_its_report(pages: dict[str, str]) -> None:
    page = pages[CONFORMANCE_PAGE]
    failed = page.split("## Cases that did not pass")[1].split("## Not applicable")[0]
    items = [line for line in failed.splitlines() if line.startswith("- ")]
    assert [text_of(i) for i in items] == [
        "- Case 6.4.1 · 6 UTF-8: FAILED (closing handshake: FAILED BY CLIENT). Send invalid "
        "UTF-8 text message in 3 fragments \\(frames\\).",
        "- Case 7.3.1 · 7 close: FAILED (closing handshake: WRONG CODE). Send a close frame "
        "with payload length 1",
    ]
    report = pages[report_page("starlette")]
    for item in items:
        target = re.search(r"\]\(reports/starlette\.md#([\w-]+)\)", item)
        assert target is not None and target.group(1) in anchors(report)
    # The grades' links to the page's own rows and lists resolve too.
    for target in re.findall(r"\]\(#([\w-]+)\)", page):
        assert target in anchors(page), target
    assert "{ #failed-starlette-websockets-uvloop }" in page


def test_socketio_is_not_applicable_with_its_reason(pages: dict[str, str]) -> None:
    page = pages[CONFORMANCE_PAGE]
    section = page.split("## Not applicable { #not-applicable }")[1]
    assert f"5.14.0: {SOCKETIO_NOT_APPLICABLE}" in text_of(section)
    assert "## Not graded" not in page


def test_a_case_report_holds_what_the_suite_reported(pages: dict[str, str]) -> None:
    report = pages[report_page("starlette")]
    case = report.split("{ #websockets-uvloop-1-10-0-case-7-3-1 }")[1]
    lines = {
        line.split(" | ")[0].strip("| "): line.split(" | ")[1].rstrip(" |")
        for line in case.splitlines()[:14]
        if line.startswith("| ") and " | " in line
    }
    assert lines["Verdict"].endswith(">FAILED</span>")
    assert lines["Expectation"] == "Clean close with protocol error or drop TCP."
    assert lines["Closing handshake (not graded)"] == (
        "WRONG CODE: The close code should have been 1002 or empty"
    )
    assert lines["Server's close frame"] == 'code 1000, reason "bye &#124; for now"'
    assert "```text\nTX FRAME : OPCODE=8, FIN=True, RSV=0, PAYLOAD-LEN=1, MASK=0a1b2c3d\n" in case
    assert "Wire log (3 lines):" in case
    assert "```text\nHTTP/1.1 101 Switching Protocols\nUpgrade: websocket\n" in case
    # The NON-STRICT pass has its report; the OK and INFORMATIONAL cases have none.
    assert "{ #websockets-uvloop-1-10-0-case-6-4-3 }" in report
    assert "case-7-1-6" not in report
    assert "No case to report: every case was OK or INFORMATIONAL." in report
    # An older version's section: the older websockets fails a case the newer passes.
    websockets = pages[report_page("websockets")]
    assert "{ #default-14-2-case-5-2-3 }" in websockets
    assert "case-5-2-3" not in websockets.split("{ #default-15-0-1 }")[1]
    assert "[Starlette's page](../../frameworks/starlette.md)" in report


def test_the_suites_line_breaks_stay_and_its_markup_is_escaped() -> None:
    assert suite_text("Send <b>x</b>.<br><br>PART1 = ce<BR/>|") == (
        "Send &lt;b&gt;x&lt;/b&gt;.<br>PART1 = ce<br>&#124;"
    )
    assert fenced(["a ``` b"]) == "````text\na ``` b\n````\n"


def test_without_any_document_the_page_says_how_to_grade() -> None:
    pages = render_conformance(graded_of(()), REPO, {})
    assert list(pages) == [CONFORMANCE_PAGE]
    assert "`./bench conformance` grades every configuration" in pages[CONFORMANCE_PAGE]


def test_many_failed_cases_of_one_group_are_one_line_of_links() -> None:
    many = [case(f"6.1.{n}", "FAILED") for n in range(1, 6)]
    graded = conformance(*many, case("7.1.1", "FAILED"))
    doc = conformance_run(run([], benchmarks=[]), graded, "20261121T000000Z-abcdef")
    page = render_conformance(graded_of([doc]), REPO, {})[CONFORMANCE_PAGE]
    (line,) = [ln for ln in page.splitlines() if ln.startswith("- 6 UTF-8")]
    assert line.startswith("- 6 UTF-8: 5 cases ")
    assert re.findall(r"\[(6\.1\.\d)\]", line) == [f"6.1.{n}" for n in range(1, 6)]
    assert len([ln for ln in page.splitlines() if ln.startswith("- [Case 7.1.1]")]) == 1
