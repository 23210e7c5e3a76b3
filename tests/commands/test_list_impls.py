"""``./bench list``: the implementations, and which of the Pythons wsbench measures on this
machine has, or where it looked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wsbench.commands.cli import main
from wsbench.instrument.interpreters import PYTHONS_ENV, probe
from wsbench.pythons import PYTHONS


def test_the_list_shows_each_python_found_or_the_routes_looked_along(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    this = probe(sys.executable)
    (tmp_path / this.name.executable).symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.delenv(PYTHONS_ENV, raising=False)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "websockets: " in out and "  --config asyncio " in out
    lines = out.split("pythons wsbench measures on (the default is 3.11), on this machine:\n")[1]
    assert [line.split()[0] for line in lines.splitlines()] == list(PYTHONS)
    assert f"  {this.name!s:6} {this.version} {tmp_path / this.name.executable}\n" in lines
    assert (
        "  3.14t  not found (looked for python3.14t on PATH, "
        "$PYENV_ROOT/versions/3.14.*t/bin/python3.14t (pyenv), or its path in WSBENCH_PYTHONS)"
    ) in lines
