"""A missing py-spy, and a recording without a sample (wsbench.instrument.profile); py-spy
recording a server's window is tested with the job that uses it (tests/jobs/test_profile.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wsbench.instrument import profile


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
