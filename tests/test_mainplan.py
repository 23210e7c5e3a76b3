"""What the main job measures beside the grid (wsbench.mainplan): the axis configurations of
a run, the deployment profiles' sets and the second Python."""

from __future__ import annotations

from wsbench.deployment import AS_SHIPPED, TLS, TUNED, profile_of
from wsbench.impls import get_impl
from wsbench.mainplan import (
    AXIS_CONFIGS,
    CPU_PROFILE_SET,
    DEPLOYMENT_SET,
    axis_config_ids,
    deployment_sets,
    second_python,
)
from wsbench.scenarios import spec


def test_every_axis_configuration_exists_and_the_profiled_set_is_in_the_default_grid() -> None:
    for name, config in AXIS_CONFIGS:
        assert get_impl(name).config(config).id == config
    scenario, params = CPU_PROFILE_SET
    assert params in spec(scenario).grid("default")


def test_without_a_selection_the_seed_servers_are_the_axis_and_a_selection_is_its_own() -> None:
    chosen = [("aiohttp", "uvloop"), ("aiohttp", "asyncio"), ("websockets", "asyncio")]
    assert axis_config_ids(chosen, narrowed=False) == [("websockets", "asyncio"),
                                                       ("aiohttp", "asyncio")]  # fmt: skip
    assert axis_config_ids(chosen, narrowed=True) == chosen
    assert axis_config_ids([("picows", "asyncio")], narrowed=False) == []


def test_the_deployment_sets_are_a_profiled_set_tuned_as_shipped_and_over_tls() -> None:
    scenario, params = DEPLOYMENT_SET
    assert tuple(params.items()) in spec(scenario).profiled  # the full grid's, in every profile
    sets = deployment_sets()
    assert [profile_of(p) for p in sets] == [TUNED, AS_SHIPPED, TLS]
    assert sets == [params, {**params, "deflate": 1}, {**params, "tls": 1}]


def test_the_second_python_is_the_newest_other_one_found_and_never_free_threaded() -> None:
    assert second_python(["3.11", "3.12", "3.13"]) == "3.13"
    assert second_python(["3.11", "3.12", "3.14t"]) == "3.12"
    assert second_python(["3.11"]) is None
