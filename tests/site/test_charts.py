"""Framework pages' charts: the headline figures against the version, one line per
configuration with whiskers from the 95 % intervals, significant release-to-release changes
written on the chart, failures marked; the SVG is deterministic and labels its versions."""

from __future__ import annotations

import dataclasses
import re
import statistics

import msgspec
import pytest

from tests.site_runs import CURRENT, IMPLS, site_runs
from wsbench.results import stats
from wsbench.site.charts import render_svg
from wsbench.site.frameworks import Framework, load_frameworks
from wsbench.site.headline import HEADLINES, Chart, chart, version_axis
from wsbench.site.results import EnvRun, select

ECHO_16B_64 = next(h for h in HEADLINES if h.slug == "echo-throughput-16b")
SPREAD = (0.98, 0.99, 0.999, 1.001, 1.01, 1.02)
GEOMEAN = statistics.geometric_mean(SPREAD)
"""A figure over the fixture's 3 processes of 2 windows: its rate times this (the geometric
mean of the processes' geometric means is that of the 6 windows)."""
BY_PROCESS = [SPREAD[0:2], SPREAD[2:4], SPREAD[4:6]]


@pytest.fixture(scope="module")
def starlette() -> tuple[Framework, list[EnvRun]]:
    framework = next(f for f in load_frameworks(IMPLS) if f.name == "starlette")
    results = select(site_runs())
    return framework, [r for r in results.runs if r.impl.name == "starlette"]


def test_one_line_per_configuration_in_meta_toml_order(
    starlette: tuple[Framework, list[EnvRun]],
) -> None:
    framework, runs = starlette
    c = chart(framework, runs, ECHO_16B_64)
    assert c.versions == ("0.37.2", "0.46.2", "1.10.0")
    assert [line.label for line in c.lines] == [
        "websockets-asyncio",
        "websockets-uvloop",
        "wsproto-asyncio",
    ]
    asyncio, uvloop, wsproto = c.lines
    assert [p.version for p in asyncio.points] == ["0.37.2", "0.46.2", "1.10.0"]
    assert [p.value for p in asyncio.points] == pytest.approx(
        [20_000 * GEOMEAN, 25_000 * GEOMEAN, 25_400 * GEOMEAN]
    )
    # Each point has its interval (the whiskers) and the samples it was compared with.
    expected = stats.summarize([[20_000 * f for f in g] for g in BY_PROCESS])
    assert asyncio.points[0].interval == expected.interval
    assert asyncio.points[0].samples == pytest.approx([20_000 * f for f in SPREAD])
    assert {p.run_id for p in asyncio.points} == {CURRENT}
    assert [p.version for p in wsproto.points] == ["1.10.0"]
    assert wsproto.points[0].unstable and not asyncio.points[0].unstable
    # The install failure is a failed point with its reason; 1.10.0 was client-bound.
    failed = uvloop.points[0]
    assert (failed.version, failed.status, failed.value) == ("0.37.2", "failed", None)
    assert (failed.error or "").startswith("does not install: 'uv pip install starlette==0.37.2")
    assert [p.client_bound for p in uvloop.points] == [False, False, True]
    assert c.failed == [(uvloop, failed)]


def test_only_significant_changes_between_consecutive_releases(
    starlette: tuple[Framework, list[EnvRun]],
) -> None:
    framework, runs = starlette
    asyncio, uvloop, wsproto = chart(framework, runs, ECHO_16B_64).lines
    # +25 % is significant; 25,000 -> 25,400 (+1.6 %) is not.
    assert [(c.base, c.head, c.percent) for c in asyncio.changes] == [("0.37.2", "0.46.2", "+25 %")]
    # The failed 0.37.2 is skipped: 0.46.2 -> 1.10.0 only.
    assert [(c.base, c.head, c.percent) for c in uvloop.changes] == [("0.46.2", "1.10.0", "+25 %")]
    assert wsproto.changes == ()
    change = asyncio.changes[0].comparison
    assert change.significant and change.p_value < stats.ALPHA
    # Lower is better: a drop of latency is reported as such.
    latency = chart(framework, runs, HEADLINES[0]).lines[0].changes
    assert [c.percent for c in latency] == ["\u221220 %"]
    assert latency[0].comparison.verdict == "faster"


