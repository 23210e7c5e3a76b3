"""py-spy during a measurement window (wsbench.instrument.profile): a server's known hot
function comes out on top, folded stacks are read back, and a missing py-spy is a clear
error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import fixture_impl
from wsbench.instrument import profile
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.measure import MeasureConfig, ServerSession

SERVER = Path(__file__).parents[1] / "fixtures" / "servers" / "hot_echo.py"


def _line_of(function: str) -> int:
    lines = SERVER.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(f"def {function}("))


def test_the_known_hot_function_is_on_top_of_the_profile() -> None:
    placement = default_placement()
    config = MeasureConfig(impl="hot_echo", scenario="echo", in_flight=64,
                           warmup_s=0.3, duration_s=1.0)  # fmt: skip
    with ServerSession(fixture_impl("hot_echo"), placement=placement) as session:
        assert session.start_error is None, session.start_error
        recording = profile.Recording(
            session.pid, delay_s=config.warmup_s, duration_s=config.duration_s,
            cpus=placement.loadgen,
        )  # fmt: skip
        recording.start()
        measured = session.run(config)
        stacks = recording.result()
    assert measured.status == "ok", measured.error
    top, samples = next(iter(profile.self_samples(stacks).items()))
    assert top == "burn (hot_echo.py)", list(profile.self_samples(stacks).items())[:5]
    assert samples > 0.5 * sum(stacks.values())
    # its hottest line is in its body (the loop), below its def
    line = next(f for f in profile.self_samples(stacks, by_line=True) if f.startswith("burn"))
    assert int(line.rsplit(":", 1)[1].rstrip(")")) > _line_of("burn")
    # every stack starts at the server's process, named without its id or port
    assert {s.split(";", 1)[0] for s in stacks} == {"process (hot_echo.py)"}


def test_folded_stacks_are_summed_per_stack_and_self_time_goes_to_the_leaf() -> None:
    text = "a (x.py:1);b (x.py:2) 3\na (x.py:1);b (x.py:2) 2\na (x.py:1) 1\n\n"
    stacks = profile.parse_folded(text)
    assert stacks == {"a (x.py:1);b (x.py:2)": 5, "a (x.py:1)": 1}
    assert profile.self_samples(stacks) == {"b (x.py)": 5, "a (x.py)": 1}
    assert profile.self_samples(stacks, by_line=True) == {"b (x.py:2)": 5, "a (x.py:1)": 1}
    assert profile.idle_share(stacks, rate_hz=10, duration_s=1.0) == pytest.approx(0.4)
    with pytest.raises(profile.ProfileError, match="line 1: no sample count"):
        profile.parse_folded("a;b\n")
    root = 'process 123:"/v/bin/python /w/impls/x/server.py --port 5001";main (server.py:3) 2'
    assert profile.parse_folded(root) == {"process (server.py);main (server.py:3)": 2}
    assert profile.process_frame('process 9:"/usr/bin/granian --port 1"') == "process (granian)"


def test_a_missing_py_spy_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(profile.NoProfilerError, match="py-spy is not installed"):
        profile.py_spy()
