"""The site's many-connection scenarios without mkdocs: each scenario's leaderboard ranks by
its own headline figure (messages/s, connections/s, memory per connection ascending) with
its own columns and errors by kind; the charts against the number of connections (their
JSON data: one series per row, the connection counts, the figures); a scenario without
results says where it is measured; framework pages by version; the Methodology page's
generated scenario list; the downloads' new columns."""

# The pages' typography (multiplication sign, en dash, minus sign) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import csv
import io
import json
import re
import statistics
from typing import Any

import msgspec
import pytest

from tests.deployment_runs import document
from tests.runs import impl, run
from tests.site_runs import (
    CLIENT_ERRORS,
    CLIENTS,
    CURRENT,
    IDLE_RSS,
    IMPLS,
    KERNEL_KIB,
    NO_CONNECTION,
    REFERENCE_RUN,
    SPREAD,
    clients,
    connect,
    memory,
    site_runs,
)
from wsbench.deployment import PROFILES
from wsbench.paths import REPO_ROOT
from wsbench.policy import MATRIX_PERIOD_DAYS, OTHER_PYTHONS_MINUTES
from wsbench.results import stats
from wsbench.results.memoryfit import FLOOR_BYTES
from wsbench.scenarios import SCENARIOS, SOURCE_ADDRESSES, SPECS
from wsbench.site.downloads import samples_csv
from wsbench.site.findings import findings_of
from wsbench.site.framework_pages import render_page
from wsbench.site.frameworks import load_frameworks
from wsbench.site.history import history_of
from wsbench.site.markup import params_title, profile_title, set_words
from wsbench.site.methodology import (
    MATRIX_MARKER,
    METHODOLOGY_PAGE,
    SCENARIOS_MARKER,
    fill_markers,
    render_matrix,
    render_scenarios,
)
from wsbench.site.pages import expand_nav
from wsbench.site.render import (
    LEADERBOARD_PAGES,
    LeaderboardPage,
    columns_of,
    errors_text,
    memory_check,
    ranks,
    render_leaderboard_page,
)
from wsbench.site.results import Results, select
from wsbench.site.rows import row_of
from wsbench.site.sweeps import memory_headline

GEOMEAN = statistics.geometric_mean(SPREAD)
"""A figure over the fixture's 3 processes of 2 windows: its rate times this (the geometric
mean of the processes' geometric means is that of the 6 windows)."""
BY_PROCESS = [SPREAD[0:2], SPREAD[2:4], SPREAD[4:6]]
NATIVE = "native reference · wsbench-loadgen serve · tokio (current-thread) 0.1.0 (reference)"
AIOHTTP = "aiohttp · asyncio 3.13.2"
WS14 = "websockets · asyncio 14.2"
WS15 = "websockets · asyncio 15.0.1"
SIO = "python-socketio · uvicorn 0.54 · asyncio 5.14.0 (Socket.IO)"
CLIENTS_GROUP = "leaderboards/clients/size-bytes-16-in-flight-1"


@pytest.fixture(scope="module")
def results() -> Results:
    return select(site_runs())


@pytest.fixture(scope="module")
def clients_page(results: Results) -> LeaderboardPage:
    return render_leaderboard_page("clients", results)


@pytest.fixture(scope="module")
def memory_page(results: Results) -> LeaderboardPage:
    return render_leaderboard_page("memory", results)


def _untagged(text: str) -> str:
    """A markdown cell as it reads: HTML tags, bold, escapes and no-break spaces out."""
    plain = re.sub("<[^>]+>", "", text).replace("&nbsp;", " ").replace("**", "")
    return plain.replace("\\", "")


def _table(page: str, heading: str) -> list[dict[str, str]]:
    """The table under the heading line starting with ``heading`` as one dict per row
    (header -> cell, HTML tags and markdown escapes taken out)."""
    lines = page[page.index(f"\n{heading} ") :].splitlines()[1:]
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start:]:
        if not line.startswith("| "):
            break
        rows.append([_untagged(c).strip() for c in line.strip("|").split(" | ")])
    header, _, *body = rows
    return [dict(zip(header, row, strict=True)) for row in body]


