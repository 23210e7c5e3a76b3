"""Folded stacks read back, and self time per function and line."""

from __future__ import annotations

import pytest

from wsbench.results import folded


def test_folded_stacks_are_summed_per_stack_and_self_time_goes_to_the_leaf() -> None:
    text = "a (x.py:1);b (x.py:2) 3\na (x.py:1);b (x.py:2) 2\na (x.py:1) 1\n\n"
    stacks = folded.parse_folded(text)
    assert stacks == {"a (x.py:1);b (x.py:2)": 5, "a (x.py:1)": 1}
    assert folded.self_samples(stacks) == {"b (x.py)": 5, "a (x.py)": 1}
    assert folded.self_samples(stacks, by_line=True) == {"b (x.py:2)": 5, "a (x.py:1)": 1}
    assert folded.idle_share(stacks, rate_hz=10, duration_s=1.0) == pytest.approx(0.4)
    with pytest.raises(folded.FoldedError, match="line 1: no sample count"):
        folded.parse_folded("a;b\n")
    root = 'process 123:"/v/bin/python /w/impls/x/server.py --port 5001";main (server.py:3) 2'
    assert folded.parse_folded(root) == {"process (server.py);main (server.py:3)": 2}
    assert folded.process_frame('process 9:"/usr/bin/granian --port 1"') == "process (granian)"


@pytest.mark.parametrize(
    ("full", "short"),
    [
        ("/w/.wsbench/envs/e/lib/python3.11/site-packages/aiohttp/web.py", "aiohttp/web.py"),
        (
            "/root/.pyenv/versions/3.11.7/lib/python3.11/asyncio/base_events.py",
            "asyncio/base_events.py",
        ),
        ("/work/main/impls/aiohttp/server.py", "server.py"),
        (
            "/tmp/python-build.2026/Python-3.11.7/Modules/_asynciomodule.c",
            "cpython/Modules/_asynciomodule.c",
        ),
        (
            "/opt/_internal/cpython-3.11.15/include/python3.11/object.h",
            "cpython/Include/object.h",
        ),
        ("/project/uvloop/loop.c", "uvloop/loop.c"),
        ("/project/build/libuv-x86_64/src/unix/core.c", "build/libuv-x86_64/src/unix/core.c"),
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6"),
        ("aiohttp/web.py", "aiohttp/web.py"),
    ],
)
def test_full_file_names_keep_what_names_their_package(full: str, short: str) -> None:
    assert folded.short_file(full) == short
    assert folded.short_frame(f"f ({full}:12)") == f"f ({short}:12)"
    assert folded.short_frame(f"f ({full})") == f"f ({short})"


def test_stacks_with_full_file_names_read_like_short_ones() -> None:
    root = 'process 1:"/v/bin/python /w/impls/x/server.py"'
    text = f"{root};main (/w/impls/x/server.py:3);run (/v/lib/python3.11/asyncio/runners.py:1) 2"
    assert folded.parse_folded(text) == {
        "process (server.py);main (server.py:3);run (asyncio/runners.py:1)": 2
    }


def test_a_workers_process_frame_is_made_comparable_where_it_is() -> None:
    root = 'process 7:"/v/bin/python -m granian --interface rsgi --port 4000"'
    worker = 'process 8:"/v/bin/python -m granian --interface rsgi --port 4000"'
    stacks = folded.parse_folded(f"{root};{worker};echo (/w/impls/g/server.py:9) 3")
    assert stacks == {"process (granian);process (granian);echo (server.py:9)": 3}
