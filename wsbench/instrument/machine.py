"""Facts about the machine a run happened on, read from the system (never typed by hand)."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    """The CPU model name from ``/proc/cpuinfo`` (falls back to :func:`platform.processor`)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def kernel() -> str:
    """The operating system and kernel release, e.g. ``"Linux 6.1.0-26-amd64"``."""
    return f"{platform.system()} {platform.release()}"


def python_version() -> str:
    """The version of the running interpreter, e.g. ``"3.11.7"``."""
    return platform.python_version()


def cpu_count() -> int:
    """Logical CPUs of the machine."""
    return os.cpu_count() or 1
