"""Where the repository's parts live, resolved from this file (no working-directory guesses)."""

import os
from collections.abc import Mapping
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

RESOLUTION_FILE = "wsbench-resolution.json"
"""Left at every benchmark environment's root by :mod:`wsbench.asv.install`: where its packages
came from (:class:`wsbench.results.runformat.Resolution`, as JSON), which the documents
measured in it record."""

LOCKED_REQUIREMENTS_FILE = "wsbench-lock.txt"
"""Left at a locked environment's root by :mod:`wsbench.asv.install`: its lock entry's
packages, the requirements file ``uv pip sync`` installed exactly."""

PROJECT_IN_ENV = "wsbench-project"
"""Where, inside an asv environment, :mod:`wsbench.asv.uv` puts the copy of the commit being
measured (the benchmarks import the harness from it)."""
CACHE_ENV = "WSBENCH_CACHE"
"""Environment variable naming the build cache (default ``~/.cache/wsbench``)."""


def repo_relative(path: Path) -> str:
    """``path`` relative to the repository (``"impls/aiohttp/lock.toml"``), or as given when it
    lies outside."""
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def cache_dir() -> Path:
    """The build cache: ``$WSBENCH_CACHE``, else ``~/.cache/wsbench``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "wsbench")


def bytecode_env(environ: Mapping[str, str]) -> dict[str, str] | None:
    """The environment of the Python processes ``./bench`` starts when ``environ`` forbids writing
    bytecode (``PYTHONDONTWRITEBYTECODE``) and names no bytecode folder: the same with bytecode
    written under the build cache instead (``PYTHONPYCACHEPREFIX``,
    ``~/.cache/wsbench/pycache``), never beside the sources; else None (``environ`` as it is).
    Without bytecode every Python process compiles every module it imports, and the tests start
    hundreds of them (servers, clients, asv's benchmark processes, mkdocs builds, each importing
    the same frameworks, matplotlib or scipy): tests/clients/test_clientlibs.py took 102 s
    without, 77 s with an empty bytecode folder on a 2-core machine. Every ``./bench`` command
    applies it to its own environment (:func:`wsbench.commands.cli.console`), so that the
    servers it starts and asv's processes read bytecode: uvicorn, Starlette and websockets
    imported in 0.63-0.73 s without, 0.27-0.34 s with (the asv environments hold no bytecode of
    their own)."""
    if not environ.get("PYTHONDONTWRITEBYTECODE") or environ.get("PYTHONPYCACHEPREFIX"):
        return None
    env = {k: v for k, v in environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache_dir() / "pycache")
    return env
