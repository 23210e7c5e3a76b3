"""The fault matrix: what each fault leads to (issue 29; README's "Faults" lists the same).

Every case asserts the outcome: the exit code, an error that names the problem, no process of
the run left behind, and every earlier document of the results store unchanged byte for byte.
The sections follow the matrix:

1. the store's file system full or read-only when a document is written;
2. a malformed document, or one of a newer format version, read by every reader of the store;
3. a server that fails to start, exits during a window, hangs before the handshake, accepts but
   never answers, or ignores SIGTERM at the end;
4. the load generator killed mid-window; the harness interrupted (SIGINT, SIGTERM, SIGKILL);
5. two runs writing to one store at once;
6. bad ranges and names on the command line;
7. the nightly's publish when the push is rejected or the results branch does not exist;
8. the reference server's Socket.IO relay under a slow room member (a load generator test);
9. a busy host: disturbed windows retried after a growing, bounded wait.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import psutil
import pytest

from tests.conftest import NEVER_DISTURBED, clean_clone_env, fixture_impl
from tests.remotes import bare, branch_files, git, refs, refuse_pushes
from tests.runs import newer_version, run, truncated
from tests.site_runs import IMPLS
from wsbench.ci import results_branch as resultsbranch
from wsbench.commands import cli
from wsbench.impls import Impl, get_impl
from wsbench.instrument import lifetime, loadgen, sampling
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.measure import MeasureConfig, ServerSession, measure
from wsbench.instrument.sampling import SamplingPlan, sample_scenarios
from wsbench.jobs import main as mainjob
from wsbench.paths import REPO_ROOT
from wsbench.results import store
from wsbench.results.runformat import Benchmark, CheckItem, Run, SystemCheck, load

FAULT_TAG_ENV = "WSBENCH_FAULT_TAG"
"""An environment variable a test sets on a run it starts: every process of that run inherits
it, so :func:`tagged_processes` finds any that outlived the run, whoever its parent is now."""


def new_tag() -> dict[str, str]:
    """A fresh :data:`FAULT_TAG_ENV` entry to add to a run's environment."""
    return {FAULT_TAG_ENV: uuid.uuid4().hex}


def tagged_processes(tag: dict[str, str]) -> list[psutil.Process]:
    """The live processes (zombies aside) whose environment carries ``tag``."""
    ((name, value),) = tag.items()
    return [p for p in lifetime.tagged(name, value) if p.pid != os.getpid()]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but the store's lock (which names its last holder): its path
    relative to ``root`` and its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != store.LOCK_FILE
    }


def unchanged(before: dict[str, bytes], root: Path) -> list[str]:
    """The files of ``before`` that are gone from ``root`` or differ from their bytes then."""
    after = snapshot(root)
    return [name for name, data in before.items() if after.get(name) != data]


GONE_WITHIN_S = 10.0
"""How long an interrupted run's processes may take to go: the parent-death signals pass down
asv's chain at once, and a server has :data:`wsbench.instrument.server.STOP_GRACE_S` (5 s) to
exit after SIGTERM."""


