"""The harness starts and stops servers cleanly and reports failures with the server's log."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import fixture_impl
from wsbench.instrument.measure import ConfigError, MeasureConfig, measure


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
    assert "not ready after 2 s" in m.error
    assert "not listening on purpose" in m.error
    assert _gone(m.server_pid)
    assert _gone(int(pid_file.read_text()))


def test_server_exiting_at_start_is_reported() -> None:
    config = MeasureConfig(impl="exits", scenario="echo", count=10)
    m = measure(config, impl=fixture_impl("exits_at_start"))
    assert m.status == "failed"
    assert m.error is not None
    assert "exited with code 3 before it became ready" in m.error
    assert "ImportError on purpose" in m.error


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
