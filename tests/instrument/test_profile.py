"""Folded stacks read back and a missing py-spy (wsbench.instrument.profile); py-spy
recording a server's window is tested with the job that uses it (tests/jobs/test_profile.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wsbench.instrument import profile


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


def test_a_recording_without_a_sample_is_an_error() -> None:
    recording = profile.Recording(pid=1, delay_s=0.0, duration_s=1.0, cpus=[0], binary="py-spy")
    recording.output.write_text("")  # py-spy ran, and sampled nothing
    with pytest.raises(profile.ProfileError, match="py-spy took no sample"):
        recording.result()
