"""``./bench nightly all`` end to end from a clean clone, against a local bare repository
standing in for GitHub's results branch: two shards measured one after the other (the native
reference's two configurations land in one shard, the other shard has nothing to measure),
published on top of an earlier night's run (which is kept), and the site built from the
whole branch.

Like the main job's test, it uses the load generator built for the test session and a
temporary HOME; the package index is a closed port, so that looking up new releases cannot
reach PyPI (the reference has no package, so nothing is looked up).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgspec

from tests.runs import run
from wsbench import loadgen, releases, store
from wsbench.nightly import publish
from wsbench.paths import REPO_ROOT
from wsbench.runformat import CheckItem, SystemCheck, load

EARLIER = "20261101T020000Z-aaaaaa"


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_nightly_end_to_end_adds_a_sharded_run_to_the_history(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    _git("init", "--quiet", "--bare", str(remote), cwd=tmp_path)
    untuned = SystemCheck(items=(CheckItem("governor", "powersave", False, "x"),), tuned=False)
    store.save(msgspec.structs.replace(run([1000.0] * 6, run_id=EARLIER), system=untuned),
               tmp_path / "earlier")  # fmt: skip
    publish([tmp_path / "earlier"], remote=str(remote), branch="results",
            store_dir=tmp_path / "seed", allow_untuned=True)  # fmt: skip

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv")),
        loadgen.BINARY_ENV: str(loadgen.ensure_built()),
        releases.INDEX_ENV: "http://127.0.0.1:9/pypi",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "NO_MKDOCS_2_WARNING": "1",
    }
    work = tmp_path / "work"
    proc = subprocess.run(
        [sys.executable, "-m", "wsbench.cli", "nightly", "all", "--remote", str(remote),
         "--shards", "2", "--allow-untuned", "--work-dir", str(work), "--",
         "--impl", "native", "--scenario", "stream", "--processes", "1", "--windows", "2",
         "--warmup", "0.1", "--window", "0.2", "--machine", "e2e"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "nightly: shard 1/2" in out and "nightly: shard 2/2" in out
    assert "wsbench: shard 2/2 has no environment: nothing to measure" in out

    # The branch holds the earlier night untouched and the new run's two documents.
    check = tmp_path / "check"
    _git("clone", "--quiet", "--branch", "results", str(remote), str(check), cwd=tmp_path)
    files = sorted(p.relative_to(check) for p in check.rglob("*.json"))
    earlier = [f for f in files if f.parts[1] == EARLIER]
    assert len(earlier) == 1
    assert (check / earlier[0]).read_bytes() == next(
        (tmp_path / "earlier").rglob("*.json")
    ).read_bytes()
    new = [f for f in files if f.parts[0] == "e2e"]
    assert len(new) == 2 and len({f.parts[1] for f in new}) == 1
    docs = [load(check / f) for f in new]
    assert {d.impl.config for d in docs} == {"websocket", "socketio"}
    for doc in docs:
        assert doc.system is not None and doc.system.items  # the tuning check, recorded
        assert [b.params["size_bytes"] for b in doc.benchmarks] == [16, 1024, 65536]
        assert all(b.status == "ok" for b in doc.benchmarks)
    assert len(_git("log", "--format=%s", "results", cwd=remote).splitlines()) == 2

    # The site is built from the whole branch: the new run and the earlier one are listed.
    environment = (clone / "public" / "environment" / "index.html").read_text()
    assert new[0].parts[1] in environment and EARLIER in environment
