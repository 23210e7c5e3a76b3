"""Each configuration on every Python against the default: grouping, ratios with their
intervals, and which Python the home page asks about."""

from __future__ import annotations

import pytest

from tests.python_runs import BASE, FASTER, on, python_results
from tests.runs import ECHO_16_64
from wsbench.results.metrics import Metric
from wsbench.site.python_costs import headline_metric, newest_python, on_pythons


def test_a_configuration_is_grouped_by_python_and_compared_with_the_default() -> None:
    docs = [on("3.11", BASE, count=80_000), on("3.13", FASTER, count=88_000),
            on("3.11", BASE, name="aiohttp")]  # fmt: skip
    found = on_pythons(python_results(*docs))
    (websockets,) = found  # aiohttp was measured on 3.11 only: not grouped
    assert websockets.label == "websockets · asyncio"
    assert [p.python for p in websockets.pythons] == ["3.11", "3.13"]
    newer = websockets.pythons[1]
    ratio = websockets.ratio(newer, websockets_metric(), "echo", tuple(ECHO_16_64.items()))
    assert ratio is not None and ratio.comparison is not None
    assert ratio.comparison.head_over_base == pytest.approx(1.3)
    assert ratio.comparison.significant
    assert websockets.count_ratio(newer) == pytest.approx(1.1)
    assert websockets.ratio(websockets.pythons[0], websockets_metric(), "echo",
                            tuple(ECHO_16_64.items())) is None  # the default itself  # fmt: skip
    assert newest_python(found, "m") == "3.13"


def websockets_metric() -> Metric:
    """The figure the echo set is compared by (messages/s)."""
    return headline_metric("echo")


def test_the_newest_python_asked_about_is_one_enough_configurations_ran_on() -> None:
    docs = [on("3.11", BASE), on("3.12", BASE), on("3.13", BASE), on("3.14t", BASE),
            on("3.11", BASE, name="aiohttp"), on("3.12", BASE, name="aiohttp"),
            on("3.13", BASE, name="aiohttp"), on("3.11", BASE, name="picows"),
            on("3.13", BASE, name="picows")]  # fmt: skip
    assert newest_python(on_pythons(python_results(*docs)), "m") == "3.13"  # 3.14t: 1 of 3
    assert newest_python(on_pythons(python_results(*docs, on("3.14t", BASE, name="aiohttp"))),
                         "m") == "3.14t"  # fmt: skip
    assert newest_python(on_pythons(python_results(on("3.11", BASE))), "m") is None
