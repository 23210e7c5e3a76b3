"""wsbench/asv/uv.py: asv's environments of wsbench, on every Python wsbench names."""

from __future__ import annotations

import shutil

import pytest

from wsbench.asv.uv import UvPip
from wsbench.pythons import PYTHONS


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is installed with ./bench")
def test_the_plugin_takes_every_python_wsbench_names_and_nothing_else() -> None:
    assert all(UvPip.matches(python) for python in PYTHONS)
    for other in ("3.12.1", "pypy3.10", "3.14T", "3"):
        assert not UvPip.matches(other)
