"""Building and running the native load generator (``loadgen/``, binary ``wsbench-loadgen``).

The binary's command line and its JSON report are documented in ``loadgen/README.md``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wsbench.cpus import child_setup
from wsbench.paths import LOADGEN_DIR

BINARY = LOADGEN_DIR / "target" / "release" / "wsbench-loadgen"
"""The release build of the load generator."""
BINARY_ENV = "WSBENCH_LOADGEN_BINARY"
"""Environment variable naming a prebuilt load generator to use instead of building one."""


class LoadgenError(RuntimeError):
    """The load generator could not be built, could not run, or printed no valid report."""


def _sources(root: Path) -> list[Path]:
    files = [root / "Cargo.toml", root / "Cargo.lock"]
    for folder in ("src", "tests"):
        if (root / folder).is_dir():
            files.extend(p for p in (root / folder).rglob("*.rs"))
    return [f for f in files if f.exists()]


def is_stale(binary: Path = BINARY, root: Path = LOADGEN_DIR) -> bool:
    """True when ``binary`` is missing or older than any Cargo manifest or Rust source."""
    if not binary.exists():
        return True
    built = binary.stat().st_mtime
    return any(src.stat().st_mtime > built for src in _sources(root))


def ensure_built(*, quiet: bool = False) -> Path:
    """Build the load generator with ``cargo build --release`` when missing or stale.

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
    if not is_stale():
        return BINARY
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not Path(cargo).exists():
        raise LoadgenError("cargo not found: install a Rust toolchain (https://rustup.rs)")
    if not quiet:
        print("wsbench: building the load generator (cargo build --release)...", file=sys.stderr)
    proc = subprocess.run(
        [
            cargo,
            "build",
            "--release",
            "--quiet",
            "--manifest-path",
            str(LOADGEN_DIR / "Cargo.toml"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not BINARY.exists():
        raise LoadgenError(f"building the load generator failed:\n{proc.stderr[-4000:]}")
    os.utime(BINARY)
    return BINARY


def version(binary: Path | None = None) -> str:
    """The load generator's version, from ``wsbench-loadgen --version`` (e.g. ``"0.1.0"``).

    Args:
        binary: the binary to ask (default: :func:`ensure_built`'s).
    """
    binary = binary or ensure_built(quiet=True)
    proc = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False)
    words = proc.stdout.split()
    return words[-1] if proc.returncode == 0 and words else "unknown"


def source_sha256(root: Path = LOADGEN_DIR) -> str:
    """SHA-256 (hex) of the load generator's build inputs: ``Cargo.toml``, ``Cargo.lock`` and
    ``src/**.rs``, each as its path relative to ``root`` and its bytes, in path order."""
    files = [root / "Cargo.toml", root / "Cargo.lock", *sorted((root / "src").rglob("*.rs"))]
    digest = hashlib.sha256()
    for path in files:
        if path.exists():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def rustc_version() -> str:
    """``rustc --version`` (e.g. ``"rustc 1.91.0 (f8297e351 2025-10-28)"``), or ``"unknown"``."""
    rustc = shutil.which("rustc") or str(Path.home() / ".cargo" / "bin" / "rustc")
    try:
        proc = subprocess.run([rustc, "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def probe(url: str, *, timeout_s: float, binary: Path = BINARY) -> str | None:
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
    args: Sequence[str], *, cpus: Sequence[int], timeout_s: float, binary: Path = BINARY
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
