"""wsbench.site.home without mkdocs: each question's answer from the shown rows (the preferred
parameter set, the right protocol, best first, ties named, the reference quoted and not
drawn), the cost of Socket.IO against its baseline (the plain WebSocket app on the same
server build, WebSocket backend and event loop, not a faster framework or backend), the
Socket.IO configurations no plain one shares a stack with named, and the page from its
template; wsbench.site.interactive's data elements."""

# The page's typography (en dash in ranges) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from pytest import approx

from tests.deployment_runs import deployment_runs
from tests.python_runs import BASE, FASTER, on, python_results
from tests.runs import ECHO_16_64, benchmark, failed, run
from tests.site_runs import IMPLS, conformance_runs, site_runs
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.results.runformat import Benchmark, Run
from wsbench.site.conformance import graded_of
from wsbench.site.deployment_costs import deployment_of
from wsbench.site.deployment_page import DEPLOYMENT_PAGE
from wsbench.site.findings import Findings, findings_of
from wsbench.site.frameworks import load_frameworks
from wsbench.site.home import (
    DEPLOYMENT_COST,
    FAMILIES,
    HOME_PAGE,
    NEWER_PYTHON,
    SOCKETIO_COST,
    Family,
    answers,
    conformance_answers,
    deployment_cost_answer,
    leaderboard_answer,
    render_home,
    socketio_cost_answer,
)
from wsbench.site.interactive import CHART_CLASS, json_script, rows_script
from wsbench.site.results import Results, select
from wsbench.site.rows import headline_of
from wsbench.site.sweeps import row_label


@pytest.fixture(scope="module")
def results() -> Results:
    return select(site_runs())


@pytest.fixture(scope="module")
def findings(results: Results) -> Findings:
    return findings_of(results, load_frameworks(IMPLS))


def family(slug: str) -> Family:
    return next(f for f in FAMILIES if f.slug == slug)


def expected_order(results: Results, fam: Family, params: object) -> list[str]:
    """The family's configurations best first, computed here from the rows themselves."""
    metric = headline_of(fam.scenario)
    found = [
        (row.summary(metric).value, row_label(run))  # type: ignore[union-attr]
        for run in results.runs
        for row in run.rows
        if row.scenario == fam.scenario
        and row.params == params
        and row.ok
        and not run.impl.reference
        and (fam.protocol is None or run.socketio == (fam.protocol == "socketio"))
    ]
    sign = -1 if metric.higher_is_better else 1
    return [label for _, label in sorted(found, key=lambda t: sign * t[0])]


def test_the_fastest_websocket_server_is_the_best_websocket_row_of_echo_16_by_64(
    results: Results,
) -> None:
    fam = family("websocket")
    answer = leaderboard_answer(fam, results, results.machines[0])
    assert answer is not None
    assert answer.params == (("size_bytes", 16), ("in_flight", 64))
    labels = [s.label for s in answer.chart.series]
    assert labels == expected_order(results, fam, answer.params)
    assert not any(s.socketio or s.reference for s in answer.chart.series)
    assert answer.link == "leaderboards/echo.md#16-b-messages-64-in-flight-per-connection"
    # The leader, its interval, the row tied with it (overlapping intervals), the reference
    # quoted for scale.
    assert answer.sentence.startswith(f"**{labels[0]}**: 49,996 messages/s (95 % interval")
    assert f"not significantly different (overlapping intervals): {labels[1]}." in (answer.sentence)
    assert "The native reference server (Rust, not drawn: for scale): 99,992 messages/s." in (
        answer.sentence
    )


def test_the_socketio_question_shows_only_socketio_servers(results: Results) -> None:
    answer = leaderboard_answer(family("socketio"), results, results.machines[0])
    assert answer is not None
    assert answer.chart.series and all(s.socketio for s in answer.chart.series)
    assert [s.points[0].value for s in answer.chart.series] == approx(
        [12_500.0, 10_000.0], rel=1e-3
    )


def test_memory_ranks_lowest_first_in_kib(results: Results) -> None:
    fam = family("memory")
    answer = leaderboard_answer(fam, results, results.machines[0])
    assert answer is not None
    values = [s.points[0].value or 0.0 for s in answer.chart.series]
    assert values == sorted(values) and values[0] == approx(20.0, rel=1e-3)  # KiB
    assert "lower is better" in answer.sentence


