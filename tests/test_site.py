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


class _Tables(HTMLParser):
    """Collects the text of headings and table cells of an HTML page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.links: list[str] = []
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
    # Sorted by throughput: the reference (ceiling) first, then aiohttp, then websockets.
    assert [row[0] for row in first[1:]] == ["native reference", "aiohttp", "websockets"]

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
    assert "2,500" not in text(site, "leaderboards/echo")


def test_echo_leaderboard_flags_client_bound_and_failed(site: Path) -> None:
    parsed = page(site, "leaderboards/echo")
    pipelined = table(parsed, "16 B messages, 64 in flight per connection")
    assert pipelined["aiohttp"]["Flag"] == "⚠ client-bound (load generator CPU 85 %)"
    assert pipelined["websockets"]["Flag"] == ""
    assert "⚠" not in table(parsed, "16 B messages, 1 in flight per connection")["aiohttp"]["Flag"]

    big = table(parsed, "65,536 B messages, 64 in flight per connection")
    failed = big["websockets"]
    assert failed["Messages/s"] == "failed"
    assert failed["p50 latency (µs)"] == "—"
    assert failed["Flag"] == (
        "failed: server closed the connection: 1009 (message too big) after 3 messages | see stderr"
    )
    # Failed rows come last, whatever their figures.
    assert list(big) == ["native reference", "aiohttp", "websockets"]


def test_stream_leaderboard(site: Path) -> None:
    parsed = page(site, "leaderboards/stream")
    assert [title for title, _ in parsed.tables] == [
        "16 B messages",
        "1,024 B messages",
        "65,536 B messages",
    ]
    rows = table(parsed, "65,536 B messages")
    assert list(rows) == ["native reference", "aiohttp", "websockets"]
    assert "p50 latency (µs)" not in rows["aiohttp"]
    assert rows["native reference"]["Messages/s"] == "500,000"
    assert rows["native reference"]["Flag"] == "reference (ceiling)"
    assert rows["aiohttp"]["Messages/s"] == "200,000"
    assert rows["aiohttp"]["MB/s"] == "13,107.20"
    assert rows["websockets"]["Server CPU (%)"] == "98.5"
    assert rows["websockets"]["Server RSS (MiB)"] == "22.0"


def test_frameworks_page(site: Path) -> None:
    parsed = page(site, "frameworks")
    summary = table(parsed, "")
    assert set(summary) == {"native reference (reference)", "aiohttp", "websockets"}
    assert summary["websockets"]["Default version"] == "15.0.1"
    assert summary["native reference (reference)"]["Event loop"] == "tokio (current-thread)"
    ws = [rows for title, rows in parsed.tables if title == "websockets"]
    facts = {row[0]: row[1] for row in ws[0]}
    assert facts["Server"] == "websockets"
    assert facts["Event loop"] == "asyncio"
    assert facts["Measured version(s)"] == "15.0.1"
    versions = [row[0] for row in ws[1][1:]]
    assert versions == ["14.2", "15.0.1"]
    deviations = {row[0]: row[1] for row in ws[2][1:]}
    assert deviations["max message size"] == "16 MiB: max_size=2**24"
    assert deviations["keepalive pings"] == "off: ping_interval=None"
    assert f"{REPO_URL}/tree/main/impls/websockets" in parsed.links
    assert f"{REPO_URL}/tree/main/impls/native" in parsed.links
    assert "multidict==6.7.0" in text(site, "frameworks")
    assert "unfinished" not in text(site, "frameworks")  # no meta.toml: skipped


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


def test_empty_results_build_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "results").mkdir(parents=True)
    # The real impls/ (the default): the site must build from the repository as it is.
    out = build(tmp_path / "public", empty / "results", empty / "missing-records")
    for path in ("leaderboards/echo", "leaderboards/stream", "environment"):
        assert "No results yet" in text(out, path), path
    assert "<table>" not in text(out, "leaderboards/echo")


def test_result_without_record_and_record_without_result(tmp_path: Path) -> None:
    results, records = tmp_path / "results", tmp_path / "records"
    shutil.copytree(FIXTURE / "results", results)
    shutil.copytree(FIXTURE / "records", records)
    (records / "wsbench-ci" / f"eea2bed8-{WS_ENV}.json").unlink()
    for old in (results / "wsbench-ci").glob("*aiohttp*"):
        old.unlink()
    out = build(tmp_path / "public", results, records, FIXTURE / "impls")
    rows = table(page(out, "leaderboards/echo"), "1,024 B messages, 64 in flight per connection")
    # websockets: named from asv's requirements; MB/s = messages/s x size without a record.
    assert rows["websockets"]["Version"] == "15.0.1"
    assert rows["websockets"]["Messages/s"] == "25,000"
    assert rows["websockets"]["MB/s"] == "25.60"
    # aiohttp: every figure from its record.
    assert rows["aiohttp"]["Messages/s"] == "50,000"
    assert rows["aiohttp"]["p99 latency (µs)"] == "250.0"
    big = table(page(out, "leaderboards/echo"), "65,536 B messages, 64 in flight per connection")
    assert big["websockets"]["Messages/s"] == "failed"
    assert "error text not recorded" in big["websockets"]["Flag"]
    env = table(page(out, "environment"), "Framework versions measured")
    assert env["websockets"]["Sources"] == "asv result only (no record)"
    assert env["aiohttp"]["Sources"] == "wsbench record only (no asv result)"
