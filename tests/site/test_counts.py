"""Instructions per message on the site (wsbench/site/counts.py): the cell, the leaderboard
column beside the server CPU (only in a table where a row has counts), and the framework
page's table by version."""

from __future__ import annotations

import pytest

from tests.runs import ECHO_16_64, benchmark, counted_set, impl, run, with_counts
from tests.site_runs import IMPLS
from wsbench.results.runformat import InstructionSet, Run
from wsbench.site.counts import COUNT_HEADER, count_text
from wsbench.site.framework_pages import COUNTS_TITLE, render_page
from wsbench.site.frameworks import load_frameworks
from wsbench.site.history import History
from wsbench.site.render import render_leaderboard
from wsbench.site.results import select

ECHO_16_1 = {"size_bytes": 16, "in_flight": 1}
ECHO_4K = {"size_bytes": 4096, "in_flight": 64}


def counted(
    params: dict[str, int], per_message: int, *, again: int | None = None
) -> InstructionSet:
    """An ok set (:func:`tests.runs.counted_set`)."""
    return counted_set(per_message, again=again, params=params)


def doc(version: str, rate: float, sets: list[InstructionSet], **kw: object) -> Run:
    """websockets ``version``: echo 16 B x64 and x1 and 4 KiB x64 at ``rate``, with
    ``sets`` counted."""
    benches = [benchmark("echo", p, [rate] * 4) for p in (ECHO_16_64, ECHO_16_1, ECHO_4K)]
    base = run([], impl_info=impl("websockets", version, "asyncio"), benchmarks=benches, **kw)  # type: ignore[arg-type]
    return with_counts(base, *sets)


FAILED = InstructionSet(
    "echo", dict(ECHO_16_1), "failed", "the server did not start\nTraceback", []
)


def test_count_text() -> None:
    assert count_text(None) == "—"
    assert count_text(counted(ECHO_16_64, 81_934)) == "81,934"
    # 3 % apart between the two high runs: more than a third of the 1 % threshold
    wobbly = count_text(counted(ECHO_16_64, 100_000, again=103_000))
    assert wobbly == "100,000 (±3.0%, *not deterministic*)"
    # 0.2 % apart is within a third of 1 %: shown bare
    assert count_text(counted(ECHO_16_64, 100_000, again=100_200)) == "100,000"
    assert count_text(FAILED) == "failed: the server did not start Traceback"


def _table(md: str, title: str) -> list[list[str]]:
    """The rows (header first, cells stripped) of the table under the heading ``title``."""
    part = md.split(title, 1)[1]
    block: list[list[str]] = []
    for line in part.splitlines()[1:]:
        if line.startswith("|"):
            block.append([c.strip() for c in line.strip("|").split("|")])
        elif block:
            break
    assert block, title
    return [r for r in block if not set("".join(r)) <= set("-: ")]


@pytest.fixture(scope="module")
def docs() -> list[Run]:
    return [
        doc("15.0.1", 20_000, [counted(ECHO_16_64, 90_000), FAILED]),
        doc("16.0", 25_000, [counted(ECHO_16_64, 81_934), counted(ECHO_16_1, 129_407)]),
        doc("14.2", 18_000, []),
    ]


def test_leaderboard_column_beside_cpu_where_counted(docs: list[Run]) -> None:
    md = render_leaderboard("echo", select(docs))
    pipelined = _table(md, "16 B messages, 64 in flight")
    header = pipelined[0]
    assert header.index(COUNT_HEADER) == header.index("Server CPU (%)") + 1
    by_version = {r[2]: r[header.index(COUNT_HEADER)] for r in pipelined[1:]}
    assert by_version == {"16.0": "81,934", "15.0.1": "90,000", "14.2": "—"}
    ping_pong = _table(md, "16 B messages, 1 in flight")
    by_version = {r[2]: r[ping_pong[0].index(COUNT_HEADER)] for r in ping_pong[1:]}
    assert by_version == {"16.0": "129,407", "15.0.1": "failed: the server did not start Traceback",
                          "14.2": "—"}  # fmt: skip
    # no row of the 4 KiB table was counted: no column there
    assert COUNT_HEADER not in _table(md, "4,096 B messages, 64 in flight")[0]
    assert "**Instructions / message** is the server's own work per message" in md
    assert "(../methodology.md#instructions-per-message)" in md


def test_leaderboard_without_counts_has_no_column_and_no_legend(docs: list[Run]) -> None:
    md = render_leaderboard("echo", select([docs[2]]))
    assert COUNT_HEADER not in md
    assert "Instructions / message" not in md


def test_framework_page_counts_by_version(docs: list[Run]) -> None:
    (websockets,) = [f for f in load_frameworks(IMPLS) if f.name == "websockets"]
    md = render_page(websockets, select(docs), "https://x", History((), ())).markdown
    rows = _table(md, COUNTS_TITLE)
    assert rows[0] == ["Row", "Version", "echo 16 B x1", "echo 16 B x64"]
    # oldest version first; the version with no counts has no row
    assert [r[1:] for r in rows[1:]] == [
        ["15.0.1", "failed: the server did not start Traceback", "90,000"],
        ["16.0", "129,407", "81,934"],
    ]
    page = render_page(websockets, select([docs[2]]), "https://x", History((), ())).markdown
    assert COUNTS_TITLE not in page
