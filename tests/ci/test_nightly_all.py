"""``./bench nightly all`` end to end from a clean clone, against a local bare repository
standing in for GitHub's results branch and a package index served locally.

In the clone, websockets' newest release is taken out of its ``meta.toml``, and so are its
oldest versions (fewer to install and measure): the index lists the newest, so the nightly
finds it as a new release, installs it with the pins of the last listed version, measures
it beside that version and prints their comparison. Each night is published on top of the
earlier ones, which are kept byte for byte.

Two nights run. The first, in two shards, finds no document of its comparison group on the
branch, so it measures every older version too; then a comment is added to the load
generator's source, which changes its build identity and so the comparison group: the
second night (websockets alone, one shard) measures every version again, and the site built
after it shows each version from that night.

Like the main job's test, it uses the load generator built for the test session (its
source hash is read from the clone's files) and a temporary HOME.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec

from tests.conftest import clean_clone_env
from tests.runs import run
from wsbench import scenarios
from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.ci.matrix import NEW_GROUP, due
from wsbench.ci.nightly import publish
from wsbench.impls import all_impls, get_impl
from wsbench.paths import REPO_ROOT
from wsbench.results import store
from wsbench.results.runformat import CheckItem, SystemCheck, load
from wsbench.scenarios import Grid

EARLIER = "20261101T020000Z-aaaaaa"
WEBSOCKETS = get_impl("websockets")
PREVIOUS, NEWEST = (v.version for v in WEBSOCKETS.versions[-2:])
OLDER = [v.version for v in WEBSOCKETS.versions[-4:-2]]
"""The older versions the clone keeps; the ones before them are taken out."""
LISTED = [*OLDER, PREVIOUS]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _commit(clone: Path, message: str) -> None:
    _git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "--quiet", "-am",
         message, cwd=clone)  # fmt: skip


def _clone_with_three_websockets_versions(clone: Path) -> None:
    _git("clone", "--quiet", str(REPO_ROOT), str(clone), cwd=REPO_ROOT)
    meta = clone / "impls" / "websockets" / "meta.toml"
    lines = meta.read_text(encoding="utf-8").splitlines(keepends=True)
    kept_versions = set(LISTED)
    kept = [
        line for line in lines
        if not (m := re.search(r'version = "([^"]+)"', line)) or m[1] in kept_versions
    ]  # fmt: skip
    assert len(kept) == len(lines) - (len(WEBSOCKETS.versions) - len(LISTED))
    meta.write_text("".join(kept), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "wsbench.commands.cli", "asv-conf"], cwd=clone,
                   check=True, capture_output=True)  # fmt: skip
    _commit(clone, f"websockets {', '.join(LISTED)} only")


def _clone_envs(clone: Path) -> list[BenchEnv]:
    """The clone's version matrix (its ``meta.toml`` files)."""
    return [e for e in bench_envs(all_impls(clone / "impls")) if e.impl.name == "websockets"]


SELECTION = ("--impl", "websockets", "--config", "asyncio", "--scenario", "stream")
SAMPLING = ("--processes", "1", "--windows", "2", "--warmup", "0.1", "--window", "0.2",
            "--machine", "e2e", "--python", "3.11")  # fmt: skip
"""The sampling plan, the machine, and the default Python only (the other Pythons' step is
tested in tests/ci/test_nightly.py)."""


def _night(
    clone: Path, remote: Path, work: Path, env: dict[str, str], *options: str, run: Sequence[str]
) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "wsbench.commands.cli", "nightly", "all", "--remote", str(remote),
         "--allow-untuned", "--work-dir", str(work), "--no-grade", "--no-profile", *options,
         "--", *run],
        cwd=clone, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    return out


def _sizes(grid: Grid) -> list[int]:
    return [p["size_bytes"] for p in scenarios.grid("stream", grid)]