def _json(page: LeaderboardPage, path: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(page.files[path])
    return data


def test_clients_leaderboard_ranks_by_messages_and_shows_errors_by_kind(
    clients_page: LeaderboardPage,
) -> None:
    md = clients_page.markdown
    assert "# Concurrent clients leaderboard" in md
    assert SPECS["clients"].summary in md
    assert "**Rank** is by messages/s;" in md
    rows = _table(md, "## 1,000 connections, 16 B messages, 1 in flight per connection")
    assert [(r["Rank"], r["Framework"], r["Version"]) for r in rows] == [
        ("—", "native reference · wsbench-loadgen serve · tokio (current-thread)", "0.1.0"),
        ("1", "aiohttp · asyncio", "3.13.2"),
        ("2", "websockets · asyncio", "14.2"),
        ("3", "python-socketio · uvicorn 0.54 · asyncio Socket.IO", "5.14.0"),
        ("—", "websockets · asyncio", "15.0.1"),  # failed: last
    ]
    assert list(rows[0]) == [
        "Rank",
        "Framework",
        "Version",
        "Messages/s",
        "p50 latency (µs)",
        "p99 latency (µs)",
        "p99.9 latency (µs)",
        "Max latency (µs)",
        "Per-connection messages/s (min / median / max)",
        "Handshake p99 (ms)",
        "Connections/s",
        "Errors (all windows)",
        "Server CPU (%)",
        "Server RSS (MiB)",
        "Flag",
    ]
    aiohttp = rows[1]
    assert aiohttp["Messages/s"] == "34,997 (33,717–36,326)"
    # Closed loop: p50 = connections / rate = 1000 / 35,000 s (28,571.43 µs); p99 1.5 x,
    # p99.9 2 x, max 4 x. p50 and p99 over the server processes (the geometric mean of
    # 1 / (rate x spread) is 1 / (rate x GEOMEAN)); p99.9 and max are medians over the
    # windows, 10^-6 above 1 / rate.
    assert aiohttp["p50 latency (µs)"] == "28,573.8 (27,528.6–29,658.7)"
    assert aiohttp["p99 latency (µs)"] == "42,860.7 (41,292.9–44,488.1)"
    assert aiohttp["p99.9 latency (µs)"] == "57,142.9"
    assert aiohttp["Max latency (µs)"] == "114,285.8"
    assert aiohttp["Per-connection messages/s (min / median / max)"] == "28 / 35 / 42"
    assert aiohttp["Handshake p99 (ms)"] == "10.00"
    assert aiohttp["Connections/s"] == "5,000"
    # Summed over the six windows: timeout 15 in each, closed_early in three.
    assert aiohttp["Errors (all windows)"] == "93 (timeout 90, closed_early 3)"
    assert rows[2]["Errors (all windows)"] == "0"
    failed = rows[4]
    assert failed["Messages/s"] == "failed" and failed["Errors (all windows)"] == "—"
    assert failed["Flag"] == f"failed: {NO_CONNECTION}"
    assert rows[0]["Flag"] == "reference"
    # The tables of one chart group follow each other, connections increasing.
    titles = re.findall(r"^## (\d[\d,]* connections, [^{]+) \{", md, re.M)
    assert titles == [profile_title(tuple(p.items())) for p in CLIENTS]


def test_errors_text() -> None:
    assert errors_text({"timeout": 90, "closed_early": 3, "lost": 0}) == (
        r"93 (timeout 90, closed\_early 3)"
    )
    assert errors_text({"lost": 2, "timeout": 2, "other": 1}) == "5 (lost 2, timeout 2, other 1)"
    assert errors_text({"timeout": 0}) == errors_text({}) == "0"
    assert errors_text(None) == "—"


def test_clients_charts_one_series_per_row_against_connections(
    clients_page: LeaderboardPage,
) -> None:
    assert sorted(clients_page.files) == [
        f"{CLIENTS_GROUP}-{slug}.{ext}"
        for slug in ("errors", "latency-p99", "throughput")
        for ext in ("json", "svg")
    ]
    data = _json(clients_page, f"{CLIENTS_GROUP}-throughput.json")
    assert data["kind"] == "lines" and data["scenario"] == "clients"
    assert data["x"] == {
        "parameter": "connections", "label": "connections", "measured": False, "log": True,
        "values": [10, 100, 1000],
    }  # fmt: skip
    assert data["group"] == {"size_bytes": 16, "in_flight": 1}
    assert data["figure"]["name"] == "messages_per_s" and data["figure"]["unit"] == "messages/s"
    by_label = {s["label"]: s for s in data["series"]}
    assert list(by_label) == [NATIVE, AIOHTTP, SIO, WS14, WS15]  # the results' order
    expected: dict[str, list[int | None]] = {
        NATIVE: [60_000, 120_000, 110_000],
        AIOHTTP: [30_000, 40_000, 35_000],
        SIO: [8_000, 9_000, 8_500],
        WS14: [20_000, 22_000, 18_000],
        WS15: [24_000, 26_000, None],
    }
    for label, ys in expected.items():
        points = by_label[label]["points"]
        assert [p["x"] for p in points] == [10, 100, 1000], label
        assert [p["y"] for p in points] == [pytest.approx(y * GEOMEAN) if y else y for y in ys], (
            label
        )
    failed = by_label[WS15]["points"][2]
    assert (failed["status"], failed["error"], failed["interval"]) == (
        "failed",
        NO_CONNECTION,
        None,
    )
    assert by_label[SIO]["socketio"] and by_label[NATIVE]["reference"]
    assert by_label[NATIVE]["points"][0]["run_id"] == REFERENCE_RUN
    interval = stats.summarize([[30_000 * f for f in g] for g in BY_PROCESS]).interval
    assert by_label[AIOHTTP]["points"][0]["interval"] == list(interval or ())

    p99 = _json(clients_page, f"{CLIENTS_GROUP}-latency-p99.json")
    assert p99["figure"]["unit"] == "µs" and p99["figure"]["log_y"]
    ys = [p["y"] for p in p99["series"][1]["points"]]
    # The geometric mean of 1.5 n / (rate x spread) over the processes.
    assert ys == pytest.approx(
        [1.5 * n / r / GEOMEAN * 1e6 for n, r in ((10, 3e4), (100, 4e4), (1e3, 3.5e4))], rel=1e-5
    )

    errors = _json(clients_page, f"{CLIENTS_GROUP}-errors.json")
    assert errors["figure"]["total"]
    totals = {s["label"]: [p["y"] for p in s["points"]] for s in errors["series"]}
    assert totals[AIOHTTP] == [0, 0, 93]
    assert totals[WS14] == [0, 0, 0]
    assert totals[WS15] == [0, 0, None]
    assert sum(sum(e.values()) for e in CLIENT_ERRORS) == 93

    md = clients_page.markdown
    for slug in ("throughput", "latency-p99", "errors"):
        stem = f"{CLIENTS_GROUP}-{slug}".removeprefix("leaderboards/")
        assert f"]({stem}.svg)" in md and f"[JSON]({stem}.json)" in md
    assert f"- ✕ {WS15} at 1,000 connections: {NO_CONNECTION}" in md
    svg = clients_page.files[f"{CLIENTS_GROUP}-throughput.svg"].decode()
    for label in ("10", "100", "1,000", "connections (log scale)", AIOHTTP, "dashed: Socket.IO"):
        assert f">{label}</text>" in svg, label


def _memory_cell(kib: float, ok: int) -> str:
    """The memory cell computed from the fixture's RSS figures: (held - idle) / ok, KiB (on
    the fixture's straight lines, the slope)."""
    values = [(IDLE_RSS + round(ok * kib * f * 1024) - IDLE_RSS) / ok for f in SPREAD]
    summary = stats.summarize([values[0:2], values[2:4], values[4:6]])  # 3 processes
    assert summary.interval is not None
    low, high = (v / 1024 for v in summary.interval)
    return f"{summary.value / 1024:,.1f} ({low:,.1f}–{high:,.1f})"


def test_memory_leaderboard_ranks_by_bytes_per_connection_ascending(
    memory_page: LeaderboardPage,
) -> None:
    md = memory_page.markdown
    assert "**Rank** is by memory per connection (lower is better);" in md
    assert "Sorted by memory per connection (the slope), lowest first." in md
    rows = _table(md, "## 1,000 connections")
    assert [(r["Rank"], r["Framework"], r["Version"]) for r in rows] == [
        ("—", "native reference · wsbench-loadgen serve · tokio (current-thread)", "0.1.0"),
        ("1", "aiohttp · asyncio", "3.13.2"),
        # 40.0 and 42.5 KiB: their intervals over 3 processes overlap, a shared rank.
        ("2", "websockets · asyncio", "15.0.1"),
        ("2", "websockets · asyncio", "14.2"),
        ("4", "python-socketio · uvicorn 0.54 · asyncio Socket.IO", "5.14.0"),
    ]
    assert list(rows[0])[3:-1] == [
        "Memory per connection (KiB)",
        "Base memory (MiB)",
        "Kernel per connection, both ends (KiB)",
        "Connection counts",
        "Check",
        "Delta at the top count (KiB)",
        "Connections ok",
        "Errors (all windows)",
    ]
    aiohttp = rows[1]
    # 990 connections of 1,000 held, 20 KiB each on a straight line from 5 MiB: the slope.
    assert aiohttp["Memory per connection (KiB)"] == "20.0 (19.3–20.8)" == _memory_cell(20, 990)
    assert aiohttp["Base memory (MiB)"] == "5.0"
    assert aiohttp["Kernel per connection, both ends (KiB)"] == f"{KERNEL_KIB:.1f}"
    assert aiohttp["Connection counts"] == "0, 99, 495, 990"
    assert aiohttp["Check"] == "ok"
    assert aiohttp["Delta at the top count (KiB)"] == "20.0"
    assert aiohttp["Connections ok"] == "990 of 1,000"
    assert aiohttp["Errors (all windows)"] == "60 (timeout 60)"
    assert rows[3]["Memory per connection (KiB)"] == "42.5 (40.9–44.1)" == _memory_cell(42.5, 1000)
    big = _table(md, "## 10,000 connections")
    assert [r["Version"] for r in big] == ["0.1.0", "3.13.2", "15.0.1"]
    assert big[2]["Memory per connection (KiB)"] == _memory_cell(41.0, 10_000)


def test_a_memory_figure_off_its_line_or_below_the_floor_is_flagged() -> None:
    straight = row_of(memory({"connections": 1000}, 20.0))
    assert memory_check(straight) == []
    bent = row_of(memory({"connections": 1000}, 20.0, bend=0.9))
    (reason,) = memory_check(bent)
    assert reason.startswith("not a straight line in 6 of 6 processes")
    low = row_of(memory({"connections": 1000}, 0.25))
    assert memory_check(low) == [f"below the floor of {FLOOR_BYTES} B per connection (256 B)"]
    docs = [
        run([], impl_info=impl("a"), benchmarks=[memory({"connections": 1000}, 30.0)]),
        run([], impl_info=impl("b"), benchmarks=[memory({"connections": 1000}, 0.25)]),
    ]
    page = render_leaderboard_page("memory", select(docs)).markdown
    rows = [line for line in page.splitlines() if line.startswith("| ") and " · asyncio" in line]
    # The flagged figure is shown with its reason, after the others and unranked.
    assert [r.split("|")[1].strip() for r in rows] == ["1", "—"]
    assert ">b · asyncio<" in rows[1] and "⚠" in rows[1] and "below the floor" in rows[1]
    # Not drawn: listed under the chart instead.
    assert "- ✕ b · asyncio 15.0.1 at 1,000 connections: flagged: below the floor" in page


def test_memory_chart_is_bars_one_group_per_connection_count(
    memory_page: LeaderboardPage,
) -> None:
    assert sorted(memory_page.files) == [
        "leaderboards/memory/memory-per-connection.json",
        "leaderboards/memory/memory-per-connection.svg",
    ]
    data = _json(memory_page, "leaderboards/memory/memory-per-connection.json")
    assert data["kind"] == "bars" and data["figure"]["unit"] == "KiB"
    assert data["x"] == {
        "parameter": "connections", "label": "connections", "measured": False, "log": False,
        "values": [1000, 10000],
    }  # fmt: skip
    values = {s["label"]: {p["x"]: p["y"] for p in s["points"]} for s in data["series"]}
    g = GEOMEAN
    assert values == {
        NATIVE: {1000: pytest.approx(8.0 * g), 10000: pytest.approx(8.0 * g)},
        AIOHTTP: {1000: pytest.approx(20.0 * g), 10000: pytest.approx(21.0 * g)},
        SIO: {1000: pytest.approx(60.0 * g)},
        WS14: {1000: pytest.approx(42.5 * g)},
        WS15: {1000: pytest.approx(40.0 * g), 10000: pytest.approx(41.0 * g)},
    }
    svg = memory_page.files["leaderboards/memory/memory-per-connection.svg"].decode()
    assert ">1,000 connections</text>" in svg and ">10,000 connections</text>" in svg
    assert f">{WS14}</text>" in svg and "KiB  (↓ lower is better)" in svg


def test_connect_leaderboard_ranks_by_connections_per_s(results: Results) -> None:
    page = render_leaderboard_page("connect", results)
    assert page.files == {}
    rows = _table(page.markdown, "## 16 workers")
    assert [(r["Rank"], r["Version"], r["Connections/s"]) for r in rows] == [
        ("—", "0.1.0", "19,998 (19,267–20,758)"),
        ("1", "15.0.1", "4,000 (3,853–4,152)"),
        ("2", "3.13.2", "3,000 (2,890–3,114)"),
    ]
    assert rows[2]["Handshake p50 (ms)"].startswith("5.33 (")
    assert rows[2]["Handshake p99 (ms)"].startswith("10.67 (")
    assert rows[2]["Errors (all windows)"] == "0"


def test_a_scenario_without_results_says_where_it_is_measured(results: Results) -> None:
    for scenario in ("text", "json", "soak"):
        md = render_leaderboard_page(scenario, results).markdown
        assert '!!! note "Not measured in the shown runs"' in md, scenario
        assert "it is measured by the full grid, `./bench run --grid full`, which the nightly" in md
        assert "<table>" not in md and "| Rank |" not in md
    json_page = render_leaderboard_page("json", results).markdown
    assert (
        "Parameter sets of the full grid: 1 in flight per connection; 64 in flight per "
        "connection; of the default grid: none."
    ) in json_page
    # Clients is in the default grid: a run without it says so.
    echo_only = select([run([100.0, 101.0])])
    md = render_leaderboard_page("clients", echo_only).markdown
    assert "It is in the default grid of the main job (`./bench run`)" in md
    assert (
        "of the default grid: 1,000 connections, 16 B messages, 1 in flight per connection." in md
    )
    # No results at all: the general note, as on every page.
    assert "No results yet" in render_leaderboard_page("memory", Results()).markdown


def test_rows_of_the_many_connection_scenarios() -> None:
    row = row_of(memory({"connections": 1000}, 20.0))
    assert row.ok and row.messages_per_s is None
    assert row.figure is not None and row.figure.value == pytest.approx(20 * 1024 * GEOMEAN)
    no_figure = msgspec.structs.replace(
        connect(1_000),
        samples=[msgspec.structs.replace(s, connections_per_s=None) for s in connect(1).samples],
    )
    bad = row_of(no_figure)
    assert (bad.status, bad.error) == ("failed", "no connections/s figure recorded")
    # Lower is better: the smaller memory ranks first.
    docs = [
        run([], impl_info=impl("a"), benchmarks=[memory({"connections": 1000}, 30.0)]),
        run([], impl_info=impl("b"), benchmarks=[memory({"connections": 1000}, 10.0)]),
    ]
    group = [(r, r.rows[0]) for r in select(docs).runs]
    assert [r.impl.name for r, _ in group] == ["a", "b"] and ranks(group) == [2, 1]
    # Higher is better for clients.
    docs = [
        run([], impl_info=impl("a"), benchmarks=[clients(CLIENTS[0], 100.0)]),
        run([], impl_info=impl("b"), benchmarks=[clients(CLIENTS[0], 300.0)]),
    ]
    assert ranks([(r, r.rows[0]) for r in select(docs).runs]) == [2, 1]


def test_every_scenario_has_its_columns_first_the_figure_it_ranks_by() -> None:
    first = {s: columns_of(s)[0].header for s in SCENARIOS}
    assert {s: first[s] for s in ("echo", "connect", "memory", "soak", "market")} == {
        "echo": "Messages/s",
        "connect": "Connections/s",
        "memory": "Memory per connection (KiB)",
        "soak": "RSS growth (KiB)",
        "market": "Order round trip p99 (µs)",
    }
    for scenario in SCENARIOS:
        declared = SPECS[scenario].columns[0]
        shown = "memory_slope_bytes" if declared.special == "memory_slope" else declared.figure
        assert shown == SPECS[scenario].headline, scenario
        assert declared.special == "memory_slope" or declared.interval, scenario


def test_framework_page_says_when_and_in_which_run_each_version_was_last_measured(
    results: Results,
) -> None:
    frameworks = {f.name: f for f in load_frameworks(IMPLS)}
    page = render_page(frameworks["websockets"], results, "https://x", history_of(site_runs()))
    header = next(line for line in page.markdown.splitlines() if line.startswith("| Row |"))
    assert header.rstrip(" |").endswith("Last measured")
    shown = [r for r in results.runs if r.impl.name == "websockets"]
    for version in {r.impl.version for r in shown}:
        newest = max((r for r in shown if r.impl.version == version), key=lambda r: r.run_id)
        row = next(
            line
            for line in page.markdown.splitlines()
            if line.startswith("| ") and f"| {version} |" in line
        )
        assert row.rstrip(" |").endswith(f"run `{newest.run_id}`"), row


def test_framework_page_has_many_connections_by_version(results: Results) -> None:
    frameworks = {f.name: f for f in load_frameworks(IMPLS)}
    history = history_of(site_runs())
    page = render_page(frameworks["websockets"], results, "https://x", history)
    md = page.markdown
    assert "## Many connections by version { #many-connections }" in md
    section = md[md.index("## Many connections by version") : md.index("## Failures")]
    stem = "frameworks/websockets/clients-size-bytes-16-in-flight-1"
    for path in (
        f"{stem}-throughput.svg",
        f"{stem}-throughput.json",
        f"{stem}-latency-p99.svg",
        f"{stem}-latency-p99.json",
        "frameworks/websockets/memory-per-connection-1000.svg",
        "frameworks/websockets/memory-per-connection-10000.svg",
    ):
        assert path in page.charts, path
        if path.endswith(".svg"):
            assert f"]({path.removeprefix('frameworks/')})" in section, path
    # One line per version.
    data = json.loads(page.charts[f"{stem}-throughput.json"])
    lines = {s["label"]: [p["y"] for p in s["points"]] for s in data["series"]}
    g = GEOMEAN
    assert lines == {
        "14.2": [pytest.approx(20_000 * g), pytest.approx(22_000 * g), pytest.approx(18_000 * g)],
        "15.0.1": [pytest.approx(24_000 * g), pytest.approx(26_000 * g), None],
    }
    # Memory per connection by version, with its significant change (42.5 -> 40.0 KiB).
    assert (
        "### Memory per connection, 0 to 1,000 idle connections (KiB, lower is better)" in section
    )
    assert "Significant changes between consecutive releases: 14.2 → 15.0.1: **−6 %**" in section
    assert memory_headline(1000).params == {"connections": 1000}
    # No such results: no section (Starlette); the reference has no version axis.
    for name in ("starlette", "native"):
        other = render_page(frameworks[name], results, "https://x", history)
        assert "Many connections by version" not in other.markdown, name


def test_findings_compare_messages_per_s_only(results: Results) -> None:
    findings = findings_of(results, load_frameworks(IMPLS))
    scenarios = list(dict.fromkeys(c.scenario for c in findings.contests))
    assert scenarios == ["echo", "stream", "clients"]
    many = next(
        c for c in findings.contests if c.scenario == "clients" and dict(c.params) == CLIENTS[2]
    )
    assert many.fastest is not None and many.fastest.run.label == "aiohttp · asyncio"
    failed = [(r.impl.version, w.scenario, w.error) for r, w in findings.failures]
    assert ("15.0.1", "clients", NO_CONNECTION) in failed


def test_methodology_lists_every_scenario_from_its_definition() -> None:
    text = render_scenarios()
    for scenario, defined in SPECS.items():
        assert defined.summary in text.replace("\\", ""), scenario
        assert f"]({LEADERBOARD_PAGES[scenario]})" in text
    clients_row = next(line for line in text.splitlines() if "(leaderboards/clients.md)" in line)
    # the full grid as a runner that measures every profile has it (the page is the same
    # wherever it is built)
    full = "; ".join(set_words(tuple(p.items())) for p in SPECS["clients"].grid("full", PROFILES))
    default = "; ".join(params_title(tuple(p.items())) for p in SPECS["clients"].grid("default"))
    assert f"| {full} | {default} |" in clients_row
    connect_row = next(line for line in text.splitlines() if "(leaderboards/connect.md)" in line)
    assert connect_row.endswith(
        "| 1 worker; 16 workers; 16 workers · As shipped; 16 workers · TLS; 16 workers · Browser; "
        "16 workers · 2 CPUs; 16 workers · Workers, one per CPU "
        "| not measured |"
    )
    assert f"over {SOURCE_ADDRESSES} loopback source addresses" in text
    assert "TIME_WAIT" in text and "`RLIMIT_NOFILE`" in text and "(`open_files`)" in text
    assert "prints a line saying its traffic starts" in text
    assert "a window fails only when no connection succeeds" in text
    assert "**Memory per connection is a slope.**" in text and "base memory" in text
    page = f"# Methodology\n\n{SCENARIOS_MARKER}\n\nafter\n"
    assert fill_markers("methodology.md", page) == f"# Methodology\n\n{text}\n\nafter\n"
    assert fill_markers("index.md", page) == page


def test_methodology_says_which_versions_a_night_measures() -> None:
    text = render_matrix()
    assert f"once its figures are {MATRIX_PERIOD_DAYS} days old" in text
    assert f"as many as a shard starts in {OTHER_PYTHONS_MINUTES} minutes a night" in text
    assert "on the default grid and with the same settings" in text
    page = f"{MATRIX_MARKER}\n\n{SCENARIOS_MARKER}\n"
    assert fill_markers("methodology.md", page) == f"{text}\n\n{render_scenarios()}\n"
    source = (REPO_ROOT / "site" / METHODOLOGY_PAGE).read_text(encoding="utf-8")
    assert source.count(f"\n{MATRIX_MARKER}\n") == 1


def test_nav_lists_every_leaderboard() -> None:
    nav = [
        {"Leaderboards": [{"Echo": "leaderboards/echo.md"}, {"Stream": "leaderboards/stream.md"}]}
    ]
    (section,) = expand_nav(nav, [])
    assert section["Leaderboards"] == [
        {"Echo": "leaderboards/echo.md"},
        {"Stream": "leaderboards/stream.md"},
        {"Concurrent clients": "leaderboards/clients.md"},
        {"Connection setup": "leaderboards/connect.md"},
        {"Memory per connection": "leaderboards/memory.md"},
        {"Echo, text frames": "leaderboards/text.md"},
        {"JSON request/reply": "leaderboards/json.md"},
        {"RSS growth": "leaderboards/soak.md"},
        {"Broadcast fan-out": "leaderboards/broadcast.md"},
        {"Market data with orders": "leaderboards/market.md"},
        {"Latency under a fixed offered load": "leaderboards/offered.md"},
        {"WebSocket ping": "leaderboards/ping.md"},
    ]


def test_the_csv_has_errors_by_kind_and_the_per_connection_spread() -> None:
    docs = [d for d in site_runs() if d.impl.name == "aiohttp" and d.run_id == CURRENT]
    csv_text = samples_csv(docs)
    names = csv_text.splitlines()[0].split(",")
    for column in (
        "errors",
        "errors_by_kind",
        "connections_ok",
        "per_connection_min",
        "per_connection_median",
        "per_connection_max",
        "handshake_p99",
        "bytes_per_connection",
        "rss_idle_bytes",
        "rss_held_bytes",
        "open_files",
    ):
        assert column in names, column
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    many = [r for r in rows if r["scenario"] == "clients" and r["connections"] == "1000"]
    assert [json.loads(r["errors_by_kind"]) for r in many] == [
        dict(sorted(e.items())) for e in CLIENT_ERRORS
    ]
    assert [r["errors"] for r in many] == ["16", "15", "16", "15", "16", "15"]
    assert float(many[0]["per_connection_median"]) == pytest.approx(35_000 * SPREAD[0] / 1000)
    assert many[0]["connections_ok"] == "1000" and many[0]["open_files"] == "65536"
    held = [r for r in rows if r["scenario"] == "memory" and r["connections"] == "1000"]
    assert float(held[3]["bytes_per_connection"]) == pytest.approx(20 * SPREAD[3] * 1024, abs=1e-3)
    assert held[0]["rss_idle_bytes"] == str(IDLE_RSS) and held[0]["connections_ok"] == "990"


def test_a_server_below_the_reference_is_named_with_the_tables_own_figures() -> None:
    """The note under a table where a Python server beats the reference shows both figures
    as the table's first column does (KiB for memory with its interval, not raw bytes)."""
    docs = [
        document("native", "default", "0.1.0", [memory({"connections": 1000}, 30.0)], ""),
        document("aiohttp", "default", "3.13.2", [memory({"connections": 1000}, 20.0)], ""),
    ]
    md = render_leaderboard_page("memory", select(docs)).markdown
    assert "Better than the native reference here:" in md
    line = next(x for x in md.splitlines() if x.startswith("- **aiohttp"))
    assert _untagged(line) == (
        f"- aiohttp · asyncio 3.13.2: {_memory_cell(20, 1000)} against the reference's "
        f"{_memory_cell(30, 1000)} (Memory per connection (KiB))"
    )
