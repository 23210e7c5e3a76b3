"""wsbench.site.deployment_page: the What your deployment costs page from the documents of
:mod:`tests.deployment_runs`: the answer first, a table of ratios per set (exact cells, most
costly first, the rows' facets for the filter bar), the configurations not compared, what
each configuration states, and the pages without figures."""

# The page's typography (multiplication sign and en dash) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import json
import re

import msgspec
import pytest

from tests.deployment_runs import ECHO_X64, HANDSHAKE, deployment_runs, document, echo
from tests.main_job_runs import on_python
from tests.site.test_conformance import text_of
from tests.site.test_conformance_page import anchors, markdown_table
from wsbench.site.deployment_costs import Deployment, deployment_of
from wsbench.site.deployment_page import DEPLOYMENT_PAGE, render_deployment
from wsbench.site.interactive import COSTS_TABLE
from wsbench.site.markup import FOLD_CLASS, GIST_CHARS, cell, folded, gist
from wsbench.site.render import DEPLOYMENT_LINK, NO_RESULTS
from wsbench.site.results import Results, select

PAGES = {"aiohttp": "frameworks/aiohttp.md"}


@pytest.fixture(scope="module")
def results() -> Results:
    return select(deployment_runs())


@pytest.fixture(scope="module")
def deployment(results: Results) -> Deployment:
    return deployment_of(results)


@pytest.fixture(scope="module")
def page(deployment: Deployment, results: Results) -> str:
    return render_deployment(deployment, results, PAGES)


def section(page: str, title: str) -> str:
    """The markdown from the heading that starts with ``title`` to the next ``## ``."""
    start = page.index(f"## {title}")
    end = page.find("\n## ", start + 1)
    return page[start : end if end >= 0 else None]


def test_the_answer_comes_first_from_the_same_costs(page: str, deployment: Deployment) -> None:
    body = page.split("# What your deployment costs\n", 1)[1]
    first, second, multi = deployment.answer_of("wsbench-ci")
    assert body.lstrip().startswith(first + "\n\n" + second + "\n\n" + multi)
    assert multi.startswith("Not measured on this machine: 2 CPUs and Workers, one per CPU")
    assert "\n- The most costly: websockets · asyncio 15.0.1, 0.40×.\n" in first  # a list
    assert body.index(second) < body.index("How to read the tables")
    assert "- *As shipped*: the client offers permessage-deflate as a browser does and" in page


def test_a_table_per_set_most_costly_first_with_exact_ratios(page: str) -> None:
    echo_x64 = section(
        page, "Echo, 1,024 B messages, the JSON corpus, 64 in flight per connection · As shipped"
    )
    rows = markdown_table(echo_x64)
    assert list(rows[0]) == [
        "Configuration", "Messages/s ÷ tuned", "Server CPU per message ÷ tuned",
        "p99 latency ÷ tuned", "Messages/s, tuned", "Stated", "Agreed", "Compression",
    ]  # fmt: skip
    assert [r["Configuration"] for r in rows] == [
        "websockets · asyncio 15.0.1",
        "aiohttp · asyncio 3.13.2",
        "**native reference · wsbench-loadgen serve · tokio \\(current-thread\\) 0.1.0**",
        "Starlette · uvicorn 0.54 · websockets · uvloop 1.10.0",
        "python-socketio · uvicorn 0.54 · asyncio Socket.IO 5.14.0",
        "Starlette · uvicorn 0.54 · wsproto · asyncio 1.10.0",
    ]
    websockets = rows[0]
    assert websockets["Stated"] == "accepts"
    assert websockets["Messages/s, tuned"] == "24,998 (24,083–25,947)"
    # Bold: significant. The 99 % interval of Welch's test over the processes.
    assert websockets["Messages/s ÷ tuned"] == "**0.40× (0.38–0.42)**"
    assert websockets["Server CPU per message ÷ tuned"] == "**2.50× (2.36–2.65)**"
    assert websockets["p99 latency ÷ tuned"] == "**2.50× (2.36–2.65)**"
    assert (
        websockets["Agreed"] == "server\\_max\\_window\\_bits=12, client\\_max\\_window\\_bits=12"
    )
    assert websockets["Compression"] == "2.8×"
    wsproto = rows[5]
    assert wsproto["Stated"] == "declines"
    assert wsproto["Messages/s ÷ tuned"] == "1.00× (0.95–1.06)"  # not significant: not bold
    assert (wsproto["Agreed"], wsproto["Compression"]) == ("declined: uncompressed", "—")
    # The failed configuration is named under the table, with why.
    assert (
        "Not compared: Starlette · uvicorn 0.54 · websockets · asyncio 1.10.0 (as shipped: "
        f"{cell(HANDSHAKE)})."
    ) in echo_x64
    # The leaderboard tables it comes from, and the run.
    assert (
        "[tuned](leaderboards/echo.md#1024-b-messages-the-json-corpus-64-in-flight-per-connection)"
        " · [as shipped](leaderboards/echo.md#1024-b-messages-the-json-corpus-64-in-flight-per-"
        "connection-permessage-deflate-offered)"
    ) in echo_x64
    assert "<small>Run `20261201T031000Z-de0f1a`:" in echo_x64


