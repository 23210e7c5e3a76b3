"""A framework page's "Where the time goes" (wsbench.site.profiles_page): the answer first,
the shares, the top functions, how the profile was taken, the flame graph's data beside the
page; and no section (nor a link to one) without a profile. The built site's pages are read
as a visitor sees them."""

# The pages' typography (multiplication sign) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import msgspec
import pytest

from tests.site_runs import IMPLS, PROFILE_RUN, profile_runs, site_runs
from wsbench.results.store import Store
from wsbench.site.framework_pages import render_page
from wsbench.site.frameworks import Framework, load_frameworks
from wsbench.site.history import History
from wsbench.site.profiles import Profiles, profiles_from
from wsbench.site.profiles_page import SECTION_ANCHOR, profiles_fact, render_section
from wsbench.site.results import results_of

AIOHTTP = "profile-default-echo-16-b-x64"
"""The id of aiohttp's profile on its page."""
STARLETTE = "profile-websockets-uvloop-echo-16-b-x64"


@pytest.fixture(scope="module")
def frameworks() -> dict[str, Framework]:
    return {f.name: f for f in load_frameworks(IMPLS)}


@pytest.fixture(scope="module")
def profiles() -> Profiles:
    return profiles_from(profile_runs())


def shown(fragment: str) -> str:
    """What a visitor reads of an HTML fragment: its text, tags dropped, entities decoded,
    spaces collapsed, the headings' permalink signs dropped."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", fragment)).replace("¶", "")
    text = " ".join(text.split())
    return re.sub(r" ([,.;:)])", r"\1", text).replace("( ", "(")


def section(page: str, anchor: str) -> str:
    """The HTML from the heading with id ``anchor`` to the next heading of its level or
    higher."""
    start = re.search(rf'<h([23]) id="{anchor}"', page)
    assert start is not None, anchor
    level = int(start.group(1))
    rest = page[start.end() :]
    end = re.search(rf"<h[2-{level}] ", rest)
    return rest[: end.start()] if end else rest


def paragraphs(fragment: str) -> list[str]:
    return [shown(p) for p in re.findall(r"<p>(.*?)</p>", fragment, re.S)]


def tables(fragment: str) -> list[list[list[str]]]:
    """Every table of ``fragment`` as rows of cell texts, the header row first."""
    found = []
    for body in re.findall(r"<table>(.*?)</table>", fragment, re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
        found.append([[shown(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)]
                      for r in rows])  # fmt: skip
    return found


@pytest.fixture(scope="module")
def aiohttp_page(built_site: Path) -> str:
    return (built_site / "frameworks" / "aiohttp" / "index.html").read_text(encoding="utf-8")


def test_the_framework_page_answers_first_with_its_top_function(aiohttp_page: str) -> None:
    mine = section(aiohttp_page, AIOHTTP)
    first, how, note, top_intro, _flame, link = paragraphs(mine)
    assert first == (
        "64 % framework, 20 % kernel; top: WebSocketWriter.send_frame "
        "(aiohttp/_websocket/writer.py:126) 48 %."
    )
    assert how == (
        "Profiled by py-spy 0.4.3, Python frames only: 200 samples over a 1 s window at 250 Hz "
        "(20 % of the window idle), at 49,000 messages/s: 0.98 × the 50,000 messages/s of the "
        "same server process's 2 unprofiled windows (the profiler's cost); 20.0 µs of server "
        f"CPU per message unprofiled. Run {PROFILE_RUN}, 2026-11-22 06:00 UTC."
    )
    assert note.startswith("py-spy reads the server's user space only: the kernel share is ")
    assert note.endswith("C extensions is then 0).")
    assert top_intro.startswith("The top 5 functions by self time")
    assert link == "Data of this flame graph: JSON"
    shares, top = tables(mine)
    assert shares == [
        ["Where", "Share of the server's CPU"],
        ["framework", "64.0 %"],
        ["event loop", "12.0 %"],
        ["Python runtime", "4.0 %"],
        ["C extensions", "0.0 %"],
        ["kernel", "20.0 %"],
        ["idle (share of the window, not of the CPU)", "20.0 %"],
    ]
    assert top[:3] == [
        ["#", "Function", "Where", "Class", "Self (share of CPU)"],
        ["1", "WebSocketWriter.send_frame", "aiohttp/_websocket/writer.py:126", "framework",
         "48.0 %"],
        ["2", "WebSocketReader.feed_data", "aiohttp/_websocket/reader.py:80", "framework",
         "16.0 %"],
    ]  # fmt: skip
    assert len(top) == 1 + 5
    # The section is under its own heading, led to from the facts at the top of the page.
    assert f'id="{SECTION_ANCHOR}"' in aiohttp_page
    facts = tables(aiohttp_page)[0]
    assert ["Where the time goes", "64 % framework, 20 % kernel (echo 16 B x64)"] in facts
    assert f'<a href="#{SECTION_ANCHOR}">64 % framework, 20 % kernel</a>' in aiohttp_page


def test_a_native_profile_says_so_and_its_c_extension_has_its_share(built_site: Path) -> None:
    page = (built_site / "frameworks" / "starlette" / "index.html").read_text(encoding="utf-8")
    mine = section(page, STARLETTE)
    first, how, note, *_ = paragraphs(mine)
    assert first == (
        "50 % kernel, 25 % framework; top: Protocol.receive_data (websockets/protocol.py:250) 15 %."
    )
    assert how.startswith(
        "Profiled by py-spy 0.4.3, with native frames: 200 samples over a 2 s window at 100 Hz "
        "(0 % of the window idle), at 20,000 messages/s: 0.50 × the 40,000 messages/s"
    )
    assert "the interpreter's C code is Python runtime." in note
    assert "those samples are the kernel's time, already in its share" in note
    shares, _ = tables(mine)
    assert ["C extensions", "12.5 %"] in shares


def test_the_flame_graphs_data_is_beside_the_page(
    built_site: Path, aiohttp_page: str, frameworks: dict[str, Framework], profiles: Profiles
) -> None:
    href = re.search(r'class="wsbench-flame-data" href="([^"]+\.json)"', aiohttp_page)
    assert href is not None
    data = json.loads((built_site / "frameworks" / "aiohttp" / href.group(1)).read_text())
    assert data["tree"]["name"] == "all"
    assert data["tree"]["value"] == data["samples"] == 200
    assert sum(c["value"] for c in data["tree"]["children"]) == 200
    # The page's generator writes the same file.
    _, files = render_section(frameworks["aiohttp"], profiles)
    assert list(files) == [f"frameworks/aiohttp/{AIOHTTP}.json"]
    assert json.loads(files[f"frameworks/aiohttp/{AIOHTTP}.json"]) == data


def test_several_profiles_get_a_summary_table_first(frameworks: dict[str, Framework]) -> None:
    doc = profile_runs()[0]
    (echo_64,) = doc.profiles
    echo_1 = msgspec.structs.replace(echo_64, params={"size_bytes": 16, "in_flight": 1})
    twice = profiles_from([msgspec.structs.replace(doc, profiles=[echo_64, echo_1])])
    text, files = render_section(frameworks["aiohttp"], twice)
    summary = text.split("\n| Configuration | Version | Set |")[1].split("\n\n")[0]
    rows = [line for line in summary.splitlines() if line.startswith("| ")]
    sets = [shown(r.split(" | ")[2]) for r in rows[1:]]
    assert sets == ["echo 16 B x1", "echo 16 B x64"]
    assert profiles_fact(frameworks["aiohttp"], twice) == (
        f"[CPU profiles of 1 configuration](#{SECTION_ANCHOR}), 2 sets"
    )
    assert len(files) == 2


def test_without_a_profile_there_is_no_section_and_no_link(
    frameworks: dict[str, Framework],
) -> None:
    results = results_of(Store(runs=site_runs()))
    page = render_page(frameworks["aiohttp"], results, "https://x", History((), ())).markdown
    assert "Where the time goes" not in page
    assert SECTION_ANCHOR not in page and "profile-" not in page
    assert "| Where the time goes |" not in page
    # A framework the store did not profile has none either, with profiles of others.
    websockets = render_page(
        frameworks["websockets"],
        results,
        "https://x",
        History((), ()),
        profiles=profiles_from(profile_runs()),
    )
    assert SECTION_ANCHOR not in websockets.markdown
    assert not [f for f in websockets.charts if f.endswith(".json") and "profile-" in f]


def test_a_native_profiles_system_calls_are_the_kernels_time(
    frameworks: dict[str, Framework],
) -> None:
    # With native frames a thread inside a system call is sampled in the C library's
    # wrapper: the kernel's time, already in its share (from the windows without the
    # profiler), so those samples change no share and no function is listed for them.
    doc = profile_runs()[1]
    (profile,) = doc.profiles
    stacks = {**profile.stacks, "process (server.py);send (libc.so.6)": 70}
    native = msgspec.structs.replace(
        doc, profiles=[msgspec.structs.replace(profile, stacks=stacks)]
    )
    with_calls, _ = render_section(frameworks["starlette"], profiles_from([native]))
    without, _ = render_section(frameworks["starlette"], profiles_from([doc]))
    shares = [line for line in with_calls.splitlines() if line.startswith("| ")]
    assert shares == [line for line in without.splitlines() if line.startswith("| ")]
    assert "libc.so.6" not in with_calls
    assert "those samples are the kernel's time, already in its share" in with_calls
    python_only, _ = render_section(frameworks["aiohttp"], profiles_from(profile_runs()))
    assert "those samples are the kernel's time" not in python_only
