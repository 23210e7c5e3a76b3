"""Conformance grades on the site (wsbench.site.conformance): which document grades which
row, where its grade links, the grade beside a name, a group's counts in a cell, and the
grades of the fastest configurations in one sentence."""

from __future__ import annotations

import re

import pytest

from tests.site_runs import conformance_runs, site_runs
from wsbench.results.store import Store
from wsbench.site.conformance import (
    CONFORMANCE_PAGE,
    NOT_GRADED,
    Grades,
    counts_cell,
    fastest_grades,
    grade_badge,
    graded_of,
    relative,
    report_page,
    slug,
)
from wsbench.site.home import HOME_PAGE
from wsbench.site.results import results_of

ST_UVLOOP = "uvpip-py3.11-starlette{}-WSBENCH_CONFIGwebsockets-uvloop-WSBENCH_IMPLstarlette"
WS = "uvpip-py3.11-websockets{}-WSBENCH_CONFIGdefault-WSBENCH_IMPLwebsockets"
SIO = "uvpip-py3.11-python-socketio5.14.0-WSBENCH_CONFIGdefault-WSBENCH_IMPLpython-socketio"
BOARD = "leaderboards/echo.md"


@pytest.fixture(scope="module")
def grades() -> Grades:
    return graded_of(conformance_runs())


def text_of(markdown: str) -> str:
    """What a reader sees of a cell: its tags dropped, a link's text for the link, a
    non-breaking space as a space (other entities and escapes kept)."""
    linked = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"<[^>]+>", "", linked).replace("&nbsp;", " ")


def test_each_configuration_is_a_row_at_its_newest_graded_version(grades: Grades) -> None:
    assert [(g.impl.name, g.impl.config, g.version) for g in grades.latest] == [
        ("native", "default", "0.1.0"),
        ("aiohttp", "default", "3.13.2"),
        ("python-socketio", "default", "5.14.0"),
        ("starlette", "websockets-asyncio", "1.10.0"),
        ("starlette", "websockets-uvloop", "1.10.0"),
        ("websockets", "default", "15.0.1"),
    ]
    assert len(grades.by_env) == 8
    assert grades.of(WS.format("0.0")) is None


def test_a_grade_links_to_its_row_or_for_an_older_version_to_its_report(grades: Grades) -> None:
    newest, older = grades.of(ST_UVLOOP.format("1.10.0")), grades.of(ST_UVLOOP.format("0.46.2"))
    assert newest is not None and older is not None
    assert grades.row_link(newest) == f"{CONFORMANCE_PAGE}#row-starlette-websockets-uvloop"
    assert grades.failed_link(newest) == f"{CONFORMANCE_PAGE}#failed-starlette-websockets-uvloop"
    assert grades.row_link(older) == "conformance/reports/starlette.md#websockets-uvloop-0-46-2"
    assert newest.report("6.4.1") == (
        "conformance/reports/starlette.md#websockets-uvloop-1-10-0-case-6-4-1"
    )
    assert report_page("websockets") == "conformance/reports/websockets.md"
    assert slug("websockets-uvloop 1.10.0") != slug("websockets-uvloop 11.0.0")


def test_the_badge_beside_a_name(grades: Grades) -> None:
    ok = grade_badge(grades.of(WS.format("15.0.1")), grades, BOARD)
    assert ok == (
        '<span class="wsbench-grade wsbench-grade--pass">[✓](../conformance/index.md'
        '#row-websockets-default "RFC 6455: all 301 cases passed")</span>'
    )
    old = grade_badge(grades.of(WS.format("14.2")), grades, BOARD)
    assert "[⚠ 1 failed](../conformance/reports/websockets.md#default-14-2 " in old
    failing = grade_badge(grades.of(ST_UVLOOP.format("1.10.0")), grades, BOARD)
    assert "[⚠ 2 failed](../conformance/index.md#failed-starlette-websockets-uvloop " in failing
    na = grade_badge(grades.of(SIO), grades, BOARD)
    assert text_of(na) == "n/a" and 'title="not applicable: Socket.IO: Engine.IO' in na
    assert grade_badge(None, grades, BOARD) == NOT_GRADED
    # Before anything was graded, no row says "not graded".
    assert grade_badge(None, graded_of(()), BOARD) == ""


def test_a_cells_counts_worst_first_with_their_verdict_words() -> None:
    cell = counts_cell({"OK": 143, "FAILED": 1, "NON-STRICT": 1})
    assert text_of(cell) == "1 failed · 1 non-strict · 143 ok"
    assert 'class="wsbench-verdict wsbench-verdict--failed">1 failed ·</span>' in cell
    assert text_of(counts_cell({"OK": 16})) == "16 ok"
    assert text_of(counts_cell({"OK": 2, "NEW VERDICT": 1})) == "2 ok · 1 new verdict"
    assert counts_cell({}) == "—"


def test_links_are_relative_to_the_page_they_are_on() -> None:
    assert relative("conformance/index.md#x", "leaderboards/echo.md") == (
        "../conformance/index.md#x"
    )
    assert relative("conformance/index.md", "index.md") == "conformance/index.md"
    assert relative("conformance/index.md#r", "conformance/reports/a.md") == "../index.md#r"


def test_the_fastest_five_in_one_sentence(grades: Grades) -> None:
    results = results_of(Store(runs=site_runs()))
    # The home page's ranking of echo 16 B x 64 (best first, the reference left out).
    order = ["aiohttp3.13.2", "starlette1.10.0-WSBENCH_CONFIGwebsockets-uvloop",
             "starlette0.46.2-WSBENCH_CONFIGwebsockets-uvloop",
             "starlette1.10.0-WSBENCH_CONFIGwebsockets-asyncio",
             "starlette0.46.2-WSBENCH_CONFIGwebsockets-asyncio"]  # fmt: skip
    ranked = [next(r for r in results.runs if f"-{key}" in r.env_name) for key in order]
    fastest = fastest_grades(ranked, grades, HOME_PAGE, 5)
    assert fastest.sentence == (
        "**3 of the 5 fastest** pass every case of the suite; Starlette · uvicorn 0.54 · "
        "websockets · uvloop 1.10.0 fails 2 (UTF-8, close); Starlette · uvicorn 0.34 · "
        "websockets · asyncio 0.46.2 is not graded."
    )
    assert [(n, text_of(g)) for n, _, _, g in fastest.rows] == [
        ("1", "✓"), ("2", "⚠ 2 failed"), ("3", "✓"), ("4", "✓"), ("5", "not graded"),
    ]  # fmt: skip
    assert fastest_grades(ranked[:1], grades, HOME_PAGE, 5).sentence == (
        "**The fastest** passes every case of the suite."
    )
    assert fastest_grades(ranked[2:4], grades, HOME_PAGE, 5).sentence == (
        "**All of the 2 fastest** pass every case of the suite."
    )
    # The fastest fails a case: the fastest that passes every case is named, with its rank.
    assert fastest_grades(ranked[1:], grades, HOME_PAGE, 2).sentence == (
        "**1 of the 2 fastest** passes every case of the suite; Starlette · uvicorn 0.54 · "
        "websockets · uvloop 1.10.0 fails 2 (UTF-8, close). The fastest that passes every "
        "case: **Starlette · uvicorn 0.34 · websockets · uvloop 0.46.2** (2nd)."
    )
