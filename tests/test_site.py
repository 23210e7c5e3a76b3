"""The published site: ``mkdocs build --strict`` from the fixture in tests/fixtures/site, and
the pages it generates (leaderboards, frameworks, environment) hold the expected rows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "site"
REPO_URL = "https://github.com/wsbench/wsbench"
WS_ENV = "uvpip-py3.11-websockets15.0.1-WSBENCH_IMPLwebsockets"
WSPROTO_ENV = (
    "uvpip-py3.11-starlette1.10.0-uvicorn0.54.0-websockets17.4-wsproto1.3.2-"
    "WSBENCH_CONFIGwsproto-asyncio-WSBENCH_IMPLstarlette"
)
# Rows: one per (configuration, version), named as the harness names them.
ST_ASYNCIO = "Starlette · uvicorn {} · websockets · asyncio"
ST_UVLOOP = "Starlette · uvicorn {} · websockets · uvloop"
ST_WSPROTO = "Starlette · uvicorn 0.54 · wsproto · asyncio"
SIO_OLD = "python-socketio · uvicorn 0.32 · asyncio Socket.IO"
SIO_NEW = "python-socketio · uvicorn 0.54 · asyncio Socket.IO"
ECHO_ORDER = [
    "native reference",
    "aiohttp",  # 50,000 msg/s, ties with the next: by name
    ST_UVLOOP.format("0.54"),
    ST_UVLOOP.format("0.34"),
    ST_ASYNCIO.format("0.54"),
    ST_ASYNCIO.format("0.34"),  # 25,000, ties with websockets
    "websockets",
    ST_ASYNCIO.format("0.29"),
    ST_WSPROTO,
    SIO_NEW,
    SIO_OLD,
    ST_UVLOOP.format("0.29"),  # did not install: failed, last
]


class _Tables(HTMLParser):
    """Collects the text of headings and table cells of an HTML page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.links: list[str] = []
        self.images: list[str] = []
        self._heading = ""
        self._in_heading = False
        self._cell: list[str] | None = None
        self._row: list[str] | None = None

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

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h2", "h3"):
            self._in_heading = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self.tables:
            self.tables[-1][1].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._in_heading:
            self._heading += data
        if self._cell is not None:
            self._cell.append(data)


