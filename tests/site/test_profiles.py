"""CPU profiles as the site shows them (wsbench.site.profiles): which profile each
configuration shows, its shares, top functions, CPU per message and cost, the flame graph's
tree, and the leaderboards' chart of CPU per message split by class."""

from __future__ import annotations

import json

import msgspec
import pytest

from tests.runs import profile_run, profile_set, window
from tests.site_runs import (
    AIOHTTP_STACKS,
    PROFILE_RUN,
    STARLETTE_STACKS,
    profile_runs,
    site_runs,
)
from wsbench.results.profile_shares import CLASSES
from wsbench.results.store import Store
from wsbench.site.profiles import (
    FLAME_CLASSES,
    Profiled,
    Profiles,
    TopFunction,
    flame_json,
    profiles_from,
    split_frame,
)
from wsbench.site.render import render_leaderboard_page
from wsbench.site.results import results_of

ECHO_16_64 = "leaderboards/echo/cpu-per-message-in-flight-64-size-bytes-16.json"


@pytest.fixture(scope="module")
def profiles() -> Profiles:
    return profiles_from(profile_runs())


def by_name(profiles: Profiles) -> dict[str, Profiled]:
    return {p.impl.name: p for p in profiles.items}


def test_a_profile_splits_the_servers_cpu_and_names_its_top_functions(profiles: Profiles) -> None:
    aiohttp = by_name(profiles)["aiohttp"]
    # 200 busy samples: 160 framework, 30 event loop, 10 json; the kernel 20 / 100 % of CPU.
    assert aiohttp.kernel_share == 0.2
    assert aiohttp.split.shares == pytest.approx(
        {"framework": 0.64, "event loop": 0.12, "Python runtime": 0.04,
         "C extensions": 0.0, "kernel": 0.2}
    )  # fmt: skip
    assert aiohttp.idle == pytest.approx(0.2)  # 200 of 250 samples at 250 Hz x 1 s
    assert [(f.function, f.where, f.klass, f.samples) for f in aiohttp.top] == [
        ("WebSocketWriter.send_frame", "aiohttp/_websocket/writer.py:126", "framework", 120),
        ("WebSocketReader.feed_data", "aiohttp/_websocket/reader.py:80", "framework", 40),
        ("EpollSelector.select", "selectors.py:468", "event loop", 20),
        ("dumps", "json/encoder.py:200", "Python runtime", 10),
        ("BaseEventLoop._run_once", "asyncio/base_events.py:1922", "event loop", 10),
    ]
    # A function's share is on the classes' base: its samples over the busy ones x (1 - kernel).
    assert aiohttp.top[0].share == pytest.approx(0.48)
    assert aiohttp.cpu_per_message_s == pytest.approx(100 / 100 / 50_000)
    assert aiohttp.cost == pytest.approx(49_000 / 50_000)
    assert aiohttp.answer() == (
        "**64 % framework, 20 % kernel**; top: `WebSocketWriter.send_frame` "
        "(aiohttp/\\_websocket/writer.py:126) 48 %"
    )
    starlette = by_name(profiles)["starlette"]
    assert starlette.native and starlette.idle == 0.0
    assert starlette.answer() == (
        "**50 % kernel, 25 % framework**; top: `Protocol.receive_data` "
        "(websockets/protocol.py:250) 15 %"
    )
    assert starlette.split.shares["C extensions"] == pytest.approx(0.125)


def test_without_the_kernels_time_the_profile_says_it_is_unknown(profiles: Profiles) -> None:
    sio = by_name(profiles)["python-socketio"]
    assert sio.kernel_share is None
    assert sio.split.shares["framework"] == 1.0 and sio.split.shares["kernel"] == 0.0


def test_each_configuration_shows_its_newest_profile_with_samples() -> None:
    aiohttp = profile_runs()[0]
    older = profile_run(
        aiohttp,
        [profile_set({"main (server.py:1)": 5}, profiled=window(1.0, 1.0), unprofiled=[])],
        "20261121T000000Z-0a0a0a",
        native=False,
    )
    failed = msgspec.structs.replace(
        profile_set({}, profiled=window(None, None), unprofiled=[]), status="failed",
        error="py-spy took no sample",
    )  # fmt: skip
    newer_failed = profile_run(aiohttp, [failed], "20261123T000000Z-0b0b0b", native=False)
    (shown,) = profiles_from([older, aiohttp, newer_failed]).items
    assert shown.doc.run_id == PROFILE_RUN
    assert sum(shown.profile.stacks.values()) == sum(AIOHTTP_STACKS.values())


def test_a_frame_splits_into_its_function_and_place() -> None:
    assert split_frame("burn (server.py:10)") == ("burn", "server.py:10")
    assert split_frame("deflate (libz.so.1.2.13)") == ("deflate", "libz.so.1.2.13")
    assert split_frame("<idle>") == ("<idle>", "")


