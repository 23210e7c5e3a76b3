"""The main job end to end, from a clean clone: asv benchmarks the native reference server with
tiny windows and the site is built from the results.

It clones the repository's committed HEAD (uncommitted changes are not part of it) into a
temporary folder, uses the load generator already built for the test session, and gives asv
a temporary HOME so that the user's ``~/.asv-machine.json`` is left alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from wsbench import loadgen
from wsbench.paths import REPO_ROOT


def test_main_job_from_a_clean_clone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv")),
        loadgen.BINARY_ENV: str(loadgen.ensure_built()),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "NO_MKDOCS_2_WARNING": "1",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "wsbench.cli", "run", "--impl", "native",
         "--warmup", "0.1", "--duration", "0.3", "--machine", "e2e"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "[5/5] building the site" in proc.stdout

    # One record per configuration of the reference (WebSocket and Socket.IO), each beside
    # its asv result file for the commit that was run.
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    records = sorted((clone / ".asv" / "records" / "e2e").glob("*.json"))
    assert len(records) == 2
    configs = set()
    for path in records:
        record = json.loads(path.read_text())
        assert record["impl"]["name"] == "native"
        assert record["commit"] == commit
        configs.add(record["impl"]["config"])
        assert len(record["measurements"]) == 9  # echo 3 sizes x 2 windows, stream 3 sizes
        assert {m["status"] for m in record["measurements"]} == {"ok"}
    assert configs == {"websocket", "socketio"}
    results = sorted((clone / ".asv" / "results" / "e2e").glob("*-uvpip-py3.11-*.json"))
    assert [r.stem for r in results] == [r.stem for r in records]

    echo_page = (clone / "public" / "leaderboards" / "echo" / "index.html").read_text()
    assert "Native reference (Rust)" in echo_page
