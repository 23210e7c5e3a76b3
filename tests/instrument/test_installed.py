"""What a document records of its environment (wsbench/instrument/installed.py and
provenance): the list equals ``uv pip freeze`` of the environment, and its origin."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wsbench.asv import venvs
from wsbench.asv.conf import bench_envs
from wsbench.asv.install import lock_entry
from wsbench.envlock import entry_sha256
from wsbench.instrument import installed, provenance
from wsbench.instrument.interpreters import this_interpreter
from wsbench.paths import REPO_ROOT
from wsbench.results.runformat import Resolution

UV = shutil.which("uv")
pytestmark = pytest.mark.skipif(UV is None, reason="uv is installed with ./bench")


def uv_freeze(python: str) -> tuple[str, ...]:
    assert UV is not None
    out = subprocess.run([UV, "pip", "freeze", "--python", python], capture_output=True,
                         text=True, check=True)  # fmt: skip
    return tuple(out.stdout.splitlines())


def test_a_document_lists_what_uv_pip_freeze_lists_in_its_environment(tmp_path: Path) -> None:
    (env,) = [e for e in bench_envs() if e.impl.name == "native" and e.config.id == "websocket"]
    python = str(venvs.ensure(env, root=tmp_path))
    entry = lock_entry(env)
    assert entry is not None

    doc = provenance.environment_of(env.name, this_interpreter(), python=python)

    assert doc.packages == uv_freeze(python) == entry.packages
    assert doc.resolution == Resolution(
        "lock", entry_sha256(entry), entry.resolved_on, "impls/native/lock.toml"
    )


def test_the_projects_own_environment_is_its_uv_lock() -> None:
    doc = provenance.environment_of("project", this_interpreter())
    assert doc.packages == uv_freeze(sys.executable)
    assert any(line.startswith("-e file://") for line in doc.packages or ())  # wsbench itself
    digest = hashlib.sha256((REPO_ROOT / "uv.lock").read_bytes()).hexdigest()
    assert doc.resolution == Resolution("project", digest, None, "uv.lock")


def test_an_environment_that_did_not_install_records_no_packages() -> None:
    doc = provenance.environment_of("x", this_interpreter(), install_error="no version 0.0.1")
    assert doc.packages is None and doc.resolution is None


def test_an_interpreter_that_does_not_run_is_named(tmp_path: Path) -> None:
    with pytest.raises(installed.InstalledError, match="does not run"):
        installed.packages(str(tmp_path / "bin" / "python"))
