"""A version that does not install is recorded as failed, with uv's reason, never dropped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec
import pytest

from wsbench.asv import suite
from wsbench.instrument import provenance
from wsbench.instrument.interpreters import this_interpreter
from wsbench.paths import INSTALL_ERROR_FILE
from wsbench.results.runformat import load

REASON = "'uv pip install websockets==0.0.1' failed: no version 0.0.1"


def test_an_environment_without_the_file_installed_fine(tmp_path: Path) -> None:
    assert suite.install_error(tmp_path) is None


def test_every_measurement_of_an_uninstallable_version_fails_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = {"requirements": {"websockets": "0.0.1"}, "error": REASON}
    (tmp_path / INSTALL_ERROR_FILE).write_text(json.dumps(error))
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setenv("WSBENCH_IMPL", "websockets")
    monkeypatch.setenv("WSBENCH_CONFIG", "uvloop")
    monkeypatch.setenv("WSBENCH_MACHINE", "m")
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("WSBENCH_RUN_ID", "20261123T190000Z-abcdef")
    monkeypatch.setenv("ASV_ENV_NAME", "env-x")
    monkeypatch.setenv("ASV_COMMIT", "c0ffee00" + "0" * 32)
    grid = [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 1024, "in_flight": 64}]

    figures = suite.run_scenarios({"echo": grid})["echo"]

    assert [f["error"] for f in figures.values()] == [f"does not install: {REASON}"] * 2
    run = load(tmp_path / "results" / "m" / "20261123T190000Z-abcdef" / "c0ffee00-env-x.json")
    assert run.harness.commit == "c0ffee00" + "0" * 32
    assert run.impl.version == "0.0.1"
    assert run.impl.config == "uvloop"
    assert run.impl.row_name == "websockets · uvloop"
    assert run.environment.install_error == REASON
    assert [b.status for b in run.benchmarks] == ["failed", "failed"]
    assert all(REASON in (b.error or "") for b in run.benchmarks)


def test_the_summary_is_uvs_cause() -> None:
    from wsbench.asv.requirements import install_failure_summary

    unsatisfiable = (
        "error: No solution found when resolving dependencies\n"
        "  cause: Because there is no version of websockets==0.0.1 and you require it, "
        "we can conclude that your requirements are unsatisfiable."
    )
    assert install_failure_summary(unsatisfiable).startswith("cause: Because there is no")
    build = "  \u00d7 Failed to build `x==1`\n  ╰─▶ exit status: 1\n      hint: a hint"
    assert install_failure_summary(build) == "Failed to build `x==1`"
    assert install_failure_summary("") == "uv failed without output"


def test_a_file_in_the_way_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run id whose document exists but is not valid stops the run; the file stays."""
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    (tmp_path / INSTALL_ERROR_FILE).write_text(json.dumps({"requirements": {}, "error": "x"}))
    monkeypatch.setenv("WSBENCH_IMPL", "websockets")
    monkeypatch.setenv("WSBENCH_MACHINE", "m")
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("WSBENCH_RUN_ID", "r1")
    monkeypatch.setenv("ASV_ENV_NAME", "env-x")
    monkeypatch.setenv("ASV_COMMIT", "c0ffee00" + "0" * 32)
    path = tmp_path / "results" / "m" / "r1" / "c0ffee00-env-x.json"
    path.parent.mkdir(parents=True)
    path.write_text("earlier results")
    with pytest.raises(suite.SuiteError, match="not overwriting"):
        suite.run_scenarios({"stream": [{"size_bytes": 16}]})
    assert path.read_text() == "earlier results"


def test_on_another_python_a_release_that_does_not_install_is_not_supported_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = {"requirements": {"websockets": "17.4"}, "error": REASON}
    (tmp_path / INSTALL_ERROR_FILE).write_text(json.dumps(error))
    other = msgspec.structs.replace(this_interpreter(), version="3.14.0", free_threaded=True)
    monkeypatch.setattr(provenance, "this_interpreter", lambda: other)
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    for name, value in {
        "WSBENCH_IMPL": "websockets", "WSBENCH_CONFIG": "asyncio", "WSBENCH_MACHINE": "m",
        "WSBENCH_RESULTS": str(tmp_path / "results"), "WSBENCH_RUN_ID": "20261123T190000Z-abcdef",
        "ASV_ENV_NAME": "env-t", "ASV_COMMIT": "c0ffee00" + "0" * 32,
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)

    figures = suite.run_scenarios({"echo": [{"size_bytes": 16, "in_flight": 1}]})["echo"]

    expected = f"not supported on Python 3.14t: does not install: {REASON}"
    assert [f["error"] for f in figures.values()] == [expected]
    run = load(tmp_path / "results" / "m" / "20261123T190000Z-abcdef" / "c0ffee00-env-t.json")
    assert run.python == "3.14t" and run.impl.row_name == "websockets · asyncio · Python 3.14t"