def test_a_family_without_its_preferred_set_shows_the_most_measured_one(
    results: Results,
) -> None:
    fam = replace(family("websocket"), prefer=(("size_bytes", 7),))
    answer = leaderboard_answer(fam, results, results.machines[0])
    assert answer is not None
    counts: dict[object, int] = {}
    for shown in results.runs:
        for row in shown.rows:
            if row.scenario == "echo" and row.ok and not shown.socketio:
                counts[row.params] = counts.get(row.params, 0) + 1
    assert counts[answer.params] == max(counts.values())
    assert leaderboard_answer(replace(fam, scenario="soak"), results, "no such machine") is None


ROOT = Path(__file__).resolve().parents[2]
SPREAD = (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)
"""Six windows (3 server processes x 2) around a rate."""


def _doc(impls: Path, name: str, config: str, version: str, rate: float) -> Run:
    found = load_impl(impls / name)
    info = impl_info(found, found.config(config), version)
    return run([rate * f for f in SPREAD], impl_info=info)


def test_the_cost_of_socketio_is_against_the_plain_app_on_the_same_stack() -> None:
    # The repository's metadata, the figures of the run issue 41 quotes: python-socketio
    # 5.18.1 runs uvicorn 0.54's default backend, websockets-sansio, on asyncio. Its baseline
    # is Starlette on exactly that (12 %), not BlackSheep, a faster framework on uvicorn's
    # unnamed default (8 %), nor Starlette on another backend. Flask-SocketIO's three
    # servers have no plain WebSocket configuration on them: named, with why.
    impls = ROOT / "impls"
    docs = [
        _doc(impls, "python-socketio", "asyncio", "5.18.1", 5_760.0),
        _doc(impls, "starlette", "websockets-sansio-asyncio", "1.10.0", 48_028.0),
        _doc(impls, "starlette", "websockets-asyncio", "1.10.0", 60_000.0),
        _doc(impls, "starlette", "websockets-sansio-uvloop", "1.10.0", 70_000.0),
        _doc(impls, "blacksheep", "uvicorn-asyncio", "2.6.4", 72_000.0),
        _doc(impls, "fastapi", "uvicorn-asyncio", "0.165.0", 40_000.0),
        _doc(impls, "flask-socketio", "threading", "5.7.0", 3_000.0),
        _doc(impls, "flask-socketio", "eventlet", "5.7.0", 4_000.0),
        _doc(impls, "flask-socketio", "gevent", "5.7.0", 3_500.0),
        _doc(impls, "native", "socketio", "0.1.0", 20_000.0),
        _doc(impls, "native", "websocket", "0.1.0", 100_000.0),
    ]
    results = select(docs)
    findings = findings_of(results, load_frameworks(impls))
    answer = socketio_cost_answer(family(SOCKETIO_COST), results, results.machines[0], findings)
    assert answer is not None
    (bar,) = answer.chart.series
    assert bar.label == (
        "python-socketio 5.18.1 over Starlette 1.10.0 · uvicorn 0.54 · websockets-sansio · asyncio"
    )
    assert (bar.config, bar.version, bar.socketio) == ("asyncio", "5.18.1", True)
    assert bar.points[0].value == pytest.approx(100 * 5_760 / 48_028)
    low, high = bar.points[0].interval or (0.0, 0.0)
    assert low < 100 * 5_760 / 48_028 < high  # the 95 % interval of the ratio
    assert answer.sentence.startswith(
        "Socket.IO keeps **12 %** of plain WebSocket's throughput on the same server, "
        "WebSocket backend and event loop (1 Socket.IO configuration, 16 B messages, 64 in "
        "flight per connection)"
    )
    assert "with no framework in between: here Starlette 1.10.0." in answer.sentence
    assert (
        " Not compared, as no plain WebSocket configuration shares their stack: "
        "Flask-SocketIO · eventlet 5.7.0 (none runs on eventlet), Flask-SocketIO · gevent · "
        "gevent-websocket 5.7.0 (none runs on gevent) and Flask-SocketIO · werkzeug 3.1 · "
        "simple-websocket · threading 5.7.0 (none runs on werkzeug)."
    ) in answer.sentence
    assert "The native reference server keeps 20 % with its own Socket.IO" in answer.sentence
    # On the page: the answer first, then its chart (one bar) and data.
    files = render_home(results, findings)
    page = str(files[HOME_PAGE])
    section = page[page.index("## The cost of Socket.IO") :]
    assert section.index("Socket.IO keeps **12 %**") < section.index("(home/socketio-cost.svg)")
    data = json.loads(files["home/socketio-cost.json"])
    assert [s["label"] for s in data["series"]] == [bar.label]


