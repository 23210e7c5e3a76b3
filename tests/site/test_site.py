"""The published site: ``mkdocs build --strict`` from a results store of run documents
(tests/site_runs.py) and the fixture implementations, and the pages it generates
(leaderboards, frameworks, runs and environment) hold the expected rows."""

# The pages' typography (multiplication sign, en dash, minus sign) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import csv
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.site_runs import (
    AIOHTTP_PACKAGES,
    CURRENT,
    OLD_RUN,
    OTHER_RUN,
    REFERENCE_RUN,
    build,
)
from wsbench.site import assets
from wsbench.site.downloads import HEADER, decode_bundle

ROOT = Path(__file__).resolve().parents[2]
REPO_URL = "https://github.com/wsbench/wsbench"
# Rows: one per (configuration, version), named as the harness names them.
NATIVE = "native reference · wsbench-loadgen serve · tokio (current-thread)"
AIOHTTP = "aiohttp · asyncio"
WS = "websockets · asyncio"
ST_ASYNCIO = "Starlette · uvicorn {} · websockets · asyncio"
ST_UVLOOP = "Starlette · uvicorn {} · websockets · uvloop"
ST_WSPROTO = "Starlette · uvicorn 0.54 · wsproto · asyncio"
SIO_OLD = "python-socketio · uvicorn 0.32 · asyncio Socket.IO"
SIO_NEW = "python-socketio · uvicorn 0.54 · asyncio Socket.IO"
# (name, version) in the order of the echo tables, with the rank of each (ties share one).
ECHO_ORDER = [
    (NATIVE, "0.1.0", "—"),  # the reference: a yardstick, not ranked
    (AIOHTTP, "3.13.2", "1"),  # 50,000 msg/s, tied with the next
    (ST_UVLOOP.format("0.54"), "1.10.0", "1"),
    (ST_UVLOOP.format("0.34"), "0.46.2", "3"),  # 40,000
    (ST_ASYNCIO.format("0.54"), "1.10.0", "4"),  # 25,400: tied with the two 25,000s
    (ST_ASYNCIO.format("0.34"), "0.46.2", "4"),
    (WS, "15.0.1", "4"),
    (ST_ASYNCIO.format("0.29"), "0.37.2", "7"),  # 20,000
    (WS, "14.2", "7"),
    (ST_WSPROTO, "1.10.0", "7"),  # 16,667 but unstable: its wide interval reaches 20,000
    (SIO_NEW, "5.14.0", "10"),
    (SIO_OLD, "5.11.4", "11"),
    (ST_UVLOOP.format("0.29"), "0.37.2", "—"),  # did not install: failed, last
]
RUN_LINE = (
    f"Runs {CURRENT}, {REFERENCE_RUN}: 3 processes × 2 windows × 3 s, 1 s warm-up; "
    "load generator 0.1.0 (sources abababababab) (runs and environment)."
)


class _Page(HTMLParser):
    """Collects the text of headings, table cells and small print of an HTML page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.links: list[str] = []
        self.images: list[str] = []
        self.small: list[str] = []
        self._heading = ""
        self._in_heading = False
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._small: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h2", "h3"):
            self._in_heading, self._heading = True, ""
        elif tag == "table":
            self.tables.append((self._heading.replace("¶", "").strip(), []))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a":
            self.links += [v for k, v in attrs if k == "href" and v]
        elif tag == "img":
            self.images += [v for k, v in attrs if k == "src" and v]
        elif tag == "small":
            self._small = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h2", "h3"):
            self._in_heading = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self.tables:
            self.tables[-1][1].append(self._row)
            self._row = None
        elif tag == "small" and self._small is not None:
            self.small.append(" ".join("".join(self._small).split()))
            self._small = None

    def handle_data(self, data: str) -> None:
        if self._in_heading:
            self._heading += data
        if self._cell is not None:
            self._cell.append(data)
        if self._small is not None:
            self._small.append(data)


def page(site: Path, path: str) -> _Page:
    parser = _Page()
    parser.feed((site / path / "index.html").read_text(encoding="utf-8"))
    return parser


def text(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def table_rows(parsed: _Page, heading: str) -> list[list[str]]:
    """The rows of the one table under ``heading``, header row included."""
    matches = [rows for title, rows in parsed.tables if title == heading]
    assert len(matches) == 1, [title for title, _ in parsed.tables]
    return matches[0]


def table(parsed: _Page, heading: str, key: str | None = None) -> dict[str, dict[str, str]]:
    """The table under ``heading`` as ``{row key: {column header: cell}}``; the key is the
    cell of column ``key`` (default the first), plus the version when there is one."""
    header, *rows = table_rows(parsed, heading)
    out = {}
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        name = cells[key] if key else row[0]
        out[f"{name} {cells['Version']}" if "Version" in cells and key else name] = cells
    return out


GRADE = re.compile(r" (✓|⚠ \d+ (?:failed|unimplemented)|n/a|\? not graded|not graded)$")
"""The conformance grade at the end of a leaderboard row's name."""


def name_and_grade(name: str) -> tuple[str, str]:
    """A leaderboard's name cell as (the row's name, its conformance grade or "")."""
    found = GRADE.search(name)
    return (name[: found.start()], found.group(1)) if found else (name, "")


def board(parsed: _Page, heading: str) -> dict[str, dict[str, str]]:
    """A leaderboard table as ``{"<framework> <version>": {column header: cell}}``, the
    grade beside the name apart, as ``"Grade"``."""
    header, *rows = table_rows(parsed, heading)
    out = {}
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        cells["Framework"], cells["Grade"] = name_and_grade(cells["Framework"])
        out[f"{cells['Framework']} {cells['Version']}"] = cells
    return out


@pytest.fixture(scope="module")
def site(built_site: Path) -> Path:
    """The site built from :func:`tests.site_runs.write_store` (one build per session,
    shared with the browser tests)."""
    return built_site


