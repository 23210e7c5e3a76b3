"""Which pages the site generates, and from which inputs.

Inputs (relative paths are taken from the folder of ``mkdocs.yml``):

- ``WSBENCH_RESULTS`` (default ``results``): the results store of run documents
  (:mod:`wsbench.results.store`), the one source of every figure.
- ``WSBENCH_IMPLS_DIR`` (default ``impls``): the implementations' ``*/meta.toml``.
- ``WSBENCH_CLIENTS_DIR`` (default ``clients``): the client libraries' ``*/meta.toml``; their
  results are the store's ``clients/`` folder (:func:`wsbench.results.store.client_store`).

The conformance grades are the store's ``conformance/`` folder
(:func:`wsbench.results.store.conformance_store`); the CPU profiles its ``profiles/``
folder (:func:`wsbench.results.store.profile_store`), a file there that is not a valid
document a warning, as in the results store.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wsbench.impls import Impl, all_impls
from wsbench.results.store import (
    ROOT_ENV,
    client_store,
    conformance_store,
    load_store,
    profile_store,
)
from wsbench.site.assets import site_assets
from wsbench.site.claims import STUDIES_REVISITED, load_claims, render_studies
from wsbench.site.clients import (
    CLIENTS_INDEX,
    client_page,
    render_client,
    render_clients_index,
)
from wsbench.site.conformance import grades_of
from wsbench.site.conformance_page import render_conformance
from wsbench.site.deployment_costs import deployment_of
from wsbench.site.deployment_page import DEPLOYMENT_PAGE, render_deployment
from wsbench.site.downloads import render_downloads
from wsbench.site.environment import ENVIRONMENT_PAGE, render_environment
from wsbench.site.findings import findings_of
from wsbench.site.findings_page import FINDINGS_PAGE, render_findings
from wsbench.site.framework_pages import INDEX_PAGE, page_path, render_index, render_page
from wsbench.site.frameworks import Framework, load_frameworks
from wsbench.site.history import history_of
from wsbench.site.home import render_home
from wsbench.site.profiles import profiles_of
from wsbench.site.render import LEADERBOARD_PAGES, SCENARIO_TITLES, render_leaderboard_page
from wsbench.site.results import results_of
from wsbench.site.shared_cpu import shared_cpu_of
from wsbench.site.studies import STUDIES_FILE, load_studies

STORE_ENV = ROOT_ENV
"""``WSBENCH_RESULTS``: the results store's root."""
IMPLS_ENV = "WSBENCH_IMPLS_DIR"
CLIENTS_ENV = "WSBENCH_CLIENTS_DIR"
DEFAULT_STORE = "results"
DEFAULT_IMPLS = "impls"
DEFAULT_CLIENTS = "clients"
DEFAULT_REPO_URL = "https://github.com/wsbench/wsbench"
REPO_LINK = {
    "icon": "fontawesome/brands/github",
    "link": DEFAULT_REPO_URL,
    "name": "wsbench on GitHub",
}
"""The footer's link to the repository (material's ``extra.social``: an inline icon and a
link, nothing fetched)."""

FRAMEWORKS_PAGE = INDEX_PAGE
"""The Frameworks index; each framework's page is ``frameworks/<name>.md``."""


@dataclass(frozen=True)
class Inputs:
    """Where the generated pages read from.

    Attributes:
        store_root: the results store's root folder (:mod:`wsbench.results.store`; missing: no
            results yet).
        impls_dir: the ``impls/`` folder.
        repo_url: the repository's web address (for links to implementation folders).
        clients_dir: the ``clients/`` folder.
    """

    store_root: Path
    impls_dir: Path
    repo_url: str
    clients_dir: Path = Path(DEFAULT_CLIENTS)

    def clients(self) -> list[Impl]:
        """The client libraries of :attr:`clients_dir` (none when it is missing)."""
        return all_impls(self.clients_dir) if self.clients_dir.is_dir() else []


def resolve_inputs(
    root: Path, repo_url: str | None = None, environ: Mapping[str, str] | None = None
) -> Inputs:
    """The inputs for a site whose ``mkdocs.yml`` is in ``root``.

    ``environ`` (default ``os.environ``) may set ``WSBENCH_RESULTS``,
    ``WSBENCH_IMPLS_DIR`` and ``WSBENCH_CLIENTS_DIR``; relative paths are resolved against
    ``root``.
    """
    env = os.environ if environ is None else environ
    return Inputs(
        store_root=root / (env.get(STORE_ENV) or DEFAULT_STORE),
        impls_dir=root / (env.get(IMPLS_ENV) or DEFAULT_IMPLS),
        repo_url=repo_url or DEFAULT_REPO_URL,
        clients_dir=root / (env.get(CLIENTS_ENV) or DEFAULT_CLIENTS),
    )


