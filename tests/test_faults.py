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

import os
import uuid
from pathlib import Path

import psutil

FAULT_TAG_ENV = "WSBENCH_FAULT_TAG"
"""An environment variable a test sets on a run it starts: every process of that run inherits
it, so :func:`tagged_processes` finds any that outlived the run, whoever its parent is now."""


def new_tag() -> dict[str, str]:
    """A fresh :data:`FAULT_TAG_ENV` entry to add to a run's environment."""
    return {FAULT_TAG_ENV: uuid.uuid4().hex}


def tagged_processes(tag: dict[str, str]) -> list[psutil.Process]:
    """The live processes (zombies aside) whose environment carries ``tag``."""
    (value,) = tag.values()
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.status() == psutil.STATUS_ZOMBIE or proc.pid == os.getpid():
                continue
            if proc.environ().get(FAULT_TAG_ENV) == value:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root``: its path relative to ``root`` and its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def unchanged(before: dict[str, bytes], root: Path) -> list[str]:
    """The files of ``before`` that are gone from ``root`` or differ from their bytes then."""
    after = snapshot(root)
    return [name for name, data in before.items() if after.get(name) != data]


# 1. The store's file system full or read-only.


# 2. A malformed document, or a newer format version, in the store.


# 3. Servers that fail.


# 4. The load generator killed; the harness interrupted.


# 5. Two runs on one store.


# 6. Bad ranges and names.


# 7. The nightly's publish.


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
    why = all_disturbed(bench.samples)
    assert re.fullmatch(
        r"every window was disturbed \(other work or steal time on the measured CPUs\): "
        rf"steal {min(steal):.0f}-{max(steal):.0f} % and other work \d+(-\d+)? % over 5 "
        r"windows, 3 of them after waits \(7 s in all\)",
        why,
    ), why
    assert (row_of(bench).status, row_of(bench).error) == ("failed", why)
    assert set(bench.server_exit_codes) <= {0, -15}
    assert tagged_processes(tag) == []
