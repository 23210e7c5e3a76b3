"""wsbench.site.chartcache: a chart drawn once is read back, byte for byte, until its data or
the drawing code changes; a cache that cannot be written never fails a build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.site_runs import site_runs
from wsbench import paths
from wsbench.site import chartcache
from wsbench.site.results import select
from wsbench.site.sweeps import CLIENTS_FIGURES, sweep_charts


@dataclass(frozen=True)
class Data:
    values: tuple[float, ...]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    monkeypatch.delenv(chartcache.CACHE_ENV, raising=False)
    return tmp_path / "charts"


def counting() -> tuple[list[Data], Callable[[Data], bytes]]:
    calls: list[Data] = []

    @chartcache.cached
    def draw(data: Data) -> bytes:
        calls.append(data)
        return f"<svg>{sum(data.values)}</svg>".encode()

    return calls, draw


def test_a_chart_is_drawn_once_and_read_back(cache: Path) -> None:
    calls, draw = counting()
    first = draw(Data((1.0, 2.0)))
    again = draw(Data((1.0, 2.0)))
    assert first == again == b"<svg>3.0</svg>"
    assert calls == [Data((1.0, 2.0))]
    assert len(list(cache.glob("*.svg"))) == 1
    # Other data is another chart.
    assert draw(Data((1.0, 5.0))) == b"<svg>6.0</svg>"
    assert len(calls) == 2 and len(list(cache.glob("*.svg"))) == 2


def test_the_cache_can_be_switched_off(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(chartcache.CACHE_ENV, "0")
    calls, draw = counting()
    draw(Data((1.0,)))
    draw(Data((1.0,)))
    assert len(calls) == 2 and not cache.exists()


def test_an_unwritable_cache_still_draws(cache: Path) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("a file where the folder should be")
    calls, draw = counting()
    assert draw(Data((2.0,))) == b"<svg>2.0</svg>"
    assert draw(Data((2.0,))) == b"<svg>2.0</svg>"
    assert len(calls) == 2


def test_data_whose_repr_names_an_address_is_drawn_every_time(cache: Path) -> None:
    @chartcache.cached
    def draw(data: object) -> bytes:
        calls.append(data)
        return b"<svg/>"

    calls: list[object] = []
    marker = object()  # its repr, "<object object at 0x...>", differs in every process
    draw(marker)
    draw(marker)
    assert len(calls) == 2 and not list(cache.glob("*.svg"))


def test_the_site_charts_have_reprs_without_addresses() -> None:
    # The chart cache's keys must repeat across processes: no repr of a chart's data may
    # name an object's address (a Metric's function is left out of its repr).
    results = select(site_runs())
    charts = sweep_charts("clients", results.runs, CLIENTS_FIGURES)
    assert charts
    assert not any(chartcache.ADDRESS.search(repr(c)) for c in charts)