META = """
shipped_compression = "declines: (fixture)"
tls = "not supported: (fixture)"
workers = "not supported: (fixture)"
name = "{name}"
package = "{name}"
protocol = "{protocol}"
server = "uvicorn"
versions = [{{ version = "1.0", requires = [{requires}]{version_backend} }}]
[[configurations]]
id = "asyncio"
ws_backend = "{backend}"
event_loop = "asyncio"
"""


def _impl(root: Path, name: str, protocol: str = "websocket", **keys: str) -> None:
    """``root/name/meta.toml``: ``name`` 1.0 on uvicorn 0.54.0 on asyncio (configuration
    ``asyncio``); ``backend``: the configuration's WebSocket backend; ``version_backend``:
    the one the version names; ``requires``: more pins."""
    pins = ", ".join(f'"{p}"' for p in ("uvicorn==0.54.0", *keys.get("requires", "").split()))
    named = keys.get("version_backend")
    (root / name).mkdir()
    (root / name / "meta.toml").write_text(
        META.format(
            name=name,
            protocol=protocol,
            requires=pins,
            backend=keys.get("backend", ""),
            version_backend=f', ws_backend = "{named}"' if named else "",
        )
    )


def test_the_cost_of_socketio_is_one_bar_per_socketio_configuration_against_its_baseline(
    tmp_path: Path,
) -> None:
    # Two Socket.IO servers on one uvicorn build and backend: each gets one bar, against
    # the same baseline, the toolkit the other framework builds on (25 % and 50 % of
    # 20,000), not the faster framework on the same stack (40,000) nor the fastest
    # configuration on another backend (80,000).
    _impl(tmp_path, "sio", "socketio", version_backend="websockets-sansio")
    _impl(tmp_path, "sio2", "socketio", backend="websockets-sansio")
    _impl(tmp_path, "toolkit", backend="websockets-sansio")
    _impl(tmp_path, "fast", backend="websockets-sansio", requires="toolkit==1.0")
    _impl(tmp_path, "wsproto", backend="wsproto")
    rates = {"sio": 5_000.0, "sio2": 10_000.0, "toolkit": 20_000.0, "fast": 40_000.0}
    docs = [_doc(tmp_path, name, "asyncio", "1.0", rate) for name, rate in rates.items()]
    docs.append(_doc(tmp_path, "wsproto", "asyncio", "1.0", 80_000.0))
    results = select(docs)
    findings = findings_of(results, load_frameworks(tmp_path))
    assert len(findings.pairings) == 4  # each Socket.IO server with both on its stack
    answer = socketio_cost_answer(family(SOCKETIO_COST), results, results.machines[0], findings)
    assert answer is not None
    assert [s.label for s in answer.chart.series] == [
        "sio2 1.0 over toolkit 1.0 · uvicorn 0.54 · websockets-sansio · asyncio",
        "sio 1.0 over toolkit 1.0 · uvicorn 0.54 · websockets-sansio · asyncio",
    ]
    assert [s.points[0].value for s in answer.chart.series] == approx([50.0, 25.0])
    assert answer.sentence.startswith(
        "Socket.IO keeps **25–50 %** of plain WebSocket's throughput on the same server, "
        "WebSocket backend and event loop (2 Socket.IO configurations,"
    )
    assert "with no framework in between: here toolkit 1.0." in answer.sentence
    assert "Not compared" not in answer.sentence


