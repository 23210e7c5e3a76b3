"""The implementations' metadata and the asv configuration derived from it."""

from __future__ import annotations

import json

import pytest

from wsbench import asvconf
from wsbench.impls import Impl, ImplError, all_impls, get_impl
from wsbench.paths import REPO_ROOT

FAIRNESS = ("compression", "keepalive_pings", "max_message_size")
PYTHON_IMPLS = [impl for impl in all_impls() if not impl.reference]


def test_asv_conf_is_generated_from_the_metadata() -> None:
    assert asvconf.is_in_sync(), "asv.conf.json is stale: run ./bench asv-conf"


def test_one_environment_per_implementation_version() -> None:
    conf = json.loads((REPO_ROOT / "asv.conf.json").read_text())
    expected = sum(len(i.versions) for i in PYTHON_IMPLS) + 1  # + the native reference
    assert len(conf["include"]) == expected
    assert conf["matrix"] == {}
    names = [env.name for env in asvconf.bench_envs()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("impl", PYTHON_IMPLS, ids=lambda i: i.name)
def test_every_framework_states_the_fairness_settings(impl: Impl) -> None:
    for setting in FAIRNESS:
        assert impl.deviations.get(setting), f"{impl.name}: no '{setting}' in [deviations]"


@pytest.mark.parametrize("impl", PYTHON_IMPLS, ids=lambda i: i.name)
def test_every_framework_has_a_version_matrix(impl: Impl) -> None:
    assert impl.package
    assert len(impl.versions) >= 4, "at least 3 versions plus the latest"
    assert (impl.directory / "server.py").is_file()


def test_unknown_implementation_and_version_are_named() -> None:
    with pytest.raises(ImplError, match="unknown implementation 'nope'"):
        get_impl("nope")
    impl = PYTHON_IMPLS[0]
    with pytest.raises(ImplError, match=r"has no version .0\.0\.0."):
        impl.version("0.0.0")