def test_units_of_the_headline_figures(starlette: tuple[Framework, list[EnvRun]]) -> None:
    framework, runs = starlette
    by_slug = {h.slug: chart(framework, runs, h) for h in HEADLINES}
    first = {slug: c.lines[0].points[0].value for slug, c in by_slug.items()}
    assert first["echo-latency-p50-16b"] == pytest.approx(50.0, rel=1e-4)  # µs
    assert first["echo-throughput-64kib"] == pytest.approx(20_000 * GEOMEAN * 65536 / 1e6)  # MB/s
    assert first["push-throughput-16b"] == pytest.approx(80_000 * GEOMEAN)  # messages/s
    assert first["echo-rss-16b"] == pytest.approx(20_000_000 / 2**20)  # MiB
    interval = by_slug["echo-latency-p50-16b"].lines[0].points[0].interval
    assert interval is not None and interval[0] < 50.0 < interval[1]  # scaled to µs too
    assert not by_slug["echo-latency-p50-16b"].headline.higher_is_better
    assert by_slug["push-throughput-16b"].headline.better == "higher is better"


def test_versions_the_matrix_no_longer_lists_come_last(
    starlette: tuple[Framework, list[EnvRun]],
) -> None:
    framework, runs = starlette
    doc = runs[0].doc
    old_doc = msgspec.structs.replace(doc, impl=msgspec.structs.replace(doc.impl, version="0.9.1"))
    old = dataclasses.replace(runs[0], doc=old_doc)
    assert version_axis(framework, [*runs, old]) == ("0.37.2", "0.46.2", "1.10.0", "0.9.1")


def _texts(svg: bytes) -> list[str]:
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg.decode())]


def test_svg_labels_versions_legend_changes_and_direction(
    starlette: tuple[Framework, list[EnvRun]],
) -> None:
    framework, runs = starlette
    svg = render_svg(chart(framework, runs, ECHO_16B_64), "starlette version (oldest first)")
    texts = _texts(svg)
    assert svg.startswith(b"<?xml") and b"<svg" in svg
    for label in ("0.37.2", "0.46.2", "1.10.0", "starlette version (oldest first)"):
        assert label in texts, texts
    for label in ("websockets-asyncio", "websockets-uvloop", "wsproto-asyncio"):
        assert label in texts
    for key in (
        "whiskers: 95 % interval",
        "+n %: significant change",
        "unstable (cv above 10 %)",
        "failed (reason below)",
        "hollow: ⚠ client-bound",
    ):
        assert key in texts, key
    # The two significant changes are written on the chart, the insignificant one is not;
    # the unstable point is marked.
    assert texts.count("+25 %") == 2
    assert "+2 %" not in texts
    assert "≈" in texts
    assert any("higher is better" in t for t in texts)
    # The x tick labels are in version order, left to right.
    positions = {
        label: float(x)
        for x, label in re.findall(
            r'<text[^>]*x="([\d.]+)"[^>]*>(\d+\.\d+\.\d+)</text>', svg.decode()
        )
    }
    assert positions["0.37.2"] < positions["0.46.2"] < positions["1.10.0"]


def test_svg_is_deterministic(starlette: tuple[Framework, list[EnvRun]]) -> None:
    framework, runs = starlette
    c = chart(framework, runs, HEADLINES[0])
    first, second = render_svg(c, "v"), render_svg(c, "v")
    assert first == second
    assert b"<dc:date>" not in first


def test_a_chart_without_figures_says_so() -> None:
    empty = Chart(HEADLINES[0], (), ())
    assert "no figure measured" in _texts(render_svg(empty, "v"))
