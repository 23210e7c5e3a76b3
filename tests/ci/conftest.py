"""Fixtures of the continuous-run tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from wsbench.asv import venvs
from wsbench.asv.conf import BenchEnv


@pytest.fixture
def nothing_installs(monkeypatch: pytest.MonkeyPatch) -> None:
    """No environment installs (:func:`wsbench.asv.venvs.ensure` raises
    :class:`~wsbench.asv.venvs.VenvError`): a job records each as not installed and starts
    no server, so that its documents can be checked without measuring anything."""

    def not_installed(env: BenchEnv) -> Path:
        raise venvs.VenvError("not installed in this test")

    monkeypatch.setattr(venvs, "ensure", not_installed)
