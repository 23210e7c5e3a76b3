"""wsbench.results.profile_diff: the functions whose share of the samples grew most from a
base profile to a head profile, and finding the two profiles of a configuration at a set."""

from __future__ import annotations

import msgspec
import pytest

from tests.runs import impl, run
from wsbench.results.profile_diff import (
    Growth,
    differential,
    find_profile,
    growers,
    shares,
    to_markdown,
    to_text,
)
from wsbench.results.runformat import ProfileSet, Profiling, Run

ECHO_64K = {"size_bytes": 65536, "in_flight": 64}
ROOT = "process (hot_echo.py);<module> (hot_echo.py:21);handler (hot_echo.py:15)"


def stacks(burn: int, send: int, recv: int) -> dict[str, int]:
    """A hot_echo profile: ``burn`` samples in burn (two lines of it), ``send`` in the
    send, ``recv`` in the loop's receive."""
    return {
        f"{ROOT};burn (hot_echo.py:9)": burn - burn // 2,
        f"{ROOT};burn (hot_echo.py:10)": burn // 2,
        f"{ROOT};send (websockets/asyncio/connection.py:300)": send,
        "process (hot_echo.py);_run_once (asyncio/base_events.py:1922)": recv,
    }


def test_a_function_whose_share_grows_from_5_to_60_percent_is_the_first_grower() -> None:
    found = growers(stacks(5, 45, 50), stacks(60, 20, 20))
    assert found == [Growth("burn (hot_echo.py)", 0.05, 0.6)]
    assert found[0].difference == pytest.approx(0.55)


def test_growers_are_ordered_by_growth_and_shrinking_functions_are_left_out() -> None:
    base = {"a;x (m.py:1)": 80, "a;y (m.py:2)": 10, "a;z (m.py:3)": 10}
    head = {"a;x (m.py:1)": 40, "a;y (m.py:2)": 20, "a;z (m.py:3)": 30, "a;w (n.py:4)": 10}
    assert [(g.function, g.base_share, g.head_share) for g in growers(base, head, None)] == [
        ("z (m.py)", 0.1, 0.3),
        ("w (n.py)", 0.0, 0.1),
        ("y (m.py)", 0.1, 0.2),
    ]
    assert [g.function for g in growers(base, head, 1)] == ["z (m.py)"]


def test_idle_and_process_samples_are_not_in_the_shares() -> None:
    assert shares({"process (s.py)": 50, "process (s.py);(idle)": 30, "p;f (s.py:1)": 20}) == {
        "f (s.py)": 1.0
    }
    assert shares({"process (s.py)": 5}) == {}


def test_system_call_samples_are_the_kernels_and_not_in_the_shares() -> None:
    # As in every top-functions list (profile_shares.busy_self_samples): a native
    # profile's samples in a C library's system-call wrapper are the kernel's time.
    native = {"p;f (s.py:1);write (libc.so.6)": 60, "p;f (s.py:1)": 30, "p;g (s.py:2)": 10}
    assert shares(native) == {"f (s.py)": 0.75, "g (s.py)": 0.25}


def profiled(doc: Run, burn: int, *, native: bool = True, run_id: str | None = None) -> Run:
    """``doc`` as a profile document of echo 64 KiB x 64 whose burn took ``burn`` % of it."""
    found = ProfileSet("echo", dict(ECHO_64K), "ok", None, 2.0, 250,
                       stacks=stacks(burn, 100 - burn, 0))  # fmt: skip
    return msgspec.structs.replace(
        doc, run_id=run_id or doc.run_id, benchmarks=[], profiles=[found],
        profiling=Profiling("py-spy 0.4.3", native),
    )  # fmt: skip


BASE = run([1.0], impl_info=impl("hot", "1.0", "asyncio"))
HEAD = run([1.0], impl_info=impl("hot", "1.1", "asyncio"))


def test_the_differential_of_a_configuration_names_both_profiles() -> None:
    docs = [profiled(BASE, 5), profiled(HEAD, 60)]
    d = differential(docs, docs, impl="hot", config="asyncio", scenario="echo",
                     params=ECHO_64K, base_version="1.0", head_version="1.1")  # fmt: skip
    assert d is not None
    assert (d.base.doc.impl.version, d.head.doc.impl.version) == ("1.0", "1.1")
    assert d.growers[0] == Growth("burn (hot_echo.py)", 0.05, 0.6)
    assert d.head.path == (
        "profiles/m/20261123T190000Z-aaaaaa/cccccccc-uvpip-py3.11-hot1.1-asyncio.json"
    )
    assert to_text(d) == [
        "  CPU profile at echo in_flight=64,size_bytes=65536: the functions whose share of "
        "the samples grew most, base -> head",
        "    base: hot · asyncio 1.0, run 20261123T190000Z-aaaaaa "
        "(profiles/m/20261123T190000Z-aaaaaa/cccccccc-uvpip-py3.11-hot1.0-asyncio.json)",
        "    head: hot · asyncio 1.1, run 20261123T190000Z-aaaaaa "
        "(profiles/m/20261123T190000Z-aaaaaa/cccccccc-uvpip-py3.11-hot1.1-asyncio.json)",
        "     +55.0 points  burn (hot_echo.py)  (5.0 % -> 60.0 %)",
    ]
    assert "| `burn (hot_echo.py)` | 5.0 % | 60.0 % | +55.0 points |" in to_markdown(d)


def test_no_differential_without_both_profiles_taken_the_same_way() -> None:
    def diff(docs: list[Run]) -> object:
        return differential(docs, docs, impl="hot", config="asyncio", scenario="echo",
                            params=ECHO_64K, base_version="1.0", head_version="1.1")  # fmt: skip

    assert diff([profiled(HEAD, 60)]) is None
    assert diff([profiled(BASE, 5, native=False), profiled(HEAD, 60)]) is None
    assert diff([profiled(BASE, 5), profiled(HEAD, 60)]) is not None


def test_the_newest_profile_of_the_configuration_at_the_set_is_found() -> None:
    older = profiled(HEAD, 10, run_id="20261120T020000Z-aaaaaa")
    newer = profiled(HEAD, 20, run_id="20261121T020000Z-bbbbbb")
    other = profiled(run([1.0], impl_info=impl("hot", "1.1", "uvloop")), 30,
                     run_id="20261122T020000Z-cccccc")  # fmt: skip
    docs = [newer, older, other]
    found = find_profile(docs, impl="hot", config="asyncio", scenario="echo", params=ECHO_64K)
    assert found is not None and found.doc.run_id == "20261121T020000Z-bbbbbb"
    assert find_profile(docs, impl="hot", config="asyncio", scenario="echo",
                        params={"size_bytes": 16, "in_flight": 64}) is None  # fmt: skip
    assert find_profile(docs, impl="hot", config="asyncio", scenario="echo", params=ECHO_64K,
                        machine="elsewhere") is None  # fmt: skip
