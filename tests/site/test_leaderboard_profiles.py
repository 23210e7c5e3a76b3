"""The leaderboards by deployment profile (wsbench.site.render, wsbench.site.interactive):
every table and chart heading names its profile; the tuned block comes first (the default
view: the site's script shows the first block, tests/site/test_site_browser.py), each other
measured profile in a block of its own that opens with what it changes; a profile nobody
measured has no block; the home page's leaderboard questions read tuned sets only."""

from __future__ import annotations

import re

import pytest

from tests.deployment_runs import MEMORY_1000, deployment_runs
from tests.site_runs import IMPLS
from wsbench.deployment import AS_SHIPPED, TUNED
from wsbench.site.findings import findings_of
from wsbench.site.frameworks import load_frameworks
from wsbench.site.home import FAMILIES, leaderboard_answer, render_home
from wsbench.site.interactive import PROFILE_CLASS, PROFILE_END, profile_marker
from wsbench.site.markup import profile_title
from wsbench.site.render import (
    DEPLOYMENT_LINK,
    in_profile_only,
    page_profiles,
    render_leaderboard_page,
)
from wsbench.site.results import Results, select

ECHO_X1 = "1,024 B messages, the JSON corpus, 1 in flight per connection"
ECHO_X64 = "1,024 B messages, the JSON corpus, 64 in flight per connection"


@pytest.fixture(scope="module")
def results() -> Results:
    return select(deployment_runs())


def headings(markdown: str) -> list[str]:
    return re.findall(r"^## (.+?) \{ #", markdown, re.M)


def test_the_tuned_block_first_then_as_shipped_each_heading_naming_its_profile(
    results: Results,
) -> None:
    md = render_leaderboard_page("echo", results, studies=()).markdown
    assert headings(md) == [
        f"{ECHO_X1} · Tuned",
        f"{ECHO_X64} · Tuned",
        f"{ECHO_X1} · As shipped",
        f"{ECHO_X64} · As shipped",
    ]
    tuned, shipped, end = (md.index(profile_marker(TUNED)), md.index(profile_marker(AS_SHIPPED)),
                           md.index(PROFILE_END))  # fmt: skip
    assert tuned < md.index(f"## {ECHO_X1} · Tuned") < shipped < md.index(f"## {ECHO_X1} · As")
    assert md.index(f"## {ECHO_X64} · As shipped") < end
    assert md.count(f'class="{PROFILE_CLASS}"') == 2
    # The as-shipped block opens with what the profile changes and where the ratios are.
    note = md[shipped : md.index(f"## {ECHO_X1} · As")]
    assert '!!! note "As shipped"' in note
    assert "the client offers permessage-deflate as a browser does and the server keeps" in note
    assert f"[What your deployment costs]({DEPLOYMENT_LINK})" in note
    # A tuned table keeps the id it had before profiles; an as-shipped one has its own.
    assert f"## {ECHO_X64} · Tuned {{ #1024-b-messages-the-json-corpus-64-in-flight-per-" in md
    assert "-64-in-flight-per-connection-permessage-deflate-offered }" in md
    # The legend says how to pick a profile.
    assert "the filter bar's *Profile* shows the sets measured in another profile" in md


def test_a_page_measured_tuned_only_has_no_blocks(results: Results) -> None:
    tuned_only = Results(tuple(in_profile_only(r, TUNED) for r in results.runs))
    md = render_leaderboard_page("echo", tuned_only, studies=()).markdown
    assert PROFILE_CLASS not in md and PROFILE_END not in md
    assert headings(md) == [f"{ECHO_X1} · Tuned", f"{ECHO_X64} · Tuned"]
    assert "Every table and chart here is in the *tuned* deployment profile" in md
    assert page_profiles([(r, w) for r in tuned_only.runs for w in r.rows]) == [TUNED]


def test_the_memory_charts_one_section_per_profile(results: Results) -> None:
    page = render_leaderboard_page("memory", results, studies=())
    md = page.markdown
    assert "## Memory per connection by number of connections · Tuned { #charts }" in md
    assert "## Memory per connection by number of connections · As shipped { #charts-as-" in md
    assert "leaderboards/memory/memory-per-connection.svg" in page.files
    assert "leaderboards/memory/deflate-1-memory-per-connection.svg" in page.files
    assert headings(md)[-1] == profile_title((("connections", 1000), ("deflate", 1)))


def test_the_home_questions_read_tuned_sets(results: Results) -> None:
    memory = next(f for f in FAMILIES if f.slug == "memory")
    answer = leaderboard_answer(memory, results, results.machines[0])
    assert answer is not None and answer.params == tuple(MEMORY_1000.items())
    websocket = next(f for f in FAMILIES if f.slug == "websocket")
    answer = leaderboard_answer(websocket, results, results.machines[0])
    assert answer is not None and dict(answer.params).get("deflate") is None
    page = str(render_home(results, findings_of(results, load_frameworks(IMPLS)))["index.md"])
    assert "## The cost of compression and TLS { #deployment-cost }" in page
