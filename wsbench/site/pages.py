"""Which pages the site generates, and from which inputs.

Inputs (relative paths are taken from the folder of ``mkdocs.yml``):

- ``WSBENCH_RESULTS_DIR`` (default ``.asv/results``): asv's results directory.
- ``WSBENCH_RECORDS_DIR`` (default ``.asv/records``): the wsbench records directory.
- ``WSBENCH_IMPLS_DIR`` (default ``impls``): the implementations' ``*/meta.toml``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wsbench.site.frameworks import load_frameworks
from wsbench.site.render import render_environment, render_frameworks, render_leaderboard
from wsbench.site.results import SCENARIOS, load_results

RESULTS_ENV = "WSBENCH_RESULTS_DIR"
RECORDS_ENV = "WSBENCH_RECORDS_DIR"
IMPLS_ENV = "WSBENCH_IMPLS_DIR"
DEFAULT_RESULTS = ".asv/results"
DEFAULT_RECORDS = ".asv/records"
DEFAULT_IMPLS = "impls"
DEFAULT_REPO_URL = "https://github.com/wsbench/wsbench"

LEADERBOARD_PAGES = {scenario: f"leaderboards/{scenario}.md" for scenario in SCENARIOS}
"""Scenario -> generated page path (relative to the docs dir)."""
FRAMEWORKS_PAGE = "frameworks.md"
ENVIRONMENT_PAGE = "environment.md"


@dataclass(frozen=True)
class Inputs:
    """Where the generated pages read from.

    Attributes:
        results_dir: asv's results directory.
        records_dir: the wsbench records directory.
        impls_dir: the ``impls/`` folder.
        repo_url: the repository's web address (for links to implementation folders).
    """

    results_dir: Path
    records_dir: Path
    impls_dir: Path
    repo_url: str


def resolve_inputs(
    root: Path, repo_url: str | None = None, environ: Mapping[str, str] | None = None
) -> Inputs:
    """The inputs for a site whose ``mkdocs.yml`` is in ``root``.

    ``environ`` (default ``os.environ``) may set ``WSBENCH_RESULTS_DIR``,
    ``WSBENCH_RECORDS_DIR`` and ``WSBENCH_IMPLS_DIR``; relative paths are resolved against
    ``root``.
    """
    env = os.environ if environ is None else environ
    return Inputs(
        results_dir=root / (env.get(RESULTS_ENV) or DEFAULT_RESULTS),
        records_dir=root / (env.get(RECORDS_ENV) or DEFAULT_RECORDS),
        impls_dir=root / (env.get(IMPLS_ENV) or DEFAULT_IMPLS),
        repo_url=repo_url or DEFAULT_REPO_URL,
    )


def generate_pages(inputs: Inputs) -> dict[str, str]:
    """All generated pages as ``{path relative to the docs dir: markdown}``.

    Always returns every page (they say so when there are no results), so navigation and
    links stay valid under ``mkdocs build --strict``.
    """
    frameworks = load_frameworks(inputs.impls_dir)
    results = load_results(inputs.results_dir, inputs.records_dir, frameworks)
    pages = {
        path: render_leaderboard(scenario, results) for scenario, path in LEADERBOARD_PAGES.items()
    }
    pages[FRAMEWORKS_PAGE] = render_frameworks(frameworks, results, inputs.repo_url)
    pages[ENVIRONMENT_PAGE] = render_environment(results)
    return pages