def generate_pages(inputs: Inputs) -> dict[str, str | bytes]:
    """All generated files as ``{path relative to the docs dir: content}``: markdown pages
    (text; the Conformance page and its case reports among them,
    :mod:`wsbench.site.conformance_page`), the leaderboards' and framework pages' charts
    (SVG bytes, and JSON bytes of the charts against the number of connections, of the CPU
    per message by where it goes and of the flame graphs, :mod:`wsbench.site.profiles`),
    the What your deployment costs page (:mod:`wsbench.site.deployment_page`, from the
    same costs as the home page's question on them),
    every run's downloads (JSON bytes and CSV text, :mod:`wsbench.site.downloads`) and the site's
    scripts, stylesheet and bundled libraries (:func:`wsbench.site.assets.site_assets`).

    Raises:
        wsbench.site.assets.AssetsError: the bundled libraries could not be installed.

    Always returns every page (they say so when there are no results), so navigation and
    links stay valid under ``mkdocs build --strict``.
    """
    frameworks = load_frameworks(inputs.impls_dir)
    store = load_store(inputs.store_root)
    results = results_of(store)
    history = history_of(store.runs)
    grades = grades_of(load_store(conformance_store(inputs.store_root)))
    profile_docs = load_store(profile_store(inputs.store_root))
    profiles = profiles_of(profile_docs)  # warns of each file it skips
    links = {f.name: "../" + page_path(f.name) for f in frameworks}
    shared_cpu = shared_cpu_of(f.impl for f in frameworks)
    pages: dict[str, str | bytes] = {}
    studies = load_studies()
    for scenario, path in LEADERBOARD_PAGES.items():
        board = render_leaderboard_page(
            scenario, results, links, studies, grades, profiles, shared_cpu
        )
        pages[path] = board.markdown
        pages.update(board.files)
    pages[FRAMEWORKS_PAGE] = render_index(frameworks, results)
    for framework in frameworks:
        page = render_page(framework, results, inputs.repo_url, history, grades, profiles)
        pages[page_path(framework.name)] = page.markdown
        pages.update(page.charts)
    root_links = {f.name: page_path(f.name) for f in frameworks}
    findings = findings_of(results, frameworks, profile_docs.runs)
    pages[FINDINGS_PAGE] = render_findings(findings, results, root_links)
    deployment = deployment_of(results)  # once: its page and the home page's question
    pages[DEPLOYMENT_PAGE] = render_deployment(deployment, results, root_links)
    pages.update(render_home(results, findings, grades, deployment, shared_cpu))
    pages.update(render_conformance(grades, inputs.repo_url, root_links))
    pages[ENVIRONMENT_PAGE] = render_environment(results)
    clients = inputs.clients()
    client_docs = load_store(client_store(inputs.store_root))
    client_results = results_of(client_docs)
    pages[CLIENTS_INDEX] = render_clients_index(client_results, clients, inputs.repo_url)
    for client in clients:
        pages[client_page(client.name)] = render_client(client, client_results, inputs.repo_url)
    claims = load_claims(STUDIES_FILE)
    pages[STUDIES_REVISITED] = render_studies(claims, store.runs, client_docs.runs, inputs.repo_url)
    pages.update(render_downloads(store.runs))
    pages.update(site_assets())
    return pages


def framework_nav(frameworks: list[Framework]) -> list[dict[str, str]]:
    """The framework pages as nav entries ``{display name: path}``, in index order."""
    return [{f.display_name: page_path(f.name)} for f in frameworks]


def leaderboard_nav(entries: list[Any]) -> list[Any]:
    """A Leaderboards nav section's ``entries`` followed by every leaderboard page they do
    not list (:data:`wsbench.site.render.LEADERBOARD_PAGES`, scenario order, titled by
    :data:`wsbench.site.render.SCENARIO_TITLES`)."""
    listed = {v for e in entries if isinstance(e, dict) for v in e.values()}
    listed |= {e for e in entries if isinstance(e, str)}
    extra = [
        {SCENARIO_TITLES[scenario]: path}
        for scenario, path in LEADERBOARD_PAGES.items()
        if path not in listed
    ]
    return [*entries, *extra]


def _is_leaderboards(value: list[Any]) -> bool:
    """Every entry of a nav section is a leaderboard page (``{title: path}``)."""
    pages = set(LEADERBOARD_PAGES.values())
    return all(
        isinstance(e, dict) and len(e) == 1 and next(iter(e.values())) in pages for e in value
    )


def expand_nav(
    nav: list[Any], frameworks: list[Framework], clients: Sequence[Impl] = ()
) -> list[Any]:
    """``nav`` (mkdocs.yml's) with every framework page added to the section whose first
    entry is the Frameworks index (``- Frameworks: [frameworks/index.md]``), every client
    library's page to the section whose first entry is the Clients page, and every
    leaderboard page to the section that lists only leaderboard pages
    (:func:`leaderboard_nav`); a nav without those sections is returned unchanged."""
    out: list[Any] = []
    for entry in nav:
        if isinstance(entry, dict) and len(entry) == 1:
            ((title, value),) = entry.items()
            if isinstance(value, list) and value and value[0] == FRAMEWORKS_PAGE:
                entry = {title: [FRAMEWORKS_PAGE, *framework_nav(frameworks)]}
            elif isinstance(value, list) and value and value[0] == CLIENTS_INDEX:
                pages = [{c.display_name: client_page(c.name)} for c in clients]
                entry = {title: [CLIENTS_INDEX, *pages]}
            elif isinstance(value, list) and value and _is_leaderboards(value):
                entry = {title: leaderboard_nav(value)}
            elif isinstance(value, list):
                entry = {title: expand_nav(value, frameworks, clients)}
        out.append(entry)
    return out
