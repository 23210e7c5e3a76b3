"""wsbench.site.findings and wsbench.site.findings_page: the fastest configurations and by
how much (or a tie), release-to-release changes, the cost of Socket.IO over WebSocket on the
same server (paired from the metadata), failures and flagged figures, each naming its run
and machine and linking to its data."""

# The page's typography (multiplication sign, en dash, minus sign) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from pathlib import Path

import msgspec
from pytest import approx

from tests.runs import ECHO_16_64, failed, impl, run
from tests.site_runs import (
    CURRENT,
    IMPLS,
    NO_CONNECTION,
    REFERENCE_META,
    REFERENCE_RUN,
    STATED,
    TOO_BIG,
    site_runs,
)
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.results import stats
from wsbench.results.runformat import ProfileSet, Profiling, Run
from wsbench.site.findings import Findings, ServerBuild, findings_of, unshared
from wsbench.site.findings_page import p_text, render_findings
from wsbench.site.frameworks import load_frameworks
from wsbench.site.markup import cell, ratio_text, spread
from wsbench.site.render import render_leaderboard, table_link
from wsbench.site.results import Results, select

ROOT = Path(__file__).resolve().parents[2]
STABLE = [98.0, 99.0, 99.9, 100.1, 101.0, 102.0]
"""Six windows around 100 (median 100, cv 1.5 %)."""
NATIVE = impl("native", "0.1.0", "websocket", reference=True)


def _times(factor: float, values: list[float] = STABLE) -> list[float]:
    return [v * factor for v in values]


def _findings(docs: list[Run], impls: Path | None = None) -> tuple[Findings, Results]:
    results = select(docs)
    frameworks = load_frameworks(impls) if impls else []
    return findings_of(results, frameworks), results


def _untagged(text: str) -> str:
    return re.sub("<[^>]+>", "", text)


def _groups(values: list[float]) -> list[list[float]]:
    """``values`` by server process: two windows each, as :func:`tests.runs.run` records
    them."""
    return [values[i : i + 2] for i in range(0, len(values), 2)]


def _figure(values: list[float]) -> str:
    """A messages/s figure of ``values`` as a cell shows it, without its HTML."""
    return _untagged(spread(stats.summarize(_groups(values)), ",.0f"))


