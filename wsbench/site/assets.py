"""The site's own scripts and stylesheet, and the libraries bundled beside them.

Nothing the site shows is loaded from outside its own folder: the charting library (Apache
ECharts), the table sorter (tablesort) and the flame graphs' libraries (d3 and d3-flame-graph,
whose UMD build expects d3 as a global) come from the npm registry at the versions pinned in
``assets/package.json`` and ``assets/package-lock.json`` (with their integrity hashes), are
installed once per lock file into the build cache (``npm ci``, ``~/.cache/wsbench/site-assets/``)
and copied into the built site under ``assets/vendor/`` with their licences. The project's
own ``assets/wsbench.js`` (interactive charts from the JSON written beside each chart,
sortable and filterable tables) and ``assets/wsbench.css`` are copied as they are.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

from wsbench.paths import cache_dir

SOURCE_DIR = Path(__file__).resolve().parent / "assets"
"""``package.json``, ``package-lock.json``, ``wsbench.js`` and ``wsbench.css``."""
LOCK_FILE = SOURCE_DIR / "package-lock.json"
VENDOR: dict[str, str] = {
    "assets/vendor/echarts.min.js": "echarts/dist/echarts.min.js",
    "assets/vendor/echarts.LICENSE.txt": "echarts/LICENSE",
    "assets/vendor/tablesort.min.js": "tablesort/dist/tablesort.min.js",
    "assets/vendor/tablesort.number.min.js": "tablesort/dist/sorts/tablesort.number.min.js",
    "assets/vendor/tablesort.LICENSE.txt": "tablesort/LICENCE",
    "assets/vendor/d3.min.js": "d3/dist/d3.min.js",
    "assets/vendor/d3.LICENSE.txt": "d3/LICENSE",
    "assets/vendor/d3-flamegraph.min.js": "d3-flame-graph/dist/d3-flamegraph.umd.min.js",
    "assets/vendor/d3-flamegraph.LICENSE.txt": "d3-flame-graph/LICENSE",
}
"""Site path -> the file in ``node_modules`` it is copied from."""
OWN: dict[str, str] = {
    "assets/wsbench.js": "wsbench.js",
    "assets/wsbench.css": "wsbench.css",
}
"""Site path -> the file in :data:`SOURCE_DIR` it is copied from."""
STYLESHEETS = ("assets/wsbench.css",)
"""Added to ``extra_css`` by the mkdocs hook."""
SCRIPTS = (
    "assets/vendor/tablesort.min.js",
    "assets/vendor/tablesort.number.min.js",
    "assets/wsbench.js",
)
"""Added to ``extra_javascript`` by the mkdocs hook, in this order. ECharts (1 MB) is not
among them: ``wsbench.js`` loads it on the pages that have a chart, and d3 with
d3-flame-graph (whose build adds its own small stylesheet) on the pages that have a flame
graph."""
COMPLETE = ".wsbench-complete"
"""Written last into an installed folder: a folder without it is an interrupted install."""


class AssetsError(Exception):
    """The bundled libraries could not be installed (no npm, no registry, a changed lock)."""


def install_dir(root: Path | None = None) -> Path:
    """Where the libraries of the current lock file are installed: one folder per lock file
    hash under ``root`` (default ``<build cache>/site-assets``)."""
    digest = hashlib.sha256(LOCK_FILE.read_bytes()).hexdigest()[:16]
    return (root or cache_dir() / "site-assets") / digest


def node_modules(root: Path | None = None) -> Path:
    """The installed ``node_modules`` folder of the pinned libraries, installing them with
    ``npm ci`` (the lock file's exact versions and integrity hashes) when missing.

    Raises:
        AssetsError: npm is not on ``PATH``, or ``npm ci`` failed (its output's end).
    """
    target = install_dir(root)
    if (target / COMPLETE).is_file():
        return target / "node_modules"
    npm = shutil.which("npm")
    if npm is None:
        raise AssetsError(
            "npm (Node.js) is needed once to bundle the site's charting library; install "
            "Node.js (Debian: apt-get install npm)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix="install-") as tmp:
        work = Path(tmp) / "packages"  # renamed to target when complete
        work.mkdir()
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SOURCE_DIR / name, work / name)
        done = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip()[-1500:]
            raise AssetsError(f"npm ci of {LOCK_FILE} exited {done.returncode}: {tail}")
        (work / COMPLETE).write_text("ok\n")
        if not (target / COMPLETE).is_file():
            shutil.rmtree(target, ignore_errors=True)
            work.rename(target)
    return target / "node_modules"


def site_assets(root: Path | None = None) -> dict[str, bytes]:
    """Every asset file of the site, ``{path relative to the docs dir: bytes}``: the
    bundled libraries (:data:`VENDOR`, :func:`node_modules`) and the project's own
    (:data:`OWN`).

    Raises:
        AssetsError: as :func:`node_modules`, or a pinned file is missing from the package.
    """
    modules = node_modules(root)
    out: dict[str, bytes] = {}
    for site_path, source in VENDOR.items():
        path = modules / source
        if not path.is_file():
            raise AssetsError(f"{source} is not in the installed packages ({modules})")
        out[site_path] = path.read_bytes()
    for site_path, name in OWN.items():
        out[site_path] = (SOURCE_DIR / name).read_bytes()
    return out