def build(out: Path, results: Path, records: Path, impls: Path | None = None) -> Path:
    """``mkdocs build --strict`` of the repository's mkdocs.yml into ``out``."""
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "WSBENCH_RESULTS_DIR": str(results),
        "WSBENCH_RECORDS_DIR": str(records),
    }
    env.pop("WSBENCH_IMPLS_DIR", None)
    if impls is not None:
        env["WSBENCH_IMPLS_DIR"] = str(impls)
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml")]
    proc = subprocess.run(
        [*cmd, "-d", str(out)], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def page(site: Path, path: str) -> _Tables:
    parser = _Tables()
    parser.feed((site / path / "index.html").read_text(encoding="utf-8"))
    return parser


def text(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def table_rows(parsed: _Tables, heading: str) -> list[list[str]]:
    """The rows of the one table under ``heading``, header row included."""
    matches = [rows for title, rows in parsed.tables if title == heading]
    assert len(matches) == 1, [title for title, _ in parsed.tables]
    return matches[0]


def table(parsed: _Tables, heading: str) -> dict[str, dict[str, str]]:
    """The table under ``heading`` as ``{framework: {column header: cell}}``."""
    matches = [rows for title, rows in parsed.tables if title == heading]
    assert len(matches) == 1, [title for title, _ in parsed.tables]
    header, *rows = matches[0]
    return {row[0]: dict(zip(header, row, strict=True)) for row in rows}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "public"
    return build(out, FIXTURE / "results", FIXTURE / "records", FIXTURE / "impls")


ECHO_HEADERS = [
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


def test_echo_leaderboard_rows_figures_and_order(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    headings = [title for title, _ in parsed.tables]
    assert headings == [
        "16 B messages, 1 in flight per connection",
        "16 B messages, 64 in flight per connection",
        "1,024 B messages, 1 in flight per connection",
        "1,024 B messages, 64 in flight per connection",
        "65,536 B messages, 1 in flight per connection",
        "65,536 B messages, 64 in flight per connection",
    ]
    first = next(rows for title, rows in parsed.tables if title == headings[0])
    assert first[0] == ECHO_HEADERS
    # Sorted by throughput: the reference (ceiling) first, failed rows last.
    assert [row[0] for row in first[1:]] == ECHO_ORDER

    rows = table(parsed, "1,024 B messages, 1 in flight per connection")
    native = rows["native reference"]
    assert native["Flag"] == "reference (ceiling)"
    # messages/s = 1 / seconds_per_message (1e-5 s), MB/s = 10^6 bytes.
    assert native["Messages/s"] == "100,000"
    assert native["MB/s"] == "102.40"
    ws = rows["websockets"]
    # Newest result only (4e-5 s/message, not the older 4e-4), latency in µs, RSS in MiB.
    assert ws["Version"] == "15.0.1"
    assert ws["Messages/s"] == "25,000"
    assert ws["MB/s"] == "25.60"
    assert ws["p50 latency (µs)"] == "125.0"
    assert ws["p99 latency (µs)"] == "300.0"
    assert ws["Server CPU (%)"] == "99.0"
    assert ws["Server RSS (MiB)"] == "20.0"
    assert ws["Flag"] == ""
    assert rows["aiohttp"]["Messages/s"] == "50,000"
    assert ">2,500<" not in text(site, "leaderboards/echo")  # the older, slower result


def test_echo_leaderboard_flags_client_bound_and_failed(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    pipelined = table(parsed, "16 B messages, 64 in flight per connection")
    assert pipelined["aiohttp"]["Flag"] == "⚠ client-bound (load generator CPU 85 %)"
    assert pipelined["websockets"]["Flag"] == ""
    assert "⚠" not in table(parsed, "16 B messages, 1 in flight per connection")["aiohttp"]["Flag"]

    assert pipelined[ST_UVLOOP.format("0.54")]["Flag"].startswith("⚠ client-bound")

    big = table(parsed, "65,536 B messages, 64 in flight per connection")
    failed = big["websockets"]
    assert failed["Messages/s"] == "failed"
    assert failed["p50 latency (µs)"] == "—"
    assert failed["Flag"] == (
        "failed: server closed the connection: 1009 (message too big) after 3 messages | see stderr"
    )
    # Failed rows come last, whatever their figures.
    assert list(big)[-2:] == [ST_UVLOOP.format("0.29"), "websockets"]


def test_install_failure_is_a_failed_row_with_its_reason(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    for title, _ in parsed.tables:
        row = table(parsed, title)[ST_UVLOOP.format("0.29")]
        assert row["Version"] == "0.37.2"
        assert row["Messages/s"] == "failed"
        # Long: the first and last lines here, in full on the framework page.
        assert row["Flag"].startswith(
            "failed: does not install: 'uv pip install starlette==0.37.2 uvicorn==0.29.0"
        )
        assert row["Flag"].endswith("(full reason)")
    assert "../../frameworks/starlette/#failures" in parsed.links


def test_rows_are_named_per_configuration_and_socketio_rows_marked(site: Path) -> None:
    html = text(site, "leaderboards/echo")
    rows = table(page(site, "leaderboards/echo"), "1,024 B messages, 64 in flight per connection")
    versions = {name: row["Version"] for name, row in rows.items()}
    assert versions[ST_ASYNCIO.format("0.29")] == "0.37.2"
    assert versions[ST_ASYNCIO.format("0.34")] == "0.46.2"
    assert versions[ST_UVLOOP.format("0.34")] == "0.46.2"
    assert versions[ST_UVLOOP.format("0.54")] == "1.10.0"
    assert versions[ST_WSPROTO] == "1.10.0"
    assert rows[ST_UVLOOP.format("0.34")]["Messages/s"] == "40,000"
    assert rows[ST_ASYNCIO.format("0.34")]["Messages/s"] == "25,000"
    # Socket.IO rows carry the tag, and the intro says what it means; others do not.
    assert versions[SIO_OLD] == "5.11.4" and versions[SIO_NEW] == "5.14.0"
    assert html.count("<mark>Socket.IO</mark>") == 1 + 2 * 6  # intro + 2 rows x 6 tables
    assert "Rows marked <mark>Socket.IO</mark> are Socket.IO servers" in html
    assert not any("Socket.IO" in name for name in rows if "socketio" not in name)
    # Each row links to its framework's page.
    assert "../../frameworks/starlette/" in page(site, "leaderboards/echo").links


def test_stream_leaderboard(site: Path) -> None:
    parsed = page(site, "leaderboards/stream")
    assert [title for title, _ in parsed.tables] == [
        "16 B messages",
        "1,024 B messages",
        "65,536 B messages",
    ]
    rows = table(parsed, "65,536 B messages")
    assert list(rows)[:3] == ["native reference", "aiohttp", ST_UVLOOP.format("0.54")]
    assert list(rows)[-1] == ST_UVLOOP.format("0.29")
    assert rows[SIO_NEW]["Messages/s"] == "25,000"
    assert "<mark>Socket.IO</mark>" in text(site, "leaderboards/stream")
    assert "p50 latency (µs)" not in rows["aiohttp"]
    assert rows["native reference"]["Messages/s"] == "500,000"
    assert rows["native reference"]["Flag"] == "reference (ceiling)"
    assert rows["aiohttp"]["Messages/s"] == "200,000"
    assert rows["aiohttp"]["MB/s"] == "13,107.20"
    assert rows["websockets"]["Server CPU (%)"] == "98.5"
    assert rows["websockets"]["Server RSS (MiB)"] == "22.0"


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
    assert summary["websockets"]["Measured"] == "15.0.1"
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
    assert uvloop["WebSocket backend"] == "websockets"
    assert uvloop["Event loop"] == "uvloop"
    assert uvloop["Extra pins"] == "uvloop==0.23.0"
    assert uvloop["Versions"] == "0.37.2, 0.46.2, 1.10.0"
    assert configs["wsproto-asyncio"]["Versions"] == "1.10.0"

    matrix = table(parsed, "Version matrix")
    assert list(matrix) == ["0.37.2", "0.46.2", "1.10.0"]
    assert matrix["0.37.2"]["Also installed"] == "uvicorn==0.29.0, websockets==12.0"
    assert matrix["1.10.0"]["Configurations"] == (
        "websockets-asyncio, websockets-uvloop, wsproto-asyncio"
    )
    deviations = table(parsed, "Deviations")
    assert deviations["keepalive pings"]["As applied"] == "off: uvicorn ws_ping_interval=None"

    results = table(parsed, "Results by version")
    assert results[ST_UVLOOP.format("0.34")]["Echo messages/s, 16 B, 64 in flight"] == "40,000"
    assert results[ST_UVLOOP.format("0.54")]["Echo messages/s, 16 B, 64 in flight"] == ("50,000 ⚠")
    assert results[ST_UVLOOP.format("0.29")]["Push messages/s, 16 B"] == "failed"
    assert results[ST_ASYNCIO.format("0.29")]["p50 latency (µs), echo 16 B, 1 in flight"] == (
        "160.0"
    )
    assert results[ST_ASYNCIO.format("0.29")]["Peak RSS (MiB), echo 16 B, 64 in flight"] == ("30.0")


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


def test_framework_page_shows_failure_reasons_in_full(site: Path) -> None:
    html = text(site, "frameworks/starlette")
    assert 'id="failures"' in html
    assert "Because only uvloop&lt;=0.21.0 is available and you require uvloop==0.23.0" in html
    assert "version 0.37.2 (every measurement)" in html
    ws = text(site, "frameworks/websockets")
    assert "server closed the connection: 1009 (message too big)" in ws
    assert "echo 65,536 B messages, 64 in flight per connection" in ws


def test_socketio_framework_page(site: Path) -> None:
    parsed = page(site, "frameworks/python-socketio")
    html = text(site, "frameworks/python-socketio")
    assert "This server speaks <strong>Socket.IO</strong>" in html
    facts = {row[0]: row[1] for row in table_rows(parsed, "")}
    assert facts["Protocol"] == "Socket.IO (v5, Engine.IO v4 over WebSocket)"
    assert list(table(parsed, "Results by version")) == [SIO_OLD, SIO_NEW]
    assert list(table(parsed, "Version matrix")) == ["5.11.4", "5.14.0"]
    assert "heartbeat" in table(parsed, "Deviations")


def test_reference_page_has_no_charts(site: Path) -> None:
    parsed = page(site, "frameworks/native")
    assert parsed.images == []
    assert "no version axis" in text(site, "frameworks/native")
    assert table(parsed, "Results by version")["native reference"]["Version"] == "0.1.0"


def test_environment_page(site: Path) -> None:
    parsed = page(site, "environment")
    facts = {name: row[""] for name, row in table(parsed, "Machine and software").items()}
    assert facts["CPU model"] == "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz"
    assert facts["CPU count"] == "2"
    assert facts["CPUs used by the server"] == "0"
    assert facts["CPUs used by the load generator"] == "1"
    assert facts["Kernel"] == "6.8.0-1017-azure"
    assert facts["Python"] == "3.11.10"
    assert facts["Load generator version"] == "0.1.0"
    assert facts["Date of the run"] == "2026-11-22 03:10 UTC to 2026-11-22 03:40 UTC"
    assert facts["Benchmarked commit(s)"] == "eea2bed848bd"
    versions = table(parsed, "Framework versions measured")
    assert versions["websockets"]["Version"] == "15.0.1"
    assert versions["aiohttp"]["Version"] == "3.13.2"
    assert versions[ST_WSPROTO]["asv environment"] == WSPROTO_ENV
    assert versions[SIO_OLD]["Version"] == "5.11.4"
    assert versions["native reference (reference)"]["asv environment"] == (
        "uvpip-py3.11-WSBENCH_IMPLnative"
    )


def test_hand_written_pages_and_nav(site: Path) -> None:
    index = text(site, "")
    for target in ("leaderboards/echo/", "leaderboards/stream/", "frameworks/", "environment/"):
        assert f'href="{target}"' in index
    methodology = text(site, "methodology")
    assert "coordinated omission" in methodology
    assert "B = max(1, W / 4)" in methodology
    assert 'id="configurations-one-row-each"' in methodology
    assert "uvloop is pinned to one release, 0.23.0" in methodology
    assert 'id="socketio-servers"' in methodology
    # The generated stylesheet (wide tables fit the page) is linked from every page.
    assert (site / "stylesheets" / "wsbench.css").is_file()
    assert "stylesheets/wsbench.css" in index


def test_empty_results_build_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "results").mkdir(parents=True)
    # The real impls/ (the default): the site must build from the repository as it is.
    out = build(tmp_path / "public", empty / "results", empty / "missing-records")
    for path in ("leaderboards/echo", "leaderboards/stream", "environment"):
        assert "No results yet" in text(out, path), path
    assert "<table>" not in text(out, "leaderboards/echo")
    # Every implementation of the repository still has its page.
    for meta in sorted((ROOT / "impls").glob("*/meta.toml")):
        name = meta.parent.name
        assert "No results for this framework yet" in text(out, f"frameworks/{name}"), name


def test_result_without_record_and_record_without_result(tmp_path: Path) -> None:
    results, records = tmp_path / "results", tmp_path / "records"
    shutil.copytree(FIXTURE / "results", results)
    shutil.copytree(FIXTURE / "records", records)
    (records / "wsbench-ci" / f"eea2bed8-{WS_ENV}.json").unlink()
    (records / "wsbench-ci" / f"eea2bed8-{WSPROTO_ENV}.json").unlink()
    for old in (results / "wsbench-ci").glob("*aiohttp*"):
        old.unlink()
    out = build(tmp_path / "public", results, records, FIXTURE / "impls")
    rows = table(page(out, "leaderboards/echo"), "1,024 B messages, 64 in flight per connection")
    # websockets: named from asv's requirements; MB/s = messages/s x size without a record.
    assert rows["websockets"]["Version"] == "15.0.1"
    assert rows["websockets"]["Messages/s"] == "25,000"
    assert rows["websockets"]["MB/s"] == "25.60"
    # starlette in a configuration: named from WSBENCH_IMPL, WSBENCH_CONFIG and meta.toml.
    assert rows[ST_WSPROTO]["Version"] == "1.10.0"
    assert rows[ST_WSPROTO]["Messages/s"] == "16,667"
    # aiohttp: every figure from its record.
    assert rows["aiohttp"]["Messages/s"] == "50,000"
    assert rows["aiohttp"]["p99 latency (µs)"] == "250.0"
    big = table(page(out, "leaderboards/echo"), "65,536 B messages, 64 in flight per connection")
    assert big["websockets"]["Messages/s"] == "failed"
    assert "error text not recorded" in big["websockets"]["Flag"]
    env = table(page(out, "environment"), "Framework versions measured")
    assert env["websockets"]["Sources"] == "asv result only (no record)"
    assert env["aiohttp"]["Sources"] == "wsbench record only (no asv result)"
