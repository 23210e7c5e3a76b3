"""Building and running the native load generator (``loadgen/``, binary ``wsbench-loadgen``).

The binary's command line and its JSON report are documented in ``loadgen/README.md``.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wsbench.cpus import child_setup
from wsbench.digest import files_sha256, tree_files
from wsbench.paths import LOADGEN_DIR

BINARY_ENV = "WSBENCH_LOADGEN_BINARY"
"""Environment variable naming a prebuilt load generator to use instead of building one."""
CACHE_ENV = "WSBENCH_CACHE"
"""Environment variable naming the build cache (default ``~/.cache/wsbench``)."""
SOURCE_PATTERNS = ("Cargo.toml", "Cargo.lock", "src/**/*.rs")
"""The load generator's build inputs, relative to its folder."""


class LoadgenError(RuntimeError):
    """The load generator could not be built, could not run, or printed no valid report."""


def cache_dir() -> Path:
    """The build cache: ``$WSBENCH_CACHE``, else ``~/.cache/wsbench``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "wsbench")


def source_sha256(root: Path = LOADGEN_DIR) -> str:
    """SHA-256 (hex) of the load generator's build inputs (:data:`SOURCE_PATTERNS`)."""
    return files_sha256(root, tree_files(root, SOURCE_PATTERNS))


def cached_binary(root: Path = LOADGEN_DIR) -> Path:
    """Where the binary built from ``root``'s sources is kept: one per source hash, so that
    every commit with the same load generator sources shares one build."""
    return cache_dir() / "loadgen" / source_sha256(root)[:16] / "wsbench-loadgen"


def ensure_built(*, quiet: bool = False, root: Path = LOADGEN_DIR) -> Path:
    """The load generator built from ``root`` (default: this tree's ``loadgen/``), built
    with ``cargo build --release`` unless the cache already has a build of the same sources
    (:func:`cached_binary`). Builds share one cargo target folder in the cache, so a commit
    that changes the load generator recompiles the crate, not its dependencies.

    When ``WSBENCH_LOADGEN_BINARY`` names a prebuilt binary, that one is used as it is.

    Returns:
        The path of the binary.

    Raises:
        LoadgenError: cargo is not installed, or the build failed (its output is included), or
            ``WSBENCH_LOADGEN_BINARY`` names no file.
    """
    prebuilt = os.environ.get(BINARY_ENV)
    if prebuilt:
        if not Path(prebuilt).is_file():
            raise LoadgenError(f"{BINARY_ENV}={prebuilt} is not a file")
        return Path(prebuilt)
    binary = cached_binary(root)
    if binary.is_file():
        return binary
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not Path(cargo).exists():
        raise LoadgenError("cargo not found: install a Rust toolchain (https://rustup.rs)")
    if not quiet:
        print("wsbench: building the load generator (cargo build --release)...", file=sys.stderr)
    target = cache_dir() / "cargo-target"
    proc = subprocess.run(
        [cargo, "build", "--release", "--quiet", "--manifest-path", str(root / "Cargo.toml")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "CARGO_TARGET_DIR": str(target)},
    )
    built = target / "release" / "wsbench-loadgen"
    if proc.returncode != 0 or not built.exists():
        raise LoadgenError(f"building the load generator failed:\n{proc.stderr[-4000:]}")
    binary.parent.mkdir(parents=True, exist_ok=True)
    tmp = binary.with_name(f".tmp{os.getpid()}")
    shutil.copy2(built, tmp)
    tmp.replace(binary)
    return binary


def version(binary: Path | None = None) -> str:
    """The load generator's version, from ``wsbench-loadgen --version`` (e.g. ``"0.1.0"``).

    Args:
        binary: the binary to ask (default: :func:`ensure_built`'s).
    """
    binary = binary or ensure_built(quiet=True)
    proc = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False)
    words = proc.stdout.split()
    return words[-1] if proc.returncode == 0 and words else "unknown"


@functools.cache
def rustc_version() -> str:
    """``rustc --version`` (e.g. ``"rustc 1.91.0 (f8297e351 2025-10-28)"``), or ``"unknown"``."""
    rustc = shutil.which("rustc") or str(Path.home() / ".cargo" / "bin" / "rustc")
    try:
        proc = subprocess.run([rustc, "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def probe(url: str, *, timeout_s: float, binary: Path) -> str | None:
    """Try one WebSocket handshake at ``url``.

    Returns:
        None when the handshake completed, otherwise the load generator's one-line reason.
    """
    proc = subprocess.run(
        [str(binary), "probe", "--url", url, "--timeout", str(timeout_s)],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout_s + 5,
    )
    if proc.returncode == 0:
        return None
    return proc.stderr.strip() or f"probe exited {proc.returncode}"


def run_report(
    args: Sequence[str], *, cpus: Sequence[int], timeout_s: float, binary: Path
) -> dict[str, Any]:
    """Run ``wsbench-loadgen ARGS`` pinned to ``cpus`` and return its JSON report.

    Args:
        args: the subcommand and its options, e.g. ``["echo", "--url", ...]``.
        cpus: CPU numbers the load generator is pinned to.
        timeout_s: seconds after which the run is killed (a bound, never reached normally).

    Raises:
        LoadgenError: it exited non-zero, timed out, or printed no JSON object.
    """
    argv = [str(binary), *args]
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout_s,
            preexec_fn=child_setup(cpus),
        )
    except subprocess.TimeoutExpired as exc:
        raise LoadgenError(f"load generator did not finish within {timeout_s:.0f} s") from exc
    if proc.returncode != 0:
        raise LoadgenError(
            f"load generator exited {proc.returncode}: {proc.stderr.strip()[-2000:]}"
        )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise LoadgenError(f"load generator printed no JSON report: {proc.stdout[:500]!r}") from exc
    if not isinstance(report, dict):
        raise LoadgenError("load generator report is not a JSON object")
    return report
