"""Where a server's CPU time goes: a profile's samples sorted into the framework's Python
code, the event loop, the Python runtime, C extensions and the kernel.

A sample is classed by its leaf frame (the function running when it was taken;
:func:`stack_class`):

- **kernel**: not from the samples. py-spy reads user space only, so the kernel's share is
  the system time over the user+system time (``server_kernel_cpu_percent /
  server_cpu_percent``) of the same server process's windows *without* the profiler
  (:func:`kernel_share`): with native frames py-spy stops the server for every sample, and
  those stops add system time of their own. Every other class is its share of the
  user-space samples times what is left (``1 - kernel``). Without native frames a system
  call's time is on the Python line that made it, so the kernel's time is assumed spread
  over the classes like the samples are, which holds when the system calls are the event
  loop's and the framework's sends and receives (an approximation, stated on the site);
  with native frames, a sample in a C library's system-call wrapper (``write``,
  ``epoll_wait``: :data:`SYSTEM_CALLS`) is the kernel's time and is left out of the
  others.
- **event loop**: Python frames of ``asyncio``, ``selectors`` and ``uvloop``, and native
  frames of uvloop and the libuv it bundles, and of asyncio's and select's C modules.
- **Python runtime**: the other modules of the standard library
  (:data:`sys.stdlib_module_names`, e.g. ``ssl``, ``json``, ``threading``) and the
  interpreter's own C code (``cpython/...``, ``libpython``).
- **C extensions**: other native frames (extension modules' C, Cython or Rust code,
  ``libz``): only seen when the profile has native frames (``./bench profile --native``);
  without them a C function's time is on the Python line that called it.
- **framework**: every other Python frame: the framework, the server, their libraries, and
  the benchmark's own handler (``server.py``), which is a few lines of it.

A C library function that is not a system call (``memcpy``) and a header's inline
function (``Py_DECREF``, compiled into the extension that called it) take their caller's
class. Frames are py-spy's, file names shortened by :func:`wsbench.results.folded.short_file`:
``"function (aiohttp/web.py:502)"`` for Python, ``"function (uvloop/loop.c:110085)"`` or
``"function (libc.so.6)"`` for native ones.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from wsbench.results.folded import IDLE, process_frame, self_samples
from wsbench.results.runformat import ProfiledWindow, ProfileSet

CLASSES = ("framework", "event loop", "Python runtime", "C extensions", "kernel")
"""The classes, in the order the site stacks them."""
EVENT_LOOP_MODULES = frozenset({"asyncio", "selectors", "uvloop"})
"""Top-level Python modules that are the event loop."""
EVENT_LOOP_NATIVE = re.compile(
    r"(^|/)(uvloop|libuv[^/]*)/|^cpython/Modules/(_asynciomodule|selectmodule)\.c$"
)
"""Native files of the event loop: uvloop's Cython module and the libuv it bundles, and
asyncio's and select's C modules in the interpreter."""
SYSTEM_CALLS = frozenset({
    "read", "write", "readv", "writev", "recv", "send", "recvfrom", "sendto", "recvmsg",
    "sendmsg", "epoll_wait", "epoll_pwait", "epoll_ctl", "poll", "select", "futex",
    "__libc_read", "__libc_write", "__libc_recv", "__libc_send", "syscall",
})  # fmt: skip
"""C library functions that are a system call's wrapper: a native sample there is the
kernel's time, already in the kernel share."""
_FILE = re.compile(r" \(([^()]*)\)$")
_C_LIBRARY = re.compile(r"^(libc|libpthread|ld-linux[^/]*|libm)[.-]|^\[vdso\]$")
INHERIT = "inherit"
"""The class of a frame that takes its caller's: a C library function that is not a system
call (``memcpy``) and a header's inline function (``Py_DECREF``, compiled into whichever
extension called it)."""


def _module_file(frame: str) -> str | None:
    """The file a frame names, without its line: ``"a (x/y.py:3)"`` -> ``"x/y.py"``."""
    found = _FILE.search(frame)
    if not found:
        return None
    name = found.group(1)
    head, sep, tail = name.rpartition(":")
    return head if sep and tail.isdigit() else name


