"""Installing a benchmark environment (wsbench/asv/install.py): exactly its lock entry, or
what uv resolves for an environment no lock lists, or the lock's recorded failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from wsbench import envlock
from wsbench.asv import install
from wsbench.paths import RESOLUTION_FILE
from wsbench.results.runformat import Resolution

UV = shutil.which("uv")
pytestmark = pytest.mark.skipif(UV is None, reason="uv is installed with ./bench")
SPECS = ("websockets==15.0.1",)
ENVIRON = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}


def venv(path: Path) -> Path:
    assert UV is not None
    subprocess.run([UV, "venv", "--quiet", "--python", sys.executable, str(path)], check=True)
    return path


def freeze(prefix: Path) -> list[str]:
    assert UV is not None
    out = subprocess.run([UV, "pip", "freeze", "--python", str(prefix / "bin" / "python")],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.split()


def test_a_locked_environment_holds_its_entry_and_nothing_else(tmp_path: Path) -> None:
    assert UV is not None
    entry = envlock.LockEntry("3.11", SPECS, "2026-12-07", packages=("websockets==14.2",))
    lock_file = tmp_path / "lock.toml"
    lock_file.write_text(envlock.render("demo", [entry]))
    prefix = venv(tmp_path / "env")
    subprocess.run([UV, "pip", "install", "--quiet", "--python", str(prefix / "bin" / "python"),
                    "six"], check=True)  # fmt: skip  # left from before: removed

    got = install.install(UV, prefix, SPECS, python="3.11", lock_file=lock_file,
                          environ=ENVIRON)  # fmt: skip

    # the lock's version, not the requirement's: the lock is what installs
    assert freeze(prefix) == ["websockets==14.2"]
    assert got == Resolution("lock", envlock.entry_sha256(entry), "2026-12-07", str(lock_file))
    assert msgspec.json.decode((prefix / RESOLUTION_FILE).read_bytes(), type=Resolution) == got


def test_an_environment_no_lock_lists_is_resolved_and_says_so(tmp_path: Path) -> None:
    assert UV is not None
    prefix = venv(tmp_path / "env")
    got = install.install(UV, prefix, SPECS, python="3.11", lock_file=tmp_path / "none.toml",
                          environ=ENVIRON)  # fmt: skip
    assert freeze(prefix) == ["websockets==15.0.1"]
    assert got.source == "resolved" and got.sha256 is None and got.lock_file is None
    assert got.resolved_on is not None and len(got.resolved_on) == len("2026-12-07")


def test_a_locked_failure_installs_nothing_and_gives_the_reason(tmp_path: Path) -> None:
    assert UV is not None
    reason = "error: No solution found\n  cause: robyn==0.72.2 has no cp314 wheel"
    entry = envlock.LockEntry("3.14", SPECS, "2026-12-07", error=reason)
    lock_file = tmp_path / "lock.toml"
    lock_file.write_text(envlock.render("demo", [entry]))
    prefix = venv(tmp_path / "env")
    with pytest.raises(install.InstallError) as caught:
        install.install(UV, prefix, SPECS, python="3.14", lock_file=lock_file, environ=ENVIRON)
    first, *rest = str(caught.value).splitlines()
    assert first == "cause: robyn==0.72.2 has no cp314 wheel"
    assert "does not resolve (locked on 2026-12-07 in" in rest[0]
    assert freeze(prefix) == []
    assert not (prefix / RESOLUTION_FILE).exists()


def test_the_specs_are_the_requirements_and_the_harness_s_sorted() -> None:
    specs = install.specs_of({"websockets": "15.0.1", "uvloop": ">=0.21"})
    assert specs == tuple(sorted(["websockets==15.0.1", "uvloop>=0.21",
                                  *install.HARNESS_REQUIREMENTS]))  # fmt: skip