def test_a_socketio_configuration_whose_baseline_has_no_figure_there_is_named(
    tmp_path: Path,
) -> None:
    # sio2's baseline failed at echo 16 B x 64 (it measured 1 KiB): sio2 gets no bar there,
    # and the sentence says so rather than drop it.
    for name, protocol, backend in (
        ("sio", "socketio", "websockets"),
        ("plain", "websocket", "websockets"),
        ("sio2", "socketio", "wsproto"),
        ("plain2", "websocket", "wsproto"),
    ):
        _impl(tmp_path, name, protocol, backend=backend)
    kib: dict[str, int] = {"size_bytes": 1024, "in_flight": 64}

    def doc(name: str, benchmarks: list[Benchmark]) -> Run:
        found = load_impl(tmp_path / name)
        info = impl_info(found, found.config("asyncio"), "1.0")
        return run([], impl_info=info, benchmarks=benchmarks)

    docs = [
        _doc(tmp_path, "sio", "asyncio", "1.0", 5_000.0),
        _doc(tmp_path, "plain", "asyncio", "1.0", 20_000.0),
        doc("sio2", [benchmark("echo", params, [9_000.0 * f for f in SPREAD])
                     for params in (ECHO_16_64, kib)]),
        doc("plain2", [failed("echo", ECHO_16_64, "boom"),
                       benchmark("echo", kib, [30_000.0 * f for f in SPREAD])]),
    ]  # fmt: skip
    results = select(docs)
    findings = findings_of(results, load_frameworks(tmp_path))
    answer = socketio_cost_answer(family(SOCKETIO_COST), results, results.machines[0], findings)
    assert answer is not None
    assert [s.label for s in answer.chart.series] == [
        "sio 1.0 over plain 1.0 · uvicorn 0.54 · websockets · asyncio"
    ]
    assert answer.sentence.endswith(
        " Not compared here, their baseline having no figure: sio2 · uvicorn 0.54 · wsproto · "
        "asyncio 1.0 (against plain2 · uvicorn 0.54 · wsproto · asyncio 1.0)."
    )


def test_the_home_page_from_its_template(results: Results, findings: Findings) -> None:
    files = render_home(results, findings)
    page = files[HOME_PAGE]
    assert isinstance(page, str)
    found = answers(results, findings)
    # One section per answer, in FAMILIES order, each with its chart, data and link.
    titles = re.findall(r"^## (.+?) \{ #", page, flags=re.M)
    assert titles == [a.family.title for a in found]
    for answer in found:
        slug = answer.family.slug
        assert f"home/{slug}.svg" in files and f"home/{slug}.json" in files
        assert f"]({answer.link})" in page
        data = json.loads(files[f"home/{slug}.json"])
        assert [s["label"] for s in data["series"]] == [s.label for s in answer.chart.series]
    assert page.count(f'class="{CHART_CLASS}"') == len(found)
    assert "## How to read it" in page


def test_an_empty_store_home_page_says_so() -> None:
    files = render_home(Results(), Findings())
    assert list(files) == [HOME_PAGE]
    assert "No results yet" in str(files[HOME_PAGE])


def test_data_elements_cannot_end_early_and_carry_facets(results: Results) -> None:
    text = json_script(CHART_CLASS, {"label": "</script><b>"})
    assert "</script><b>" not in text.removesuffix("</script>\n\n")
    payload = text.split(">", 1)[1].rsplit("</script>", 1)[0]
    assert json.loads(payload) == {"label": "</script><b>"}
    rows = rows_script(results.runs[:2])
    data = json.loads(rows.split(">", 1)[1].rsplit("</script>", 1)[0])
    assert [r["server"] for r in data] == [r.impl.server for r in results.runs[:2]]
    assert [r["reference"] for r in data] == [r.impl.reference for r in results.runs[:2]]


def test_the_fastest_websocket_servers_are_graded_from_the_ranking(
    results: Results, findings: Findings
) -> None:
    found = answers(results, findings)
    websocket = next(a for a in found if a.family.slug == "websocket")
    assert [r.label for r in websocket.ranked][:2] == [
        "aiohttp · asyncio",
        "Starlette · uvicorn 0.54 · websockets · uvloop",
    ]
    assert all(not r.impl.reference for r in websocket.ranked)
    grades = graded_of(conformance_runs())
    answered = conformance_answers(found, grades)
    assert [a["machine"] for a in answered] == ["wsbench-ci"]  # the WebSocket family only
    page = render_home(results, findings, grades)[HOME_PAGE]
    assert isinstance(page, str)
    assert page.index("## The fastest WebSocket server") < page.index("## Fast and conformant")
    assert page.index("## Fast and conformant") < page.index("## The fastest Socket.IO server")
    # Nothing graded yet: no question asked, and no row says "not graded".
    assert conformance_answers(found, graded_of(())) == []
    assert "Fast and conformant" not in str(render_home(results, findings)[HOME_PAGE])