def wait_gone(tag: dict[str, str], within_s: float) -> list[psutil.Process]:
    """The processes of ``tag`` still there after up to ``within_s`` seconds (a chain of
    parent-death signals and a server's grace period take a moment)."""
    deadline = time.monotonic() + within_s
    while (left := tagged_processes(tag)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def main_job(
    clone: Path,
    results: Path,
    tag: dict[str, str],
    tmp_path: Path,
    *,
    windows: int = 1,
    window_s: float = 0.5,
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of a short main job in ``clone`` (the reference
    server, one parameter set of echo, one server process of ``windows`` windows of
    ``window_s`` seconds, the grid only: the faults are the measurement's) writing to the
    store ``results``, its processes tagged with ``tag``; every window kept."""
    env = {
        **clean_clone_env(tmp_path),
        **tag,
        store.ROOT_ENV: str(results),
    }
    argv = [sys.executable, "-m", "wsbench.commands.cli", "run", "--impl", "native",
            "--config", "websocket", "--scenario", "echo", "--param", "size_bytes=16",
            "--param", "in_flight=1", "--processes", "1", "--windows", str(windows),
            "--warmup", "0.2", "--window", str(window_s), "--machine", "e2e",
            "--no-site", "--grid-only"]  # fmt: skip
    return argv, env


# 1. The store's file system full or read-only.

TMPFS_DRIVER = """
import hashlib, json, os, shutil, subprocess, sys, time
from pathlib import Path
mode, root, earlier, clone = sys.argv[1:5]
argv = sys.argv[5:]
root_path = Path(root)
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", root], check=True)
shutil.copytree(earlier, root, dirs_exist_ok=True)
before = {str(p) for p in root_path.rglob("*.json")}
if mode == "read-only":
    subprocess.run(["mount", "-o", "remount,ro", root], check=True)
proc = subprocess.Popen(argv, cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
filled = False
while mode == "full" and proc.poll() is None:
    if {str(p) for p in root_path.rglob("*.json")} - before:  # the run's first document
        with open(root_path / "filler", "wb", buffering=0) as out:
            try:
                while True:
                    out.write(b"x" * 4096)
            except OSError:
                filled = True
        break
    time.sleep(0.02)
output = proc.communicate(timeout=600)[0]
files = {str(p.relative_to(root_path)): hashlib.sha256(p.read_bytes()).hexdigest()
         for p in root_path.rglob("*") if p.is_file() and p.name != "filler"}
print(json.dumps({"code": proc.returncode, "output": output, "files": files, "filled": filled}))
"""
"""Run inside ``unshare --mount`` (a private mount namespace, so the test's tmpfs is seen by
nobody else and goes with it): mount a 1 MiB tmpfs as the results store, copy the earlier
documents in, then make it read-only, or fill it once the run has written its first document
(the disk filling up mid-run); run the command; print its exit code and output, and the
store's files with their SHA-256, as JSON."""


def _unshare_works() -> bool:
    probe = ["unshare", "--mount", "--propagation", "private", "mount", "-t", "tmpfs", "tmpfs"]
    found = shutil.which("unshare") is not None
    return found and subprocess.run([*probe, "/mnt"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="needs unshare --mount (CAP_SYS_ADMIN)")
@pytest.mark.parametrize("mode", ["full", "read-only"])
def test_a_full_or_read_only_store_fails_the_run_and_keeps_what_was_there(
    tmp_path: Path, mode: str
) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    earlier = tmp_path / "earlier"
    kept = store.save(run([100.0], machine="e2e", run_id="20260101T000000Z-000000"), earlier)
    digest = hashlib.sha256(kept.read_bytes()).hexdigest()
    results = tmp_path / "results"
    results.mkdir()
    tag = new_tag()
    bench, env = main_job(clone, results, tag, tmp_path)
    driver = tmp_path / "driver.py"
    driver.write_text(TMPFS_DRIVER)
    argv = ["unshare", "--mount", "--propagation", "private", sys.executable, str(driver)]
    proc = subprocess.run(
        [*argv, mode, str(results), str(earlier), str(clone), *bench],
        env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout)
    said = found["output"]
    assert found["code"] == 1, said[-3000:]
    earlier_name = str(kept.relative_to(earlier))
    assert found["files"][earlier_name] == digest  # unchanged, byte for byte
    assert [n for n in found["files"] if ".tmp" in n or ".probe" in n] == []
    assert tagged_processes(tag) == []
    if mode == "read-only":
        # Refused before anything is built or measured, naming the store and errno.
        assert f"the results store {results}: cannot write {results}/e2e/.probe" in said
        assert "[Errno 30 EROFS] Read-only file system" in said
        assert "[1/5]" not in said
        assert list(found["files"]) == [earlier_name]
        return
    assert found["filled"]
    # The benchmark process named the document and errno; the main job named what is missing.
    assert "cannot write " in said and "[Errno 28 ENOSPC] No space left on device" in said
    assert "results not written to" in said
    assert "parameter sets unfinished" in said or "no document" in said
    # What the run wrote before the disk filled is a whole, valid document.
    for name in found["files"]:
        assert name in (earlier_name, store.LOCK_FILE) or name.endswith(".json")


# 2. A malformed document, or a newer format version, in the store.
# (Sections 2 and 7 import what they need here, not at the top: the sections of the matrix
# are written on branches of their own.)


RUN_A, RUN_B = "20261124T020000Z-aaaaaa", "20261125T020000Z-bbbbbb"
TUNED = SystemCheck(items=(CheckItem("governor", "performance", True),), tuned=True)
UNREADABLE = {
    "truncated": (truncated, "not a JSON object: Input data was truncated"),
    "newer": (
        newer_version,
        "written in run format version 3 by a newer wsbench; this wsbench reads versions 1-2",
    ),
}
"""The faults of a document: how to make one from a document, and the reason a reader gives."""


def _doc(run_id: str, env_name: str | None = None) -> Run:
    rates = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
    return msgspec.structs.replace(run(rates, run_id=run_id, env_name=env_name), system=TUNED)


def store_with(root: Path, fault: str) -> tuple[Path, str]:
    """A store at ``root`` with runs A and B, and a third document of run B as ``fault``
    (:data:`UNREADABLE`) left it; that document's path, and the reason readers give."""
    for run_id in (RUN_A, RUN_B):
        store.save(_doc(run_id), root)
    doc = _doc(RUN_B, "zz-env")
    bad = store.save(doc, root)
    make, reason = UNREADABLE[fault]
    bad.write_bytes(make(doc))
    return bad, reason


@pytest.mark.parametrize("fault", UNREADABLE)
def test_compare_refuses_a_run_holding_a_document_it_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    bad, reason = store_with(tmp_path, fault)
    before = snapshot(tmp_path)
    monkeypatch.setenv(store.ROOT_ENV, str(tmp_path))
    assert cli.main(["compare", RUN_A, RUN_B]) == 2
    assert capsys.readouterr().err == f"wsbench: {bad}: {reason}\n"
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("fault", UNREADABLE)
def test_nightly_confirm_refuses_a_store_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    bad, reason = store_with(tmp_path, fault)
    before = snapshot(tmp_path)
    assert cli.main(["nightly", "confirm", str(tmp_path), "--run-id", RUN_B]) == 2
    err = capsys.readouterr().err
    assert err == f"wsbench: nothing confirmed, unreadable documents: {bad}: {reason}\n"
    assert snapshot(tmp_path) == before  # nothing measured, nothing written


@pytest.mark.parametrize("where", ["shard", "confirmations"])
@pytest.mark.parametrize("fault", UNREADABLE)
def test_nightly_publish_refuses_a_shard_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str, where: str
) -> None:
    shard = tmp_path / "shard"
    if where == "shard":
        bad, reason = store_with(shard, fault)
    else:  # the interleaved confirmation, which decides the regression reports
        store.save(_doc(RUN_B), shard)
        bad, reason = store_with(shard / "confirmations", fault)
    remote = bare(tmp_path / "remote.git")
    before = snapshot(shard)
    argv = ["nightly", "publish", str(shard), "--remote", str(remote),
            "--store-dir", str(tmp_path / "clone")]  # fmt: skip
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"wsbench: not published, unreadable documents: {bad}: {reason}\n"
    assert snapshot(shard) == before
    assert refs(remote) == ""  # nothing pushed


@pytest.mark.parametrize("fault", UNREADABLE)
def test_nightly_publish_carries_along_a_branch_document_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    remote = bare(tmp_path / "remote.git")
    earlier = tmp_path / "earlier"
    bad, reason = store_with(earlier, fault)
    git("init", "--quiet", "--initial-branch", "results", cwd=earlier)
    git("add", "--all", cwd=earlier)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "e", cwd=earlier)
    git("push", "--quiet", str(remote), "results", cwd=earlier)
    on_branch = branch_files(remote, "results")
    shard = tmp_path / "shard"
    store.save(_doc("20261126T020000Z-cccccc"), shard)
    before = snapshot(shard)
    clone = tmp_path / "clone"
    argv = ["nightly", "publish", str(shard), "--remote", str(remote), "--store-dir", str(clone)]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    rel = bad.relative_to(earlier)
    assert (
        err
        == f"nightly: on results, carried along unchanged, unreadable: {clone / rel}: {reason}\n"
    )
    assert out.startswith("nightly: 1 documents added to results (")
    after = branch_files(remote, "results")
    assert {name: after.get(name) for name in on_branch} == on_branch  # byte for byte
    assert len(after) == len(on_branch) + 1
    assert snapshot(shard) == before


@pytest.mark.parametrize("fault", UNREADABLE)
def test_the_site_build_fails_naming_a_document_it_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    root = tmp_path / "store"
    bad, reason = store_with(root, fault)
    before = snapshot(root)
    monkeypatch.setenv("WSBENCH_IMPLS_DIR", str(IMPLS))  # the site tests' few frameworks
    build = functools.partial(mainjob.build_site, site_dir=tmp_path / "site")
    monkeypatch.setattr(mainjob, "build_site", build)
    assert cli.main(["site", "--results", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wsbench: building the site failed (mkdocs build --strict exited 1)")
    assert f"skipping a file of the results store: {bad}: {reason}\n" in err
    assert "Aborted with 1 warnings in strict mode!" in err
    assert snapshot(root) == before


# 3. Servers that fail.

PLAN = SamplingPlan(
    processes=1, windows_per_process=1, warmup_s=0.05, window_s=0.3,
    max_other_cpu_percent=NEVER_DISTURBED, max_steal_percent=NEVER_DISTURBED,
)  # fmt: skip
"""A short sampling plan; a case asks for the processes it needs."""
TWO_SETS = [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 32, "in_flight": 1}]
"""Two echo parameter sets: the run must go on to the second after a fault in the first."""
STARTUP_TIMEOUT_S = 1.0
"""The startup timeout of the servers that never become ready (seconds; the harness's is 30)."""
STARTS_WITHIN_S = 30.0
"""The startup timeout of the servers that do become ready (seconds): the harness's, as one
such server took over 1 s to answer its first handshake in a loaded parallel suite."""
STOP_GRACE_S = 0.5
"""The grace period after SIGTERM in these cases (seconds; the harness's is 5)."""
LOADGEN_TIMEOUT_S = 1.0
"""The load generator's --timeout in these cases (seconds; its own default is 10)."""
HANG_BOUND_S = 120.0
"""A bound on a case's run that only tells a hang from a run (seconds, generous)."""


@pytest.fixture
def tag(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A fresh tag in this process's environment, inherited by every process the case's run
    starts; after the case, any such process still alive is killed (and the case fails on it
    by its own assertion)."""
    fresh = new_tag()
    for name, value in fresh.items():
        monkeypatch.setenv(name, value)
    yield fresh
    for proc in tagged_processes(fresh):
        proc.kill()


def _quick_sessions(
    monkeypatch: pytest.MonkeyPatch, startup_timeout_s: float = STARTS_WITHIN_S
) -> None:
    """The run's servers get ``startup_timeout_s`` (seconds) and :data:`STOP_GRACE_S`, its load
    generator runs :data:`LOADGEN_TIMEOUT_S` (sampling's ServerSession and MeasureConfig,
    replaced by subclasses)."""

    class QuickSession(ServerSession):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.update(startup_timeout_s=startup_timeout_s, stop_grace_s=STOP_GRACE_S)
            super().__init__(*args, **kwargs)

    @dataclasses.dataclass(frozen=True)
    class QuickConfig(MeasureConfig):
        loadgen_timeout_s: float | None = LOADGEN_TIMEOUT_S

    monkeypatch.setattr(sampling, "ServerSession", QuickSession)
    monkeypatch.setattr(sampling, "MeasureConfig", QuickConfig)


def _sample(impl: Impl, processes: int = 1) -> list[Benchmark]:
    """The echo benchmarks of :data:`TWO_SETS` sampled from ``impl`` in ``processes`` server
    processes, checked to end within :data:`HANG_BOUND_S`."""
    plan = dataclasses.replace(PLAN, processes=processes)
    start = time.monotonic()
    found = sample_scenarios(impl, None, {"echo": TWO_SETS}, plan, placement=default_placement())
    assert time.monotonic() - start < HANG_BOUND_S
    return found["echo"]


NOT_READY = (
    f"not ready after {STARTUP_TIMEOUT_S:g} s: no WebSocket handshake completed (last probe: "
)
"""How a server that never completed a handshake within :data:`STARTUP_TIMEOUT_S` fails."""


@pytest.mark.parametrize(
    ("script", "reasons", "exit_code"),
    [
        ("exits_at_start", ["exits_at_start: server exited with code 3 before it became ready",
                            "ImportError on purpose"], 3),
        ("never_ready", [NOT_READY + "wsbench-loadgen probe ws://", ": connection refused)",
                         "not listening on purpose"], -signal.SIGTERM),
        ("hangs_before_handshake", [
            NOT_READY + "ws://", ": the server accepted the TCP connection but did not answer the "
            f"WebSocket upgrade (HTTP 101) within {STARTUP_TIMEOUT_S:g} s)",
            "never answering the upgrade, on purpose",
        ], -signal.SIGTERM),
    ],
)  # fmt: skip
def test_a_server_that_does_not_start_fails_every_set_in_every_process(
    tag: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    script: str, reasons: list[str], exit_code: int,
) -> None:  # fmt: skip
    """The reason names the problem, then gives the server's log."""
    monkeypatch.setenv("WSBENCH_TEST_CHILD_PID_FILE", str(tmp_path / "child.pid"))  # never_ready
    _quick_sessions(monkeypatch, startup_timeout_s=STARTUP_TIMEOUT_S)
    for bench in _sample(fixture_impl(script), processes=2):
        assert bench.status == "failed"
        assert bench.error is not None
        for reason in reasons:
            assert reason in bench.error
        assert [(s.process, s.status) for s in bench.samples] == [(0, "failed"), (1, "failed")]
        assert bench.server_exit_codes == [exit_code, exit_code]
    assert not tagged_processes(tag)


def test_a_server_that_exits_during_a_window_is_replaced_for_the_next_set(
    tag: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Its child, in a session of its own, orphaned by the crash, goes too."""
    _quick_sessions(monkeypatch)
    crashing = fixture_impl("crash_midrun", "--child-pid-file", str(tmp_path / "child.pid"))
    for bench in _sample(crashing):
        assert bench.status == "failed"
        assert bench.error is not None
        assert "crash_midrun: server exited with code 3 during the measurement" in bench.error
        assert "crashing on purpose after 50 messages" in bench.error
        assert len(bench.samples) == 1
        assert bench.server_exit_codes == [3]  # each set had a server of its own
    assert not tagged_processes(tag)


def test_a_server_that_never_answers_fails_each_set_and_the_run_goes_on(
    tag: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The handshake completes (the server is ready), then no message is ever echoed: each
    window fails once the load generator has waited its --timeout for the replies."""
    _quick_sessions(monkeypatch)
    for bench in _sample(fixture_impl("never_echoes")):
        assert bench.status == "failed"
        assert bench.error is not None
        assert bench.error.startswith(
            "no message was received in the 0.3 s measurement window (after 0.05 s of "
            "warm-up): the server answered more slowly than that, or not at all (load "
            "generator saw lost="
        )
        assert "1 message(s) left unanswered, on purpose" in bench.error  # the server's log
        assert len(bench.samples) == 1
        assert bench.server_exit_codes == [-signal.SIGTERM]  # one server served both sets
    assert not tagged_processes(tag)


def test_a_server_that_ignores_sigterm_is_killed_after_the_grace_period(
    tag: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its windows count; its exit code says it was killed; its child, which ignores SIGTERM
    too, goes with it."""
    _quick_sessions(monkeypatch)
    for bench in _sample(fixture_impl("ignores_sigterm"), processes=2):
        assert bench.status == "ok", bench.error
        assert [s.process for s in bench.samples] == [0, 1]
        assert bench.server_exit_codes == [-signal.SIGKILL, -signal.SIGKILL]
    assert not tagged_processes(tag)


# 4. The load generator killed; the harness interrupted.


def _on_the_load_generator(act: Callable[[psutil.Process], None]) -> threading.Thread:
    """A thread that waits for this process's first load generator run with traffic (not a
    probe, nor the native server), lets it run 0.3 s (past a 0.05 s warm-up: in the window),
    then calls ``act`` on it."""
    binary = str(loadgen.ensure_built())

    def watch() -> None:
        deadline = time.monotonic() + HANG_BOUND_S
        while time.monotonic() < deadline:
            for child in psutil.Process().children():
                try:
                    if child.cmdline()[:2] == [binary, "echo"]:
                        time.sleep(0.3)
                        act(child)
                        return
                except psutil.Error:
                    continue
            time.sleep(0.01)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_a_load_generator_killed_mid_window_fails_its_window_and_the_run_goes_on(
    tag: dict[str, str],
) -> None:
    plan = dataclasses.replace(PLAN, window_s=1.0)
    watcher = _on_the_load_generator(lambda proc: proc.send_signal(signal.SIGKILL))
    start = time.monotonic()
    killed, then = sample_scenarios(
        get_impl("native"), "websocket", {"echo": TWO_SETS}, plan, placement=default_placement()
    )["echo"]
    assert time.monotonic() - start < HANG_BOUND_S
    watcher.join()
    assert killed.status == "failed"
    assert killed.error is not None
    assert killed.error.startswith("load generator killed by signal 9 (SIGKILL)\n")
    assert [s.status for s in killed.samples] == ["failed"]
    assert then.status == "ok", then.error  # the next set, in the same server
    assert killed.server_exit_codes == then.server_exit_codes  # one server, stopped at the end
    assert killed.server_exit_codes in ([0], [-signal.SIGTERM])  # by SIGTERM
    assert not tagged_processes(tag)


def test_a_hung_load_generator_is_killed_at_its_time_limit(tag: dict[str, str]) -> None:
    """A load generator stopped (SIGSTOP) mid-window is killed at the time limit the
    measurement states (:attr:`~wsbench.instrument.measure.MeasureConfig.bound_s`)."""
    watcher = _on_the_load_generator(lambda proc: proc.send_signal(signal.SIGSTOP))
    config = MeasureConfig(impl="native", scenario="echo", warmup_s=0.05, duration_s=30.0,
                           time_limit_s=2.0)  # fmt: skip
    start = time.monotonic()
    m = measure(config)
    assert time.monotonic() - start < HANG_BOUND_S
    watcher.join()
    assert m.status == "failed"
    assert m.error is not None
    assert m.error.startswith("load generator did not finish within 2 s: killed (SIGKILL)\n")
    assert m.server_exit_code in (0, -signal.SIGTERM)
    assert not tagged_processes(tag)


def _as_a_background_job() -> None:
    """A ``preexec_fn``: SIGINT ignored, as a non-interactive shell starts a background job
    (``./bench test &`` in a script)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("sig", "code"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)],
)
def test_an_interrupted_run_leaves_no_process_a_valid_document_and_the_next_run_works(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    results = tmp_path / "results"
    kept = store.save(run([100.0], machine="e2e", run_id="20260101T000000Z-000000"), results)
    before = snapshot(results)
    tag = new_tag()
    # 20 s of windows: a process left behind would still be measuring when the test looks.
    argv, env = main_job(clone, results, tag, tmp_path, windows=20, window_s=1.0)
    log = tmp_path / "output.txt"  # not a pipe: reading one waits for every process holding it
    with log.open("w") as out:
        # Started as a shell's background job (SIGINT ignored), however this suite was: the
        # run sets its own handler (lifetime.unwind_on_signals).
        proc = subprocess.Popen(argv, cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
                                preexec_fn=_as_a_background_job)  # fmt: skip
    deadline = time.monotonic() + 300
    while len(list(results.rglob("*.json"))) < 2 and proc.poll() is None:
        assert time.monotonic() < deadline, "the run wrote no document"
        time.sleep(0.05)
    time.sleep(1.5)  # into the first windows
    assert proc.poll() is None, log.read_text()[-3000:]
    proc.send_signal(sig)
    proc.wait(timeout=120)
    left = wait_gone(tag, within_s=GONE_WITHIN_S)
    said = log.read_text()
    assert proc.returncode == code, said[-3000:]
    if sig != signal.SIGKILL:
        assert f"({sig.name}): what was measured is in the store" in said
    assert left == []
    assert unchanged(before, results) == []
    assert [p.name for p in results.rglob("*") if ".tmp" in p.name or ".probe" in p.name] == []
    partial = [p for p in results.rglob("*.json") if p != kept]
    assert len(partial) == 1
    load(partial[0])  # whole and valid: the sets measured before the signal
    if sig != signal.SIGKILL:
        return
    # A new run after it works, and leaves both earlier documents as they were.
    before = snapshot(results)
    argv, _ = main_job(clone, results, tag, tmp_path)
    again = subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True,
                           timeout=600, check=False)  # fmt: skip
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert unchanged(before, results) == []
    assert len(list(results.rglob("*.json"))) == 3
    assert wait_gone(tag, within_s=GONE_WITHIN_S) == []


# 5. Two runs on one store.


def test_two_runs_on_one_store_take_turns_and_both_write_whole_documents(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    results = tmp_path / "results"
    store.save(run([100.0], machine="e2e", run_id="20260101T000000Z-000000"), results)
    before = snapshot(results)
    tag = new_tag()
    argv, env = main_job(clone, results, tag, tmp_path)
    logs = [tmp_path / "first.txt", tmp_path / "second.txt"]
    procs = []
    for log in logs:
        with log.open("w") as out:
            procs.append(subprocess.Popen(argv, cwd=clone, env=env, stdout=out,
                                          stderr=subprocess.STDOUT))  # fmt: skip
        lock = results / store.LOCK_FILE
        while procs[0].poll() is None and not (lock.is_file() and lock.read_text()):
            time.sleep(0.05)  # the first holds the store before the second starts
    codes = [proc.wait(timeout=600) for proc in procs]
    said = [log.read_text() for log in logs]
    assert codes == [0, 0], said[0][-2000:] + said[1][-2000:]
    assert "waiting for run " in said[1] and "waiting for" not in said[0]
    assert unchanged(before, results) == []
    docs = sorted(results.rglob("*.json"))
    assert len(docs) == 3
    assert len({load(p).run_id for p in docs}) == 3
    assert wait_gone(tag, within_s=GONE_WITHIN_S) == []


# 6. Bad ranges and names.


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["run", "--commits", "zzz..HEAD"], "--commits zzz..HEAD: no commit 'zzz' in"),
        (["run", "--commits", "HEAD...nope"], "no commit 'nope'"),
        (["run", "--versions", "newest"], "newest"),
        (["run", "--param", "nope=1"], "nope"),
        (["run", "--param", "size_bytes=x"], "size_bytes=x"),
        (
            ["run", "--scenario", "memory", "--param", "connections=10000"],
            "has connections=10000 (the full grid has it: --grid full)",
        ),
        (["run", "--shard", "3/2"], "3/2"),
        (["run", "--shard", "0/2"], "0/2"),
        (["run", "--run-id", "../x"], "run id '../x'"),
        (["run", "--impl", "nope"], "nope"),
        (["run", "--scenario", "nope"], "nope"),
        (["compare", "--impl", "nope", "--versions", "1.0", "2.0"], "nope"),
        (["compare", "--commits", "zzz", "HEAD"], "no commit 'zzz'"),
    ],
)
def test_a_bad_range_or_name_gets_one_line_and_exit_code_2_before_anything_runs(
    argv: list[str],
    named: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(store.ROOT_ENV, str(tmp_path / "results"))
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's own refusal: its usage, then one line
        code = exc.code  # type: ignore[assignment]
    said = capsys.readouterr()
    assert code == 2
    lines = said.err.strip().splitlines()
    if not lines[0].startswith("usage:"):
        assert len(lines) == 1, said.err
    assert named in lines[-1], said.err
    assert "[1/5]" not in said.out  # refused before any step
    assert list(tmp_path.rglob("*.json")) == []


# 7. The nightly's publish.


def _publish_argv(shard: Path, remote: Path, clone: Path) -> list[str]:
    return ["nightly", "publish", str(shard), "--remote", str(remote), "--store-dir", str(clone)]


def test_publish_creates_the_results_branch_it_does_not_find(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = bare(tmp_path / "remote.git")
    shard = tmp_path / "shard"
    store.save(_doc(RUN_A), shard)
    store.save(_doc(RUN_A, "other-env"), shard)
    before = snapshot(shard)
    assert cli.main(_publish_argv(shard, remote, tmp_path / "clone")) == 0
    head = git("rev-parse", "results", cwd=remote)
    assert capsys.readouterr().out.startswith(f"nightly: 2 documents added to results ({head})")
    assert branch_files(remote, "results") == before
    assert snapshot(shard) == before


@pytest.mark.parametrize("branch_exists", [True, False], ids=["on-the-branch", "new-branch"])
def test_a_refused_push_exits_with_gits_reason_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], branch_exists: bool
) -> None:
    remote = bare(tmp_path / "remote.git")
    if branch_exists:
        store.save(_doc(RUN_A), tmp_path / "first")
        assert cli.main(_publish_argv(tmp_path / "first", remote, tmp_path / "c1")) == 0
    refs_before = refs(remote)
    pushes = refuse_pushes(remote, "results is protected: pushes need a review")
    shard = tmp_path / "shard"
    store.save(_doc(RUN_B), shard)
    before = snapshot(shard)
    capsys.readouterr()
    assert cli.main(_publish_argv(shard, remote, tmp_path / "c2")) == 2
    assert capsys.readouterr().err == (
        "wsbench: not published: push to results refused: "
        "remote: results is protected: pushes need a review / "
        f"To {remote} / ! [remote rejected] HEAD -> results (pre-receive hook declined) / "
        f"error: failed to push some refs to '{remote}'\n"
    )
    assert pushes.read_text() == "push\n"  # refused, not retried
    assert refs(remote) == refs_before
    assert snapshot(shard) == before


@pytest.mark.parametrize("branch_exists", [True, False], ids=["on-the-branch", "new-branch"])
def test_a_push_that_lost_a_race_is_retried_on_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, branch_exists: bool
) -> None:
    remote = bare(tmp_path / "remote.git")
    if branch_exists:
        store.save(_doc(RUN_A), tmp_path / "first")
        assert cli.main(_publish_argv(tmp_path / "first", remote, tmp_path / "c1")) == 0
    theirs, mine = tmp_path / "theirs", tmp_path / "mine"
    store.save(_doc(RUN_B), theirs)
    store.save(_doc("20261126T020000Z-cccccc"), mine)
    real_checkout = resultsbranch.checkout

    def then_another_push(remote_: str, branch: str, path: Path) -> Path:
        # Another nightly publishes between this one's clone (its fetch) and its push.
        real_checkout(remote_, branch, path)
        other = real_checkout(remote_, branch, tmp_path / "their-clone")
        resultsbranch.add_documents([theirs], other)
        resultsbranch.commit_and_push(other, branch, "theirs")
        return path

    monkeypatch.setattr(resultsbranch, "checkout", then_another_push)
    before_theirs, before_mine = snapshot(theirs), snapshot(mine)
    assert cli.main(_publish_argv(mine, remote, tmp_path / "c2")) == 0
    on_branch = branch_files(remote, "results")
    both = {**before_theirs, **before_mine}
    assert {name: on_branch.get(name) for name in both} == both  # byte for byte
    # This night's commit went on top of the other's.
    assert git("log", "-1", "--format=%s", "results^", cwd=remote) == "theirs"
    assert snapshot(theirs) == before_theirs and snapshot(mine) == before_mine


# 8. The Socket.IO relay under a slow room member: see loadgen/tests (cargo test).


# 9. A busy host.


def test_a_busy_host_steals_every_window_the_set_waits_then_fails_saying_how_much() -> None:
    """A real server and load generator under a fake hypervisor that steals 8 %, 48 % or
    20 % of every window in turn: the set is measured in both processes, then three more
    times in the last one after waits of 1, 2 and 4 s (asked of an injected sleep, never
    waited), and fails with the steal range; nothing of the run is left running."""
    import re
    import threading
    import time
    from collections.abc import Sequence

    import pytest

    from tests.conftest import NEVER_DISTURBED
    from wsbench.impls import get_impl
    from wsbench.instrument import usage
    from wsbench.instrument.cpus import default_placement
    from wsbench.instrument.sampling import SamplingPlan, sample_scenario
    from wsbench.results.runformat import all_disturbed
    from wsbench.site.rows import row_of

    rates = (0.08, 0.48, 0.20)
    real = usage.cpu_times
    opened: dict[int, tuple[float, float]] = {}
    windows: list[int] = []

    def stolen(cpus: Sequence[int]) -> tuple[float, float]:
        """The real busy time; steal at the next rate of ``rates`` over each window (the
        sampler reads the CPUs at a window's start and end, in a thread of its own), timed
        from after the first reading to before the second: at least the window."""
        thread = threading.get_ident()
        if thread not in opened:
            busy, _ = real(cpus)
            opened[thread] = (time.monotonic(), rates[len(windows) % len(rates)])
            windows.append(1)
            return busy, 0.0
        start, rate = opened.pop(thread)
        stolen_s = rate * (time.monotonic() - start)
        return real(cpus)[0], stolen_s

    tag = new_tag()
    plan = SamplingPlan(
        processes=2, windows_per_process=1, warmup_s=0.05, window_s=0.2,
        max_other_cpu_percent=NEVER_DISTURBED,
    )  # fmt: skip
    slept: list[float] = []
    running: list[int] = []

    def wait(seconds: float) -> None:
        """Records the wait instead of waiting, and how many tagged processes run then."""
        slept.append(seconds)
        running.append(len(tagged_processes(tag)))

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(usage, "cpu_times", stolen)
        for name, value in tag.items():
            monkeypatch.setenv(name, value)  # the server and the load generator inherit it
        (bench,) = sample_scenario(
            get_impl("native"), "websocket", "echo", [{"size_bytes": 16, "in_flight": 1}],
            plan, placement=default_placement(), sleep=wait,
        )  # fmt: skip
    assert slept == [1.0, 2.0, 4.0]
    assert all(running), running  # the server waited with the set: the tag reaches it
    assert [(s.process, s.waited_s) for s in bench.samples] == [
        (0, None), (1, None), (1, 1.0), (1, 2.0), (1, 4.0),
    ]  # fmt: skip
    assert bench.status == "ok" and not bench.usable()  # measured, every window disturbed
    # Each window read at least its rate (a little more: the sampler's own readings).
    steal = [s.steal_percent or 0.0 for s in bench.samples]
    assert 8 <= min(steal) < 10 and 48 <= max(steal) < 53, steal
    why = all_disturbed(bench)
    assert re.fullmatch(
        r"every window was disturbed \(other work or steal time on the measured CPUs\): "
        rf"steal {min(steal):.0f}-{max(steal):.0f} % and other work \d+(-\d+)? % over 5 "
        r"windows, 3 of them after waits \(7 s in all\)",
        why,
    ), why
    assert (row_of(bench).status, row_of(bench).error) == ("failed", why)
    assert set(bench.server_exit_codes) <= {0, -15}
    assert tagged_processes(tag) == []


def test_the_waits_of_a_whole_run_share_one_budget_across_its_processes(tmp_path: Path) -> None:
    """A main job over both configurations of the reference (asv measures each in a process
    of its own) where every window is disturbed (other work above -1000 %), with a wait
    budget of 1.5 s: the first configuration's set gets one waited retry (1 s, and 0.2 s of
    warm-up and window), which leaves 0.3 s, so its other two and all three of the second
    configuration's are skipped, each saying so; the main job prints what was taken."""
    from wsbench.results.runformat import all_disturbed

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    results = tmp_path / "results"
    tag = new_tag()
    argv, env = main_job(clone, results, tag, tmp_path, window_s=0.1)
    argv[argv.index("--warmup") + 1] = "0.1"
    del argv[argv.index("--config") : argv.index("--config") + 2]  # both configurations
    env["WSBENCH_MAX_OTHER_CPU_PERCENT"] = "-1000"  # every window disturbed by other work
    proc = subprocess.run([*argv, "--wait-budget", "1.5"], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (
        "waited retries: 1 window measured after waits, 1.2 s of the run's 1.5 s wait budget"
        in proc.stdout
    ), proc.stdout[-3000:]
    docs = [load(p) for p in sorted(results.rglob("*.json"))]
    assert sorted(d.impl.config for d in docs) == ["socketio", "websocket"]
    (first,) = [d for d in docs if any(s.waited_s for b in d.benchmarks for s in b.samples)]
    (second,) = [d for d in docs if d is not first]
    assert [d.settings.wait_budget_s for d in docs] == [1.5, 1.5]
    (waited,), (unwaited,) = first.benchmarks, second.benchmarks
    assert [s.waited_s for s in waited.samples][-1] == 1.0
    assert (waited.waits_skipped, unwaited.waits_skipped) == (2, 3)
    for bench in (waited, unwaited):
        assert not bench.usable()
        assert all_disturbed(bench).endswith(
            f"{bench.waits_skipped} waited retries skipped: the run's wait budget was spent"
        )
    assert wait_gone(tag, within_s=GONE_WITHIN_S) == []
