"""New releases are found on the package index: final, not yanked, newer than the last
listed version; each gets an environment pinned like the last listed version."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from wsbench.impls import get_impl
from wsbench.jobs.releases import (
    ReleaseIndexError,
    fetch_project,
    new_release_envs,
    newer_versions,
)

FILE = [{"filename": "x.whl", "yanked": False}]
YANKED = [{"filename": "x.whl", "yanked": True}]


def _index(releases: Mapping[str, object]) -> dict[str, object]:
    return {"info": {"name": "x"}, "releases": releases}


def test_only_final_unyanked_releases_newer_than_the_last_listed_version() -> None:
    impl = get_impl("websockets")
    last = impl.versions[-1].version
    major = int(last.split(".")[0])
    releases = {
        "10.0": FILE,  # older
        last: FILE,  # listed
        f"{major + 1}.0": FILE,
        f"{major + 1}.1rc1": FILE,  # pre-release
        f"{major + 1}.0.1": YANKED,  # every file yanked
        f"{major + 2}.0": FILE,
        f"{major + 2}.0.dev3": FILE,  # development release
        "not-a-version": FILE,
        f"{major + 3}.0": [],  # no file
    }
    found = newer_versions(impl, lambda project: _index(releases))
    assert found == [f"{major + 1}.0", f"{major + 2}.0"]


def test_the_reference_has_no_package_and_no_new_release() -> None:
    assert newer_versions(get_impl("native"), lambda project: pytest.fail("no lookup")) == []


def test_each_configuration_gets_the_new_release_with_the_last_listed_pins() -> None:
    impl = get_impl("python-socketio")
    last = impl.versions[-1]
    found = new_release_envs([impl], lambda project: _index({"99.0.0": FILE}))
    assert found.problems == []
    assert [(e.config.id, e.version and e.version.version) for e in found.envs] == [
        (c.id, "99.0.0") for c in impl.configs
    ]
    for env, previous in zip(found.envs, found.previous, strict=True):
        assert env.requirements == {**previous.requirements, "python-socketio": "99.0.0"}
        assert previous.version == last and not env.is_default
        assert env.name != previous.name


def test_an_index_that_cannot_be_read_is_a_problem_named_not_a_crash() -> None:
    def broken(project: str) -> dict[str, object]:
        raise ReleaseIndexError(f"{project}: cannot read: boom")

    found = new_release_envs([get_impl("aiohttp"), get_impl("native")], broken)
    assert found.envs == [] and found.problems == ["aiohttp: cannot read: boom"]


def test_the_index_is_read_over_http_and_failures_name_the_project(
    index_server: dict[str, object],
) -> None:
    index_server["/pypi/websockets/json"] = _index({"99.0": FILE})
    assert fetch_project("websockets")["releases"] == {"99.0": FILE}
    with pytest.raises(ReleaseIndexError, match=r"nosuch: cannot read .*/pypi/nosuch/json"):
        fetch_project("nosuch")
    index_server["/pypi/garbled/json"] = b"<html>"
    with pytest.raises(ReleaseIndexError, match="garbled"):
        fetch_project("garbled")
