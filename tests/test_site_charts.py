"""Framework pages' charts: the headline figures against the version, one line per
configuration, failures marked; the SVG is deterministic and labels its versions."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from wsbench.site.charts import render_svg
from wsbench.site.frameworks import Framework, load_frameworks
from wsbench.site.headline import HEADLINES, Chart, chart, version_axis
from wsbench.site.results import Run, load_results

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "site"
ECHO_16B_64 = next(h for h in HEADLINES if h.slug == "echo-throughput-16b")


@pytest.fixture(scope="module")
def starlette() -> tuple[Framework, list[Run]]:
    frameworks = load_frameworks(FIXTURE / "impls")
    results = load_results(FIXTURE / "results", FIXTURE / "records", frameworks)
    framework = next(f for f in frameworks if f.name == "starlette")
    return framework, [r for r in results.runs if r.impl.name == "starlette"]


def test_one_line_per_configuration_in_meta_toml_order(
    starlette: tuple[Framework, list[Run]],
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
    assert [p.value for p in asyncio.points] == pytest.approx([20_000, 25_000, 1 / 3.5e-5])
    assert [p.version for p in wsproto.points] == ["1.10.0"]
    # The install failure is a failed point with its reason; 1.10.0 was client-bound.
    failed = uvloop.points[0]
    assert (failed.version, failed.status, failed.value) == ("0.37.2", "failed", None)
    assert (failed.error or "").startswith("does not install: 'uv pip install starlette==0.37.2")
    assert [p.client_bound for p in uvloop.points] == [False, False, True]
    assert c.failed == [(uvloop, failed)]


def test_units_of_the_headline_figures(starlette: tuple[Framework, list[Run]]) -> None:
    framework, runs = starlette
    by_slug = {h.slug: chart(framework, runs, h) for h in HEADLINES}
    first = {slug: c.lines[0].points[0].value for slug, c in by_slug.items()}
    assert first["echo-latency-p50-16b"] == pytest.approx(160.0)  # µs
    assert first["echo-throughput-64kib"] == pytest.approx(20_000 * 65536 / 1e6)  # MB/s
    assert first["push-throughput-16b"] == pytest.approx(80_000)  # messages/s
    assert first["echo-rss-16b"] == pytest.approx(30.0)  # MiB
    assert not by_slug["echo-latency-p50-16b"].headline.higher_is_better
    assert by_slug["push-throughput-16b"].headline.better == "higher is better"


def test_versions_the_matrix_no_longer_lists_come_last(
    starlette: tuple[Framework, list[Run]],
) -> None:
    framework, runs = starlette
    old = dataclasses.replace(runs[0], impl=dataclasses.replace(runs[0].impl, version="0.9.1"))
    assert version_axis(framework, [*runs, old]) == ("0.37.2", "0.46.2", "1.10.0", "0.9.1")


def _texts(svg: bytes) -> list[str]:
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg.decode())]


def test_svg_labels_versions_legend_and_direction(starlette: tuple[Framework, list[Run]]) -> None:
    framework, runs = starlette
    svg = render_svg(chart(framework, runs, ECHO_16B_64), "starlette version (oldest first)")
    texts = _texts(svg)
    assert svg.startswith(b"<?xml") and b"<svg" in svg
    for label in ("0.37.2", "0.46.2", "1.10.0", "starlette version (oldest first)"):
        assert label in texts, texts
    for label in ("websockets-asyncio", "websockets-uvloop", "wsproto-asyncio"):
        assert label in texts
    assert "failed (reason below)" in texts
    assert "hollow: ⚠ client-bound" in texts
    assert any("higher is better" in t for t in texts)
    # The x tick labels are in version order, left to right.
    positions = {
        label: float(x)
        for x, label in re.findall(
            r'<text[^>]*x="([\d.]+)"[^>]*>(\d+\.\d+\.\d+)</text>', svg.decode()
        )
    }
    assert positions["0.37.2"] < positions["0.46.2"] < positions["1.10.0"]


def test_svg_is_deterministic(starlette: tuple[Framework, list[Run]]) -> None:
    framework, runs = starlette
    c = chart(framework, runs, HEADLINES[0])
    first, second = render_svg(c, "v"), render_svg(c, "v")
    assert first == second
    assert b"<dc:date>" not in first


def test_a_chart_without_figures_says_so() -> None:
    empty = Chart(HEADLINES[0], (), ())
    assert "no figure measured" in _texts(render_svg(empty, "v"))
