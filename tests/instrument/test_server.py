"""The harness starts and stops servers cleanly and reports failures with the server's log."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import SERVERS, fixture_impl
from wsbench.instrument import loadgen
from wsbench.instrument.measure import HOST, ConfigError, MeasureConfig, measure
from wsbench.instrument.server import (
    FIXED_ENV_KEPT,
    LAYOUT_BLOCK_BYTES,
    LAYOUT_EVEN_ENV,
    LAYOUT_PAD_ENV,
    SERVER_TAG_ENV,
    ServerProcess,
    free_port,
    padded_env,
)


def _gone(pid: int | None) -> bool:
    assert pid is not None
    if not psutil.pid_exists(pid):
        return True
    return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_normal_run_leaves_no_process() -> None:
    config = MeasureConfig(impl="native", scenario="echo", count=100, in_flight=4)
    m = measure(config)
    assert m.status == "ok", m.error
    assert m.report is not None and m.report.messages_received == 100
    assert _gone(m.server_pid)
    assert m.server_exit_code == 0 or m.server_exit_code == -15  # SIGTERM honoured


def test_server_crashing_mid_run_is_reported_with_its_log() -> None:
    config = MeasureConfig(impl="crash", scenario="echo", warmup_s=0.2, duration_s=1.0)
    m = measure(config, impl=fixture_impl("crash_midrun"))
    assert m.status == "failed"
    assert m.error is not None
    assert "crashing on purpose" in m.error
    assert _gone(m.server_pid)


def test_server_never_ready_is_stopped_with_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("WSBENCH_TEST_CHILD_PID_FILE", str(pid_file))
    config = MeasureConfig(impl="never", scenario="echo", count=10)
    m = measure(config, impl=fixture_impl("never_ready"), startup_timeout_s=2.0)
    assert m.status == "failed"
    assert m.error is not None
    assert "not ready after 2 s: no WebSocket handshake completed" in m.error
    assert "connection refused" in m.error  # the last probe's reason
    assert "not listening on purpose" in m.error
    assert _gone(m.server_pid)
    assert _gone(int(pid_file.read_text()))


def test_server_orphaning_a_child_out_of_its_group_leaves_no_process(tmp_path: Path) -> None:
    """A child in a session of its own, orphaned when the server crashed, is found by the
    environment variable it inherited and killed with the rest."""
    pid_file = tmp_path / "child.pid"
    config = MeasureConfig(impl="crash", scenario="echo", warmup_s=0.2, duration_s=1.0)
    m = measure(config, impl=fixture_impl("crash_midrun", "--child-pid-file", str(pid_file)))
    assert m.status == "failed"
    assert m.error is not None and "server exited with code 3 during the measurement" in m.error
    assert m.server_exit_code == 3
    assert _gone(m.server_pid)
    assert _gone(int(pid_file.read_text()))


def test_server_ignoring_sigterm_is_killed_with_its_child_after_the_grace_period() -> None:
    port = free_port(HOST)
    script = str(SERVERS / "ignores_sigterm.py")
    argv = [sys.executable, script, "--host", HOST, "--port", str(port)]
    server = ServerProcess(argv, cpus=[0], name="ignores_sigterm", stop_grace_s=0.5)
    with server:
        binary = loadgen.ensure_built()
        server.wait_ready(
            lambda t: loadgen.probe(f"ws://{HOST}:{port}/echo", timeout_s=t, binary=binary),
            timeout_s=30,
        )
        (child,) = psutil.Process(server.pid).children()
        assert server.stop() == -9  # SIGTERM ignored: SIGKILL after the grace period
        assert "SIGTERM ignored, on purpose" in server.log_tail()  # it was sent SIGTERM first
        assert server.stop() == -9  # a second stop changes nothing
    assert _gone(server.pid)
    assert _gone(child.pid)  # it ignored SIGTERM too


def test_server_exiting_at_start_is_reported() -> None:
    config = MeasureConfig(impl="exits", scenario="echo", count=10)
    m = measure(config, impl=fixture_impl("exits_at_start"))
    assert m.status == "failed"
    assert m.error is not None
    assert "exited with code 3 before it became ready" in m.error
    assert "ImportError on purpose" in m.error


def test_a_server_does_not_inherit_the_harness_pythonpath(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server sees the same ``sys.path`` however the harness was started: this process's
    ``PYTHONPATH`` is not passed on (the pull-request comparison sets one), one given to the
    server is."""
    monkeypatch.setenv("PYTHONPATH", "/harness/tree")
    monkeypatch.setenv("WSBENCH_TEST_INHERITED", "yes")
    with contextlib.ExitStack() as never_started:  # its __exit__ removes its log folder
        server = never_started.push(ServerProcess(["true"], cpus=[0], name="env"))
        assert "PYTHONPATH" not in server.env
        assert server.env["WSBENCH_TEST_INHERITED"] == "yes"
        given = never_started.push(
            ServerProcess(["true"], cpus=[0], name="env", env={"PYTHONPATH": "/given"})
        )
        assert given.env["PYTHONPATH"] == "/given"


