"""A profile's samples sorted into the framework, the event loop, the Python runtime, C
extensions and the kernel."""

from __future__ import annotations

import msgspec
import pytest

from wsbench.results.profile_shares import (
    CLASSES,
    frame_class,
    kernel_share,
    shares,
    shares_of,
    stack_class,
)
from wsbench.results.runformat import ProfiledWindow, ProfileSet


@pytest.mark.parametrize(
    ("frame", "klass"),
    [
        ("BaseEventLoop._run_once (asyncio/base_events.py:1922)", "event loop"),
        ("EpollSelector.select (selectors.py:468)", "event loop"),
        ("Loop.run_forever (uvloop/__init__.py:82)", "event loop"),
        ("UVStream__try_write (uvloop/loop.c:106818)", "event loop"),
        ("uv__io_poll (build/libuv-x86_64/src/unix/linux.c:1546)", "event loop"),
        ("task_step_impl (cpython/Modules/_asynciomodule.c:2704)", "event loop"),
        ("WebSocketWriter.send_frame (aiohttp/_websocket/writer.py:126)", "framework"),
        ("echo (server.py:37)", "framework"),
        ("WebSocketResponse.send_bytes", "framework"),
        ("SSLObject.read (ssl.py:930)", "Python runtime"),
        ("dumps (json/__init__.py:231)", "Python runtime"),
        ("_PyEval_EvalFrameDefault (libpython3.11.so.1.0)", "Python runtime"),
        ("PyObject_Malloc (cpython/Objects/obmalloc.c:1966)", "Python runtime"),
        ("Py_DECREF (cpython/Include/object.h:537)", "Python runtime"),
        ("s_pack (cpython/Modules/_struct.c:12)", "Python runtime"),
        ("WebSocketReader__handle_frame (aiohttp/_websocket/reader_c.c:8533)", "C extensions"),
        ("deflate (libz.so.1.2.13)", "C extensions"),
        ("write (libc.so.6)", "kernel"),
        ("epoll_pwait (libc.so.6)", "kernel"),
        ("__memmove_avx_unaligned_erms (libc.so.6)", "inherit"),
        ("__pyx_f_inline (picows/picows.h:3)", "inherit"),
        ("(idle)", "idle"),
        ("process (server.py)", "idle"),
    ],
)
def test_a_frame_is_classed_by_its_module_or_library(frame: str, klass: str) -> None:
    assert frame_class(frame) == klass


def test_a_frame_that_inherits_takes_its_first_callers_class() -> None:
    caller = "a (server.py:1);UVStream_write (uvloop/loop.c:1)"
    assert stack_class(f"{caller};memcpy (libc.so.6);x (some/inline.h:2)") == "event loop"
    assert stack_class("memcpy (libc.so.6)") == "C extensions"


def test_shares_split_the_samples_after_the_kernels_part_of_the_window() -> None:
    root = "process (server.py);<module> (server.py:9)"
    stacks = {
        f"{root};run (asyncio/runners.py:1);_run_once (asyncio/base_events.py:2)": 20,
        f"{root};handler (server.py:5);parse (websockets/frames.py:7)": 50,
        f"{root};handler (server.py:5);apply_mask (speedups.cpython-311-x86_64-linux-gnu.so)": 20,
        f"{root};handler (server.py:5);dumps (json/encoder.py:3)": 10,
        f"{root};UVStream_write (uvloop/loop.c:1);write (libc.so.6)": 500,  # the kernel's
        "(idle)": 100,
    }
    found = shares(stacks, kernel_share=0.4)
    assert list(found.shares) == list(CLASSES)
    assert found.shares == pytest.approx(
        {"framework": 0.3, "event loop": 0.12, "Python runtime": 0.06, "C extensions": 0.12,
         "kernel": 0.4}
    )  # fmt: skip
    assert sum(found.shares.values()) == pytest.approx(1.0)
    assert (found.idle, found.samples) == (0.5, 100)


def test_without_samples_or_a_kernel_share_nothing_is_made_up() -> None:
    assert shares({}, kernel_share=0.3).shares == dict.fromkeys(CLASSES, 0.0)
    found = shares({"a;b (websockets/frames.py:1)": 4}, kernel_share=None)
    assert found.shares["framework"] == 1.0 and found.shares["kernel"] == 0.0


def test_the_kernel_share_comes_from_the_windows_without_the_profiler() -> None:
    def window(cpu: float | None, kernel: float | None) -> ProfiledWindow:
        return ProfiledWindow(messages_per_s=1000.0, server_cpu_percent=cpu,
                              server_kernel_cpu_percent=kernel)  # fmt: skip

    found = ProfileSet(
        "echo", {"size_bytes": 16}, "ok", None, 1.0, 100,
        stacks={"a;f (websockets/frames.py:1)": 10},
        profiled=window(100.0, 90.0),  # the profiler's stops add system time
        unprofiled=[window(80.0, 20.0), window(50.0, 20.0)],
    )  # fmt: skip
    assert kernel_share(found) == pytest.approx((0.25 + 0.4) / 2)
    assert shares_of(found).shares["framework"] == pytest.approx(1 - 0.325)
    alone = msgspec.structs.replace(found, unprofiled=[window(None, None)])
    assert kernel_share(alone) == pytest.approx(0.9)
    assert kernel_share(msgspec.structs.replace(alone, profiled=None)) is None


def test_a_process_frame_as_py_spy_wrote_it_is_no_class_of_the_cpu() -> None:
    # documents recorded before worker frames were made comparable keep them as written
    assert frame_class('process 18570:"/v/bin/python -m granian --port 1"') == "idle"
