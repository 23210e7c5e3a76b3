"""wsbench.site.deployment_costs: each configuration's figures in a deployment profile as
ratios to its tuned figures (the latest release only, the statistics of the results layer),
what it agreed to and the compression, and the answer in words, from the documents of
:mod:`tests.deployment_runs`."""

# The answer's typography (multiplication sign and en dash) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import msgspec
import pytest
from pytest import approx

from tests.deployment_runs import (
    ACCEPTS,
    DECLINES,
    ECHO_X64,
    HANDSHAKE,
    WEBSOCKETS_DEFLATE,
    both,
    deployment_runs,
    document,
    echo,
    shipped,
)
from tests.runs import failed
from wsbench.deployment import AS_SHIPPED, TWO_CPUS, WORKERS, in_profile
from wsbench.results import stats
from wsbench.results.metrics import BY_NAME
from wsbench.site.deployment_costs import (
    CPU_PER_CONNECTION,
    CPU_PER_MESSAGE,
    Deployment,
    agreed_words,
    deployment_of,
    figures_of,
    server_cpus_words,
    stated,
)
from wsbench.site.results import Results, select

MACHINE = "wsbench-ci"
ECHO_TITLE = "Echo, 1,024 B messages, the JSON corpus, 64 in flight per connection"


@pytest.fixture(scope="module")
def results() -> Results:
    return select(deployment_runs())


@pytest.fixture(scope="module")
def deployment(results: Results) -> Deployment:
    return deployment_of(results)


def test_each_scenario_compares_its_headline_cpu_and_p99() -> None:
    assert figures_of("echo") == (
        BY_NAME["messages_per_s"],
        CPU_PER_MESSAGE,
        BY_NAME["latency_p99"],
    )
    assert figures_of("clients") == (
        BY_NAME["messages_per_s"], CPU_PER_MESSAGE, BY_NAME["latency_p99"],
    )  # fmt: skip
    assert figures_of("connect") == (
        BY_NAME["connections_per_s"], CPU_PER_CONNECTION, BY_NAME["handshake_p99"],
    )  # fmt: skip
    assert figures_of("memory") == (BY_NAME["memory_slope_bytes"],)


def test_one_table_per_profiled_set_measured_as_shipped(deployment: Deployment) -> None:
    assert [(s.title, s.profile) for s in deployment.sets] == [
        ("Echo, 1,024 B messages, the JSON corpus, 1 in flight per connection", AS_SHIPPED),
        (ECHO_TITLE, AS_SHIPPED),
        ("Connection setup, 16 workers", AS_SHIPPED),
        ("Memory per connection, 1,000 connections", AS_SHIPPED),
    ]
    assert deployment.measured() == [AS_SHIPPED]
    assert deployment.machines == [MACHINE]
    # One configuration's latest release each: websockets 14.2 is left out.
    assert sorted(f"{r.impl.name} {r.impl.version}" for r in deployment.statements) == [
        "aiohttp 3.13.2", "native 0.1.0", "python-socketio 5.14.0", "starlette 1.10.0",
        "starlette 1.10.0", "starlette 1.10.0", "websockets 15.0.1",
    ]  # fmt: skip


def test_ratios_to_tuned_over_the_server_processes_most_costly_first(
    deployment: Deployment,
) -> None:
    echo_set = deployment.sets[1]
    assert [(c.run.impl.name, c.run.impl.config) for c in echo_set.costs] == [
        ("websockets", "default"),  # 0.4
        ("aiohttp", "default"),  # 0.6
        ("native", "default"),  # 0.8 (the reference), by name before
        ("starlette", "websockets-uvloop"),  # 0.8
        ("python-socketio", "default"),  # 0.98
        ("starlette", "wsproto-asyncio"),  # 1.0
        ("starlette", "websockets-asyncio"),  # failed as shipped: last
    ]
    websockets = echo_set.costs[0]
    messages, cpu, p99 = websockets.ratios
    assert (messages.metric, cpu.metric, p99.metric) == figures_of("echo")
    # Every window of both sides is its rate times the same spread: the ratio is the rates'.
    assert messages.value == approx(10_000 / 25_000)
    assert cpu.value == approx(25_000 / 10_000)  # 99 % CPU either way
    assert p99.value == approx(25_000 / 10_000)  # p99 = 1.5 / rate
    # The results layer's comparison, tuned the base: its 99 % interval and verdict.
    assert messages.comparison is not None
    expected = stats.compare(
        websockets.tuned.groups(BY_NAME["messages_per_s"]),  # type: ignore[union-attr]
        websockets.other.groups(BY_NAME["messages_per_s"]),
        higher_is_better=True,
    )
    assert messages.comparison == expected
    assert messages.comparison.confidence == stats.COMPARISON_CONFIDENCE
    assert messages.comparison.verdict == "slower"
    low, high = messages.comparison.head_over_base_interval or (0.0, 0.0)
    assert low < 0.4 < high
    wsproto = echo_set.costs[5]
    assert wsproto.headline is not None and wsproto.headline.value == approx(1.0)
    assert wsproto.headline.comparison is not None
    assert wsproto.headline.comparison.verdict == "no significant change"


