"""New releases: versions on the package index newer than the last one an implementation's
``meta.toml`` lists, measured by the nightly with the pins of that last listed version.

The index is PyPI's JSON API (``GET <index>/<project>/json``, "releases": version -> files,
each with ``yanked``); ``WSBENCH_PYPI_URL`` names another index (the tests serve one).
Pre-releases, development releases and releases whose every file is yanked are left out.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from wsbench.asv.conf import BenchEnv
from wsbench.impls import Impl, ImplVersion

INDEX_ENV = "WSBENCH_PYPI_URL"
DEFAULT_INDEX = "https://pypi.org/pypi"
TIMEOUT_S = 30.0
"""Seconds one request to the index may take."""

Fetch = Callable[[str], dict[str, object]]
"""Reads one project's JSON from the index (default: :func:`fetch_project`)."""


class ReleaseIndexError(RuntimeError):
    """The index could not be read for a project (the message names it and the cause)."""


def index_url() -> str:
    """The index's JSON API root (``WSBENCH_PYPI_URL`` or PyPI's)."""
    return (os.environ.get(INDEX_ENV) or DEFAULT_INDEX).rstrip("/")


def fetch_project(project: str) -> dict[str, object]:
    """The index's JSON document for ``project``.

    Raises:
        ReleaseIndexError: the request failed or the answer is not JSON.
    """
    url = f"{index_url()}/{project}/json"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            data = json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ReleaseIndexError(f"{project}: cannot read {url}: {exc}") from exc
    if not isinstance(data, dict):
        raise ReleaseIndexError(f"{project}: {url} is not a JSON object")
    return data


def _released(files: object) -> bool:
    """A release counts when it has a file that is not yanked."""
    return isinstance(files, list) and any(
        isinstance(f, dict) and not f.get("yanked", False) for f in files
    )


def newer_versions(impl: Impl, fetch: Fetch = fetch_project) -> list[str]:
    """Final releases of ``impl``'s package newer than its last listed version, oldest first.

    Returns:
        An empty list for an implementation without a package or a version list.

    Raises:
        ReleaseIndexError: the index could not be read.
    """
    if impl.package is None or not impl.versions:
        return []
    last = Version(impl.versions[-1].version)
    releases = fetch(impl.package).get("releases")
    if not isinstance(releases, dict):
        raise ReleaseIndexError(f"{impl.package}: the index's answer has no 'releases'")
    found = []
    for text, files in releases.items():
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if version > last and not version.is_prerelease and _released(files):
            found.append((version, text))
    return [text for _, text in sorted(found)]


@dataclass(frozen=True)
class NewReleases:
    """What :func:`new_release_envs` found.

    Attributes:
        envs: one environment per (configuration, new release), pinned like the last
            listed version.
        previous: for each of ``envs`` (same order), the environment of the last listed
            version in the same configuration: what a new release is compared with.
        problems: one line per implementation whose index could not be read.
    """

    envs: list[BenchEnv]
    previous: list[BenchEnv]
    problems: list[str]


def new_release_envs(impls: Sequence[Impl], fetch: Fetch = fetch_project) -> NewReleases:
    """The environments of every new release of ``impls`` (see :func:`newer_versions`)."""
    envs: list[BenchEnv] = []
    previous: list[BenchEnv] = []
    problems = []
    for impl in impls:
        try:
            versions = newer_versions(impl, fetch)
        except ReleaseIndexError as exc:
            problems.append(str(exc))
            continue
        if not versions:
            continue
        last = impl.versions[-1]
        for config in impl.configs:
            if not config.supports(last.version):
                continue
            for text in versions:
                new = ImplVersion(version=text, requires=dict(last.requires))
                envs.append(BenchEnv(impl, config, new, is_default=False))
                previous.append(BenchEnv(impl, config, last, is_default=True))
    return NewReleases(envs, previous, problems)
