"""Environments outside asv: one without packages (the native reference's) is made, and so
is one over the folder an interrupted attempt left behind."""

from __future__ import annotations

import subprocess
from pathlib import Path

from wsbench.asv import venvs
from wsbench.asv.conf import bench_envs


def test_an_environment_without_packages_is_made_over_an_unfinished_one(tmp_path: Path) -> None:
    (native,) = [e for e in bench_envs() if e.impl.name == "native" and e.config.id == "websocket"]
    assert native.requirements == {}
    left = tmp_path / native.name
    (left / "bin").mkdir(parents=True)
    (left / "pyvenv.cfg").write_text("home = /nowhere\n")  # an earlier attempt, not DONE
    python = venvs.ensure(native, root=tmp_path)
    assert python == left / "bin" / "python"
    assert (left / venvs.DONE).exists()
    done = subprocess.run([str(python), "-c", "print(6 * 7)"], capture_output=True, text=True)
    assert done.stdout == "42\n"
