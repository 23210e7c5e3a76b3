"""The suite's environment (found, made, or a clear error) and its reports read back; the
suite itself runs against servers in tests/jobs/test_conformance.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wsbench.commands import cli
from wsbench.instrument import autobahn
from wsbench.instrument.autobahn import NoSuiteError, Suite


def _nothing_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No Python 2.7 on PATH, none in pyenv, none named, no docker."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.delenv(autobahn.PYTHON27_ENV, raising=False)


def test_without_python27_and_docker_the_error_names_both_routes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _nothing_found(monkeypatch, tmp_path)
    with pytest.raises(NoSuiteError) as caught:
        autobahn.find_suite()
    assert str(caught.value) == autobahn.no_suite_message()
    assert "Python 2.7" in str(caught.value) and autobahn.DOCKER_IMAGE in str(caught.value)


def test_the_command_exits_2_with_the_error_when_no_suite_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _nothing_found(monkeypatch, tmp_path)
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path / "store"))
    assert cli.main(["conformance", "--impl", "native"]) == 2
    assert capsys.readouterr().err.strip() == f"wsbench: {autobahn.no_suite_message()}"
    assert not (tmp_path / "store").exists()  # nothing written


def test_a_named_interpreter_that_is_not_python27_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _nothing_found(monkeypatch, tmp_path)
    monkeypatch.setenv(autobahn.PYTHON27_ENV, sys.executable)
    with pytest.raises(NoSuiteError, match=r"is not a working Python 2\.7 interpreter"):
        autobahn.find_python27()


def test_pyenv_s_python27_is_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _nothing_found(monkeypatch, tmp_path)
    python = tmp_path / "versions" / "2.7.18" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\necho 2.7.18\n")
    python.chmod(0o755)
    assert autobahn.find_python27() == str(python)


def test_the_docker_route_mounts_the_working_folder_at_its_own_path(tmp_path: Path) -> None:
    suite = Suite(("docker", "run", "--rm", "--network", "host", autobahn.DOCKER_IMAGE,
                   "wstest"), "docker", "autobahntestsuite x", docker=True)  # fmt: skip
    assert autobahn._argv(suite, tmp_path) == [
        "docker", "run", "--rm", "--network", "host", "-v", f"{tmp_path}:{tmp_path}",
        autobahn.DOCKER_IMAGE, "wstest", "-m", "fuzzingclient", "-s", str(tmp_path / "spec.json"),
    ]  # fmt: skip


def test_only_127_0_0_1_is_graded(tmp_path: Path) -> None:
    suite = Suite(("wstest",), "test", "autobahntestsuite x")
    with pytest.raises(autobahn.SuiteError, match=r"127\.0\.0\.1 only"):
        autobahn.run_fuzzing_client(
            suite, "ws://example.com/echo", ["1.*"], tmp_path, timeout_s=1, cpus=[0]
        )


def _report(folder: Path, case_id: str, behavior: str, **extra: object) -> dict[str, object]:
    name = f"server_case_{case_id.replace('.', '_')}.json"
    wirelog = [["TO", [3, "abc"], False], ["TF", [5, "hello"], 1, True, 0, "m", None],
               ["RF", [2, "0x03ea"], 8, True, 0, False, None], ["KL", 1]]  # fmt: skip
    report = {"description": f"case {case_id}", "expectation": "e", "result": "r",
              "resultClose": "rc", "httpResponse": "HTTP/1.1 101 x", "wirelog": wirelog,
              "remoteCloseReason": None, **extra}  # fmt: skip
    (folder / name).write_text(json.dumps(report))
    return {"behavior": behavior, "behaviorClose": "OK", "duration": 3,
            "remoteCloseCode": 1000, "reportfile": name}  # fmt: skip


def test_reports_are_read_in_case_order_with_the_wire_kept_for_cases_that_did_not_pass(
    tmp_path: Path,
) -> None:
    index = {"10.1.1": _report(tmp_path, "10.1.1", "OK"),
             "2.1": _report(tmp_path, "2.1", "FAILED"),
             "1.1.2": _report(tmp_path, "1.1.2", "NON-STRICT")}  # fmt: skip
    (tmp_path / "index.json").write_text(json.dumps({"server": index}))
    cases = autobahn.read_reports(tmp_path, "server")
    assert [c.id for c in cases] == ["1.1.2", "2.1", "10.1.1"]
    failed = cases[1]
    assert (failed.behavior, failed.description, failed.http_response) == (
        "FAILED",
        "case 2.1",
        "HTTP/1.1 101 x",
    )
    assert failed.wirelog == [
        "sent frame: opcode 1, fin True, rsv 0, 5 B 'hello'",
        "received frame: opcode 8, fin True, rsv 0, 2 B '0x03ea'",
        "KL 1",
    ]
    assert cases[0].wirelog == [] and cases[0].http_response == ""


def test_a_missing_index_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(autobahn.SuiteError, match="no readable index for 'server'"):
        autobahn.read_reports(tmp_path, "server")


def test_the_requirements_pin_every_package_by_hash() -> None:
    lines = [line for line in autobahn.REQUIREMENTS.read_text().splitlines()
             if line and not line.startswith("#")]  # fmt: skip
    pins = [line for line in lines if "==" in line]
    hashes = [line for line in lines if "--hash=sha256:" in line]
    assert len(pins) == len(hashes) > 30
    assert f"autobahntestsuite=={autobahn.SUITE_VERSION} \\" in pins
