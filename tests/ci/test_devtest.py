"""``./bench test``'s steps run with bytecode kept under the build cache when the
environment forbids writing it beside the sources, and in the environment as it is
otherwise; mypy keeps its cache in the build cache; each worker of the parallel step puts
its servers on its own CPU."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from wsbench import paths
from wsbench.ci import devtest
from wsbench.instrument.cpus import LOADGEN_CPUS_ENV, SERVER_CPUS_ENV


def test_bytecode_goes_to_the_cache_when_it_may_not_go_beside_the_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    env = paths.bytecode_env({"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/bin"})
    assert env == {"PATH": "/bin", "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache")}


def test_an_environment_that_writes_bytecode_or_names_its_folder_is_kept() -> None:
    assert paths.bytecode_env({"PATH": "/bin"}) is None
    assert paths.bytecode_env({"PYTHONDONTWRITEBYTECODE": ""}) is None
    chosen = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    assert paths.bytecode_env(chosen) is None


def test_mypy_keeps_its_cache_in_the_build_cache_unless_told_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    assert devtest.steps_env({"PATH": "/bin"}) == {
        "PATH": "/bin", "MYPY_CACHE_DIR": str(tmp_path / "mypy"),
    }  # fmt: skip
    quiet = devtest.steps_env({"PYTHONDONTWRITEBYTECODE": "1", "MYPY_CACHE_DIR": "/mine"})
    assert quiet == {"PYTHONPYCACHEPREFIX": str(tmp_path / "pycache"), "MYPY_CACHE_DIR": "/mine"}


def test_the_wall_clock_verdicts_run_alone_after_the_parallel_tests() -> None:
    names = [name for name, _ in devtest.STEPS]
    assert names[-2:] == ["pytest", "pytest, alone"]
    parallel, alone = (argv for _, argv in devtest.STEPS[-2:])
    assert isinstance(parallel, list) and isinstance(alone, list)
    assert ("-m", "not alone") in itertools.pairwise(parallel)
    assert f"--numprocesses={len(os.sched_getaffinity(0)) + 1}" in parallel
    assert ("-m", "alone") in itertools.pairwise(alone)
    assert not any("numprocesses" in a for a in alone)


def test_only_a_file_that_says_mark_alone_may_hold_a_test_run_alone(tmp_path: Path) -> None:
    sources = {
        "test_decorated.py": "@pytest.mark.alone\ndef test_x() -> None: ...\n",
        "test_module.py": "pytestmark = pytest.mark.alone\n",
        "test_plain.py": "def test_y() -> None: ...  # runs beside the others\n",
    }
    for name, source in sources.items():
        (tmp_path / name).write_text(source)
    found = {name: devtest.may_hold_alone_tests(tmp_path / name) for name in sources}
    assert found == {"test_decorated.py": True, "test_module.py": True, "test_plain.py": False}


def test_each_parallel_worker_puts_its_servers_on_its_own_cpu_and_its_load_on_the_next() -> None:
    server, load = SERVER_CPUS_ENV, LOADGEN_CPUS_ENV
    layouts = [
        devtest.worker_layout({devtest.XDIST_WORKER_ENV: f"gw{k}"}, (0, 1)) for k in range(3)
    ]
    assert layouts == [{server: "0", load: "1"}, {server: "1", load: "0"}, {server: "0", load: "1"}]
    assert devtest.worker_layout({devtest.XDIST_WORKER_ENV: "gw5"}, (2, 4, 7)) == {
        server: "7",
        load: "2",
    }
    # Not a worker, one CPU, or a runner's own layout: nothing is set.
    assert devtest.worker_layout({}, (0, 1)) == {}
    assert devtest.worker_layout({devtest.XDIST_WORKER_ENV: "master"}, (0, 1)) == {}
    assert devtest.worker_layout({devtest.XDIST_WORKER_ENV: "gw1"}, (3,)) == {}
    for given in (server, load):
        assert devtest.worker_layout({devtest.XDIST_WORKER_ENV: "gw1", given: "3"}, (0, 1)) == {}
