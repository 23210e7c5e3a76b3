"""The asv suite: every benchmark class shares one ``setup_cache``, which measures the
selected scenarios in the same server processes."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from asv_runner.benchmarks._base import get_setup_cache_key

import benchmarks
from tests.runs import ECHO_16_64, benchmark, failed
from wsbench import mainplan
from wsbench.asv import suite
from wsbench.asv.suite import (
    GRID_ENV,
    PARAMS_ENV,
    SCENARIOS_ENV,
    ScenarioSuite,
    SuiteError,
    SuiteSettings,
    selected_grids,
)
from wsbench.instrument import waitbudget
from wsbench.instrument.sampling import SamplingPlan
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.scenarios import SCENARIOS, spec

MODULES = [
    importlib.import_module(f"benchmarks.{info.name}")
    for info in pkgutil.iter_modules(benchmarks.__path__)
]
"""Every module of the asv suite (``benchmarks/``)."""


def test_every_scenario_has_a_class_and_all_share_one_setup_cache() -> None:
    classes = [
        obj
        for module in MODULES
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, ScenarioSuite) and obj.__module__ == module.__name__
    ]
    assert sorted(c.scenario for c in classes) == sorted(SCENARIOS)
    keys = {get_setup_cache_key(c.setup_cache) for c in classes}
    assert keys == {get_setup_cache_key(ScenarioSuite.setup_cache)}  # asv runs it once


def test_the_selected_scenarios_and_parameter_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WSBENCH_IMPL", "native")
    monkeypatch.delenv(SCENARIOS_ENV, raising=False)
    monkeypatch.delenv(PARAMS_ENV, raising=False)
    monkeypatch.setenv(GRID_ENV, "default")
    grids = selected_grids()
    assert list(grids) == ["echo", "stream", "clients", "memory", "broadcast"]
    assert grids["echo"] == spec("echo").grid("default")
    monkeypatch.setenv(SCENARIOS_ENV, "memory,echo")
    monkeypatch.setenv(PARAMS_ENV, "in_flight=64")
    # In the scenarios' order; memory has no in_flight (not narrowed).
    assert selected_grids() == {
        "echo": [{"size_bytes": 16, "in_flight": 64}, {"size_bytes": 65536, "in_flight": 64}],
        "memory": [{"connections": 1000}],
    }
    monkeypatch.setenv(PARAMS_ENV, "connections=5")  # memory, which is named, left with none
    with pytest.raises(SuiteError, match="no parameter set of memory in the default grid"):
        selected_grids()
    monkeypatch.delenv(SCENARIOS_ENV)
    monkeypatch.setenv(PARAMS_ENV, "size_bytes=65536")  # no scenario named: the others left out
    assert selected_grids() == {
        "echo": [{"size_bytes": 65536, "in_flight": 64}],
        "memory": [{"connections": 1000}],  # no size_bytes: not narrowed
    }
    monkeypatch.setenv(SCENARIOS_ENV, "echo,pingpong")
    with pytest.raises(SuiteError, match="unknown scenario\\(s\\) \\['pingpong'\\]"):
        selected_grids()


def test_the_disturbed_window_thresholds_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WSBENCH_IMPL", "native")
    default = SamplingPlan()
    plan = SuiteSettings.from_env().plan
    assert (plan.max_other_cpu_percent, plan.max_steal_percent) == (
        default.max_other_cpu_percent, default.max_steal_percent,
    )  # fmt: skip
    monkeypatch.setenv("WSBENCH_MAX_STEAL_PERCENT", "50")
    monkeypatch.setenv("WSBENCH_MAX_OTHER_CPU_PERCENT", "20.5")
    plan = SuiteSettings.from_env().plan
    assert (plan.max_other_cpu_percent, plan.max_steal_percent) == (20.5, 50.0)
    monkeypatch.setenv("WSBENCH_MAX_STEAL_PERCENT", "lots")
    with pytest.raises(SuiteError, match="bad WSBENCH_\\* setting"):
        SuiteSettings.from_env()


def test_the_runs_wait_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WSBENCH_IMPL", "native")
    monkeypatch.delenv(waitbudget.BUDGET_ENV, raising=False)
    assert SuiteSettings.from_env().plan.wait_budget_s == SamplingPlan().wait_budget_s
    monkeypatch.setenv(waitbudget.BUDGET_ENV, "12.5")
    assert SuiteSettings.from_env().plan.wait_budget_s == 12.5
    monkeypatch.setenv(waitbudget.BUDGET_ENV, "-1")
    with pytest.raises(SuiteError, match="wait budget must be >= 0 s"):
        SuiteSettings.from_env()


def test_a_server_that_runs_no_window_on_another_python_is_not_supported_there() -> None:
    crashed = {"echo": [failed("echo", ECHO_16_64, "websockets: the server exited with 1")]}
    (refused,) = suite.refused_by_python(crashed, "3.13", lambda s, p: None)["echo"]
    assert refused.error == (
        "not supported on Python 3.13: does not run: websockets: the server exited with 1"
    )
    assert suite.refused_by_python(crashed, DEFAULT_PYTHON, lambda s, p: None) is crashed
    ran = {"echo": [benchmark("echo", ECHO_16_64, [1000.0]),
                    failed("echo", {"size_bytes": 16, "in_flight": 1}, "timeout")]}  # fmt: skip
    assert suite.refused_by_python(ran, "3.13", lambda s, p: None) is ran  # the server runs


def test_a_set_never_run_says_nothing_of_the_python() -> None:
    """A scenario the configuration does not support fails on every Python with its own
    reason; only the sets that were run tell whether the server runs on a Python."""
    why = "not supported: binary frames are echoed in Rust"
    refusal = {"echo": why}.get
    unsupported = failed("echo", ECHO_16_64, why)
    only_refused = {"echo": [unsupported]}
    assert suite.refused_by_python(only_refused, "3.13", lambda s, p: refusal(s)) is only_refused
    crashed = failed("text", ECHO_16_64, "robyn: the server exited with 1")
    both = {"echo": [unsupported], "text": [crashed]}
    found = suite.refused_by_python(both, "3.13", lambda s, p: refusal(s))
    assert found["echo"] == [unsupported]
    assert [b.error for b in found["text"]] == [
        "not supported on Python 3.13: does not run: robyn: the server exited with 1"
    ]


def test_the_main_jobs_axes_add_deployment_sets_and_narrow_the_second_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    grids = {"echo": [{"size_bytes": 16, "in_flight": 64}], "stream": [{"size_bytes": 16}]}
    monkeypatch.setenv(suite.DEPLOYMENT_ENV, "websockets:asyncio@3.11")
    added = suite.with_deployment_sets(grids, "websockets:asyncio", "3.11")
    assert added["echo"] == [*grids["echo"], *mainplan.deployment_sets()]
    assert added["stream"] == grids["stream"]
    # Another configuration, or the same one on another Python: as it was.
    assert suite.with_deployment_sets(grids, "aiohttp:asyncio", "3.11") == grids
    assert suite.with_deployment_sets(grids, "websockets:asyncio", "3.13") == grids
    assert suite.with_deployment_sets({"stream": grids["stream"]}, "websockets:asyncio",
                                      "3.11") == {"stream": grids["stream"]}  # fmt: skip
    second = {suite.SECOND_PYTHON_ENV: "3.13"}
    assert suite.on_second_python(grids, "3.13", second) == {"echo": grids["echo"]}
    assert suite.on_second_python(grids, "3.12", second) == grids
    assert suite.on_second_python(grids, "3.13", {}) == grids
