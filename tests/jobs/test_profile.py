"""The profile job (wsbench.jobs.profile): three windows of one server process, the middle
one profiled; its known hot function on top, and on top of the functions that grew from a
lighter server to a heavier one (wsbench.results.profile_diff); what the command refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import fixture_impl
from wsbench.commands import cli
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.measure import MeasureConfig, ServerSession
from wsbench.jobs.profile import (
    ProfileJobError,
    cost,
    profile_set,
    select_sets,
    shares_line,
    top_functions,
)
from wsbench.results.folded import self_samples
from wsbench.results.profile_diff import growers
from wsbench.results.runformat import ProfiledWindow, ProfileSet

SERVER = Path(__file__).parents[1] / "fixtures" / "servers" / "hot_echo.py"


def _line_of(function: str) -> int:
    lines = SERVER.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(f"def {function}("))


@pytest.mark.alone  # py-spy shares the CPUs: in the parallel suite it once took no sample
def test_a_profile_is_the_middle_of_three_windows_with_the_hot_function_on_top() -> None:
    placement = default_placement()
    config = MeasureConfig(impl="hot_echo", scenario="echo", in_flight=64, warmup_s=0.2,
                           duration_s=1.0)  # fmt: skip
    with ServerSession(fixture_impl("hot_echo"), placement=placement) as session:
        found = profile_set(session, config, placement=placement, native=False)
    assert found.status == "ok", found.error
    assert (found.scenario, found.params) == ("echo", {"size_bytes": 16, "in_flight": 64})
    assert found.profiled is not None and found.profiled.messages_per_s
    assert len(found.unprofiled) == 2 and all(w.messages_per_s for w in found.unprofiled)
    (top, share), *_ = top_functions(found.stacks)
    assert top == "burn (hot_echo.py)" and share > 0.5
    # its hottest line is in its body (the loop), below its def
    line = next(f for f in self_samples(found.stacks, by_line=True) if f.startswith("burn"))
    assert int(line.rsplit(":", 1)[1].rstrip(")")) > _line_of("burn")
    # every stack starts at the server's process, named without its id or port
    assert {s.split(";", 1)[0] for s in found.stacks} == {"process (hot_echo.py)"}
    assert cost(found) is not None


def _hot_echo_profile(burn: int) -> ProfileSet:
    """hot_echo with ``--burn burn`` profiled at echo 16 B x 64, short windows."""
    placement = default_placement()
    config = MeasureConfig(impl="hot_echo", scenario="echo", in_flight=64, warmup_s=0.2,
                           duration_s=1.0)  # fmt: skip
    server = fixture_impl("hot_echo", "--burn", str(burn))
    with ServerSession(server, placement=placement) as session:
        found = profile_set(session, config, placement=placement, native=False)
    assert found.status == "ok", found.error
    return found


@pytest.mark.alone  # py-spy shares the CPUs, as above
def test_a_heavier_burn_puts_burn_on_top_of_the_functions_that_grew() -> None:
    light, heavy = _hot_echo_profile(50), _hot_echo_profile(5000)
    top, *_ = growers(light.stacks, heavy.stacks)
    assert top.function == "burn (hot_echo.py)"
    assert top.head_share > top.base_share


def test_the_profiler_s_cost_is_against_the_mean_of_the_unprofiled_windows() -> None:
    def window(rate: float) -> ProfiledWindow:
        return ProfiledWindow(rate, 100.0, 30.0)

    found = ProfileSet("echo", {}, "ok", None, 1.0, 250, {"a": 1}, window(90.0),
                       [window(100.0), window(80.0)])  # fmt: skip
    assert cost(found) == pytest.approx(0.0)
    assert cost(ProfileSet("echo", {}, "failed", "x", 1.0, 250)) is None


def test_scenarios_without_windows_are_refused() -> None:
    with pytest.raises(ProfileJobError, match="memory has no measurement window to profile"):
        select_sets("default", ["memory"], [])
    assert list(select_sets("default", ["echo"], ["size_bytes=16", "in_flight=64"])) == ["echo"]


def test_the_command_refuses_a_scenario_without_windows_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["profile", "--impl", "native", "--scenario", "memory"]) == 2
    assert capsys.readouterr().err.strip() == (
        "wsbench: memory has no measurement window to profile"
    )


def test_the_reference_server_is_skipped_and_alone_refused_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["profile", "--impl", "native"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "wsbench: nothing to profile: only the reference server was chosen"
    assert all(line.endswith("not profiled: the reference server runs no Python for py-spy")
               for line in err[:-1]) and len(err) == 3  # fmt: skip


@pytest.mark.parametrize("rate", ["0", "1001", "fast"])
def test_a_rate_out_of_range_is_refused(rate: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["profile", "--rate", rate])
    assert exit_.value.code == 2
    assert f"not a rate from 1 to 1000 Hz: {rate!r}" in capsys.readouterr().err


def test_the_shares_line_ranks_the_classes_and_leaves_out_empty_ones() -> None:
    window = ProfiledWindow(messages_per_s=1.0, server_cpu_percent=80.0,
                            server_kernel_cpu_percent=20.0)  # fmt: skip
    found = ProfileSet(
        "echo", {"size_bytes": 16}, "ok", None, 1.0, 100,
        stacks={"p;h (server.py:1)": 6, "p;_run_once (asyncio/base_events.py:2)": 4},
        profiled=window, unprofiled=[window],
    )  # fmt: skip
    assert shares_line(found) == "framework 45%, event loop 30%, kernel 25%"
