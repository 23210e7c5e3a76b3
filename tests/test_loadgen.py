"""Building the load generator: the build cache keys binaries by source hash, and the crate
is cleaned before each build so that another tree's binary is never cached under this one's
hash (cargo judges freshness by file times in the shared target folder)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from wsbench import loadgen

FAKE_CARGO = """#!/bin/sh
echo "$* target=$CARGO_TARGET_DIR" >> "$CARGO_LOG"
if [ "$1" = build ]; then
  mkdir -p "$CARGO_TARGET_DIR/release"
  echo "built from $5" > "$CARGO_TARGET_DIR/release/wsbench-loadgen"
fi
"""


def tree(root: Path, text: str) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "wsbench-loadgen"\n')
    (root / "src" / "main.rs").write_text(text)
    return root


def test_each_tree_is_built_from_a_clean_crate_and_cached_by_its_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cargo = bin_dir / "cargo"
    cargo.write_text(FAKE_CARGO)
    cargo.chmod(cargo.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "cargo.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CARGO_LOG", str(log))
    monkeypatch.setenv(loadgen.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(loadgen.BINARY_ENV, raising=False)
    old = tree(tmp_path / "old", "fn main() {}\n")
    new = tree(tmp_path / "new", "fn main() { rooms() }\n")

    built_old = loadgen.ensure_built(quiet=True, root=old)
    built_new = loadgen.ensure_built(quiet=True, root=new)

    assert built_old != built_new
    assert built_new == loadgen.cached_binary(new)
    assert built_new.read_text() == f"built from {new / 'Cargo.toml'}\n"
    target = tmp_path / "cache" / "cargo-target"
    assert log.read_text().splitlines() == [
        f"{verb} --release --quiet {extra}--manifest-path {root / 'Cargo.toml'} target={target}"
        for root in (old, new)
        for verb, extra in (("clean", "-p wsbench-loadgen "), ("build", ""))
    ]
    # Cached: the same sources are not built again.
    assert loadgen.ensure_built(quiet=True, root=new) == built_new
    assert len(log.read_text().splitlines()) == 4