def test_the_cost_of_compression_and_tls_from_the_deployment_costs() -> None:
    # The documents of tests/deployment_runs.py: the answer is the page's, the bars the
    # messages/s as shipped as a share of tuned of the Python configurations that agreed to
    # compression (those that declined send uncompressed), the most kept first.
    shown = select(deployment_runs())
    costs = deployment_of(shown)
    fam = family(DEPLOYMENT_COST)
    assert fam.question == "What do compression and TLS cost?"
    answer = deployment_cost_answer(fam, costs, shown.machines[0])
    assert answer is not None
    assert answer.sentence.startswith("\n\n".join(costs.answer_of(shown.machines[0])))
    assert answer.sentence.endswith(
        "Each bar: a Python configuration that agreed to compression, its messages/s as "
        "shipped as a share of its tuned messages/s (Echo, 1,024 B messages, the JSON corpus, "
        "64 in flight per connection), with the 99 % interval of the ratio."
    )
    assert [s.label for s in answer.chart.series] == [
        "Starlette · uvicorn 0.54 · websockets · uvloop 1.10.0",
        "aiohttp · asyncio 3.13.2",
        "websockets · asyncio 15.0.1",
    ]
    shares = [s.points[0].value for s in answer.chart.series]
    assert shares == approx([80.0, 60.0, 40.0])
    low, high = answer.chart.series[-1].points[0].interval or (0.0, 0.0)
    assert (low, high) == approx((37.8, 42.3), abs=0.05)  # the page's 0.38 to 0.42
    assert answer.link == (
        f"{DEPLOYMENT_PAGE}#echo-1024-b-messages-the-json-corpus-64-in-flight-per-connection-"
        "as-shipped"
    )
    # One computation: the home page given the costs quotes them; its tooltips say 99 %.
    files = render_home(shown, findings_of(shown, load_frameworks(IMPLS)), None, costs)
    page = str(files[HOME_PAGE])
    assert "[Every configuration and set: What your deployment costs](deployment.md#echo-" in page
    data = json.loads(files["home/deployment-cost.json"])
    assert data["statistics"]["confidence_percent"] == "99"
    assert json.loads(files["home/memory.json"])["statistics"]["confidence_percent"] == "95"


def test_without_another_profile_the_cost_of_compression_is_not_answered() -> None:
    results = select([run([100.0, 101.0, 99.0, 100.5, 99.5, 100.0])])
    findings = findings_of(results, load_frameworks(IMPLS))
    assert DEPLOYMENT_COST not in {a.family.slug for a in answers(results, findings)}
    page = str(render_home(results, findings)[HOME_PAGE])
    assert "The cost of compression and TLS" in page.split("Not answered here", 1)[1]


CRASHED = failed("echo", ECHO_16_64, "the server crashed")


def test_the_home_page_asks_whether_a_newer_python_is_faster() -> None:
    results = python_results(on("3.11", BASE), on("3.13", FASTER),
                       on("3.11", BASE, name="aiohttp"), on("3.13", BASE, name="aiohttp"),
                       on("3.11", BASE, name="picows"),
                       on("3.13", [], name="picows", benchmarks=[CRASHED]))  # fmt: skip
    (answer,) = [a for a in answers(results, Findings()) if a.family.slug == NEWER_PYTHON]
    assert answer.family.question == "Does a newer Python make it faster?"
    assert [s.label for s in answer.chart.series] == ["websockets · asyncio 17.4",
                                                      "aiohttp · asyncio 17.4"]  # fmt: skip
    (point,) = answer.chart.series[0].points
    assert point.value == pytest.approx(130.0)
    assert point.interval is not None and point.interval[0] < 130.0 < point.interval[1]
    assert "On Python **3.13**, of the 2 configurations" in answer.sentence
    assert "**1** answer significantly more" in answer.sentence
    assert "**0** significantly fewer" in answer.sentence
    assert "Not compared: picows · asyncio (on Python 3.13: the server crashed)" in answer.sentence
    home = render_home(results, Findings())["index.md"]
    assert isinstance(home, str) and "Does a newer Python make it faster?" in home


def test_without_another_python_the_home_page_does_not_answer_it() -> None:
    found = answers(python_results(on("3.11", BASE)), Findings())
    assert NEWER_PYTHON not in {a.family.slug for a in found}