def test_the_rows_facets_follow_each_table(page: str) -> None:
    echo_x64 = section(
        page, "Echo, 1,024 B messages, the JSON corpus, 64 in flight per connection · As shipped"
    )
    found = re.search(
        rf'<script type="application/json" class="wsbench-rows" data-table="{COSTS_TABLE}">'
        r"(.*?)</script>",
        echo_x64,
    )
    assert found is not None
    facets = json.loads(found[1])
    assert [f["label"] for f in facets][:2] == ["websockets · asyncio", "aiohttp · asyncio"]
    assert [f["reference"] for f in facets] == [False, False, True, False, False, False]


def test_memory_shows_its_figure_and_no_cpu(page: str) -> None:
    rows = markdown_table(section(page, "Memory per connection, 1,000 connections · As shipped"))
    assert list(rows[0]) == [
        "Configuration", "Memory per connection (KiB) ÷ tuned",
        "Memory per connection (KiB), tuned", "Stated", "Agreed", "Compression",
    ]  # fmt: skip
    assert [(r["Configuration"], r["Memory per connection (KiB) ÷ tuned"]) for r in rows] == [
        ("websockets · asyncio 15.0.1", "**4.00× (3.78–4.23)**"),
        ("aiohttp · asyncio 3.13.2", "**3.00× (2.84–3.17)**"),
        ("python-socketio · uvicorn 0.54 · asyncio Socket.IO 5.14.0", "1.00× (0.95–1.06)"),
    ]
    connect = markdown_table(section(page, "Connection setup, 16 workers · As shipped"))
    assert connect[0]["Server CPU per connection ÷ tuned"] == "**1.50× (1.42–1.59)**"
    assert connect[0]["Handshake p99 ÷ tuned"] == "**1.50× (1.42–1.59)**"


def test_what_each_configuration_states(page: str) -> None:
    rows = markdown_table(section(page, "What each server does with compression, TLS and workers"))
    by_name = {r["Configuration"]: r for r in rows}
    assert len(rows) == 7
    assert by_name["Starlette · uvicorn 0.54 · wsproto · asyncio 1.10.0"] == {
        "Configuration": "Starlette · uvicorn 0.54 · wsproto · asyncio 1.10.0",
        # Folded behind its gist (tags taken out: the summary, then the whole statement).
        "Compression as shipped": "declines: compression is off unless …"
        "declines: compression is off unless configured",
        "TLS": "supported: ssl\\_context",
        "Worker processes": "supported: uvicorn's workers \\(fixture\\)",
    }


