"""mkdocs hook (``hooks:`` in mkdocs.yml): adds the generated pages to the build.

mkdocs loads this file by path, not as part of the package, so it imports
:mod:`wsbench.site` absolutely, putting the repository root on ``sys.path`` when the
package is not installed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

try:
    from wsbench.site.assets import SCRIPTS, STYLESHEETS, AssetsError
    from wsbench.site.frameworks import load_frameworks
    from wsbench.site.methodology import fill_markers
    from wsbench.site.pages import REPO_LINK, expand_nav, generate_pages, resolve_inputs
except ImportError:  # pragma: no cover - package not installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from wsbench.site.assets import SCRIPTS, STYLESHEETS, AssetsError
    from wsbench.site.frameworks import load_frameworks
    from wsbench.site.methodology import fill_markers
    from wsbench.site.pages import REPO_LINK, expand_nav, generate_pages, resolve_inputs


def _root(config: MkDocsConfig) -> Path:
    config_file = config.config_file_path
    return Path(config_file).resolve().parent if config_file else Path.cwd()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """List every framework page in the nav, under the Frameworks index, and every
    scenario's leaderboard under the Leaderboards; link the repository from the footer
    (:data:`wsbench.site.pages.REPO_LINK`: no ``repo_url``, whose header fetches from
    api.github.com); use the site's own stylesheet and
    scripts (:data:`wsbench.site.assets.STYLESHEETS`, :data:`wsbench.site.assets.SCRIPTS`)."""
    for sheet in STYLESHEETS:
        if sheet not in config.extra_css:
            config.extra_css.append(sheet)
    listed = {str(script) for script in config.extra_javascript}
    config.extra_javascript.extend(s for s in SCRIPTS if s not in listed)
    config.extra.setdefault("social", [REPO_LINK])
    if config.nav:
        inputs = resolve_inputs(_root(config), config.repo_url)
        config.nav = expand_nav(config.nav, load_frameworks(inputs.impls_dir), inputs.clients())
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add every generated page and chart to ``files``.

    Raises:
        PluginError: a hand-written page in the docs dir has the path of a generated page,
            or the bundled libraries could not be installed.
    """
    inputs = resolve_inputs(_root(config), config.repo_url)
    try:
        generated = generate_pages(inputs)
    except AssetsError as exc:
        raise PluginError(f"wsbench site: {exc}") from exc
    for path, content in generated.items():
        if files.get_file_from_path(path) is not None:
            raise PluginError(f"{path} is generated from results; remove the hand-written file")
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace the generated parts' markers of a hand-written page (the Methodology page's
    list of scenarios, :func:`wsbench.site.methodology.fill_markers`, with the
    implementations' metadata of the build)."""
    inputs = resolve_inputs(_root(config), config.repo_url)
    return fill_markers(page.file.src_uri, markdown, inputs.impls_dir)


def on_serve(server: Any, config: MkDocsConfig, builder: Any) -> Any:
    """``mkdocs serve``: rebuild when the results store or the implementations change."""
    inputs = resolve_inputs(_root(config), config.repo_url)
    for path in (inputs.store_root, inputs.impls_dir, inputs.clients_dir):
        if path.exists():
            server.watch(str(path))
    return server
