"""A profile's samples sorted into the framework, the event loop, the Python runtime, C
extensions and the kernel."""

from __future__ import annotations

import pytest

from wsbench.results.profile_shares import CLASSES, frame_class, shares


@pytest.mark.parametrize(
    ("frame", "klass"),
    [
        ("BaseEventLoop._run_once (asyncio/base_events.py:1922)", "event loop"),
        ("EpollSelector.select (selectors.py:468)", "event loop"),
        ("Loop.run_forever (uvloop/__init__.py:82)", "event loop"),
        ("uv__io_poll (loop.cpython-311-x86_64-linux-gnu.so)", "event loop"),
        ("__pyx_f_6uvloop_4loop_4Loop__on_idle (uvloop/loop.c:12345)", "event loop"),
        ("WebSocketWriter.send_frame (aiohttp/_websocket/writer.py:126)", "framework"),
        ("echo (server.py:37)", "framework"),
        ("WebSocketResponse.send_bytes", "framework"),
        ("SSLObject.read (ssl.py:930)", "Python runtime"),
        ("dumps (json/__init__.py:231)", "Python runtime"),
        ("_PyEval_EvalFrameDefault (libpython3.11.so.1.0)", "Python runtime"),
        ("PyObject_Malloc (Objects/obmalloc.c:1966)", "Python runtime"),
        ("deflate (libz.so.1.2.13)", "C extensions"),
        ("apply_mask (speedups.cpython-311-x86_64-linux-gnu.so)", "C extensions"),
        ("__memmove_avx_unaligned_erms (libc.so.6)", "C extensions"),
        ("(idle)", "idle"),
        ("process (server.py)", "idle"),
    ],
)
def test_a_frame_is_classed_by_its_module_or_library(frame: str, klass: str) -> None:
    assert frame_class(frame) == klass


def test_shares_split_the_samples_after_the_kernels_part_of_the_window() -> None:
    root = "process (server.py);<module> (server.py:9)"
    stacks = {
        f"{root};run (asyncio/runners.py:1);_run_once (asyncio/base_events.py:2)": 20,
        f"{root};handler (server.py:5);parse (websockets/frames.py:7)": 50,
        f"{root};handler (server.py:5);apply_mask (speedups.cpython-311-x86_64-linux-gnu.so)": 20,
        f"{root};handler (server.py:5);dumps (json/encoder.py:3)": 10,
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
