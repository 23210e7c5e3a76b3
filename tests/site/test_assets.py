"""wsbench.site.assets: the bundled libraries and the site's own files, and a clear error
when npm is missing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from wsbench.site import assets


def test_every_asset_is_bundled_with_its_licence() -> None:
    files = assets.site_assets()
    assert set(files) == set(assets.VENDOR) | set(assets.OWN)
    # The version the lock file pins.
    pinned = json.loads((assets.SOURCE_DIR / "package.json").read_text())["dependencies"]
    assert f'"{pinned["echarts"]}"'.encode() in files["assets/vendor/echarts.min.js"]
    assert f"v{pinned['tablesort']}".encode() in files["assets/vendor/tablesort.min.js"]
    assert b"Apache License" in files["assets/vendor/echarts.LICENSE.txt"]
    assert b"MIT" in files["assets/vendor/tablesort.LICENSE.txt"]
    assert f"d3js.org v{pinned['d3']}".encode() in files["assets/vendor/d3.min.js"]
    assert (
        b"ISC" in files["assets/vendor/d3.LICENSE.txt"]
        or b"Permission to use" in (files["assets/vendor/d3.LICENSE.txt"])
    )
    assert b"Apache License" in files["assets/vendor/d3-flamegraph.LICENSE.txt"]
    assert b"d3-flame-graph-label" in files["assets/vendor/d3-flamegraph.min.js"]
    for path in assets.SCRIPTS + assets.STYLESHEETS:
        assert path in files


def test_a_missing_npm_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(assets.AssetsError, match="npm"):
        assets.node_modules(tmp_path)
    assert not (assets.install_dir(tmp_path) / assets.COMPLETE).exists()
