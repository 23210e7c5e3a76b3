"""A cache of the rendered SVG charts: a chart drawn once is not drawn again.

Drawing is most of a site build (matplotlib: about 0.3 s a chart, hundreds of charts), and the
drawing is deterministic (:mod:`wsbench.site.charts`): the same chart data and the same
drawing code give the same bytes. So each SVG is kept under a key made of the drawing
function's name, the ``repr`` of its arguments (frozen dataclasses of numbers and strings),
matplotlib's version and the source of the modules that draw
(:data:`DRAWING_SOURCES`), in ``<build cache>/charts/`` (``~/.cache/wsbench/charts``). A
change of the data or of the drawing code is a new key. The cache keeps the
:data:`MAX_ENTRIES` most recently used charts.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import ParamSpec

from wsbench.paths import cache_dir

P = ParamSpec("P")
SITE_DIR = Path(__file__).resolve().parent
DRAWING_SOURCES = ("charts.py", "markup.py", "chartcache.py")
"""The modules whose code decides a chart's bytes (with the data passed in)."""
MAX_ENTRIES = 5000
"""Charts kept; the least recently used beyond it are removed when a chart is added."""
ADDRESS = re.compile(r" at 0x[0-9a-f]+")
"""An object's default repr names its address, which differs from process to process: an
argument whose repr has one is drawn every time, not cached."""
CACHE_ENV = "WSBENCH_CHART_CACHE"
"""Set to ``0`` to draw every chart (no cache)."""


@functools.cache
def _code_key() -> str:
    # matplotlib's version from its metadata: importing it takes a second, and a build
    # whose charts are all cached never draws one (wsbench.site.charts).
    digest = hashlib.sha256(metadata.version("matplotlib").encode())
    for name in DRAWING_SOURCES:
        digest.update((SITE_DIR / name).read_bytes())
    return digest.hexdigest()


def cache_root() -> Path:
    """The folder of the cached charts."""
    return cache_dir() / "charts"


@functools.cache
def _prune(root: Path) -> None:
    """Keep the :data:`MAX_ENTRIES` most recently used charts (once per process)."""
    entries = sorted(root.glob("*.svg"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[MAX_ENTRIES:]:
        old.unlink(missing_ok=True)


def cached(draw: Callable[P, bytes]) -> Callable[P, bytes]:
    """``draw`` (a function from chart data to SVG bytes) with its results cached on disk
    (see the module). A cache that cannot be read or written is skipped, never an error."""

    @functools.wraps(draw)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> bytes:
        if os.environ.get(CACHE_ENV) == "0":
            return draw(*args, **kwargs)
        text = f"{draw.__qualname__}|{args!r}|{sorted(kwargs.items())!r}|{_code_key()}"
        if ADDRESS.search(text):  # an object without a stable repr: this key never repeats
            return draw(*args, **kwargs)
        key = hashlib.sha256(text.encode()).hexdigest()
        root = cache_root()
        path = root / f"{key}.svg"
        try:
            found = path.read_bytes()
            path.touch()
            return found
        except OSError:
            pass
        svg = draw(*args, **kwargs)
        try:
            root.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=root, suffix=".tmp", delete=False) as tmp:
                tmp.write(svg)
            os.replace(tmp.name, path)
            _prune(root)
        except OSError:
            pass
        return svg

    return wrapper