def test_what_each_server_agreed_to_and_the_compression(deployment: Deployment) -> None:
    costs = {c.run.label: c for c in deployment.sets[1].costs}
    websockets = costs["websockets · asyncio"]
    assert websockets.agreed == (WEBSOCKETS_DEFLATE,) and not websockets.declined
    assert websockets.compression == approx(2.8, rel=1e-6)
    assert websockets.stated == "accepts" and not websockets.mismatch
    wsproto = costs["Starlette · uvicorn 0.54 · wsproto · asyncio"]
    assert wsproto.agreed == () and wsproto.declined and wsproto.compression is None
    assert wsproto.stated == "declines" and not wsproto.mismatch
    failed = costs["Starlette · uvicorn 0.54 · websockets · asyncio"]
    assert not failed.compared and failed.ratios == ()
    assert failed.problem == f"as shipped: {HANDSHAKE}"
    assert not failed.declined  # a failure is not a refusal


def test_memory_and_connection_setup(deployment: Deployment) -> None:
    connect, memory = deployment.sets[2], deployment.sets[3]
    (aiohttp,) = connect.costs
    assert [r.metric for r in aiohttp.ratios] == list(figures_of("connect"))
    assert [r.value for r in aiohttp.ratios] == approx([2 / 3, 1.5, 1.5])
    # Memory: lower is better, so the most costly is the highest ratio.
    assert [c.run.impl.name for c in memory.costs] == ["websockets", "aiohttp", "python-socketio"]
    assert [c.headline.value for c in memory.costs if c.headline] == approx([4.0, 3.0, 1.0])


def test_the_answer_from_the_same_costs(deployment: Deployment) -> None:
    assert deployment.answer_of(MACHINE) == (
        f"**As shipped** ({ECHO_TITLE}): offered permessage-deflate as a browser offers it, "
        "3 of the 5 Python configurations compared agree to it with their framework's "
        "defaults and 2 decline it; 1 more failed as shipped.\n\n"
        "- Those that agree keep a median **0.60×** of their tuned messages/s (0.40×–0.80×; "
        "significantly lower in 3 of 3), at 1.67× the server CPU per message and 1.67× the "
        "round trip p99; their messages shrink 3.0× on the wire (median payload over wire "
        "bytes).\n"
        "- The most costly: websockets · asyncio 15.0.1, 0.40×.\n"
        "- Those that decline send uncompressed as shipped, so a ratio near 1× is expected: "
        "they keep a median 0.99× (0.98×–1.00×).\n"
        "- Memory per connection (1,000 connections) of those that agree: a median 3.50× of "
        "tuned, up to 4.00× (websockets · asyncio 15.0.1).",
        "Not measured in the shown runs: TLS and Browser.",
        "Not measured on this machine: 2 CPUs and Workers, one per CPU, which need a runner "
        "whose layout gives the server two CPUs or more beside the load generator's "
        "(`./bench system layout`); their figures come from such a runner.",
    )
    assert deployment.answer_of("another machine") == ()


def test_a_server_that_does_otherwise_than_stated_is_a_mismatch() -> None:
    said_no = document(
        "aiohttp", "default", "3.13.2", both(ECHO_X64, 50_000, 30_000, "permessage-deflate", 3.2),
        DECLINES,
    )  # fmt: skip
    said_yes = document(
        "websockets", "default", "15.0.1", both(ECHO_X64, 25_000, 25_000, None, None), ACCEPTS
    )
    (found,) = deployment_of(select([said_no, said_yes])).sets
    assert [c.mismatch for c in found.costs] == [True, True]
    unstated = msgspec.structs.replace(
        said_no, impl=msgspec.structs.replace(said_no.impl, shipped_compression="")
    )
    (found,) = deployment_of(select([unstated])).sets
    assert found.costs[0].stated == "" and not found.costs[0].mismatch


