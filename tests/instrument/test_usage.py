"""Usage: the window's CPU time of a server's process tree, its kernel part and its memory."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil

from wsbench.instrument.usage import WindowSampler

# a child that spends its time in system calls (writes to /dev/null) and in Python between
# them, with a grandchild doing the same: the window counts the whole tree
BUSY = """
import os, subprocess, sys
if len(sys.argv) < 2:
    subprocess.Popen([sys.executable, __file__, "child"])
fd = os.open(os.devnull, os.O_WRONLY)
while True:
    os.write(fd, b"x" * 4096)
"""


def test_a_busy_process_tree_has_cpu_time_with_a_kernel_part_and_memory(tmp_path: Path) -> None:
    script = tmp_path / "busy.py"
    script.write_text(BUSY)
    proc = subprocess.Popen([sys.executable, str(script)])
    try:
        time.sleep(0.3)  # the grandchild has started
        sampler = WindowSampler(proc.pid, delay_s=0.0, duration_s=0.5, cpus=(0,))
        sampler.start()
        time.sleep(0.6)
        usage = sampler.result()
    finally:
        for child in psutil.Process(proc.pid).children(recursive=True):
            child.kill()
        proc.kill()
        proc.wait()
    assert usage is not None and sampler.activity is not None
    # two busy processes over half a second: far above one 10 ms clock tick each
    assert usage.kernel_cpu_percent is not None
    assert 0 < usage.kernel_cpu_percent < usage.cpu_percent
    assert usage.rss_bytes > 1_000_000 and usage.samples >= 2
    assert sampler.activity.cpus == (0,) and sampler.activity.busy_s > 0


def test_a_process_that_is_gone_gives_no_usage() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    sampler = WindowSampler(proc.pid, delay_s=0.0, duration_s=0.2)
    sampler.start()
    assert sampler.result() is None