def _python_class(path: str) -> str:
    top = path.split("/", 1)[0].removesuffix(".py")
    if top in EVENT_LOOP_MODULES:
        return "event loop"
    if top in sys.stdlib_module_names:
        return "Python runtime"
    return "framework"


def _native_class(function: str, path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    if _C_LIBRARY.match(base):
        return "kernel" if function in SYSTEM_CALLS else INHERIT
    if EVENT_LOOP_NATIVE.search(path):
        return "event loop"
    if path.endswith(".h") and not path.startswith("cpython/Include/"):
        return INHERIT
    if path.startswith("cpython/") or base.startswith(("libpython", "python3")):
        return "Python runtime"
    return "C extensions"


def frame_class(frame: str) -> str:
    """The class of one frame (file names as :func:`wsbench.results.folded.short_file`
    leaves them): one of :data:`CLASSES`; ``"kernel"`` only for a C library's system-call
    wrapper; :data:`INHERIT` for a frame that takes its caller's class; ``"idle"`` for
    py-spy's idle frame and the process frame.

    Examples: ``"BaseEventLoop._run_once (asyncio/base_events.py:1922)"`` -> ``"event
    loop"``; ``"WebSocketWriter.send_frame (aiohttp/_websocket/writer.py:126)"`` ->
    ``"framework"``; ``"UVStream_write (uvloop/loop.c:110085)"`` -> ``"event loop"``;
    ``"deflate (libz.so.1.2.13)"`` -> ``"C extensions"``.
    """
    if frame == IDLE or process_frame(frame).startswith("process ("):
        return "idle"
    path = _module_file(frame)
    if path is None:
        return "framework"  # py-spy names a coroutine without its file this way
    if path.endswith(".py"):
        return _python_class(path)
    return _native_class(frame[: frame.rfind(" (")], path)


def stack_class(stack: str) -> str:
    """The class of a stack's samples: its leaf frame's (:func:`frame_class`), or, for a
    leaf that takes its caller's, the first caller's that does not."""
    for frame in reversed(stack.split(";")):
        klass = frame_class(frame)
        if klass != INHERIT:
            return klass
    return "C extensions"


def busy_self_samples(stacks: Mapping[str, int], *, by_line: bool = False) -> dict[str, int]:
    """Self samples per function of ``stacks`` (folded stacks -> samples;
    :func:`wsbench.results.folded.self_samples`, most first) that found the server busy in
    user space: py-spy's idle frame and process frames (``"idle"``) and a C library's
    system-call wrappers (``"kernel"``, whose time is the kernel's share) left out. The one
    base of every "top functions" list and of the differential profiles' shares."""
    return {
        frame: count
        for frame, count in self_samples(dict(stacks), by_line=by_line).items()
        if frame_class(frame) not in ("idle", "kernel")
    }


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
        klass = stack_class(stack)
        if klass == "kernel":
            continue  # a system call's time, in ``kernel_share``
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


def _kernel_of(window: ProfiledWindow) -> float | None:
    cpu, kernel = window.server_cpu_percent, window.server_kernel_cpu_percent
    return kernel / cpu if cpu and kernel is not None else None


def kernel_share(found: ProfileSet) -> float | None:
    """The kernel's share of the server's CPU time at a profiled set, 0-1: the mean over the
    unprofiled windows (before and after the profiled one) of system / (user + system);
    the profiled window's own when neither has CPU figures; None without any."""
    shares_ = [k for k in map(_kernel_of, found.unprofiled) if k is not None]
    if shares_:
        return sum(shares_) / len(shares_)
    return _kernel_of(found.profiled) if found.profiled else None


def shares_of(found: ProfileSet) -> Shares:
    """:func:`shares` of a profiled set, with its :func:`kernel_share`."""
    return shares(found.stacks, kernel_share=kernel_share(found))