ECHO_HEADERS = [
    "Rank",
    "Framework",
    "Version",
    "Messages/s",
    "MB/s",
    "p50 latency (µs)",
    "p99 latency (µs)",
    "Server CPU (%)",
    "Server RSS (MiB)",
    "Flag",
]
TUNED = " · Tuned"
"""How a leaderboard's heading ends for a set measured in the tuned deployment profile."""
ECHO_TABLES = [
    f"16 B messages, 1 in flight per connection{TUNED}",
    f"16 B messages, 64 in flight per connection{TUNED}",
    f"1,024 B messages, 1 in flight per connection{TUNED}",
    f"1,024 B messages, 64 in flight per connection{TUNED}",
    f"65,536 B messages, 1 in flight per connection{TUNED}",
    f"65,536 B messages, 64 in flight per connection{TUNED}",
]
CPU_TABLE = "CPU per message, where it goes (µs)"
"""The table (the chart's fallback) under the echo table of the profiled set."""
CORPUS = "1,024 B messages, the JSON corpus, 64 in flight per connection"
"""The echo set of the JSON corpus measured tuned and as shipped (tests/deployment_runs.py),
by aiohttp, websockets 15.0.1 and Starlette on wsproto in the current run."""


def test_echo_leaderboard_rows_figures_intervals_and_order(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    # Under the profiled set's table, its configurations' CPU per message by where it goes.
    # The tuned sets first, the JSON corpus's after the 1,024 B ones; the as-shipped set last.
    assert [title for title, _ in parsed.tables] == [
        *ECHO_TABLES[:2], CPU_TABLE, *ECHO_TABLES[2:4], f"{CORPUS}{TUNED}", *ECHO_TABLES[4:],
        f"{CORPUS} · As shipped",
    ]  # fmt: skip
    header, *rows = table_rows(parsed, ECHO_TABLES[0])
    assert header == ECHO_HEADERS
    # Sorted by throughput: the reference first, failed rows last.
    assert [(name_and_grade(row[1])[0], row[2], row[0]) for row in rows] == ECHO_ORDER

    rows_1k = board(parsed, f"1,024 B messages, 1 in flight per connection{TUNED}")
    native = rows_1k[f"{NATIVE} 0.1.0"]
    assert native["Flag"] == "reference"
    # The geometric mean over the server processes and its 95 % interval (Student's t over
    # the 3 processes); MB/s = 10^6 bytes, a median over the windows.
    assert native["Messages/s"] == "99,992 (96,334–103,788)"
    assert native["MB/s"] == "102.40"
    ws = rows_1k[f"{WS} 15.0.1"]
    assert ws["Messages/s"] == "24,998 (24,083–25,947)"
    assert ws["MB/s"] == "25.60"
    # Latency in µs with its interval, CPU and RSS (MiB) as medians.
    assert ws["p50 latency (µs)"] == "40.0 (38.5–41.5)"
    assert ws["p99 latency (µs)"] == "60.0 (57.8–62.3)"
    assert ws["Server CPU (%)"] == "99.0"
    assert ws["Server RSS (MiB)"] == "19.1"
    assert ws["Flag"] == ""


def test_only_the_current_comparison_group_is_shown(site: Path) -> None:
    for path in ("leaderboards/echo", "leaderboards/stream", "frameworks/aiohttp"):
        # The framework page's Night by night section lists every run, on purpose, apart.
        html = text(site, path).split('id="night-by-night"')[0]
        # aiohttp's 5 s-window run (other settings) is never mixed in, nor is the older,
        # superseded websockets run (2,500 msg/s).
        assert "77,777" not in html and "300,000" not in html, path
        assert ">2,500" not in html and "2,500 (" not in html, path
        assert OTHER_RUN not in html and OLD_RUN not in html, path
    rows = board(page(site, "leaderboards/echo"), ECHO_TABLES[0])
    assert [name for name in rows if name.startswith(AIOHTTP)] == [f"{AIOHTTP} 3.13.2"]
    assert rows[f"{AIOHTTP} 3.13.2"]["Messages/s"].startswith("49,996 ")


def test_every_table_names_its_runs_and_settings(site: Path) -> None:
    current = RUN_LINE.replace(f"Runs {CURRENT}, {REFERENCE_RUN}", f"Run {CURRENT}")
    for path, lines in (
        ("leaderboards/echo", [*[RUN_LINE] * 4, current, *[RUN_LINE] * 2, current]),
        ("leaderboards/stream", [RUN_LINE] * 3),
    ):
        parsed = page(site, path)
        assert parsed.small == lines, path
        assert "../../environment/" in parsed.links
    # A framework's results table names the run its rows come from.
    starlette = page(site, "frameworks/starlette")
    assert starlette.small == [
        f"Run {CURRENT}: 3 processes × 2 windows × 3 s, 1 s warm-up; "
        "load generator 0.1.0 (sources abababababab) (runs and environment)."
    ]


def test_rank_ties_and_unstable_figures_are_explained_and_marked(site: Path) -> None:
    html = text(site, "leaderboards/echo")
    assert "rows with the same rank are not significantly different" in html
    assert (
        "≈ marks an unstable figure: the coefficient of variation of its server processes' "
        "values is above 10 %"
    ) in html
    rows = board(page(site, "leaderboards/echo"), ECHO_TABLES[0])
    wsproto = rows[f"{ST_WSPROTO} 1.10.0"]
    assert wsproto["Messages/s"].startswith("≈16,289 (")
    assert wsproto["p50 latency (µs)"].startswith("≈")
    assert not rows[f"{WS} 15.0.1"]["Messages/s"].startswith("≈")
    # The stream figures of the same environment are stable.
    stream = board(page(site, "leaderboards/stream"), f"16 B messages{TUNED}")
    assert stream[f"{ST_WSPROTO} 1.10.0"]["Messages/s"] == "66,661 (64,223–69,193)"


def test_echo_leaderboard_flags_client_bound_disturbed_and_failed(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    pipelined = board(parsed, f"16 B messages, 64 in flight per connection{TUNED}")
    assert pipelined[f"{AIOHTTP} 3.13.2"]["Flag"] == "⚠ client-bound (load generator CPU 85 %)"
    assert pipelined[f"{WS} 15.0.1"]["Flag"] == ""
    assert pipelined[f"{ST_UVLOOP.format('0.54')} 1.10.0"]["Flag"].startswith("⚠ client-bound")
    ping_pong = board(parsed, ECHO_TABLES[0])
    # A disturbed window is left out (its 9,000 msg/s does not pull the figure down).
    assert ping_pong[f"{AIOHTTP} 3.13.2"]["Flag"] == "1 disturbed window left out (n = 6)"
    assert ping_pong[f"{AIOHTTP} 3.13.2"]["Messages/s"] == "49,996 (48,167–51,894)"

    big = board(parsed, f"65,536 B messages, 64 in flight per connection{TUNED}")
    failed = big[f"{WS} 15.0.1"]
    assert failed["Messages/s"] == "failed"
    assert failed["Rank"] == "—"
    assert failed["p50 latency (µs)"] == "—"
    assert failed["Flag"] == (
        "failed: server closed the connection: 1009 (message too big) after 3 messages | see stderr"
    )
    # Failed rows come last, whatever their figures.
    assert list(big)[-2:] == [f"{ST_UVLOOP.format('0.29')} 0.37.2", f"{WS} 15.0.1"]


def test_install_failure_is_a_failed_row_with_its_reason(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    for title in ECHO_TABLES:
        row = board(parsed, title)[f"{ST_UVLOOP.format('0.29')} 0.37.2"]
        assert row["Messages/s"] == "failed"
        # Long: the first and last lines here, in full on the framework page.
        assert row["Flag"].startswith(
            "failed: does not install: 'uv pip install starlette==0.37.2 uvicorn==0.29.0"
        )
        assert row["Flag"].endswith("(full reason)")
    assert "../../frameworks/starlette/#failures" in parsed.links


def test_rows_are_named_per_configuration_and_socketio_rows_marked(site: Path) -> None:
    html = text(site, "leaderboards/echo")
    rows = board(
        page(site, "leaderboards/echo"), f"1,024 B messages, 64 in flight per connection{TUNED}"
    )
    assert f"{ST_ASYNCIO.format('0.29')} 0.37.2" in rows
    assert f"{ST_ASYNCIO.format('0.34')} 0.46.2" in rows
    assert rows[f"{ST_UVLOOP.format('0.34')} 0.46.2"]["Messages/s"] == "39,997 (38,534–41,515)"
    assert f"{ST_WSPROTO} 1.10.0" in rows
    # Socket.IO rows carry the tag, and the intro says what it means; others do not.
    assert f"{SIO_OLD} 5.11.4" in rows and f"{SIO_NEW} 5.14.0" in rows
    # intro + 2 rows x 6 tables + the profiled Socket.IO row under the 16 B x 64 table
    assert html.count("<mark>Socket.IO</mark>") == 1 + 2 * 6 + 1
    assert "Rows marked <mark>Socket.IO</mark> are Socket.IO servers" in html
    assert not any("Socket.IO" in name for name in rows if "socketio" not in name)
    # Each row links to its framework's page.
    assert "../../frameworks/starlette/" in page(site, "leaderboards/echo").links


# The grade beside each row's name (tests/site_runs.py: conformance_runs), by row.
ECHO_GRADES = {
    f"{NATIVE} 0.1.0": "✓",
    f"{AIOHTTP} 3.13.2": "✓",
    f"{ST_UVLOOP.format('0.54')} 1.10.0": "⚠ 2 failed",
    f"{ST_UVLOOP.format('0.34')} 0.46.2": "✓",
    f"{ST_ASYNCIO.format('0.54')} 1.10.0": "✓",
    f"{ST_ASYNCIO.format('0.34')} 0.46.2": "not graded",
    f"{WS} 15.0.1": "✓",
    f"{ST_ASYNCIO.format('0.29')} 0.37.2": "not graded",
    f"{WS} 14.2": "⚠ 1 failed",
    f"{ST_WSPROTO} 1.10.0": "not graded",
    f"{SIO_NEW} 5.14.0": "n/a",
    f"{SIO_OLD} 5.11.4": "not graded",
    f"{ST_UVLOOP.format('0.29')} 0.37.2": "not graded",
}


def test_each_leaderboard_row_shows_the_grade_of_its_version(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    for title in ECHO_TABLES:
        rows = board(parsed, title)
        assert {name: cells["Grade"] for name, cells in rows.items()} == ECHO_GRADES, title
    stream = board(page(site, "leaderboards/stream"), f"16 B messages{TUNED}")
    assert stream[f"{WS} 14.2"]["Grade"] == "⚠ 1 failed"
    html = text(site, "leaderboards/echo")
    # ✓ links to the configuration's row, ⚠ to its failed cases, an older version's grade
    # to its own report (the Conformance page shows the newest).
    assert 'href="../../conformance/#row-aiohttp-default"' in html
    assert 'href="../../conformance/#failed-starlette-websockets-uvloop"' in html
    assert 'href="../../conformance/reports/websockets/#default-14-2"' in html
    assert "Beside each name, the conformance grade of that version" in html


def _ids(site: Path, path: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', (site / path / "index.html").read_text("utf-8")))


def test_every_conformance_link_resolves_to_an_anchor_of_an_existing_page(site: Path) -> None:
    checked = 0
    for html in sorted(site.rglob("index.html")):
        here = html.parent.relative_to(site).as_posix()
        if here.startswith(("assets", "search", "downloads")):
            continue
        on_conformance = here.startswith("conformance")
        for href in page(site, "" if here == "." else here).links:
            if "://" in href or not ("conformance/" in href or (on_conformance and "#" in href)):
                continue
            path, _, fragment = href.partition("#")
            target = (html.parent / path).resolve().relative_to(site.resolve()).as_posix()
            target = "" if target == "." else target
            assert (site / target / "index.html").is_file(), (here, href)
            if fragment:
                assert fragment in _ids(site, target), (here, href)
            checked += 1
    assert checked > 100


def test_the_conformance_page_is_in_the_nav_and_linked_from_home(site: Path) -> None:
    home = page(site, "")
    assert "conformance/" in home.links
    nav = re.findall(r'<a href="([^"]+)" class="md-nav__link">\s*<span class="md-ellipsis">\s*'
                     r"Conformance", text(site, "findings"))  # fmt: skip
    assert nav == ["../conformance/"]
    header = table_rows(page(site, "conformance"), "")[0]
    assert header[:4] == ["Configuration", "Version", "1 framing", "2 ping/pong"]
    assert header[-2:] == ["Not offered", "Grade"]
    assert (site / "conformance/reports/starlette/index.html").is_file()


def test_a_framework_page_grades_each_version(site: Path) -> None:
    parsed = page(site, "frameworks/starlette")
    rows = table(parsed, "Conformance by version", key="Row")
    assert {name: (r["Grade"], r["Failed or unimplemented"]) for name, r in rows.items()} == {
        f"{ST_ASYNCIO.format('0.54')} 1.10.0": ("✓", "—"),
        f"{ST_UVLOOP.format('0.34')} 0.46.2": ("✓", "—"),
        f"{ST_UVLOOP.format('0.54')} 1.10.0": ("⚠ 2 failed", "6.4.1 new, 7.3.1 new"),
    }
    websockets = table(page(site, "frameworks/websockets"), "Conformance by version", key="Row")
    assert websockets[f"{WS} 14.2"]["Summary"] == "1 failed of 301 cases"
    assert websockets[f"{WS} 14.2"]["Failed or unimplemented"] == "5.2.3"
    aiohttp = table(page(site, "frameworks/aiohttp"), "Conformance by version", key="Row")
    assert aiohttp[f"{AIOHTTP} 3.13.2"]["Grade"] == "✓"


def test_the_home_page_answers_which_of_the_fastest_are_conformant(site: Path) -> None:
    html = text(site, "")
    assert "Which of the fastest servers are also fully conformant?" in html
    assert (
        "<strong>3 of the 5 fastest</strong> pass every case of the suite; Starlette · uvicorn "
        "0.54 · websockets · uvloop 1.10.0 fails 2 (UTF-8, close); Starlette · uvicorn 0.34 · "
        "websockets · asyncio 0.46.2 is not graded."
    ) in html
    rows = table(page(site, ""), "Fast and conformant", key="Configuration")
    assert [(r[""], name, r["Grade"]) for name, r in rows.items()] == [
        ("1", f"{AIOHTTP} 3.13.2", "✓"),
        ("2", f"{ST_UVLOOP.format('0.54')} 1.10.0", "⚠ 2 failed"),
        ("3", f"{ST_UVLOOP.format('0.34')} 0.46.2", "✓"),
        ("4", f"{ST_ASYNCIO.format('0.54')} 1.10.0", "✓"),
        ("5", f"{ST_ASYNCIO.format('0.34')} 0.46.2", "not graded"),
    ]


def test_stream_leaderboard(site: Path) -> None:
    parsed = page(site, "leaderboards/stream")
    assert [title for title, _ in parsed.tables] == [
        f"16 B messages{TUNED}",
        f"1,024 B messages{TUNED}",
        f"65,536 B messages{TUNED}",
    ]
    rows = board(parsed, f"65,536 B messages{TUNED}")
    names = list(rows)
    assert names[:3] == [
        f"{NATIVE} 0.1.0",
        f"{AIOHTTP} 3.13.2",
        f"{ST_UVLOOP.format('0.54')} 1.10.0",
    ]
    assert "p50 latency (µs)" not in rows[f"{AIOHTTP} 3.13.2"]
    assert rows[f"{NATIVE} 0.1.0"]["Messages/s"] == "499,958 (481,670–518,941)"
    assert rows[f"{NATIVE} 0.1.0"]["Flag"] == "reference"
    assert rows[f"{AIOHTTP} 3.13.2"]["MB/s"] == "13,107.20"
    assert rows[f"{SIO_NEW} 5.14.0"]["Messages/s"] == "24,998 (24,083–25,947)"
    # Every window of python-socketio 5.11.4 at 64 KiB was disturbed: failed, with why.
    disturbed = rows[f"{SIO_OLD} 5.11.4"]
    assert disturbed["Messages/s"] == "failed"
    assert disturbed["Flag"] == (
        "failed: every window was disturbed (other work or steal time on the measured CPUs): "
        "steal 0 % and other work 1 % over 6 windows"
    )
    assert names[-2:] == [f"{SIO_OLD} 5.11.4", f"{ST_UVLOOP.format('0.29')} 0.37.2"]
    assert "<mark>Socket.IO</mark>" in text(site, "leaderboards/stream")


def test_frameworks_index(site: Path) -> None:
    parsed = page(site, "frameworks")
    summary = table(parsed, "")
    assert set(summary) == {
        "native reference (reference)",
        "aiohttp",
        "python-socketio",
        "Starlette",
        "websockets",
    }
    assert summary["Starlette"]["Configurations"] == "3"
    assert summary["Starlette"]["Versions (oldest first)"] == "0.37.2, 0.46.2, 1.10.0"
    assert summary["Starlette"]["Event loop"] == "asyncio, uvloop"
    assert summary["websockets"]["Measured"] == "14.2, 15.0.1"
    assert summary["python-socketio"]["Protocol"] == "Socket.IO"
    assert summary["native reference (reference)"]["Event loop"] == "tokio (current-thread)"
    for name in ("native", "aiohttp", "python-socketio", "starlette", "websockets"):
        assert f"{name}/" in parsed.links, name
        assert (site / "frameworks" / name / "index.html").is_file()
    assert "unfinished" not in text(site, "frameworks")  # no meta.toml: skipped
    # Every framework page is in the nav, under Frameworks.
    nav = page(site, "").links
    assert "frameworks/starlette/" in nav and "frameworks/python-socketio/" in nav


def test_framework_page(site: Path) -> None:
    parsed = page(site, "frameworks/starlette")
    facts = {row[0]: row[1] for row in table_rows(parsed, "")}
    assert facts["Package"] == "starlette"
    assert facts["Server"] == "uvicorn"
    assert facts["Protocol"] == "WebSocket"
    assert facts["Implementation"] == "impls/starlette"
    assert facts["Measured version(s)"] == "0.37.2, 0.46.2, 1.10.0"
    assert f"{REPO_URL}/tree/main/impls/starlette" in parsed.links
    assert "https://pypi.org/project/starlette/" in parsed.links

    configs = table(parsed, "Configurations")
    assert list(configs) == ["websockets-asyncio", "websockets-uvloop", "wsproto-asyncio"]
    uvloop = configs["websockets-uvloop"]
    assert uvloop["Row name"] == "Starlette · uvicorn · websockets · uvloop"
    assert uvloop["Extra pins"] == "uvloop==0.23.0"
    assert uvloop["Versions"] == "0.37.2, 0.46.2, 1.10.0"
    assert configs["wsproto-asyncio"]["Versions"] == "1.10.0"

    matrix = table(parsed, "Version matrix")
    assert list(matrix) == ["0.37.2", "0.46.2", "1.10.0"]
    assert matrix["0.37.2"]["Also installed"] == "uvicorn==0.29.0, websockets==12.0"
    deviations = table(parsed, "Deviations")
    assert deviations["keepalive pings"]["As applied"] == "off: uvicorn ws_ping_interval=None"

    results = table(parsed, "Results by version")
    echo = "Echo messages/s, 16 B, 64 in flight"
    assert results[ST_UVLOOP.format("0.34")][echo] == "39,997 (38,534–41,515)"
    assert results[ST_UVLOOP.format("0.54")][echo] == "49,996 (48,167–51,894) ⚠"
    assert results[ST_WSPROTO][echo].startswith("≈16,289 (")
    assert results[ST_UVLOOP.format("0.29")]["Push messages/s, 16 B"] == "failed"
    old = results[ST_ASYNCIO.format("0.29")]
    assert old["p50 latency (µs), echo 16 B, 1 in flight"] == "50.0 (48.2–51.9)"
    assert old["Peak RSS (MiB), echo 16 B, 64 in flight"] == "19.1 (19.1–19.1)"
    assert old["Echo MB/s, 64 KiB, 64 in flight"] == "1,310.6 (1,262.7–1,360.4)"


def test_framework_page_charts_resolve(site: Path) -> None:
    parsed = page(site, "frameworks/starlette")
    assert len(parsed.images) == 5
    for src in parsed.images:
        assert src.endswith(".svg") and "/" not in src, src  # relative, beside the page
        svg = (site / "frameworks" / "starlette" / src).read_text(encoding="utf-8")
        for version in ("0.37.2", "0.46.2", "1.10.0"):
            assert f">{version}</text>" in svg, (src, version)
    html = text(site, "frameworks/starlette")
    assert "lower is better" in html and "higher is better" in html
    # The failed point is listed under each chart with the start of its reason.
    assert html.count("websockets-uvloop</code> at 0.37.2: does not install:") == 5


def test_significant_release_changes_are_marked_and_insignificant_ones_not(site: Path) -> None:
    html = text(site, "frameworks/starlette")
    # Echo 16 B x 64: asyncio 0.37.2 -> 0.46.2 (+25 %) and uvloop 0.46.2 -> 1.10.0 (+25 %)
    # are significant; asyncio 0.46.2 -> 1.10.0 (25,000 -> 25,400, +1.6 %) is not.
    assert (
        "Significant changes between consecutive releases: <code>websockets-asyncio</code> "
        "0.37.2 → 0.46.2: <strong>+25 %</strong> (p = 5.3e-05); <code>websockets-uvloop</code> "
        "0.46.2 → 1.10.0: <strong>+25 %</strong> (p = 5.3e-05)."
    ) in html
    # Latency is lower is better: its change is a drop.
    assert "0.37.2 → 0.46.2: <strong>−20 %</strong>" in html
    svg = (site / "frameworks" / "starlette" / "echo-throughput-16b.svg").read_text()
    assert svg.count("+25 %") == 2 and "+2 %" not in svg
    # One configuration: its changes are not prefixed with its name.
    websockets = text(site, "frameworks/websockets")
    assert (
        "Significant changes between consecutive releases: 14.2 → 15.0.1: "
        "<strong>+25 %</strong> (p = 5.3e-05)."
    ) in websockets
    # 64 KiB failed at 15.0.1 (nothing to compare) and RSS did not change: no list under
    # their charts, and no change written on them. The fourth list is memory per connection
    # (42.5 -> 40.0 KiB at 1,000 connections, in the Many connections section).
    assert websockets.count("Significant changes between consecutive releases") == 4
    assert "14.2 → 15.0.1: <strong>−6 %</strong> (p = 0.0078)." in websockets
    for slug in ("echo-rss-16b", "echo-throughput-64kib"):
        svg = (site / "frameworks" / "websockets" / f"{slug}.svg").read_text()
        assert " %</text>" not in svg, slug


def test_framework_page_shows_failure_reasons_in_full(site: Path) -> None:
    html = text(site, "frameworks/starlette")
    assert 'id="failures"' in html
    assert "Because only uvloop&lt;=0.21.0 is available and you require uvloop==0.23.0" in html
    assert "version 0.37.2 (every measurement)" in html
    ws = text(site, "frameworks/websockets")
    assert "server closed the connection: 1009 (message too big)" in ws
    assert "echo 65,536 B messages, 64 in flight per connection" in ws


def test_framework_pages_night_by_night(site: Path) -> None:
    # websockets 15.0.1 was measured in OLD_RUN and CURRENT: its page charts both runs.
    parsed = page(site, "frameworks/websockets")
    night = [src for src in parsed.images if src.startswith("night-")]
    assert len(night) == 5
    for src in night:
        svg = (site / "frameworks" / "websockets" / src).read_text(encoding="utf-8")
        assert ">2026-11-21</text>" in svg and ">2026-11-22</text>" in svg, src
        assert "machine not tuned" in svg  # CURRENT recorded an untuned machine
    title = (
        "Echo throughput, 16 B messages, 64 in flight (messages/s, higher is better), "
        "night by night"
    )
    header, *rows = table_rows(parsed, title)
    assert header[:5] == [
        "Run",
        "Date",
        "Harness",
        "Version",
        "Echo messages/s, 16 B, 64 in flight",
    ]
    assert [(r[0], r[3], r[4], r[5]) for r in rows] == [
        (OLD_RUN, "15.0.1", "2,500 (2,408–2,595)", "not recorded"),
        (CURRENT, "14.2", "19,998 (19,267–20,758)", "no"),
        (CURRENT, "15.0.1", "24,998 (24,083–25,947)", "no"),
    ]
    # aiohttp's two runs differ in their settings: marked, never compared.
    aiohttp = text(site, "frameworks/aiohttp")
    assert "settings: window_s 5.0 → 3.0" in aiohttp
    assert "the harness's doing, not the framework's" in aiohttp
    starlette = text(site, "frameworks/starlette")
    assert "Every configuration has figures from only one run so far" in starlette


def test_socketio_framework_page(site: Path) -> None:
    parsed = page(site, "frameworks/python-socketio")
    html = text(site, "frameworks/python-socketio")
    assert "This server speaks <strong>Socket.IO</strong>" in html
    facts = {row[0]: row[1] for row in table_rows(parsed, "")}
    assert facts["Protocol"] == "Socket.IO (v5, Engine.IO v4 over WebSocket)"
    assert list(table(parsed, "Results by version")) == [SIO_OLD, SIO_NEW]
    assert list(table(parsed, "Version matrix")) == ["5.11.4", "5.14.0"]
    assert "heartbeat" in table(parsed, "Deviations")
    assert "every window was disturbed (other work or steal time on the measured CPUs)" in html


def test_reference_page_has_no_charts(site: Path) -> None:
    parsed = page(site, "frameworks/native")
    assert parsed.images == []
    assert "no version axis" in text(site, "frameworks/native")
    assert table(parsed, "Results by version")[NATIVE]["Version"] == "0.1.0"
    assert parsed.small == [RUN_LINE.replace(f"Runs {CURRENT}, ", "Run ")]


def test_runs_and_environment_page(site: Path) -> None:
    parsed = page(site, "environment")
    html = text(site, "environment")
    assert "<h1" in html and "Runs and environment" in html
    shown = table(parsed, "Runs shown")
    assert list(shown) == [CURRENT, REFERENCE_RUN]
    current = shown[CURRENT]
    assert current["Started"] == "2026-11-22 03:10 UTC"
    assert current["Settings"] == "3 processes × 2 windows × 3 s, 1 s warm-up"
    assert current["Load generator"] == "0.1.0 (sources abababababab)"
    assert current["Harness commit"] == "cccccccccccc"
    assert current["Environments shown"] == "12 of 12"
    assert shown[REFERENCE_RUN]["Environments shown"] == "1 of 1"

    others = table(parsed, "Other runs")
    assert list(others) == [OLD_RUN, OTHER_RUN]
    assert others[OTHER_RUN]["Settings"] == "3 processes × 2 windows × 5 s, 1 s warm-up"
    assert others[OTHER_RUN]["Why not shown"] == "measured with other settings"
    assert others[OTHER_RUN]["Environments"] == "1"
    assert others[OLD_RUN]["Why not shown"].startswith("superseded")
    assert "Not compared with the current group" in html

    facts = {name: row[""] for name, row in table(parsed, "Machine and software").items()}
    assert facts["Machine name"] == "wsbench-ci"
    assert facts["CPU model"] == "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz"
    assert facts["CPU count"] == "2"
    assert facts["CPUs used by the server"] == "0"
    assert facts["CPUs used by the load generator"] == "1"
    assert facts["Kernel"] == "6.8.0-1017-azure"
    assert facts["Python"] == "3.11.10"
    assert facts["Load generator"] == "0.1.0 (sources abababababab)"
    assert facts["Date of the runs"] == "2026-11-22 02:00 UTC to 2026-11-22 03:11 UTC"
    tuning = table(parsed, "Machine tuning", key="Item")
    assert list(tuning) == ["governor", "ASLR"]
    assert tuning["governor"] == {
        "Item": "governor", "": "not ok", "Value": "cpu0: n/a, cpu1: n/a", "Why not": "no cpufreq"
    }  # fmt: skip
    assert tuning["ASLR"][""] == "ok"
    assert "<strong>not tuned</strong> for benchmarking" in html
    versions = table(parsed, "Framework versions measured", key="Framework")
    assert versions[f"{WS} 15.0.1"]["Run"] == CURRENT
    assert versions[f"{NATIVE} (reference) 0.1.0"]["Run"] == REFERENCE_RUN
    assert versions[f"{ST_WSPROTO} 1.10.0"]["asv environment"] == (
        "uvpip-py3.11-starlette1.10.0-WSBENCH_CONFIGwsproto-asyncio-WSBENCH_IMPLstarlette"
    )


def test_the_runs_page_shows_each_environments_packages_folded_and_their_source(
    site: Path,
) -> None:
    installed = table(page(site, "environment"), "Installed packages", key="Framework")
    aiohttp = installed[f"{AIOHTTP} 3.13.2"]
    assert aiohttp["Installed from"] == (
        "impls/aiohttp/lock.toml (3f3f3f3f3f3f), resolved 2026-11-20"
    )
    assert aiohttp["Packages"] == "8 packages" + "".join(AIOHTTP_PACKAGES)
    assert installed[f"{NATIVE} (reference) 0.1.0"]["Installed from"] == "uv.lock (5e5e5e5e5e5e)"
    new = installed[f"{WS} 15.0.1"]
    assert new["Installed from"] == "resolved on the day (2026-11-22): no lock lists it"
    assert new["Packages"] == "1 packagewebsockets==15.0.1"
    # Documents from before the packages were recorded.
    assert installed[f"{WS} 14.2"]["Installed from"] == "not recorded"
    assert installed[f"{WS} 14.2"]["Packages"] == "not recorded"
    assert len(installed) == 13  # every environment shown, once
    # Folded: the count is the summary of a <details>, the list inside it.
    html = text(site, "environment")
    listed = "<br>".join(f"<code>{p}</code>" for p in AIOHTTP_PACKAGES)
    assert (
        f'<details class="wsbench-packages"><summary>8 packages</summary>{listed}</details>'
    ) in html


def test_hand_written_pages_and_nav(site: Path) -> None:
    index = text(site, "")
    targets = ("leaderboards/echo/", "leaderboards/stream/", "findings/", "frameworks/")
    for target in (*targets, "environment/", "environment/#raw-results"):
        assert f'href="{target}"' in index
    assert "Runs and environment" in index
    methodology = text(site, "methodology")
    assert "coordinated omission" in methodology
    assert 'id="configurations-one-row-each"' in methodology
    assert 'id="socketio-servers"' in methodology
    # The site's stylesheet and script, and the libraries they use, are the site's own files
    # (wsbench.site.assets), linked from every page; nothing comes from another origin.
    for path in (*assets.OWN, *assets.VENDOR):
        assert (site / path).is_file(), path
    for path in (*assets.STYLESHEETS, *assets.SCRIPTS):
        assert f'"{path}"' in index
    assert "fonts.googleapis.com" not in index and "fonts.gstatic.com" not in index
    assert not re.search(r'<(script|img|link|iframe)\b[^>]*(src|href)="(https?:)?//', index)


def test_findings_page_is_in_the_nav_and_links_to_its_data(site: Path) -> None:
    nav = page(site, "").links
    assert "findings/" in nav
    assert nav.index("leaderboards/stream/") < nav.index("findings/") < nav.index("frameworks/")
    parsed = page(site, "findings")
    titles = [title for title, _ in parsed.tables]
    assert titles[:2] == [
        "Fastest configurations: Echo",
        "Fastest configurations: Stream (server push)",
    ]
    header, *rows = table_rows(parsed, "Fastest configurations: Stream (server push)")
    assert header[:4] == ["Parameters", "Protocol", "Fastest", "Fastest messages/s"]
    websocket = dict(zip(header, rows[0], strict=True))
    assert websocket["Parameters"] == "16 B messages"
    assert websocket["Fastest"] == f"{AIOHTTP} 3.13.2"
    assert websocket["Fastest messages/s"] == "199,983 (192,668–207,577)"
    assert websocket["Runner-up"] == f"{ST_UVLOOP.format('0.54')} 1.10.0"
    assert websocket["Fastest ÷ runner-up"].startswith("1.25× (")
    assert websocket["Verdict"].startswith("fastest: significantly faster than every other")
    assert websocket["Reference messages/s"] == "499,958 (481,670–518,941)"
    # The link to the table, the runs folded under it (the summary's text, then the fold's).
    assert websocket["Data"] == (
        f"leaderboard tablerun {CURRENT} on wsbench-ci: JSON · CSV; "
        f"run {REFERENCE_RUN} on wsbench-ci: JSON · CSV"
    )
    # Its links lead to tables, charts, failures and downloads that exist.
    echo = text(site, "leaderboards/echo")
    starlette = text(site, "frameworks/starlette")
    for link, target in (
        ("../leaderboards/echo/#16-b-messages-64-in-flight-per-connection", echo),
        ("../leaderboards/stream/#16-b-messages", text(site, "leaderboards/stream")),
        ("../frameworks/starlette/#push-throughput-16b", starlette),
        ("../frameworks/starlette/#failures", starlette),
    ):
        assert link in parsed.links, link
        assert f'id="{link.partition("#")[2]}"' in target, link
    for ext in ("json", "csv"):
        assert f"../downloads/wsbench-ci/{CURRENT}.{ext}" in parsed.links
    assert "../environment/#raw-results" in parsed.links
    html = text(site, "findings")
    assert "server closed the connection: 1009 (message too big)" in html
    assert "Release-to-release changes" in html and "The cost of Socket.IO" in html
    assert "⚠ client-bound (load generator CPU 85 %)" in html


def test_every_run_is_downloadable_from_the_runs_page(site: Path) -> None:
    parsed = page(site, "environment")
    for run_id in (CURRENT, REFERENCE_RUN, OLD_RUN, OTHER_RUN):
        for ext in ("json", "csv"):
            assert f"../downloads/wsbench-ci/{run_id}.{ext}" in parsed.links, (run_id, ext)
            assert (site / "downloads" / "wsbench-ci" / f"{run_id}.{ext}").is_file()
    assert table(parsed, "Runs shown")[CURRENT]["Download"] == "JSON · CSV"
    assert table(parsed, "Other runs")[OTHER_RUN]["Download"] == "JSON · CSV"
    folder = site / "downloads" / "wsbench-ci"
    docs = decode_bundle((folder / f"{CURRENT}.json").read_bytes())
    assert len(docs) == 12 and {d.run_id for d in docs} == {CURRENT}
    with (folder / f"{CURRENT}.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == HEADER
    assert len(rows) - 1 == sum(max(len(b.samples), 1) for d in docs for b in d.benchmarks)
    # The CSV's columns are listed on the page, in order.
    assert 'id="raw-results"' in text(site, "environment")
    listed = [row[0] for row in table_rows(parsed, "Raw results")[1:]]
    assert listed == list(HEADER)


def test_empty_store_build_says_so(tmp_path: Path) -> None:
    # The real impls/ (the default): the site must build from the repository as it is.
    out = build(tmp_path / "public", tmp_path / "no-results-yet")
    for path in ("leaderboards/echo", "leaderboards/stream", "findings", "environment"):
        assert "No results yet" in text(out, path), path
    assert "<table>" not in text(out, "leaderboards/echo")
    assert "<table>" not in text(out, "findings")
    # Nothing to download, but the page still says what a download holds.
    assert not (out / "downloads").exists()
    assert [row[0] for row in table_rows(page(out, "environment"), "Raw results")[1:]] == list(
        HEADER
    )
    # Every implementation of the repository still has its page.
    for meta in sorted((ROOT / "impls").glob("*/meta.toml")):
        name = meta.parent.name
        assert "No results for this framework yet" in text(out, f"frameworks/{name}"), name


CLIENTS_1000 = f"1,000 connections, 16 B messages, 1 in flight per connection{TUNED}"
NEW_LEADERBOARDS = ("clients", "connect", "memory", "text", "json", "soak")


def test_every_scenario_has_a_leaderboard_in_the_nav(site: Path) -> None:
    nav = page(site, "").links
    for scenario in ("echo", "stream", *NEW_LEADERBOARDS):
        assert f"leaderboards/{scenario}/" in nav, scenario
        assert (site / "leaderboards" / scenario / "index.html").is_file(), scenario
    assert nav.index("leaderboards/stream/") < nav.index("leaderboards/clients/")
    assert nav.index("leaderboards/soak/") < nav.index("findings/")


def test_clients_leaderboard_page(site: Path) -> None:
    parsed = page(site, "leaderboards/clients")
    assert [title for title, _ in parsed.tables] == [
        f"10 connections, 16 B messages, 1 in flight per connection{TUNED}",
        f"100 connections, 16 B messages, 1 in flight per connection{TUNED}",
        CLIENTS_1000,
    ]
    rows = board(parsed, CLIENTS_1000)
    assert list(rows) == [
        f"{NATIVE} 0.1.0",
        f"{AIOHTTP} 3.13.2",
        f"{WS} 14.2",
        f"{SIO_NEW} 5.14.0",
        f"{WS} 15.0.1",
    ]
    assert [row["Rank"] for row in rows.values()] == ["—", "1", "2", "3", "—"]
    aiohttp = rows[f"{AIOHTTP} 3.13.2"]
    assert aiohttp["Messages/s"] == "34,997 (33,717–36,326)"
    assert aiohttp["Errors (all windows)"] == "93 (timeout 90, closed_early 3)"
    assert aiohttp["Per-connection messages/s (min / median / max)"] == "28 / 35 / 42"
    assert rows[f"{WS} 15.0.1"]["Flag"] == "failed: no connection succeeded: timeout=1000"
    # Three charts, each beside the page with its data.
    assert parsed.images == [
        f"size-bytes-16-in-flight-1-{slug}.svg" for slug in ("throughput", "latency-p99", "errors")
    ]
    folder = site / "leaderboards" / "clients"
    for src in parsed.images:
        assert (folder / src).is_file(), src
        data = src.removesuffix(".svg") + ".json"
        assert data in parsed.links and (folder / data).is_file(), data
    series = json.loads((folder / "size-bytes-16-in-flight-1-throughput.json").read_text())
    assert len(series["series"]) == 5
    assert [p["x"] for p in series["series"][1]["points"]] == [10, 100, 1000]
    assert small_run_lines(parsed) == 3


def small_run_lines(parsed: _Page) -> int:
    """How many tables of a page name their runs and settings under them."""
    return sum(1 for line in parsed.small if line.startswith("Runs "))


def test_memory_leaderboard_page(site: Path) -> None:
    parsed = page(site, "leaderboards/memory")
    rows = board(parsed, f"1,000 connections{TUNED}")
    assert [
        (name, row["Rank"], row["Memory per connection (KiB)"]) for name, row in rows.items()
    ] == [
        (f"{NATIVE} 0.1.0", "—", "8.0 (7.7–8.3)"),
        (f"{AIOHTTP} 3.13.2", "1", "20.0 (19.3–20.8)"),
        # 40.0 and 42.5 KiB: their intervals over 3 processes overlap, so they share a rank.
        (f"{WS} 15.0.1", "2", "40.0 (38.5–41.5)"),
        (f"{WS} 14.2", "2", "42.5 (40.9–44.1)"),
        (f"{SIO_NEW} 5.14.0", "4", "60.0 (57.8–62.3)"),
    ]
    assert rows[f"{AIOHTTP} 3.13.2"]["Connections ok"] == "990 of 1,000"
    assert parsed.images == ["memory-per-connection.svg"]
    assert (site / "leaderboards" / "memory" / "memory-per-connection.svg").is_file()
    assert "memory-per-connection.json" in parsed.links


def test_scenarios_without_results_say_where_they_are_measured(site: Path) -> None:
    for scenario in ("text", "json", "soak"):
        html = text(site, f"leaderboards/{scenario}")
        assert "Not measured in the shown runs" in html, scenario
        assert "<code>./bench run --grid full</code>, which the nightly runs" in html, scenario
        assert "<table>" not in html, scenario
    assert "Not measured" not in text(site, "leaderboards/connect")


def test_framework_page_many_connections_by_version(site: Path) -> None:
    parsed = page(site, "frameworks/websockets")
    html = text(site, "frameworks/websockets")
    assert 'id="many-connections"' in html
    many = [src for src in parsed.images if "clients-" in src or "memory-" in src]
    assert many == [
        "clients-size-bytes-16-in-flight-1-throughput.svg",
        "clients-size-bytes-16-in-flight-1-latency-p99.svg",
        "memory-per-connection-1000.svg",
        "memory-per-connection-10000.svg",
    ]
    for src in many:
        svg = (site / "frameworks" / "websockets" / src).read_text(encoding="utf-8")
        assert ">15.0.1</text>" in svg, src
    assert 'id="many-connections"' not in text(site, "frameworks/starlette")


def test_methodology_lists_every_scenario(site: Path) -> None:
    html = text(site, "methodology")
    assert "wsbench: scenarios" not in html  # the marker was replaced
    assert 'id="every-scenario"' in html and 'id="many-connections"' in html
    parsed = page(site, "methodology")
    listed = table(parsed, "Every scenario and its parameter sets")
    assert list(listed) == [
        "Echo", "Stream (server push)", "Concurrent clients", "Connection setup",
        "Memory per connection", "Echo, text frames", "JSON request/reply", "RSS growth",
        "Broadcast fan-out", "Market data with orders", "Latency under a fixed offered load",
        "WebSocket ping",
    ]  # fmt: skip
    clients = listed["Concurrent clients"]
    assert clients["Default grid (./bench run, the main job)"] == (
        "1,000 connections, 16 B messages, 1 in flight per connection"
    )
    assert listed["Connection setup"]["Default grid (./bench run, the main job)"] == "not measured"
    assert listed["Memory per connection"]["Ranked by"] == "memory per connection (lower is better)"
    assert "over 16 loopback source addresses" in html and "RLIMIT_NOFILE" in html
    assert "../leaderboards/clients/" in parsed.links


def test_runs_page_shows_the_open_file_limit(site: Path) -> None:
    facts = {
        name: row[""]
        for name, row in table(page(site, "environment"), "Machine and software").items()
    }
    assert facts["Open-file limit (RLIMIT_NOFILE)"] == "65,536"