def test_a_fixed_layout_server_inherits_only_the_kept_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """For instruction counts: the running test's name and other variables of this process
    are not passed on, ``PATH`` and those given to the server are, and the whole pads to
    whole pages."""
    monkeypatch.setenv("WSBENCH_TEST_INHERITED", "yes")
    with contextlib.ExitStack() as never_started:
        server = never_started.push(
            ServerProcess(["true"], cpus=[0], name="env", env={"GIVEN": "1"}, fixed_layout=True)
        )
        assert "PYTEST_CURRENT_TEST" in os.environ
        kept = {k for k in os.environ if k in FIXED_ENV_KEPT}
        assert "PATH" in kept
        assert set(server.env) - {LAYOUT_EVEN_ENV} == kept | {"GIVEN", SERVER_TAG_ENV,
                                                             LAYOUT_PAD_ENV}  # fmt: skip
        assert (len(server.argv) + len(server.env) + 3) % 2 == 0  # argv, envp, argc: even
        assert padded_env(server.argv, server.env) == server.env


def _first_stack(argv: list[str], env: dict[str, str]) -> int:
    """Where the stack of a process started with ``argv`` and ``env`` began (the address of
    its ``argc``, ``/proc/PID/stat``'s startstack), its address space not randomised."""
    done = subprocess.run(["setarch", "-R", *argv], env=env, capture_output=True, text=True,
                          check=True)  # fmt: skip
    return int(done.stdout)


def test_a_fixed_layout_starts_the_stack_at_one_address_whatever_the_lengths() -> None:
    """Padded (:func:`padded_env`), command lines and environments of other lengths start
    the process's stack at the same address; unpadded, they do not."""
    show = [sys.executable, "-c", "print(open('/proc/self/stat').read().split()[27])"]
    cases = [
        (show, {"PATH": "/usr/bin"}),
        ([*show, "--block-ms", "5"], {"PATH": "/usr/bin"}),
        (show, {"PATH": "/usr/bin", "PYTEST_CURRENT_TEST": "t.py::a_longer_name (call)"}),
        # the executed file's path is on the stack too: a clone elsewhere moved it
        ([os.path.realpath(sys.executable), *show[1:]], {"PATH": "/usr/bin"}),
    ]
    assert len({len(argv[0]) for argv, _ in cases}) == 2
    padded = {_first_stack(argv, padded_env(argv, env)) for argv, env in cases}
    assert len(padded) == 1
    assert len({_first_stack(argv, env) for argv, env in cases}) > 1  # some land alike
    assert all(len(padded_env(argv, env)[LAYOUT_PAD_ENV]) < LAYOUT_BLOCK_BYTES
               for argv, env in cases)  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"size_bytes": 8}, "16-byte minimum"),
        ({"in_flight": 0}, "at least 1"),
        ({"duration_s": 0}, "window > 0"),
        ({"count": 0}, "count must be"),
        ({"scenario": "telepathy"}, "unknown scenario"),
    ],
)
def test_bad_configuration_names_the_problem(changes: dict[str, object], message: str) -> None:
    fields: dict[str, object] = {"impl": "native", "scenario": "echo", **changes}
    with pytest.raises(ConfigError, match=message):
        measure(MeasureConfig(**fields))  # type: ignore[arg-type]


def test_killed_harness_leaves_no_server() -> None:
    """Even a harness killed with SIGKILL (no clean-up possible) takes its server with it."""
    code = (
        "from wsbench.instrument.measure import MeasureConfig, measure\n"
        "measure(MeasureConfig(impl='native', scenario='echo', warmup_s=0, duration_s=30))\n"
    )
    harness = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        servers: list[psutil.Process] = []
        while not servers and time.monotonic() < deadline:
            time.sleep(0.1)
            servers = [
                p for p in psutil.Process(harness.pid).children()
                if "serve" in p.cmdline()
            ]  # fmt: skip
        assert servers, "the harness started no server"
    finally:
        harness.kill()
        harness.wait()
    _, alive = psutil.wait_procs(servers, timeout=5)
    assert not alive, f"server(s) outlived the harness: {alive}"