def test_the_flame_graph_holds_every_sample_by_frame(profiles: Profiles) -> None:
    starlette = by_name(profiles)["starlette"]
    data = json.loads(flame_json(starlette))
    tree = data["tree"]
    assert data["samples"] == tree["value"] == sum(STARLETTE_STACKS.values()) == 200
    (process,) = tree["children"]
    assert (process["name"], process["value"]) == ("process (server.py)", 200)
    # Down to the mask's C function: 50 samples, classed as a C extension.
    node = process
    for name in (
        "run (uvicorn/main.py:580)",
        "Loop.run_forever (uvloop/loop.cpython-311-x86_64-linux-gnu.so)",
        "WebSocketProtocol.data_received (uvicorn/protocols/websockets/websockets_impl.py:200)",
        "Protocol.receive_data (websockets/protocol.py:250)",
        "apply_mask (websockets/speedups.cpython-311-x86_64-linux-gnu.so)",
    ):
        node = next(c for c in node["children"] if c["name"] == name)
    assert node["value"] == 50 and "children" not in node
    assert FLAME_CLASSES[node["k"]] == "C extensions"
    assert [c["name"] for c in data["classes"]] == [*CLASSES, "idle"]


def test_the_leaderboard_charts_cpu_per_message_of_each_profiled_configuration(
    profiles: Profiles,
) -> None:
    results = results_of(Store(runs=site_runs()))
    board = render_leaderboard_page("echo", results, studies=[], profiles=profiles)
    data = json.loads(board.files[ECHO_16_64])
    assert data["kind"] == "shares" and data["unit"] == "µs"
    assert [c["name"] for c in data["classes"]] == list(CLASSES)
    # One bar per profiled configuration, in the leaderboard's order (aiohttp and Starlette
    # tie at 50,000 messages/s, python-socketio has 12,500), stacked by class in µs.
    bars = {s["label"]: s["values"] for s in data["series"]}
    assert list(bars) == [
        "aiohttp · asyncio 3.13.2",
        "Starlette · uvicorn 0.54 · websockets · uvloop 1.10.0",
        "python-socketio · uvicorn 0.54 · asyncio 5.14.0",
    ]
    assert bars["aiohttp · asyncio 3.13.2"] == pytest.approx([12.8, 2.4, 0.8, 0.0, 4.0])
    starlette = bars["Starlette · uvicorn 0.54 · websockets · uvloop 1.10.0"]
    assert starlette == pytest.approx([6.25, 1.875, 1.25, 3.125, 12.5])
    assert sum(starlette) == pytest.approx(25.0)
    # Only the profiled set has the chart; the page carries its data and links the file.
    assert [f for f in board.files if "cpu-per-message" in f] == [ECHO_16_64]
    page = board.markdown
    assert page.count("### CPU per message, where it goes (µs)") == 1
    assert "Data of this chart: [JSON](echo/cpu-per-message-in-flight-64-size-bytes-16.json)" in (
        page
    )
    assert "[aiohttp · asyncio]" not in page  # no framework page given: names not linked


def test_without_profiles_no_leaderboard_shows_the_chart() -> None:
    results = results_of(Store(runs=site_runs()))
    board = render_leaderboard_page("echo", results, studies=[])
    assert not [f for f in board.files if "cpu-per-message" in f]
    assert "where it goes" not in board.markdown


def test_top_function_shares_are_limited_to_ten() -> None:
    stacks = {f"main (server.py:1);f{i} (app.py:{i})": 20 - i for i in range(15)}
    doc = profile_run(
        profile_runs()[0],
        [profile_set(stacks, profiled=window(1.0, 10.0, 0.0), unprofiled=[])],
        PROFILE_RUN,
        native=False,
    )
    (shown,) = profiles_from([doc]).items
    assert len(shown.top) == 10
    assert shown.top[0] == TopFunction("f0", "app.py:0", "framework", 20, 20 / sum(stacks.values()))
    assert shown.cpu_per_message_s is None and shown.cost is None


def test_a_workers_process_frame_shows_no_process_id_nor_path() -> None:
    worker = 'process 25572:"/home/x/envs/bin/python -m gunicorn app:app"'
    stacks = {f"process (python);run (gunicorn/arbiter.py:1);{worker};serve (app.py:3)": 4}
    doc = profile_run(
        profile_runs()[0],
        [profile_set(stacks, profiled=window(1.0, 10.0, 0.0), unprofiled=[])],
        PROFILE_RUN,
        native=False,
    )
    (shown,) = profiles_from([doc]).items
    (process,) = json.loads(flame_json(shown))["tree"]["children"]
    (run,) = process["children"]
    # python -m gunicorn: named by its module
    assert [c["name"] for c in run["children"]] == ["process (gunicorn)"]
