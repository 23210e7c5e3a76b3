"""Tests of wsbench.instrument.cpus: CPU lists and where the server and load generator go."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from wsbench.cpulist import CpuSetError
from wsbench.deployment import MULTI_SERVER_CPUS_ENV, TLS, TWO_CPUS, WORKERS
from wsbench.instrument.cpus import (
    LOADGEN_CPUS_ENV,
    SERVER_CPUS_ENV,
    CpuPlacement,
    available_cpus,
    default_placement,
    open_files_limit,
    placement_from,
    start_pinned,
)


def test_the_options_then_the_runners_variables_then_the_default_place_the_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, last = available_cpus()[0], available_cpus()[-1]
    monkeypatch.delenv(SERVER_CPUS_ENV, raising=False)
    monkeypatch.delenv(LOADGEN_CPUS_ENV, raising=False)
    assert placement_from(None, None) == default_placement()
    monkeypatch.setenv(SERVER_CPUS_ENV, str(last))
    monkeypatch.setenv(LOADGEN_CPUS_ENV, f"{first}")
    assert placement_from(None, None).server == (last,)
    assert placement_from(None, None).loadgen == (first,)
    assert placement_from(str(first), None).server == (first,)  # an option wins
    monkeypatch.setenv(LOADGEN_CPUS_ENV, "")  # empty: not set
    assert placement_from(None, None).loadgen == default_placement().loadgen
    monkeypatch.setenv(LOADGEN_CPUS_ENV, "4096")
    with pytest.raises(CpuSetError, match="not available here"):
        placement_from(None, None)


def test_the_multi_cpu_server_set_places_the_multi_cpu_profiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTI_SERVER_CPUS_ENV, raising=False)
    assert placement_from(None, None).multi_server == ()
    usable = available_cpus()
    both = f"{usable[0]}-{usable[1]}" if len(usable) > 1 else None
    if both:
        monkeypatch.setenv(MULTI_SERVER_CPUS_ENV, both)
        assert placement_from(None, None).multi_server == usable[:2]
    monkeypatch.setenv(MULTI_SERVER_CPUS_ENV, str(usable[0]))
    with pytest.raises(CpuSetError, match="a multi-CPU server set has at least 2 CPUs"):
        placement_from(None, None)
    placement = CpuPlacement(server=(2,), loadgen=(5, 6), multi_server=(2, 3, 4))
    assert placement.for_profile(TLS) is placement
    assert placement.for_profile(TWO_CPUS) == CpuPlacement((2, 3), (5, 6), (2, 3, 4))
    assert placement.for_profile(WORKERS).server == (2, 3, 4)
    with pytest.raises(ValueError, match="needs a multi-CPU server set"):
        CpuPlacement(server=(0,), loadgen=(1,)).for_profile(WORKERS)


STARTER = """
import sys, time
from wsbench.instrument import cpus
if sys.argv[1] == "preexec_fn":
    cpus._parent_death_tool = lambda: None  # no setpriv: the preexec_fn path
child = cpus.start_pinned(["sleep", "60"], [int(sys.argv[2])])
print(child.pid, flush=True)
time.sleep(60)
"""
"""A harness stand-in: starts ``sleep 60`` with :func:`start_pinned`, prints its pid, waits."""


@pytest.mark.parametrize("path", ["setpriv", "preexec_fn"])
def test_a_started_child_is_pinned_has_the_open_file_limit_and_dies_with_its_starter(
    path: str,
) -> None:
    cpu = available_cpus()[-1]
    starter = subprocess.Popen([sys.executable, "-c", STARTER, path, str(cpu)],
                               stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert starter.stdout is not None
        child = psutil.Process(int(starter.stdout.readline()))
        deadline = time.monotonic() + 10
        while child.cmdline() != ["sleep", "60"]:  # setpriv executes it a moment later
            assert time.monotonic() < deadline, child.cmdline()
            time.sleep(0.01)
        assert child.cpu_affinity() == [cpu]
        soft, _ = child.rlimit(psutil.RLIMIT_NOFILE)
        assert soft == open_files_limit()
        starter.kill()  # SIGKILL: nothing of the starter runs after it
        child.wait(timeout=10)  # not this process's child: it only waits until it is gone
        assert not child.is_running()
    finally:
        starter.kill()
        starter.wait()


def test_a_program_that_cannot_be_executed_raises_as_popen_does(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no-such-program"):
        start_pinned(["no-such-program"], [available_cpus()[0]])
    with pytest.raises(FileNotFoundError, match="missing"):
        start_pinned([str(tmp_path / "missing")], [available_cpus()[0]])
    plain = tmp_path / "plain"
    plain.write_text("not a program")
    with pytest.raises(PermissionError, match="plain"):
        start_pinned([str(plain)], [available_cpus()[0]])