def test_a_set_measured_as_shipped_only_is_not_compared() -> None:
    lone = document("aiohttp", "default", "3.13.2", [echo(shipped(ECHO_X64), 30_000)], ACCEPTS)
    (found,) = deployment_of(select([lone])).sets
    assert found.costs[0].problem == "not measured tuned" and not found.compared
    assert deployment_of(select([lone])).answer_of(MACHINE) == (
        "Not measured in the shown runs: As shipped, TLS and Browser.",
        "Not measured on this machine: 2 CPUs and Workers, one per CPU, which need a runner "
        "whose layout gives the server two CPUs or more beside the load generator's "
        "(`./bench system layout`); their figures come from such a runner.",
    )


def test_results_without_another_profile_have_no_cost() -> None:
    tuned = document("aiohttp", "default", "3.13.2", [echo(ECHO_X64, 50_000)], ACCEPTS)
    found = deployment_of(select([tuned]))
    assert found.empty and found.sets == () and found.answers == ()
    assert len(found.statements) == 1
    assert deployment_of(Results()).empty


def test_words() -> None:
    assert agreed_words(WEBSOCKETS_DEFLATE) == (
        "server_max_window_bits=12, client_max_window_bits=12"
    )
    assert agreed_words("permessage-deflate") == "no parameters"
    assert stated(ACCEPTS) == "accepts" and stated(DECLINES) == "declines"
    assert stated("") == "" and stated("maybe: who knows") == ""


def test_the_multi_cpu_profiles_say_where_the_server_ran() -> None:
    """*2 CPUs* and *workers* (issue 44 item 6) against tuned, the server's CPUs from the
    settings the document records."""
    doc = document(
        "starlette", "websockets-uvloop", "1.10.0",
        [
            echo(ECHO_X64, 50_000),
            echo(in_profile(ECHO_X64, TWO_CPUS), 60_000),
            echo(in_profile(ECHO_X64, WORKERS), 90_000),
        ],
        ACCEPTS,
    )  # fmt: skip
    doc = msgspec.structs.replace(
        doc, settings=msgspec.structs.replace(doc.settings, multi_server_cpus=(2, 3, 4))
    )
    found = deployment_of(select([doc]))
    two, workers = found.sets
    assert (two.profile, workers.profile) == (TWO_CPUS, WORKERS)
    assert [c.headline.value for s in found.sets for c in s.costs if c.headline] == approx(
        [1.2, 1.8]
    )
    assert server_cpus_words(TWO_CPUS, two.costs) == "one process on CPUs 2-3"
    assert server_cpus_words(WORKERS, workers.costs) == (
        "3 worker processes on CPUs 2-4, one per CPU"
    )
    assert found.answer_of(MACHINE) == (
        f"**2 CPUs** ({ECHO_TITLE}; one process on CPUs 2-3): the 1 Python configuration "
        "compared keeps a median **1.20×** of their tuned messages/s, at 0.83× the server CPU "
        "per message and 0.83× the round trip p99.",
        f"**Workers, one per CPU** ({ECHO_TITLE}; 3 worker processes on CPUs 2-4, one per "
        "CPU): the 1 Python configuration compared keeps a median **1.80×** of their tuned "
        "messages/s, at 0.56× the server CPU per message and 0.56× the round trip p99.",
        "Not measured in the shown runs: As shipped, TLS and Browser.",
    )


def test_a_set_that_failed_tuned_too_is_not_counted_as_failed_in_the_profile() -> None:
    ok = document("aiohttp", "default", "3.13.2", both(ECHO_X64, 50_000, 30_000, "x", 3.0), ACCEPTS)
    never = document(
        "websockets", "default", "15.0.1",
        [failed("echo", p, "not supported: x") for p in (ECHO_X64, shipped(ECHO_X64))],
        ACCEPTS,
    )  # fmt: skip
    (lead, *_) = deployment_of(select([ok, never])).answer_of(MACHINE)
    assert lead.startswith(f"**As shipped** ({ECHO_TITLE}): offered permessage-deflate as a ")
    assert "1 of the 1 Python configurations compared agree" in lead and "failed" not in lead
