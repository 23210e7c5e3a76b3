"""Building the load generator: the build cache keys binaries by source hash, and the crate
is cleaned before each build so that another tree's binary is never cached under this one's
hash (cargo judges freshness by file times in the shared target folder); ``cargo test``
(``./bench test``'s step) runs in the same target folder with its own profile, cleaned the
same way."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from wsbench import paths
from wsbench.instrument import loadgen
from wsbench.paths import LOADGEN_DIR

FAKE_CARGO = """#!/bin/sh
echo "$* target=$CARGO_TARGET_DIR" >> "$CARGO_LOG"
if [ "$1" = build ]; then
  mkdir -p "$CARGO_TARGET_DIR/release"
  echo "built from $5" > "$CARGO_TARGET_DIR/release/wsbench-loadgen"
fi
if [ "$1" = test ]; then
  mkdir -p "$CARGO_TARGET_DIR/tests"
  echo "tested from $5" > "$CARGO_TARGET_DIR/tests/wsbench-loadgen"
  exit "${CARGO_TEST_EXIT:-0}"
fi
"""


def tree(root: Path, text: str) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "wsbench-loadgen"\n')
    (root / "src" / "main.rs").write_text(text)
    return root


@pytest.fixture
def cargo_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake cargo first on PATH, logging each command line with its target folder into
    the file returned, and an empty build cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cargo = bin_dir / "cargo"
    cargo.write_text(FAKE_CARGO)
    cargo.chmod(cargo.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "cargo.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CARGO_LOG", str(log))
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(loadgen.BINARY_ENV, raising=False)
    return log


def test_each_tree_is_built_from_a_clean_crate_and_cached_by_its_hash(
    tmp_path: Path, cargo_log: Path
) -> None:
    log = cargo_log
    old = tree(tmp_path / "old", "fn main() {}\n")
    new = tree(tmp_path / "new", "fn main() { rooms() }\n")

    built_old = loadgen.ensure_built(quiet=True, root=old)
    built_new = loadgen.ensure_built(quiet=True, root=new)

    assert built_old != built_new
    assert built_new == loadgen.cached_binary(new)
    assert built_new.read_text() == f"built from {new / 'Cargo.toml'}\n"
    target = tmp_path / "cache" / "cargo-target"
    assert log.read_text().splitlines() == [
        line.format(manifest=root / "Cargo.toml", target=target)
        for root in (old, new)
        for line in (
            "clean --profile release --quiet -p wsbench-loadgen --manifest-path {manifest} "
            "target={target}",
            "build --release --quiet --manifest-path {manifest} target={target}",
        )
    ]
    # Cached: the same sources are not built again.
    assert loadgen.ensure_built(quiet=True, root=new) == built_new
    assert len(log.read_text().splitlines()) == 4


def test_cargo_test_cleans_the_crate_in_the_shared_target_with_the_tests_profile(
    tmp_path: Path, cargo_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path / "tree", "fn main() {}\n")
    manifest = root / "Cargo.toml"
    target = tmp_path / "cache" / "cargo-target"

    assert loadgen.cargo_test(root) == 0
    assert cargo_log.read_text().splitlines() == [
        f"clean --profile tests --quiet -p wsbench-loadgen --manifest-path {manifest} "
        f"target={target}",
        "test --profile tests --config profile.tests.opt-level=0 --config "
        f'profile.tests.package."*".opt-level=3 --manifest-path {manifest} target={target}',
    ]
    # The benchmarks' binary is the release build, not the tested one.
    built = loadgen.ensure_built(quiet=True, root=root)
    assert built == loadgen.cached_binary(root)
    assert built.read_text() == f"built from {manifest}\n"

    # Failing tests give cargo's exit code; the crate is cleaned before every run.
    monkeypatch.setenv("CARGO_TEST_EXIT", "101")
    assert loadgen.cargo_test(root) == 101
    assert [line.split()[0] for line in cargo_log.read_text().splitlines()] == [
        "clean", "test", "clean", "build", "clean", "test",
    ]  # fmt: skip


def _copy_of_the_crate(dest: Path) -> Path:
    """The load generator's manifest, lock file and sources, copied to ``dest``."""
    source = LOADGEN_DIR
    dest.mkdir()
    for name in ("Cargo.toml", "Cargo.lock"):
        (dest / name).write_bytes((source / name).read_bytes())
    shutil.copytree(source / "src", dest / "src")
    return dest


def test_cargo_fmt_check_passes_the_tree_and_fails_an_unformatted_file(tmp_path: Path) -> None:
    copy = _copy_of_the_crate(tmp_path / "crate")
    assert loadgen.cargo_fmt_check(copy) == 0
    with (copy / "src" / "url.rs").open("a") as source:
        source.write("\npub fn  unformatted( )->u8{1}\n")
    assert loadgen.cargo_fmt_check(copy) != 0


def test_cargo_clippy_fails_on_a_lint(tmp_path: Path) -> None:
    copy = _copy_of_the_crate(tmp_path / "crate")
    with (copy / "src" / "url.rs").open("a") as source:
        source.write("\npub fn always(x: u8) -> bool {\n    x == x\n}\n")  # clippy::eq_op
    assert loadgen.cargo_clippy(copy) != 0
