"""Where the repository's parts live, resolved from this file (no working-directory guesses)."""

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
"""The repository's top-level folder."""

IMPLS_DIR = REPO_ROOT / "impls"
"""One folder per implementation, each with a ``meta.toml``."""

CLIENTS_DIR = REPO_ROOT / "clients"
"""One folder per client library under test, each with a ``meta.toml``, beside the client
kit (``clients/clientkit.py``)."""

LOADGEN_DIR = REPO_ROOT / "loadgen"
"""The Cargo package of the native load generator."""

ASV_DIR = REPO_ROOT / ".asv"
"""asv's working folder (environments, results, html); ignored by git."""

RESULTS_DIR = ASV_DIR / "results"
"""asv's results folder (``results_dir`` in asv.conf.json)."""

RUNS_DIR = REPO_ROOT / "results"
"""The results store (:mod:`wsbench.results.store`): every run's documents; ignored by git."""


SITE_DIR = REPO_ROOT / "public"
"""Where ``mkdocs build`` writes the site; ignored by git."""

INSTALL_ERROR_FILE = "wsbench-install-error.json"
"""Left at an asv environment's root (``sys.prefix``) by :mod:`wsbench.asv.uv` when the
environment's requirements did not install: ``{"requirements": {name: version}, "error": str}``."""

PROJECT_IN_ENV = "wsbench-project"
"""Where, inside an asv environment, :mod:`wsbench.asv.uv` puts the copy of the commit being
measured (the benchmarks import the harness from it)."""
CACHE_ENV = "WSBENCH_CACHE"
"""Environment variable naming the build cache (default ``~/.cache/wsbench``)."""


def cache_dir() -> Path:
    """The build cache: ``$WSBENCH_CACHE``, else ``~/.cache/wsbench``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "wsbench")