def test_a_configuration_on_several_pythons_states_once() -> None:
    docs = deployment_runs()
    aiohttp = next(d for d in docs if d.impl.name == "aiohttp")
    other = on_python(aiohttp, "3.13", "20261201T041000Z-3d1300")
    results = select([*docs, other])
    assert [r.label for r in results.runs].count("aiohttp · asyncio · Python 3.13") == 1
    stated = deployment_of(results).statements
    assert [r.label for r in stated] == [r.label for r in deployment_of(select(docs)).statements]


def test_a_long_statement_folds_behind_its_first_clause() -> None:
    tls = (
        "supported: uvicorn.run(ssl_certfile=certfile, ssl_keyfile=keyfile), uvicorn's "
        "documented HTTPS settings (--ssl-certfile/--ssl-keyfile), from which uvicorn builds "
        "an ssl.SSLContext"
    )
    # A clause cut inside brackets ends before them.
    assert gist(tls) == "supported: uvicorn.run …"
    assert gist("accepts: serve(compression='deflate'), the default (websockets 10.4 on)") == (
        "accepts: serve(compression='deflate') …"
    )
    assert gist("declines: it answers with no extension; its docs say so") == (
        "declines: it answers with no extension …"
    )
    assert (
        gist("declines: it answers with no extension") == "declines: it answers with no extension"
    )
    assert folded(tls) == (
        f'<details class="{FOLD_CLASS}"><summary>supported: uvicorn.run …</summary>'
        f"{cell(tls)}</details>"
    )
    short = "declines: compression is off"
    assert len(short) <= GIST_CHARS and folded(short) == cell(short)


def test_the_page_links_and_ids(page: str) -> None:
    assert "aiohttp · asyncio 3.13.2" in text_of(page)
    assert "</span>](frameworks/aiohttp.md) 3.13.2 |" in page
    assert {
        "echo-1024-b-messages-the-json-corpus-64-in-flight-per-connection-as-shipped",
        "memory-per-connection-1000-connections-as-shipped",
        "as-shipped",
    } <= anchors(page)
    assert DEPLOYMENT_LINK == "../" + DEPLOYMENT_PAGE


def test_without_figures_in_another_profile_the_page_says_where_they_come_from() -> None:
    tuned = document("aiohttp", "default", "3.13.2", [echo(ECHO_X64, 50_000)], "")
    tuned = msgspec.structs.replace(
        tuned, impl=msgspec.structs.replace(tuned.impl, tls="", workers="")
    )
    results = select([tuned])
    page = render_deployment(deployment_of(results), results)
    assert '!!! note "Not measured in the shown runs"' in page
    assert (
        "The full grid (`./bench run --grid full`, the nightly) measures these in the As "
        "shipped, TLS and Browser profiles as well as in Tuned, and in 2 CPUs and Workers, one "
        "per CPU on a runner that gives the server two CPUs or more "
        "(`WSBENCH_MULTI_SERVER_CPUS`, `./bench system layout`):"
    ) in page
    assert "    - Echo: 1,024 B messages, the JSON corpus, 1 in flight per connection\n" in page
    assert "    - Memory per connection: 1,000 connections\n" in page
    assert "The shown runs' documents do not state it yet" in page
    empty = render_deployment(deployment_of(Results()), Results())
    assert NO_RESULTS in empty and "Not measured in the shown runs" not in empty


def test_several_machines_have_a_section_each() -> None:
    docs = deployment_runs()
    other = [
        msgspec.structs.replace(d, machine=msgspec.structs.replace(d.machine, name="b.example"))
        for d in docs
    ]
    results = select(docs + other)
    page = render_deployment(deployment_of(results), results)
    assert "## Machine `b.example` { #costs-b-example }" in page
    assert "### Echo, 1,024 B messages, the JSON corpus, 64 in flight per connection" in page
    assert "{ #bexample-echo-1024-b-messages-the-json-corpus-64-in-flight-per-connection-as-" in (
        page
    )
