"""Where a server's CPU time goes: a profile's samples sorted into the framework's Python
code, the event loop, the Python runtime, C extensions and the kernel.

A sample is classed by its leaf frame (the function running when it was taken):

- **kernel**: not from the samples. py-spy reads user space only and puts a system call's
  time on the Python line (or native function) that made it, so the kernel's share is the
  profiled window's system time over its user+system time
  (``server_kernel_cpu_percent / server_cpu_percent``), and every other class is its share
  of the samples times what is left (``1 - kernel``): the kernel's time is assumed spread
  over the classes like the samples are, which holds when the system calls are the event
  loop's and the framework's sends and receives (an approximation, stated on the site).
- **event loop**: Python frames of ``asyncio`` and ``selectors``, and frames of ``uvloop``
  (its Python wrapper or its compiled library, ``loop.cpython-*.so``).
- **Python runtime**: the other modules of the standard library
  (:data:`sys.stdlib_module_names`, e.g. ``ssl``, ``json``, ``threading``) and, with native
  frames, the interpreter itself (``libpython``, the ``python`` executable).
- **C extensions**: other native frames (``*.so`` of extension modules, ``libz``, ``libc``):
  only seen when the profile has native frames (``./bench profile --native``); without them
  a C function's time is on the Python line that called it.
- **framework**: every other Python frame: the framework, the server, their libraries, and
  the benchmark's own handler (``server.py``), which is a few lines of it.

Frames are py-spy's: ``"function (path/to/module.py:LINE)"`` for Python, ``"function
(library.so)"`` or ``"function (file.c:LINE)"`` for native ones (the latter when the library
carries line information: its file is a C file, not a module).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from wsbench.results.folded import IDLE

CLASSES = ("framework", "event loop", "Python runtime", "C extensions", "kernel")
"""The classes, in the order the site stacks them."""
EVENT_LOOP_MODULES = frozenset({"asyncio", "selectors", "uvloop", "_asyncio"})
"""Top-level modules (and library names) that are the event loop."""
_FILE = re.compile(r" \(([^()]*)\)$")
_NATIVE_SUFFIXES = (".so", ".c", ".h", ".cc", ".cpp", ".rs", ".pyx", ".pxd", ".pxi")
_INTERPRETER = re.compile(r"^(libpython[0-9.]*|python[0-9.]*)(\.so.*)?$")


def _module_file(frame: str) -> str | None:
    """The file a frame names, without its line: ``"a (x/y.py:3)"`` -> ``"x/y.py"``."""
    found = _FILE.search(frame)
    if not found:
        return None
    name = found.group(1)
    head, sep, tail = name.rpartition(":")
    return head if sep and tail.isdigit() else name


def frame_class(frame: str) -> str:
    """The class (:data:`CLASSES`, never ``"kernel"``) of one frame, or ``"idle"`` for
    py-spy's idle frame and the process frame's own samples.

    Examples: ``"BaseEventLoop._run_once (asyncio/base_events.py:1922)"`` -> ``"event
    loop"``; ``"WebSocketWriter.send_frame (aiohttp/_websocket/writer.py:126)"`` ->
    ``"framework"``; ``"deflate (libz.so.1.2.13)"`` -> ``"C extensions"``.
    """
    if frame == IDLE or frame.startswith("process ("):
        return "idle"
    path = _module_file(frame)
    if path is None:
        # a frame without a file: py-spy names a coroutine or a native function this way
        return "framework"
    base = path.rsplit("/", 1)[-1]
    if not path.endswith(".py"):
        if any(part in EVENT_LOOP_MODULES for part in re.split(r"[/.]", path)):
            return "event loop"
        if _INTERPRETER.match(base) or base.startswith(("Python/", "Objects/")):
            return "Python runtime"
        if path.startswith(("Python/", "Objects/", "Modules/", "Include/", "Parser/")):
            return "Python runtime"  # the interpreter's own C files, with line information
        if path.endswith(_NATIVE_SUFFIXES) or ".so." in path:
            return "C extensions"
    top = path.split("/", 1)[0].removesuffix(".py")
    if top in EVENT_LOOP_MODULES:
        return "event loop"
    if "/" not in path and top in sys.stdlib_module_names:
        return "Python runtime"
    if "/" in path and top in sys.stdlib_module_names:
        return "Python runtime"
    return "framework"


@dataclass(frozen=True)
class Shares:
    """A server's CPU time split into :data:`CLASSES`.

    Attributes:
        shares: class -> share of the server's CPU time, 0-1; they sum to 1 (kernel
            included) when the profile had samples.
        idle: the share of py-spy's samples that found the server waiting (only with
            ``--idle`` profiles; 0 otherwise).
        samples: the busy samples the shares come from.
    """

    shares: dict[str, float]
    idle: float
    samples: int


def shares(stacks: Mapping[str, int], *, kernel_share: float | None) -> Shares:
    """The CPU shares of a profile (folded stacks -> samples, root first).

    Args:
        stacks: the profile (:func:`wsbench.results.folded.parse_folded`).
        kernel_share: the window's system time over its user+system time, 0-1, or None
            (unknown: the kernel's share is then 0 and the others share all).

    Returns:
        :class:`Shares`; every class present, 0 when no sample was in it.
    """
    counts = dict.fromkeys(CLASSES, 0)
    idle = 0
    for stack, count in stacks.items():
        leaf = stack.rsplit(";", 1)[-1]
        klass = frame_class(leaf)
        if klass == "idle":
            idle += count
        else:
            counts[klass] += count
    busy = sum(counts.values())
    kernel = min(max(kernel_share or 0.0, 0.0), 1.0)
    split = {k: (1 - kernel) * c / busy if busy else 0.0 for k, c in counts.items()}
    split["kernel"] = kernel if busy else 0.0
    total = busy + idle
    return Shares(split, idle / total if total else 0.0, busy)