def _table_rows(page: str, heading: str) -> list[list[str]]:
    """The rows (header excluded) of the first table after ``heading`` in markdown, HTML
    tags taken out of the cells."""
    lines = page[page.index(heading) :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("| "):
            break
        rows.append([_untagged(c).strip() for c in line.strip("|").split(" | ")])
    return rows


def test_a_clearly_faster_configuration_is_the_fastest_by_its_ratio() -> None:
    docs = [
        run(_times(10), impl_info=NATIVE),
        run(_times(2), impl_info=impl("a")),
        run(STABLE, impl_info=impl("b")),
        run(_times(0.5), impl_info=impl("c")),
    ]
    findings, results = _findings(docs)
    (contest,) = findings.contests
    assert (contest.scenario, dict(contest.params), contest.protocol) == (
        "echo",
        ECHO_16_64,
        "websocket",
    )
    assert [e.run.impl.name for e in contest.entries] == ["a", "b", "c"]  # never the reference
    assert contest.fastest is not None and contest.runner_up is not None
    versus = contest.runner_up.versus_fastest
    assert versus == stats.compare(_groups(STABLE), _groups(_times(2)), higher_is_better=True)
    assert versus is not None and versus.head_over_base == approx(2.0) and versus.significant
    assert contest.tied == ()
    assert contest.reference is not None and contest.reference[0].impl.name == "native"

    page = render_findings(findings, results, {})
    (row,) = _table_rows(page, "### Fastest configurations: Echo")
    assert row[:4] == [
        "16 B messages, 64 in flight per connection",
        "WebSocket",
        "a · asyncio 15.0.1",
        _figure(_times(2)),
    ]
    assert row[5] == _figure(STABLE) == "100 (96–104)"  # t(2) over 3 processes
    assert row[6] == _untagged(ratio_text(versus))
    assert row[6].startswith("2.00× (")
    assert row[7] == f"**fastest**: significantly faster than every other ({p_text(versus)})"
    assert versus.p_value < 1e-5  # Welch's test of 3 against 3 processes, 2x apart
    assert row[8] == _figure(_times(10))  # the reference


def test_overlapping_samples_are_a_tie_listing_the_tied_ones() -> None:
    interleaved = [97.0, 99.0, 101.0, 100.0, 102.0, 98.0]  # median 99.5, overlaps STABLE
    docs = [
        run(STABLE, impl_info=impl("a")),
        run(interleaved, impl_info=impl("b")),
        run(_times(1.02), impl_info=impl("d")),  # +2 %: below the 5 % minimum effect
        run(_times(0.5), impl_info=impl("c")),
    ]
    findings, results = _findings(docs)
    (contest,) = findings.contests
    assert [e.run.impl.name for e in contest.entries] == ["d", "a", "b", "c"]
    assert [e.run.impl.name for e in contest.tied] == ["a", "b"]
    assert all(e.versus_fastest and not e.versus_fastest.significant for e in contest.tied)
    assert contest.runner_up is not None and contest.runner_up.versus_fastest is not None
    assert contest.runner_up.versus_fastest.head_over_base == 1.02
    row = _table_rows(render_findings(findings, results, {}), "### Fastest configurations")[0]
    assert row[6].startswith("1.02× (")
    # The list folded behind its gist (tags taken out here: summary, then the whole).
    assert row[7] == (
        "**tied**: 3 configurations"
        "no significant difference: d · asyncio 15.0.1, a · asyncio 15.0.1, b · asyncio 15.0.1"
    )


def test_a_long_list_of_tied_configurations_is_folded_under_one_line() -> None:
    # 6 configurations within 1 % of each other: one line says how many, the names fold.
    docs = [run(_times(1 + k / 200), impl_info=impl(f"f{k}")) for k in range(6)]
    findings, results = _findings(docs)
    (contest,) = findings.contests
    assert len(contest.tied) == 5
    page = render_findings(findings, results, {})
    row = next(line for line in page.splitlines() if "<summary>**tied**" in line)
    cell = row.split(" | ")[7]
    assert cell.startswith(
        '<details class="wsbench-fold"><summary>**tied**: 6 configurations</summary>'
        "no significant difference: "
    )
    assert cell.endswith("</details>") and cell.count("· asyncio 15.0.1") == 6


def test_a_single_configuration_and_failed_ones() -> None:
    boom = run([], impl_info=impl("b"), benchmarks=[failed("echo", ECHO_16_64, "boom")])
    docs = [run(STABLE, impl_info=impl("a")), boom]
    findings, results = _findings(docs)
    (contest,) = findings.contests
    assert contest.runner_up is None
    assert [(r.impl.name, w.error) for r, w in contest.failed] == [("b", "boom")]
    assert [(r.impl.name, w.error) for r, w in findings.failures] == [("b", "boom")]
    page = render_findings(findings, results, {})
    row = _table_rows(page, "### Fastest configurations")[0]
    assert row[4:8] == ["—", "—", "—", "the only configuration with a figure"]
    (failure,) = _table_rows(page, "### Failures")
    assert failure[:3] == ["b · asyncio 15.0.1", "every measurement", "boom"]
    # Every configuration failed: the contest says so.
    findings, results = _findings([boom])
    row = _table_rows(render_findings(findings, results, {}), "### Fastest configurations")[0]
    assert row[2:8] == ["—"] * 5 + ["every configuration failed (see Failures)"]


def _write_impls(root: Path) -> Path:
    """Three implementations: a Socket.IO server and a WebSocket framework, both on uvicorn
    in several backends and loops and at versions pinning two uvicorn releases, and a
    reference server speaking both protocols."""
    metas = {
        "sio": """
name = "sio"
package = "sio"
protocol = "socketio"
server = "uvicorn"
versions = [
  { version = "0.9", requires = ["uvicorn==0.30.0"] },
  { version = "1.0", requires = ["uvicorn==0.54.0"] },
]
[[configurations]]
id = "websockets-asyncio"
ws_backend = "websockets"
event_loop = "asyncio"
[[configurations]]
id = "wsproto-uvloop"
ws_backend = "wsproto"
event_loop = "uvloop"
""",
        "web": """
name = "web"
package = "web"
protocol = "websocket"
server = "uvicorn"
versions = [
  { version = "1.0", requires = ["uvicorn==0.30.0"] },
  { version = "2.0", requires = ["uvicorn==0.54.0"] },
]
[[configurations]]
id = "websockets-asyncio"
ws_backend = "websockets"
event_loop = "asyncio"
[[configurations]]
id = "websockets-uvloop"
ws_backend = "websockets"
event_loop = "uvloop"
[[configurations]]
id = "wsproto-asyncio"
ws_backend = "wsproto"
event_loop = "asyncio"
""",
        "ref": REFERENCE_META,
    }
    for name, text in metas.items():
        (root / name).mkdir()
        (root / name / "meta.toml").write_text(STATED + text)
    return root


def _doc(impls: Path, name: str, config: str, version: str, rates: list[float]) -> Run:
    found = load_impl(impls / name)
    return run(rates, impl_info=impl_info(found, found.config(config), version))


def test_socketio_and_websocket_configurations_are_paired_from_the_metadata(
    tmp_path: Path,
) -> None:
    impls = _write_impls(tmp_path)
    docs = [
        _doc(impls, "sio", "websockets-asyncio", "1.0", STABLE),
        _doc(impls, "sio", "wsproto-uvloop", "1.0", STABLE),  # no WebSocket counterpart
        _doc(impls, "web", "websockets-asyncio", "2.0", _times(4)),  # the same server build
        _doc(impls, "web", "websockets-asyncio", "1.0", _times(3)),  # uvicorn 0.30: not paired
        _doc(impls, "web", "websockets-uvloop", "2.0", _times(5)),  # another loop
        _doc(impls, "web", "wsproto-asyncio", "2.0", _times(5)),  # another backend
        _doc(impls, "ref", "socketio", "0.1.0", _times(2)),
        _doc(impls, "ref", "websocket", "0.1.0", _times(10)),
    ]
    findings, results = _findings(docs, impls)
    pairs = [
        (p.socketio.impl.name, p.socketio.impl.config, p.websocket.impl.name,
         p.websocket.impl.config, p.websocket.impl.version, p.server)
        for p in findings.pairings
    ]  # fmt: skip
    ref = ServerBuild("ref-serve", None, "ref 0.1.0")
    uvicorn = ServerBuild("uvicorn", "0.54.0")
    assert sorted(pairs, key=str) == [
        ("ref", "socketio", "ref", "websocket", "0.1.0", ref),
        ("sio", "websockets-asyncio", "web", "websockets-asyncio", "2.0", uvicorn),
    ]
    assert all(p.baseline for p in findings.pairings)  # one WebSocket configuration each
    pairing = next(p for p in findings.pairings if p.socketio.impl.name == "sio")
    (figure,) = pairing.figures
    assert figure.comparison is not None
    assert figure.comparison.head_over_base == approx(0.25)  # Socket.IO / WebSocket
    assert figure.comparison.verdict == "slower"
    assert [(r.impl.name, r.impl.config, key[2], key[3]) for r, key in findings.unpaired] == [
        ("sio", "wsproto-uvloop", "wsproto", "uvloop")
    ]

    page = render_findings(findings, results, {})
    assert "#### sio · uvicorn 0.54 · websockets · asyncio 1.0 vs web · uvicorn 0.54 · " in page
    assert "both on uvicorn 0.54.0, WebSocket backend websockets, event loop asyncio." in page
    rows = _table_rows(page, "#### sio · uvicorn 0.54 · websockets · asyncio 1.0 vs web")
    assert rows[0][:6] == [
        "Echo",
        "16 B messages, 64 in flight per connection",
        _figure(STABLE),
        _figure(_times(4)),
        _untagged(ratio_text(figure.comparison)),
        f"Socket.IO significantly slower ({p_text(figure.comparison)})",
    ]
    assert figure.comparison.p_value < stats.ALPHA  # Welch's t over 3 processes a side
    assert rows[0][4].startswith("0.25× (")
    assert "no WebSocket configuration on uvicorn 0.54.0 with WebSocket backend wsproto" in page


def test_the_native_references_two_protocols_pair_in_the_repository_metadata() -> None:
    native = load_impl(ROOT / "impls" / "native")
    docs = [
        run(_times(2), impl_info=impl_info(native, native.config("socketio"), "0.1.0")),
        run(_times(10), impl_info=impl_info(native, native.config("websocket"), "0.1.0")),
    ]
    findings, _ = _findings(docs, ROOT / "impls")
    (pairing,) = findings.pairings
    assert (pairing.socketio.impl.config, pairing.websocket.impl.config) == (
        "socketio",
        "websocket",
    )
    assert pairing.figures[0].comparison is not None
    assert pairing.figures[0].comparison.head_over_base == approx(0.2)
    assert pairing.baseline
    assert findings.contests == ()  # the reference alone: nothing to rank


PLAIN = """
shipped_compression = "declines: (fixture)"
tls = "not supported: (fixture)"
workers = "not supported: (fixture)"
name = "{name}"
package = "{name}"
protocol = "{protocol}"
server = "{server}"
versions = [{{ version = "1.0", requires = [{requires}]{version_backend} }}]
[[configurations]]
id = "asyncio"
ws_backend = "{backend}"
event_loop = "asyncio"
"""


def _plain(
    root: Path,
    name: str,
    protocol: str = "websocket",
    server: str = "uvicorn",
    backend: str = "",
    version_backend: str = "",
    requires: tuple[str, ...] = (),
) -> None:
    """``root/name/meta.toml``: ``name`` 1.0 on ``server`` (uvicorn 0.54.0 pinned) on
    asyncio, configuration ``asyncio`` with WebSocket backend ``backend``; the version
    names ``version_backend``; ``requires``: more pins."""
    pins = ", ".join(f'"{p}"' for p in ("uvicorn==0.54.0", *requires))
    named = f', ws_backend = "{version_backend}"' if version_backend else ""
    (root / name).mkdir()
    (root / name / "meta.toml").write_text(
        PLAIN.format(
            name=name, protocol=protocol, server=server, requires=pins, backend=backend,
            version_backend=named,
        )
    )  # fmt: skip


def test_a_socketio_configuration_takes_the_thinnest_app_on_its_stack_as_baseline(
    tmp_path: Path,
) -> None:
    # "sio" names no backend but its version does (uvicorn's default it runs, as
    # python-socketio's): it shares the stack of the configurations that name that backend,
    # and not that of "default", which runs the server's unnamed default. Of the three on its
    # stack the baseline is the toolkit another framework pins ("toolkit", pinned by
    # "framework"), not the framework on it nor the fastest ("bulky", more pins).
    _plain(tmp_path, "sio", "socketio", version_backend="websockets-sansio")
    _plain(tmp_path, "toolkit", backend="websockets-sansio")
    _plain(tmp_path, "framework", backend="websockets-sansio", requires=("toolkit==1.0",))
    _plain(tmp_path, "bulky", backend="websockets-sansio", requires=("a==1", "b==2"))
    _plain(tmp_path, "default")
    rates = {"sio": 1.0, "toolkit": 4.0, "framework": 3.0, "bulky": 8.0, "default": 9.0}
    docs = [_doc(tmp_path, name, "asyncio", "1.0", _times(r)) for name, r in rates.items()]
    findings, _ = _findings(docs, tmp_path)
    assert sorted((p.websocket.impl.name, p.baseline) for p in findings.pairings) == [
        ("bulky", False),
        ("framework", False),
        ("toolkit", True),
    ]
    assert {p.websocket.impl.name for p in findings.pairings} < set(rates)  # not "default"
    assert findings.unpaired == ()


def test_the_servers_own_websocket_api_is_thinner_than_a_toolkit(tmp_path: Path) -> None:
    # The server "own" is the implementation "own" itself; the others pin its release.
    _plain(tmp_path, "sio", "socketio", server="own", requires=("own==1.0",))
    _plain(tmp_path, "own", server="own")
    _plain(tmp_path, "toolkit", server="own", requires=("own==1.0",))
    _plain(tmp_path, "framework", server="own", requires=("own==1.0", "toolkit==1.0"))
    docs = [_doc(tmp_path, name, "asyncio", "1.0", STABLE) for name in ("sio", "own", "toolkit")]
    findings, _ = _findings(docs, tmp_path)
    assert [p.websocket.impl.name for p in findings.pairings if p.baseline] == ["own"]


def test_a_socketio_configuration_no_plain_one_shares_a_stack_with_says_what_none_runs_on(
    tmp_path: Path,
) -> None:
    # The repository's Flask-SocketIO: its servers' versions come from its configurations'
    # pins (eventlet, gevent) or its version matrix (werkzeug), and no plain WebSocket
    # configuration runs on any of them.
    impls = ROOT / "impls"
    flask = load_impl(impls / "flask-socketio")
    starlette = load_impl(impls / "starlette")
    docs = [
        run(STABLE, impl_info=impl_info(flask, flask.config(config), "5.7.0"))
        for config in ("threading", "eventlet", "gevent")
    ]
    docs.append(
        run(STABLE, impl_info=impl_info(starlette, starlette.config("wsproto-uvloop"), "1.10.0"))
    )
    findings, _ = _findings(docs, impls)
    assert findings.pairings == ()
    keys = {r.impl.config: key for r, key in findings.unpaired}
    assert {c: (k[1], k[2], k[3]) for c, k in keys.items()} == {
        "threading": (ServerBuild("werkzeug", "3.1.9"), "simple-websocket", "threading"),
        "eventlet": (ServerBuild("eventlet", "0.41.3"), "", "eventlet"),
        "gevent": (ServerBuild("gevent", "26.9.0"), "gevent-websocket", "gevent"),
    }
    assert [unshared(keys[c], findings.stacks) for c in ("threading", "eventlet", "gevent")] == [
        "werkzeug", "eventlet", "gevent",
    ]  # fmt: skip
    # Narrower: a server some plain configuration runs on, at another build or stack.
    (stack,) = findings.stacks
    build = stack[1]
    assert build == ServerBuild("uvicorn", "0.54.0")
    older = ServerBuild("uvicorn", "0.30.6")
    assert unshared(("m", older, "websockets", "asyncio"), findings.stacks) == "uvicorn 0.30.6"
    assert unshared(("m", build, "websockets-sansio", "asyncio"), findings.stacks) == (
        "uvicorn 0.54.0 with WebSocket backend websockets-sansio and event loop asyncio"
    )


def test_python_socketio_pairs_with_starlette_on_its_backend_in_the_repository_metadata() -> None:
    # python-socketio 5.18.1 runs uvicorn 0.54's default backend, websockets-sansio, which its
    # version names: Starlette on that backend and loop is its baseline, and BlackSheep (on
    # uvicorn's unnamed default) is not on its stack.
    impls = ROOT / "impls"
    docs = [
        _doc(impls, "python-socketio", "asyncio", "5.18.1", _times(57.6)),
        _doc(impls, "python-socketio", "uvloop", "5.18.1", _times(70)),
        _doc(impls, "starlette", "websockets-sansio-asyncio", "1.10.0", _times(480.28)),
        _doc(impls, "starlette", "websockets-sansio-uvloop", "1.10.0", _times(600)),
        _doc(impls, "starlette", "websockets-asyncio", "1.10.0", _times(600)),
        _doc(impls, "blacksheep", "uvicorn-asyncio", "2.6.4", _times(720)),
    ]
    findings, _ = _findings(docs, impls)
    pairs = [
        (p.socketio.impl.config, p.websocket.impl.name, p.websocket.impl.config, p.baseline)
        for p in findings.pairings
    ]
    assert sorted(pairs) == [
        ("asyncio", "starlette", "websockets-sansio-asyncio", True),
        ("uvloop", "starlette", "websockets-sansio-uvloop", True),
    ]
    asyncio = next(p for p in findings.pairings if p.socketio.impl.config == "asyncio")
    assert asyncio.figures[0].comparison is not None
    assert asyncio.figures[0].comparison.head_over_base == approx(57.6 / 480.28)  # 12 %


def test_findings_of_the_site_store() -> None:
    findings, results = _findings(site_runs(), IMPLS)
    assert findings.machines == ("wsbench-ci",)
    # The fastest WebSocket server at echo 16 B x 64 ties with Starlette on uvloop, and with
    # Starlette on wsproto: its windows spread too widely (WIDE) to tell it apart.
    contest = next(
        c
        for c in findings.contests
        if c.scenario == "echo" and dict(c.params) == ECHO_16_64 and c.protocol == "websocket"
    )
    assert [e.run.label for e in (contest.entries[0], *contest.tied)] == [
        "aiohttp · asyncio",
        "Starlette · uvicorn 0.54 · websockets · uvloop",
        "Starlette · uvicorn 0.54 · wsproto · asyncio",
    ]
    socketio = next(c for c in findings.contests if c.protocol == "socketio")
    assert socketio.fastest is not None and socketio.fastest.run.impl.version == "5.14.0"
    # Release changes: exactly those the framework pages chart.
    changes = [
        (c.framework.name, c.line.config, c.change.base, c.change.head, c.headline.slug,
         c.change.percent)
        for c in findings.changes
        if c.framework.name == "websockets"
    ]  # fmt: skip
    assert changes == [
        ("websockets", "default", "14.2", "15.0.1", "echo-latency-p50-16b", "−20 %"),
        ("websockets", "default", "14.2", "15.0.1", "echo-throughput-16b", "+25 %"),
        ("websockets", "default", "14.2", "15.0.1", "push-throughput-16b", "+25 %"),
    ]
    asyncio = [
        (c.change.base, c.change.head, c.change.percent)
        for c in findings.changes
        if c.line.config == "websockets-asyncio" and c.headline.slug == "push-throughput-16b"
    ]
    assert asyncio == [("0.37.2", "0.46.2", "+25 %"), ("0.46.2", "1.10.0", "+10 %")]
    assert {(c.base_run, c.head_run) for c in findings.changes} == {(CURRENT, CURRENT)}
    # python-socketio names no WebSocket backend: no Starlette configuration pairs with it.
    assert findings.pairings == ()
    assert [r.impl.version for r, _ in findings.unpaired] == ["5.11.4", "5.14.0"]
    # Failures with their reason; flagged figures.
    failures = {(r.impl.name, r.impl.version, w.scenario, w.error) for r, w in findings.failures}
    assert ("websockets", "15.0.1", "echo", TOO_BIG) in failures
    assert ("websockets", "15.0.1", "clients", NO_CONNECTION) in failures
    # 64 KiB echo, disturbed push, install, clients at 1,000 connections.
    assert len(findings.failures) == 1 + 1 + 9 + 1
    flagged = [
        (r.impl.name, r.impl.config, w.client_bound, w.unstable) for r, w in findings.flagged
    ]
    assert flagged[:2] == [
        ("aiohttp", "default", True, False),
        ("starlette", "websockets-uvloop", True, False),
    ]
    assert flagged[2:] == [("starlette", "wsproto-asyncio", False, True)] * 6

    pages = {f.name: f"frameworks/{f.name}.md" for f in load_frameworks(IMPLS)}
    page = render_findings(findings, results, pages)
    assert cell(TOO_BIG) in page
    assert "[full reason](frameworks/starlette.md#failures)" in page
    assert "[chart](frameworks/websockets.md#push-throughput-16b)" in page
    assert "(leaderboards/echo.md#16-b-messages-64-in-flight-per-connection)" in page
    assert "⚠ client-bound (load generator CPU 85 %)" in page
    assert "≈ unstable (coefficient of variation 25 %)" in page
    assert "−20 %" in page and "faster (p = 5.3e-05)" in page


def test_every_finding_names_its_run_and_machine_and_links_its_downloads() -> None:
    findings, results = _findings(site_runs(), IMPLS)
    page = render_findings(findings, results, {})
    rows = [line for line in page.splitlines() if line.startswith("| ") and "---" not in line]
    data = [line for line in rows if not line.startswith("| Parameters |")]
    data = [line for line in data if "| Data |" not in line]
    assert len(data) > 30
    runs = (CURRENT, REFERENCE_RUN)
    for line in data:
        named = re.findall(r"run `([^`]+)` on `wsbench-ci`: \[JSON\]\(([^)]+)\)", line)
        assert named, line
        for run_id, link in named:
            assert run_id in runs
            assert link == f"downloads/wsbench-ci/{run_id}.json"


def test_the_leaderboard_tables_have_the_ids_findings_link_to() -> None:
    a = run(STABLE, run_id="20260101T000000Z-00000a", machine="a")
    b = run(STABLE, run_id="20260102T000000Z-00000b", machine="b b")
    one = select([a])
    assert table_link("echo", one, "a", tuple(ECHO_16_64.items())) == (
        "leaderboards/echo.md#16-b-messages-64-in-flight-per-connection"
    )
    two = select([a, b])
    assert table_link("echo", two, "b b", tuple(ECHO_16_64.items())) == (
        "leaderboards/echo.md#b-b-16-b-messages-64-in-flight-per-connection"
    )
    page = render_leaderboard("echo", two)
    assert "### 16 B messages, 64 in flight per connection · Tuned { #a-16-b-messages-64-" in page
    assert "{ #b-b-16-b-messages-64-in-flight-per-connection }" in page
    findings, _ = _findings([a, b])
    assert [c.machine for c in findings.contests] == ["a", "b b"]
    text = render_findings(findings, two, {})
    assert "## Machine `a`" in text and "## Machine `b b`" in text
    assert "run `20260102T000000Z-00000b` on `b b`: [JSON](downloads/b-b/" in text


def test_no_results_says_so() -> None:
    page = render_findings(findings_of(Results(), []), Results(), {})
    assert "# Findings" in page and "No results yet" in page
    assert "<table>" not in page and "| " not in page


def test_ratio_text() -> None:
    base = _groups(_times(10))
    assert ratio_text(stats.compare(base, _groups(_times(0.5)), higher_is_better=True)) == (
        '0.050× <span style="white-space: nowrap">(0.047–0.053)</span>'
    )
    one = stats.compare([[100.0]], [[150.0]], higher_is_better=True)
    assert ratio_text(one) == "1.50×"


def _write_lineup_impls(root: Path) -> Path:
    """An app on two servers (uvicorn pinned per version, hypercorn pinned per
    configuration) and another framework on the same uvicorn builds."""
    metas = {
        "app": """
name = "app"
display_name = "App"
package = "app"
server = "uvicorn"
event_loop = "asyncio"
versions = [{ version = "2.0", requires = ["uvicorn==0.54.0"] }]
[[configurations]]
id = "uvicorn-asyncio"
[[configurations]]
id = "hypercorn-asyncio"
server = "hypercorn"
requires = ["hypercorn==0.18.0"]
""",
        "fw": """
name = "fw"
display_name = "Fw"
package = "fw"
server = "uvicorn"
event_loop = "asyncio"
versions = [{ version = "0.9", requires = ["uvicorn==0.54.0"] }]
""",
    }
    for name, text in metas.items():
        (root / name).mkdir()
        (root / name / "meta.toml").write_text(STATED + text)
    return root


def test_one_app_on_several_servers_and_several_frameworks_on_one_server(tmp_path: Path) -> None:
    impls = _write_lineup_impls(tmp_path)
    docs = [
        _doc(impls, "app", "uvicorn-asyncio", "2.0", _times(4)),
        _doc(impls, "app", "hypercorn-asyncio", "2.0", STABLE),
        _doc(impls, "fw", "default", "0.9", _times(4.02)),  # tied with the app on uvicorn
    ]
    findings, results = _findings(docs, impls)
    lineups = [(lu.kind, lu.shared, [r.impl.name + ":" + r.impl.config for r in lu.runs])
               for lu in findings.lineups]  # fmt: skip
    assert lineups == [
        ("servers", "App 2.0", ["app:hypercorn-asyncio", "app:uvicorn-asyncio"]),
        ("frameworks", "uvicorn 0.54.0, asyncio", ["app:uvicorn-asyncio", "fw:default"]),
    ]
    servers, frameworks = findings.lineups
    (echo,) = servers.contests
    assert echo.fastest is not None and echo.fastest.run.impl.server == "uvicorn"
    assert not echo.tied
    (same_server,) = frameworks.contests
    assert same_server.fastest is not None and same_server.fastest.run.impl.name == "fw"
    assert [e.run.impl.name for e in same_server.tied] == ["app"]

    page = render_findings(findings, results, {})
    assert "#### App 2.0: 2 servers" in page
    rows = _table_rows(page, "#### App 2.0: 2 servers")
    assert [r[0].replace("&nbsp;", " ") for r in rows] == [
        "App · hypercorn · asyncio 2.0",
        "App · uvicorn 0.54 · asyncio 2.0",
    ]
    assert rows[0][1] == f"{_figure(STABLE)} 0.25× slower"
    assert rows[1][1] == f"**{_figure(_times(4))}** fastest"
    rows = _table_rows(page, "#### uvicorn 0.54.0, asyncio: 2 frameworks")
    assert [r[1].split()[-1] for r in rows] == ["tied", "fastest"]


def test_a_lineup_figure_with_too_few_samples_is_not_called_tied(tmp_path: Path) -> None:
    impls = _write_lineup_impls(tmp_path)
    docs = [
        _doc(impls, "app", "uvicorn-asyncio", "2.0", _times(4)),
        _doc(impls, "fw", "default", "0.9", [100.0, 101.0]),  # two windows only
    ]
    findings, results = _findings(docs, impls)
    page = render_findings(findings, results, {})
    rows = _table_rows(page, "#### uvicorn 0.54.0, asyncio: 2 frameworks")
    assert rows[1][1].endswith("× too few server processes to tell")
    assert "tied" not in rows[1][1] and "**" not in rows[1][1]


UNMASK = "WebSocketProtocol._unmask (gunicorn/asgi/websocket.py)"


def _profile(doc: Run, run_id: str) -> Run:
    """``doc``'s environment profiled at its echo set, with native frames, in run
    ``run_id``: 98 % of the samples in gunicorn's ``_unmask``, 2 % in the handler."""
    root = "process (asgi_serve.py);run (asyncio/runners.py:118)"
    stacks = {f"{root};{UNMASK[:-1]}:120)": 98, f"{root};echo (server.py:20)": 2}
    found = ProfileSet("echo", dict(ECHO_16_64), "ok", None, 2.0, 250, stacks=stacks)
    return msgspec.structs.replace(
        doc, run_id=run_id, benchmarks=[], profiles=[found],
        profiling=Profiling("py-spy 0.4.3", True),
    )  # fmt: skip


def test_a_configuration_far_below_the_other_configurations_of_its_app_is_an_outlier() -> None:
    def starlette(config: str, factor: float) -> Run:
        return run(_times(factor), impl_info=impl("starlette", "1.0", config))

    gunicorn = starlette("gunicorn", 1)  # 100 messages/s
    docs = [starlette("uvicorn", 60), starlette("hypercorn", 50), starlette("daphne", 8),
            gunicorn]  # fmt: skip
    profiles = [_profile(gunicorn, "20261124T020000Z-bbbbbb")]
    results = select(docs)
    findings = findings_of(results, [], profiles)
    (found,) = findings.outliers  # daphne, at 16 % of the median, is within the rule
    assert found.run.impl.config == "gunicorn"
    assert found.outlier.peers_median == approx(5000, rel=1e-3)
    assert [p.impl.config for p in found.peers] == ["daphne", "hypercorn", "uvicorn"]
    assert found.profile is not None and found.profile.doc.run_id == "20261124T020000Z-bbbbbb"

    page = render_findings(findings, results, {})
    (row,) = _table_rows(page, "### Outliers")
    assert row[:8] == [
        "starlette · gunicorn 1.0",
        "Echo",
        "16 B messages, 64 in flight per connection",
        _figure(STABLE),
        "5,000",
        "2.0 %",
        "starlette · daphne 1.0, starlette · hypercorn 1.0, starlette · uvicorn 1.0",
        f"98 % `{UNMASK}`; 2 % `echo (server.py)` "
        "(profile of run `20261124T020000Z-bbbbbb`, native frames)",
    ]
    assert "below 10 % of its peers' median" in page


def test_without_an_outlier_the_section_says_so() -> None:
    docs = [run(_times(f), impl_info=impl("starlette", "1.0", c))
            for c, f in (("uvicorn", 60), ("daphne", 8))]  # fmt: skip
    findings, results = _findings(docs)
    assert findings.outliers == ()
    page = render_findings(findings, results, {})
    assert "None: no configuration is that far below its peers." in page
