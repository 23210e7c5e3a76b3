"""Figures per core: every leaderboard says so, a configuration whose busy threads share its
one CPU is marked beside its rows and its text listed under the legend, and its framework
page states it; the configurations of impls/ that state busy threads are the measured ones."""

from __future__ import annotations

import re

from tests.runs import impl, run
from wsbench.impls import get_impl
from wsbench.site.markup import cell
from wsbench.site.render import render_leaderboard_page
from wsbench.site.results import select
from wsbench.site.shared_cpu import MARK, PER_CORE, framework_note, shared_cpu_of

SHARED = {("granian", "rsgi-asyncio"): ("granian (RSGI) · asyncio", "three threads take turns")}


def _rows(page: str) -> dict[str, str]:
    """Each table row's name cell (second column) by its implementation name."""
    found = {}
    for line in page.splitlines():
        cells = [c.strip() for c in line.split("|")]
        name = re.search(r">(granian|websockets) ", cells[2]) if len(cells) > 3 else None
        if name:
            found[name[1]] = cells[2]
    return found


def test_a_row_whose_threads_share_the_cpu_is_marked_and_its_text_listed() -> None:
    runs = [
        run([20_000.0] * 6, impl_info=impl("websockets", "15.0.1", "asyncio")),
        run(
            [5_000.0] * 6,
            run_id="20261123T190000Z-bbbbbb",
            impl_info=impl("granian", "2.8.7", "rsgi-asyncio"),
        ),
    ]
    page = render_leaderboard_page("echo", select(runs), shared_cpu=SHARED).markdown
    assert PER_CORE in page
    rows = _rows(page)
    assert rows["granian"].endswith(MARK) and MARK not in rows["websockets"]
    assert f"- {MARK} **{cell('granian (RSGI) · asyncio')}**: Three threads take turns." in page
    # Without the configurations' texts: the legend still says per core, nothing is marked.
    plain = render_leaderboard_page("echo", select(runs)).markdown
    assert PER_CORE in plain and f"- {MARK} **" not in plain
    assert MARK not in _rows(plain)["granian"]


def test_the_configurations_that_state_busy_threads_are_the_measured_ones() -> None:
    # Per-thread CPU time from /proc over a window of echo 16 B x 64 found two or more
    # threads each above 10 % of the CPU in exactly these (the closing note of issue 44).
    impls = [get_impl(n) for n in ("granian", "fastapi", "starlette", "robyn", "channels",
                                   "flask-socketio", "websockets", "aiohttp", "sanic")]  # fmt: skip
    assert sorted(shared_cpu_of(impls)) == [
        ("channels", "daphne"), ("channels", "uvicorn-asyncio"),
        ("fastapi", "granian-asyncio"), ("flask-socketio", "threading"),
        ("granian", "rsgi-asyncio"), ("robyn", "app-websocket"),
        ("starlette", "granian-asyncio"),
    ]  # fmt: skip


def test_a_framework_page_states_its_configurations_threads() -> None:
    note = framework_note(get_impl("fastapi"))
    assert "**FastAPI · granian · asyncio**: Granian's worker hands each message" in note
    assert "uvicorn" not in note
    assert framework_note(get_impl("websockets")) == ""
