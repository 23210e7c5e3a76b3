"""wsbench.site.home without mkdocs: each question's answer from the shown rows (the preferred
parameter set, the right protocol, best first, ties named, the reference quoted and not
drawn), the cost of Socket.IO against the fastest WebSocket configuration on the same
server, and the page from its template; wsbench.site.interactive's data elements."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.runs import run
from tests.site_runs import IMPLS, REFERENCE_META, site_runs
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.site.findings import Findings, findings_of
from wsbench.site.frameworks import load_frameworks
from wsbench.site.home import (
    FAMILIES,
    HOME_PAGE,
    SOCKETIO_COST,
    Family,
    answers,
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
        (row.summary(metric).median, row_label(run))  # type: ignore[union-attr]
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
    assert answer.sentence.startswith(f"**{labels[0]}**: 50,000 messages/s (95 % interval")
    assert f"not significantly different (overlapping intervals): {labels[1]}." in (answer.sentence)
    assert "The native reference server (Rust, not drawn: for scale): 100,000 messages/s." in (
        answer.sentence
    )


def test_the_socketio_question_shows_only_socketio_servers(results: Results) -> None:
    answer = leaderboard_answer(family("socketio"), results, results.machines[0])
    assert answer is not None
    assert answer.chart.series and all(s.socketio for s in answer.chart.series)
    assert [s.points[0].value for s in answer.chart.series] == [12_500.0, 10_000.0]


def test_memory_ranks_lowest_first_in_kib(results: Results) -> None:
    fam = family("memory")
    answer = leaderboard_answer(fam, results, results.machines[0])
    assert answer is not None
    values = [s.points[0].value or 0.0 for s in answer.chart.series]
    assert values == sorted(values) and values[0] == 20.0  # KiB
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


META = """
name = "{name}"
package = "{name}"
protocol = "{protocol}"
server = "uvicorn"
versions = [{{ version = "1.0", requires = ["uvicorn==0.54.0"] }}]
[[configurations]]
id = "websockets-asyncio"
ws_backend = "websockets"
event_loop = "asyncio"
"""


def test_the_cost_of_socketio_is_one_bar_per_socketio_configuration(tmp_path: Path) -> None:
    # One Socket.IO server and two WebSocket frameworks on the same uvicorn build: the bar
    # is the Socket.IO figure over the faster WebSocket one (25 % of 40,000, not 50 % of
    # 20,000).
    rates = {"sio": 10_000.0, "slow": 20_000.0, "fast": 40_000.0}
    docs = []
    for name, rate in rates.items():
        folder = tmp_path / name
        folder.mkdir()
        protocol = "socketio" if name == "sio" else "websocket"
        (folder / "meta.toml").write_text(META.format(name=name, protocol=protocol))
        found = load_impl(folder)
        info = impl_info(found, found.config("websockets-asyncio"), "1.0")
        docs.append(run([rate * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)], impl_info=info))
    # The reference's own pair (20 %) is quoted, not drawn.
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "meta.toml").write_text(REFERENCE_META)
    ref = load_impl(tmp_path / "ref")
    for config, rate in (("socketio", 20_000.0), ("websocket", 100_000.0)):
        info = impl_info(ref, ref.config(config), "0.1.0")
        docs.append(run([rate * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)], impl_info=info))
    results = select(docs)
    pairs = findings_of(results, load_frameworks(tmp_path)).pairings
    assert len(pairs) == 3
    answer = socketio_cost_answer(family(SOCKETIO_COST), results, results.machines[0], pairs)
    assert answer is not None
    (bar,) = answer.chart.series
    assert bar.label == "sio over fast · uvicorn 0.54 · websockets · asyncio"
    assert bar.points[0].value == pytest.approx(25.0)
    assert "Socket.IO keeps **25 %** of the plain WebSocket throughput" in answer.sentence
    assert "The native reference server keeps 20 % with its own Socket.IO" in answer.sentence


def test_the_home_page_from_its_template(results: Results, findings: Findings) -> None:
    files = render_home(results, findings.pairings)
    page = files[HOME_PAGE]
    assert isinstance(page, str)
    found = answers(results, findings.pairings)
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
    files = render_home(Results(), [])
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
