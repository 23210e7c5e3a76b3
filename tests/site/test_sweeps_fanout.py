"""The site's fan-out and fixed-offered-load pages without mkdocs: delivery latency against
the number of subscribers, latency against the offered load (each row at the load it
achieved, failed rows listed, not drawn), each row's slow-subscriber policy, and the
order round-trip table beside the published study's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.runs import failed, impl, run
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.results.runformat import Benchmark, ImplInfo, Latency, Run, Sample
from wsbench.site.markup import cell
from wsbench.site.render import POLICY_HEADER, render_leaderboard_page
from wsbench.site.results import Results, select
from wsbench.site.studies import StudiesError, Study, load_studies, round_trip_table
from wsbench.site.sweeps import OFFERED_FIGURES, OFFERED_LOAD, SUBSCRIBERS, sweep_charts

ROOT = Path(__file__).resolve().parents[2]
WAITS = "waits: each send is awaited in turn"
BUFFERS = "buffers: write_message() is not awaited"


def latency(p50: float, *, mean: float | None = None) -> Latency:
    """Percentiles around ``p50`` seconds (p99 = 2 x p50), with mean/min/stdev."""
    return Latency(
        p50=p50, p90=1.5 * p50, p99=2 * p50, p99_9=3 * p50, max=4 * p50,
        mean=mean if mean is not None else 1.1 * p50, min=0.5 * p50, stdev=0.3 * p50,
    )  # fmt: skip


def fanout_sample(i: int, delivery_s: float, **extra: object) -> Sample:
    """One ok window (``i``: process i // 2, window i % 2) with delivery latency p50
    ``delivery_s``."""
    fields: dict[str, object] = {
        "messages_per_s": 1000.0, "bytes_per_s": 16000.0, "messages_received": 1000,
        "window_s": 1.0, "latency_s": latency(delivery_s), "server_cpu_percent": 50.0,
        "server_rss_bytes": 20_000_000, "loadgen_cpu_percent": 30.0,
        "other_cpu_percent": 1.0, "steal_percent": 0.0,
    }  # fmt: skip
    fields.update(extra)
    return Sample(process=i // 2, window=i % 2, status="ok", **fields)  # type: ignore[arg-type]


def fanout(scenario: str, params: dict[str, int], delivery_s: float, **extra: object) -> Benchmark:
    """An ok benchmark of 4 identical windows."""
    samples = [fanout_sample(i, delivery_s, **extra) for i in range(4)]
    return Benchmark(scenario=scenario, params=params, status="ok", error=None, samples=samples)


def with_policy(info: ImplInfo, text: str) -> ImplInfo:
    return ImplInfo(**{**{f: getattr(info, f) for f in info.__struct_fields__},
                       "slow_subscriber": text})  # fmt: skip


AIOHTTP = with_policy(impl("aiohttp", "3.13.2", "asyncio"), WAITS)
TORNADO = with_policy(impl("tornado", "6.5", "asyncio"), BUFFERS)


def broadcast(subs: int, rate: int, delivery_s: float) -> Benchmark:
    return fanout(
        "broadcast", {"subscribers": subs, "rate": rate, "size_bytes": 16}, delivery_s,
        last_delivery_s=latency(2 * delivery_s), published_per_s=100.0,
    )  # fmt: skip


def market(subs: int, rate: int, round_trip_ms: float) -> Benchmark:
    rt = round_trip_ms * 1e-3
    return fanout(
        "market", {"subscribers": subs, "rate": rate}, rt / 2,
        order_round_trip_s=latency(rt, mean=rt), orders_per_s=float(subs * rate),
    )  # fmt: skip


def offered(rate: int, load_percent: int, offered_per_s: float, p99_s: float) -> Benchmark:
    return fanout(
        "offered", {"rate": rate, "load_percent": load_percent}, p99_s / 2,
        offered_per_s=offered_per_s,
    )  # fmt: skip


def runs() -> list[Run]:
    aiohttp = [
        broadcast(1, 0, 100e-6), broadcast(10, 0, 200e-6), broadcast(100, 0, 900e-6),
        market(1, 100, 0.5), market(10, 100, 0.8),
        offered(1000, 0, 1000.0, 100e-6), offered(0, 50, 20_000.0, 400e-6),
        offered(0, 90, 36_000.0, 3e-3),
    ]  # fmt: skip
    tornado = [
        broadcast(1, 0, 300e-6), broadcast(100, 0, 5e-3),
        market(1, 100, 9.0),
        offered(1000, 0, 1000.0, 300e-6),
        failed("offered", {"rate": 0, "load_percent": 90}, "server exited with code 1"),
    ]  # fmt: skip
    return [
        run([], impl_info=AIOHTTP, benchmarks=aiohttp),
        run([], impl_info=TORNADO, benchmarks=tornado),
    ]


@pytest.fixture(scope="module")
def results() -> Results:
    return select(runs())


def test_broadcast_charts_delivery_latency_against_subscribers(results: Results) -> None:
    page = render_leaderboard_page("broadcast", results, studies=())
    assert "Delivery latency and deliveries against the number of subscribers" in page.markdown
    name = "leaderboards/broadcast/rate-0-size-bytes-16-delivery-p99.json"
    data = json.loads(page.files[name])
    assert data["title"] == (
        "Delivery latency p99 against subscribers, 16 B messages, as fast as delivered · Tuned"
    )
    assert data["x"] == {
        "parameter": "subscribers", "label": "subscribers", "measured": False, "log": True,
        "values": [1, 10, 100],
    }  # fmt: skip
    # p99 = 2 x p50, in µs.
    by_label = {s["label"]: [(p["x"], p["y"]) for p in s["points"]] for s in data["series"]}
    assert by_label["aiohttp · asyncio 3.13.2"] == [
        (1, pytest.approx(200.0)), (10, pytest.approx(400.0)), (100, pytest.approx(1800.0)),
    ]  # fmt: skip
    assert by_label["tornado · asyncio 6.5"] == [
        (1, pytest.approx(600.0)), (100, pytest.approx(10_000.0)),
    ]  # fmt: skip
    assert page.files[name.replace(".json", ".svg")].startswith(b"<?xml")
    last = json.loads(page.files[name.replace("delivery-p99", "last-delivery-p99")])
    assert last["series"][0]["points"][0]["y"] == pytest.approx(400.0)


def test_offered_load_curves_place_each_row_at_the_load_it_achieved(results: Results) -> None:
    charts = sweep_charts("offered", results.runs, OFFERED_FIGURES, x=OFFERED_LOAD)
    assert [c.figure.slug for c in charts] == ["latency-p50", "latency-p99", "latency-p99-9"]
    p99 = charts[1]
    assert p99.title == "Latency p99 (from the intended send) against offered messages/s · Tuned"
    assert p99.group == ()
    assert p99.xs == (1000.0, 20_000.0, 36_000.0)
    aiohttp, tornado = p99.series
    assert [(p.x, p.at) for p in aiohttp.points] == [
        (1000.0, "1,000 messages/s"), (20_000.0, "50% of capacity"),
        (36_000.0, "90% of capacity"),
    ]  # fmt: skip
    assert [p.value for p in aiohttp.points] == pytest.approx([100.0, 400.0, 3000.0])
    # The failed row has no measured load: last, without x, listed under the chart.
    assert [(p.x, p.status) for p in tornado.points] == [(1000.0, "ok"), (None, "failed")]
    page = render_leaderboard_page("offered", results, studies=())
    assert "Latency against offered load" in page.markdown
    assert "- ✕ tornado · asyncio 6.5 at 90% of capacity: server exited with code 1" in (
        page.markdown
    )
    data = json.loads(page.files["leaderboards/offered/latency-p99.json"])
    assert data["x"]["parameter"] == "offered_per_s" and data["x"]["measured"] is True
    assert data["series"][1]["points"][1] == {
        "x": None, "at": "90% of capacity", "y": None, "interval": None, "status": "failed",
        "error": "server exited with code 1", "unstable": False, "client_bound": False,
        "run_id": data["series"][1]["points"][0]["run_id"],
    }  # fmt: skip
    assert page.files["leaderboards/offered/latency-p99.svg"].startswith(b"<?xml")


def test_market_charts_against_clients_per_tick_rate(results: Results) -> None:
    charts = sweep_charts("market", results.runs, (OFFERED_FIGURES[0],), x=SUBSCRIBERS)
    assert [c.group for c in charts] == [(("rate", 100),)]
    assert charts[0].xs == (1, 10)


def test_fan_out_tables_show_each_rows_slow_subscriber_policy(results: Results) -> None:
    page = render_leaderboard_page("broadcast", results, studies=()).markdown
    header = next(line for line in page.splitlines() if line.startswith("| Rank"))
    assert header.split(" | ")[:4] == ["| Rank", "Framework", "Version", POLICY_HEADER]
    rows = [line for line in page.splitlines() if "aiohttp · asyncio" in line and "| " in line]
    assert rows and all(" | waits | " in line for line in rows)
    assert f"- **aiohttp** {WAITS}" in page
    assert f"- **tornado** {cell(BUFFERS)}" in page
    echo = render_leaderboard_page("market", results, studies=()).markdown
    assert POLICY_HEADER in echo
    assert POLICY_HEADER not in render_leaderboard_page("offered", results, studies=()).markdown


def test_a_run_records_its_implementations_slow_subscriber_policy() -> None:
    websockets = load_impl(ROOT / "impls" / "websockets")
    info = impl_info(websockets, websockets.configs[0], websockets.versions[-1].version)
    assert info.slow_subscriber == websockets.slow_subscriber
    assert info.slow_subscriber.startswith("buffers:")


def test_the_study_table_puts_ours_under_its_rows_lowest_mean_first(results: Results) -> None:
    (study,) = load_studies()
    assert study.scenario == "market" and dict(study.params) == {"subscribers": 1, "rate": 100}
    table = round_trip_table(study, results.runs).splitlines()
    assert table[0].startswith("| Server | Client | Figures from | Avg (ms) | Max (ms)")
    assert table[2] == "| websockets | websockets | the study | 0.64 | 1.03 | 0.39 | 0.12 | — |"
    assert table[4] == "| Tornado | Tornado | the study | 9.59 | 59.37 | 0.13 | 18.97 | — |"
    # Ours at 1 client, 100 ticks/s: mean, max = 4 x p50, min = p50 / 2, stdev, p99 = 2 x p50.
    assert table[6:] == [
        "| aiohttp · asyncio 3.13.2 | wsbench-loadgen | wsbench | 0.50 | 2.00 | 0.25 | 0.15 | "
        "1.00 |",
        "| tornado · asyncio 6.5 | wsbench-loadgen | wsbench | 9.00 | 36.00 | 4.50 | 2.70 | "
        "18.00 |",
    ]
    page = render_leaderboard_page("market", results).markdown
    assert "Order round trips beside the Python Websockets Benchmark study" in page
    assert "No shown run measured" not in page


def test_without_our_closest_set_the_study_section_says_so() -> None:
    only_ten = select([run([], impl_info=AIOHTTP, benchmarks=[market(10, 100, 0.8)])])
    page = render_leaderboard_page("market", only_ten).markdown
    assert "No shown run measured 1 subscriber, 100 messages/s." in page


def test_a_malformed_studies_file_names_itself(tmp_path: Path) -> None:
    bad = tmp_path / "studies.toml"
    bad.write_text('[[studies]]\nid = "x"\ntitle = 3\n')
    with pytest.raises(StudiesError, match=str(bad)):
        load_studies(bad)
    assert isinstance(load_studies()[0], Study)
