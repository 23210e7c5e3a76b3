"""Figures per core: every leaderboard says so, a configuration whose busy threads share its
one CPU is marked beside its rows and its text listed under the legend, and its framework
page states it; the configurations of impls/ that state busy threads are the measured ones;
the home page counts and names them, and the Methodology page lists them, from the same
metadata (no page types which servers are multi-threaded)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.runs import impl, run
from tests.site_runs import site_runs
from wsbench.impls import all_impls, get_impl
from wsbench.site.findings import findings_of
from wsbench.site.home import HOME_PAGE, render_home
from wsbench.site.markup import cell
from wsbench.site.methodology import METHODOLOGY_PAGE, SHARED_CPU_MARKER, fill_markers
from wsbench.site.render import render_leaderboard_page
from wsbench.site.results import select
from wsbench.site.shared_cpu import (
    MARK,
    PER_CORE,
    framework_note,
    methodology_list,
    shared_cpu_of,
    threads_sentence,
)

ROOT = Path(__file__).resolve().parents[2]

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


def test_the_home_page_counts_the_shown_configurations_by_their_metadata() -> None:
    runs = [
        run([20_000.0] * 6, impl_info=impl("websockets", "15.0.1", "asyncio")),
        run([5_000.0] * 6, impl_info=impl("granian", "2.8.7", "rsgi-asyncio")),
        run([6_000.0] * 6, impl_info=impl("granian", "2.8.7", "rsgi-uvloop")),
    ]
    shown = select(runs).runs
    assert threads_sentence(shown, SHARED).startswith(
        "2 of the 3 configurations shown do their work in one thread, the event loop's: at "
        "100 % CPU such a server is saturated"
    )
    assert (
        f"The other 1 hand each message between several busy threads that take turns on that "
        f"CPU, as their `meta.toml` states ({MARK} on the leaderboards, which say what each "
        f"thread does): {cell('granian (RSGI) · asyncio')}."
    ) in threads_sentence(shown, SHARED)
    assert threads_sentence(shown, {}).startswith(
        "Every configuration shown does its work in one thread, the event loop's"
    )
    assert threads_sentence((), SHARED) == ""
    # The page: no blanket claim that every server is single-threaded.
    results = select(site_runs())
    page = render_home(results, findings_of(results, []), shared_cpu=SHARED)[HOME_PAGE]
    assert isinstance(page, str) and "single-threaded" not in page
    assert "configuration shown does its work in one thread" in page


def test_the_methodology_page_lists_the_configurations_that_state_busy_threads() -> None:
    listed = methodology_list(all_impls())
    names = sorted(name for name, _ in shared_cpu_of(all_impls()).values())
    assert [line.split("**")[1] for line in listed.splitlines()] == [cell(n) for n in names]
    assert "Granian's worker hands each message" in listed
    assert methodology_list([get_impl("websockets")]).startswith("None of the configurations")
    page = (ROOT / "site" / METHODOLOGY_PAGE).read_text(encoding="utf-8")
    assert SHARED_CPU_MARKER in page
    filled = fill_markers(METHODOLOGY_PAGE, page)
    assert SHARED_CPU_MARKER not in filled and listed in filled
    # The page types no list of its own: every name it gives beside "threads" is generated.
    for name in ("Robyn's", "granian's worker", "Django Channels from"):
        assert name not in page
