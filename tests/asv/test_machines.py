"""wsbench/asv/machines.py: this machine's description written to asv's machine file with
asv's API, once, and read back by asv as ``asv machine --yes`` would have left it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wsbench.asv import machines
from wsbench.jobs.main import machine_info


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of its own (asv's machine file is ``~/.asv-machine.json``)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def test_the_description_is_written_once_and_asv_reads_it(home: Path) -> None:
    info = machine_info("e2e")
    assert sorted(info) == sorted(machines.FIELDS) and " " not in info["os"] + info["cpu"]
    assert machines.register(info) is True
    assert machines.register(info) is False  # the same description: not written again
    stored = json.loads((home / ".asv-machine.json").read_text())
    assert stored["e2e"] == info and stored["version"] == 1
    # A second machine beside it, and a changed description rewritten.
    other = {**info, "machine": "other", "ram": "1GiB"}
    assert machines.register(other) is True
    assert machines.register({**info, "ram": "2GiB"}) is True
    stored = json.loads((home / ".asv-machine.json").read_text())
    assert stored["other"] == other and stored["e2e"]["ram"] == "2GiB"
    # asv itself, in another process, loads it as the description of that machine.
    code = ("from asv.machine import Machine; m = Machine.load(machine_name='e2e'); "
            "print(m.ram, m.num_cpu)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"HOME": str(home)}).stdout  # fmt: skip
    assert out.split() == ["2GiB", info["num_cpu"]]


def test_a_malformed_file_or_description_is_refused_naming_it(home: Path) -> None:
    (home / ".asv-machine.json").write_text("{not json")
    with pytest.raises(machines.MachineFileError, match=r"\.asv-machine\.json"):
        machines.register(machine_info("e2e"))
    assert (home / ".asv-machine.json").read_text() == "{not json"  # left as it was
    with pytest.raises(ValueError, match="fields"):
        machines.register({"machine": "e2e"})
