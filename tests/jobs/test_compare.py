"""``./bench compare`` of two stored runs prints, and writes as Markdown, what differs between
the two runs' environments under the verdicts: a slower head that coincides with a new
transitive release says so."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tests.runs import run
from wsbench.jobs.compare import CompareOptions
from wsbench.jobs.compare import run as compare_job
from wsbench.results import store
from wsbench.results.runformat import Interpreter, Run

BASE = "20261123T190000Z-aaaaaa"
HEAD = "20261124T190000Z-bbbbbb"
FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1000.0]
BUILD = Interpreter("3.11.7", "CPython", False, True, "none", "GCC 12.2.0", ())


def _installed(rates: list[float], run_id: str, anyio: str) -> Run:
    doc = run(rates, run_id=run_id)
    packages = (f"anyio=={anyio}", "websockets==15.0.1")
    env = msgspec.structs.replace(doc.environment, packages=packages, interpreter=BUILD)
    return msgspec.structs.replace(doc, environment=env)


def test_stored_runs_compared_name_a_transitive_release_beside_the_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(store.ROOT_ENV, str(tmp_path))
    store.save(_installed(FAST, BASE, "4.15.0"), tmp_path)
    store.save(_installed([r * 0.8 for r in FAST], HEAD, "4.16.0"), tmp_path)
    markdown = tmp_path / "table.md"
    options = CompareOptions(runs=(BASE, HEAD), metric=["messages_per_s"], markdown=markdown)
    assert compare_job(options) == 0
    said = "environments (base → head):\n  - packages: anyio 4.15.0 → 4.16.0\n"
    assert f"\n1 slower\n{said}" in capsys.readouterr().out
    assert (
        "1 slower\n\nenvironments (base → head):\n\n- packages: anyio 4.15.0 → 4.16.0\n\n"
        "| configuration"
    ) in markdown.read_text()


def test_runs_from_before_the_packages_were_recorded_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(store.ROOT_ENV, str(tmp_path))
    store.save(run(FAST, run_id=BASE), tmp_path)
    store.save(_installed(FAST, HEAD, "4.16.0"), tmp_path)
    assert compare_job(CompareOptions(runs=(BASE, HEAD), metric=["messages_per_s"])) == 0
    assert (
        "1 no significant change\nenvironments (base → head):\n"
        "  - packages: not recorded on the base side\n"
        "  - interpreter: not recorded on the base side\n"
    ) in capsys.readouterr().out