def test_two_nights_measure_every_version_when_the_load_generator_changes(
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
    _clone_with_three_websockets_versions(clone)
    env = clean_clone_env(tmp_path)

    # Night 1, in two shards (the reference in the second): no document of its comparison
    # group yet, so every older version is due.
    reference = ("--impl", "native", "--config", "websocket")
    out = _night(clone, remote, tmp_path / "night1", env, "--shards", "2", "--no-site",
                 run=[*SELECTION, *reference, *SAMPLING])  # fmt: skip
    assert "nightly: shard 1/2: ./bench run --new-releases" in out
    assert "nightly: shard 2/2: ./bench run --new-releases" in out
    assert "nightly: shard 1/2: older versions due: 2" in out
    for version in OLDER:
        assert f"websockets · asyncio {version}: {NEW_GROUP}" in out  # the row name and why
    assert "nightly: shard 2/2: older versions: none due" in out  # the reference has none
    assert "nightly: shard 1/2: other Pythons: none due" in out  # 3.11 only
    assert "nightly: 5 documents added to results" in out
    assert f"nightly: new release websockets · asyncio: {PREVIOUS} → {NEWEST}:" in out

    # Night 2, after a change of the load generator's source: every version again.
    main_rs = clone / "loadgen" / "src" / "main.rs"
    main_rs.write_text(main_rs.read_text() + "// a change of the load generator\n")
    _commit(clone, "loadgen: a comment")
    out = _night(clone, remote, tmp_path / "night2", env, run=[*SELECTION, *SAMPLING])
    assert "nightly: shard 1/1: older versions due: 2" in out
    for version in OLDER:
        assert f"websockets · asyncio {version}: {NEW_GROUP}" in out
    assert "nightly: 4 documents added to results" in out

    check = tmp_path / "check"
    _git("clone", "--quiet", "--branch", "results", str(remote), str(check), cwd=tmp_path)
    files = sorted(p.relative_to(check) for p in check.rglob("*.json"))
    earlier = [f for f in files if f.parts[1] == EARLIER]
    assert len(earlier) == 1
    assert (check / earlier[0]).read_bytes() == next(
        (tmp_path / "earlier").rglob("*.json")
    ).read_bytes()
    docs = [load(check / f) for f in files if f.parts[0] == "e2e"]
    night1, night2 = sorted({d.run_id for d in docs})
    assert len({d.loadgen.source_sha256 for d in docs}) == 2
    for night in (night1, night2):
        mine = [d for d in docs if d.run_id == night and d.impl.name == "websockets"]
        assert sorted(d.impl.version or "" for d in mine) == sorted([*LISTED, NEWEST])
        grids = {d.impl.version: [b.params["size_bytes"] for b in d.benchmarks] for d in mine}
        for version in [PREVIOUS, NEWEST]:
            assert grids[version] == _sizes("full")
        for version in OLDER:  # the default grid, with the same settings: one group
            assert grids[version] == _sizes("default") != _sizes("full")
        assert len({d.comparable_key() for d in mine}) == 1
        for doc in mine:
            assert doc.system is not None and doc.system.items  # the tuning check, recorded
            assert all(b.status == "ok" for b in doc.benchmarks), doc.impl
    assert [d.impl.name for d in docs if d.run_id == night1].count("native") == 1
    assert len(_git("log", "--format=%s", "results", cwd=remote).splitlines()) == 3

    # A third night with nothing changed would measure no older version.
    older = [e for e in _clone_envs(clone) if not e.is_default and e.config.id == "asyncio"]
    assert [e.version.version for e in older if e.version] == OLDER
    assert due(older, docs, [d for d in docs if d.run_id == night2]) == []

    # The site, built from the whole branch after night 2: every run listed, and each
    # version on the framework page, last measured in night 2.
    environment = (clone / "public" / "environment" / "index.html").read_text()
    assert all(run_id in environment for run_id in (night1, night2, EARLIER))
    page = (clone / "public" / "frameworks" / "websockets" / "index.html").read_text()
    for version in [*LISTED, NEWEST]:
        row = next(r for r in page.split("<tr>") if f"<td>{version}</td>" in r)
        assert night2 in row, row
