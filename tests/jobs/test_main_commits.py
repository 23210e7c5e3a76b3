"""What is measured at commit X is commit X's code: asv gets a copy of each commit's tree,
and the benchmarks import the harness, implementations and load generator from it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import benchmarks
from tests.conftest import keep_every_window
from wsbench import paths
from wsbench.asv.uv import snapshot_tree
from wsbench.instrument import loadgen
from wsbench.instrument.provenance import harness_sha256
from wsbench.paths import PROJECT_IN_ENV, REPO_ROOT
from wsbench.results.runformat import load


def test_the_benchmarks_look_for_the_copy_where_the_plugin_puts_it() -> None:
    assert f'"{PROJECT_IN_ENV}"' in Path(benchmarks.__file__).read_text()


def test_the_snapshot_leaves_out_git_data_and_build_outputs(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for name in ("wsbench/a.py", ".git/HEAD", "loadgen/target/x", "impls/x/server.py"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(name)
    dst = tmp_path / "env" / PROJECT_IN_ENV
    dst.mkdir(parents=True)
    (dst / "stale.py").write_text("from an earlier commit")
    snapshot_tree(src, dst)
    files = sorted(p.relative_to(dst).as_posix() for p in dst.rglob("*") if p.is_file())
    assert files == ["impls/x/server.py", "wsbench/a.py"]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_asv_over_two_commits_measures_each_commits_own_code(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    _git("clone", "--quiet", str(REPO_ROOT), str(clone), cwd=tmp_path)
    measure_py = clone / "wsbench" / "instrument" / "measure.py"
    measure_py.write_text(measure_py.read_text() + "\n# a change to the harness\n")
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "change", cwd=clone)
    commits = [_git("rev-parse", ref, cwd=clone) for ref in ("HEAD~1", "HEAD")]  # HEAD~2..HEAD
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv")),
        paths.CACHE_ENV: str(paths.cache_dir()),  # the builds of the test session
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        **keep_every_window(),
    }
    env.pop(loadgen.BINARY_ENV, None)
    proc = subprocess.run(
        [sys.executable, "-m", "wsbench.commands.cli", "run", "--impl", "native", "--config",
         "websocket", "--scenario", "stream", "--grid", "full", "--commits", "HEAD~2..HEAD",
         "--processes", "1", "--windows", "1", "--warmup", "0.2", "--window", "0.3",
         "--machine", "e2e", "--no-site"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (run_dir,) = (clone / "results" / "e2e").iterdir()
    docs = sorted((load(p) for p in run_dir.glob("*.json")), key=lambda d: d.harness.commit)
    assert sorted(d.harness.commit for d in docs) == sorted(commits)
    for doc in docs:
        tree = tmp_path / doc.harness.commit
        _git("worktree", "add", "--quiet", "--detach", str(tree), doc.harness.commit, cwd=clone)
        assert doc.harness.source_sha256 == harness_sha256(tree)
        assert doc.loadgen.source_sha256 == loadgen.source_sha256(tree / "loadgen")
        assert [b.status for b in doc.benchmarks] == ["ok"] * 3, [b.error for b in doc.benchmarks]
    assert docs[0].harness.source_sha256 != docs[1].harness.source_sha256
