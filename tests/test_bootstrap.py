"""The uv bootstrap (wsbench/bootstrap.py), and ./bench's install from the committed lock."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from wsbench import bootstrap
from wsbench.paths import REPO_ROOT

LOCK = """version = 1

[[package]]
name = "tornado"
version = "6.5"

[[package]]
name = "uv"
version = "{version}"
source = {{ registry = "https://pypi.org/simple" }}
wheels = [
    {{ url = "{base}/{glibc_name}", hash = "sha256:{glibc}" }},
    {{ url = "{base}/uv-{version}-py3-none-musllinux_1_1_x86_64.whl", hash = "sha256:{musl}" }},
]

[[package]]
name = "uvicorn"
version = "0.55.0"
"""


def wheel_bytes(script: bytes = b"#!/bin/sh\necho uv\n", version: str = "9.9.9") -> bytes:
    """A wheel with the layout of uv's: the binary among the data's scripts."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"uv-{version}.dist-info/METADATA", "Name: uv\n")
        archive.writestr(f"uv-{version}.data/scripts/uv", script)
    return buffer.getvalue()


def write_lock(tmp_path: Path, data: bytes, version: str = "9.9.9") -> Path:
    """A lock whose manylinux wheel is ``data``, served from a file: URL."""
    name = f"uv-{version}-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    (tmp_path / name).write_bytes(data)
    lock = tmp_path / "uv.lock"
    lock.write_text(
        LOCK.format(
            version=version, base=tmp_path.as_uri(), glibc_name=name,
            glibc=hashlib.sha256(data).hexdigest(), musl="0" * 64,
        ),
        encoding="utf-8",
    )  # fmt: skip
    return lock


def test_the_locked_wheel_is_the_machines_of_the_uv_entry(tmp_path: Path) -> None:
    lock = write_lock(tmp_path, b"x")
    glibc = bootstrap.locked_wheel(lock, libc="glibc")
    musl = bootstrap.locked_wheel(lock, libc="musl")
    assert glibc.version == musl.version == "9.9.9"
    assert glibc.url.endswith("manylinux2014_x86_64.whl")
    assert glibc.sha256 == hashlib.sha256(b"x").hexdigest()
    assert musl.url.endswith("musllinux_1_1_x86_64.whl") and musl.sha256 == "0" * 64


def test_the_repositorys_lock_pins_the_uv_that_dot_venv_holds() -> None:
    wheel = bootstrap.locked_wheel(REPO_ROOT / "uv.lock")
    uv = Path(sys.prefix) / "bin" / "uv"  # installed into .venv by the lock
    printed = subprocess.run([uv, "--version"], capture_output=True, text=True, check=True)
    assert printed.stdout.split()[1] == wheel.version


def test_a_lock_without_uv_is_named(tmp_path: Path) -> None:
    lock = tmp_path / "uv.lock"
    lock.write_text('version = 1\n\n[[package]]\nname = "tornado"\nversion = "6.5"\n')
    with pytest.raises(bootstrap.BootstrapError, match="pins no uv"):
        bootstrap.locked_wheel(lock)
    assert bootstrap.main([str(lock), "--version"]) == 2


def test_the_binary_is_installed_when_its_bytes_match_the_lock(tmp_path: Path) -> None:
    script = b"#!/bin/sh\necho 'uv 9.9.9'\n"
    lock = write_lock(tmp_path, wheel_bytes(script))
    dest = tmp_path / "cache" / "bin" / "uv-9.9.9"
    assert bootstrap.main([str(lock), str(dest)]) == 0
    assert dest.read_bytes() == script
    assert os.access(dest, os.X_OK)
    assert [p.name for p in dest.parent.iterdir()] == ["uv-9.9.9"]  # no partial file left


def test_bytes_that_differ_from_the_lock_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = write_lock(tmp_path, wheel_bytes())
    served = next(tmp_path.glob("*.whl"))
    served.write_bytes(wheel_bytes(b"#!/bin/sh\necho tampered\n"))
    dest = tmp_path / "uv"
    assert bootstrap.main([str(lock), str(dest)]) == 2
    assert "but uv.lock records" in capsys.readouterr().err
    assert not dest.exists()


def test_a_changed_pyproject_without_a_relock_stops_the_install(tmp_path: Path) -> None:
    """./bench refuses to install from a uv.lock that no longer matches pyproject.toml, and
    names the command that relocks; .venv is left as it was."""
    for name in ("bench", "pyproject.toml", "uv.lock", "README.md"):
        shutil.copy2(REPO_ROOT / name, tmp_path / name)
    shutil.copytree(REPO_ROOT / "wsbench", tmp_path / "wsbench",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    pyproject = tmp_path / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    # a dependency added to the project, whose lock was not written again
    changed = text.replace('    "packaging>=23",\n', '    "packaging>=23",\n    "hdrhistogram",\n')
    assert changed != text
    pyproject.write_text(changed, encoding="utf-8")
    proc = subprocess.run(
        ["./bench", "list"], cwd=tmp_path, capture_output=True, text=True, check=False,
        env={**os.environ, "PATH": os.environ["PATH"]}, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "uv.lock does not match pyproject.toml: run './bench lock'" in proc.stderr
    assert "hdrhistogram" in proc.stderr  # uv's own account of the difference
    assert not (tmp_path / ".venv" / "bin" / "wsbench").exists()  # nothing installed
