"""``./bench nightly all`` end to end from a clean clone, against a local bare repository
standing in for GitHub's results branch and a package index served locally.

In the clone, websockets' newest release is taken out of its ``meta.toml``; the index lists
it, so the nightly finds it as a new release, installs it with the pins of the last listed
version, measures it beside that version and prints their comparison. The environments go
into two shards (websockets in one, the native reference in the other), measured one after
the other and published together on top of an earlier night's run, which is kept byte for
byte; the site is built from the whole branch.

Like the main job's test, it uses the load generator built for the test session and a
temporary HOME.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgspec

from tests.conftest import clean_clone_env
from tests.runs import run
from wsbench import store
from wsbench.impls import get_impl
from wsbench.nightly import publish
from wsbench.paths import REPO_ROOT
from wsbench.runformat import CheckItem, SystemCheck, load

EARLIER = "20261101T020000Z-aaaaaa"
WEBSOCKETS = get_impl("websockets")
PREVIOUS, NEWEST = (v.version for v in WEBSOCKETS.versions[-2:])


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _clone_without_the_newest_websockets(clone: Path) -> None:
    _git("clone", "--quiet", str(REPO_ROOT), str(clone), cwd=REPO_ROOT)
    meta = clone / "impls" / "websockets" / "meta.toml"
    lines = meta.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if f'version = "{NEWEST}"' not in line]
    assert len(kept) == len(lines) - 1
    meta.write_text("".join(kept), encoding="utf-8")
    _git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "--quiet", "-am",
         f"without websockets {NEWEST}", cwd=clone)  # fmt: skip


def test_the_nightly_end_to_end_finds_a_new_release_and_adds_a_sharded_run(
    tmp_path: Path, index_server: dict[str, object]
) -> None:
    remote = tmp_path / "remote.git"
    _git("init", "--quiet", "--bare", str(remote), cwd=tmp_path)
    untuned = SystemCheck(items=(CheckItem("governor", "powersave", False, "x"),), tuned=False)
    store.save(msgspec.structs.replace(run([1000.0] * 6, run_id=EARLIER), system=untuned),
               tmp_path / "earlier")  # fmt: skip
    publish([tmp_path / "earlier"], remote=str(remote), branch="results",
            store_dir=tmp_path / "seed", allow_untuned=True)  # fmt: skip
    wheel = [{"filename": "websockets.whl", "yanked": False}]
    index_server["/pypi/websockets/json"] = {
        "info": {"name": "websockets"},
        "releases": {PREVIOUS: wheel, NEWEST: wheel, "99.0rc1": wheel},
    }

    clone = tmp_path / "clone"
    _clone_without_the_newest_websockets(clone)
    env = clean_clone_env(tmp_path)
    work = tmp_path / "work"
    proc = subprocess.run(
        [sys.executable, "-m", "wsbench.cli", "nightly", "all", "--remote", str(remote),
         "--shards", "2", "--allow-untuned", "--work-dir", str(work), "--",
         "--impl", "websockets", "--impl", "native", "--scenario", "stream",
         "--processes", "1", "--windows", "2", "--warmup", "0.1", "--window", "0.2",
         "--machine", "e2e"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "nightly: shard 1/2" in out and "nightly: shard 2/2" in out
    assert "nightly: 6 documents added to results" in out
    for config in ("asyncio", "uvloop"):  # compared with the last listed release, by name
        assert f"nightly: new release websockets · {config}: {PREVIOUS} → {NEWEST}:" in out

    # The branch holds the earlier night untouched and the new run's documents: websockets
    # (the last listed release and the new one, each configuration) and the reference.
    check = tmp_path / "check"
    _git("clone", "--quiet", "--branch", "results", str(remote), str(check), cwd=tmp_path)
    files = sorted(p.relative_to(check) for p in check.rglob("*.json"))
    earlier = [f for f in files if f.parts[1] == EARLIER]
    assert len(earlier) == 1
    assert (check / earlier[0]).read_bytes() == next(
        (tmp_path / "earlier").rglob("*.json")
    ).read_bytes()
    docs = [load(check / f) for f in files if f.parts[0] == "e2e"]
    assert len({d.run_id for d in docs}) == 1
    assert sorted((d.impl.name, d.impl.config) for d in docs if d.impl.name == "native") == [
        ("native", "socketio"),
        ("native", "websocket"),
    ]
    assert sorted((d.impl.config, d.impl.version) for d in docs if d.impl.name != "native") == [
        ("asyncio", PREVIOUS),
        ("asyncio", NEWEST),
        ("uvloop", PREVIOUS),
        ("uvloop", NEWEST),
    ]
    for doc in docs:
        assert doc.system is not None and doc.system.items  # the tuning check, recorded
        assert [b.params["size_bytes"] for b in doc.benchmarks] == [16, 1024, 65536]
        assert all(b.status == "ok" for b in doc.benchmarks), doc.impl
    assert len(_git("log", "--format=%s", "results", cwd=remote).splitlines()) == 2

    # The site is built from the whole branch: the new run and the earlier one are listed.
    environment = (clone / "public" / "environment" / "index.html").read_text()
    assert docs[0].run_id in environment and EARLIER in environment
