"""The conformance job against test servers that keep or break RFC 6455's rules
(tests/fixtures/servers/rfc6455_echo.py), over a few case groups of the real suite."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import fixture_impl
from wsbench.asv.conf import BenchEnv, bench_envs
from wsbench.commands import cli
from wsbench.impls import get_impl
from wsbench.instrument import autobahn
from wsbench.instrument.cpus import default_placement
from wsbench.jobs import conformance
from wsbench.jobs.conformance import (
    NOT_APPLICABLE,
    NOT_OFFERED,
    ConformanceError,
    Outcome,
    check_cases,
    grade_server,
)
from wsbench.results import conformance as grading
from wsbench.results.runformat import Conformance, load

CASES = ["3.*", "6.3.*", "7.1.*", "7.7.*"]
"""Reserved bits, invalid UTF-8, close handling and close codes: 28 cases, about a second
against a server that keeps the rules."""
BROKEN_CASES = ["3.1", "3.2", "6.3.*", "7.1.1", "7.7.1", "7.7.9"]
"""A few of those for the server that breaks three rules (each case it fails waits for the
suite's close timeout: the 28 took 7 s)."""
BROKEN = [
    "3.1", "3.2",  # a reserved bit accepted
    "6.3.1", "6.3.2",  # invalid UTF-8 echoed
    "7.1.1", "7.7.1",  # every close answered with 1011 (but 7.7.9: the client's is 1011)
]  # fmt: skip


@pytest.fixture(scope="module")
def suite() -> autobahn.Suite:
    return autobahn.find_suite()


def _grade(
    suite: autobahn.Suite, cases: list[str], *flags: str, reports_to: Path | None = None,
    clients: int = 1,
) -> Conformance:  # fmt: skip
    graded = grade_server(
        fixture_impl("rfc6455_echo", *flags), None, suite, cases, python=sys.executable,
        placement=default_placement(), timeout_s=120, reports_to=reports_to, clients=clients,
    )  # fmt: skip
    assert graded.outcome == "graded", graded.error
    assert graded.error is None
    assert graded.cases_selected == cases
    assert graded.not_offered == {"12": NOT_OFFERED, "13": NOT_OFFERED}
    return graded


def test_a_conformant_server_fails_no_case(suite: autobahn.Suite) -> None:
    graded = _grade(suite, CASES)
    assert len(graded.cases) == 28
    assert grading.failed(graded) == []
    assert grading.grade(graded).symbol == "✓"


@pytest.mark.parametrize("clients", [1, 3])
def test_a_server_that_breaks_three_rules_fails_exactly_those_cases(
    suite: autobahn.Suite, tmp_path: Path, clients: int
) -> None:
    # The same grade whether one fuzzing client runs every case or three share them.
    graded = _grade(
        suite, BROKEN_CASES, "--break-utf8", "--break-close-code", "--break-reserved-bits",
        reports_to=tmp_path, clients=clients,
    )  # fmt: skip
    failed = grading.failed(graded)
    assert [c.id for c in failed] == BROKEN
    utf8 = next(c for c in failed if c.id == "6.3.1")
    assert "UTF-8" in utf8.description
    assert utf8.http_response.startswith("HTTP/1.1 101")
    assert utf8.wirelog  # kept for a case that did not pass
    passed = [c for c in graded.cases if c.behavior in grading.PASSING]
    assert [c.id for c in passed] == ["7.7.9"]
    assert all(not c.wirelog and not c.http_response for c in passed)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted(f"server_case_{c.replace('.', '_')}.html" for c in BROKEN)
    assert grading.grade(graded).text == f"{len(BROKEN)} failed of 7 cases"


def test_a_socketio_configuration_is_not_applicable(suite: autobahn.Suite) -> None:
    graded = grade_server(
        get_impl("native"), "socketio", suite, CASES, python=sys.executable,
        placement=default_placement(), timeout_s=120,
    )  # fmt: skip
    assert (graded.outcome, graded.error, graded.cases) == ("not applicable", NOT_APPLICABLE, [])


def test_a_server_that_never_starts_is_recorded_ungraded(suite: autobahn.Suite) -> None:
    graded = grade_server(
        fixture_impl("exits_at_start"), None, suite, CASES, python=sys.executable,
        placement=default_placement(), timeout_s=120,
    )  # fmt: skip
    assert graded.outcome == "failed"
    assert graded.error and "exited with code" in graded.error
    assert grading.grade(graded).symbol == "?"


def test_case_patterns_resolve_by_the_suites_rule_and_the_list_is_the_suites(
    suite: autobahn.Suite,
) -> None:
    ids = ["1.1.1", "1.1.2", "1.2.1", "10.1.1", "7.1.1", "7.13.2"]
    assert autobahn.resolve_cases(["1.1.*", "7.*", "12.1.1"], ids) == [
        "1.1.1", "1.1.2", "7.1.1", "7.13.2", "12.1.1"
    ]  # fmt: skip
    assert autobahn.resolve_cases(["1.*"], ids) == ["1.1.1", "1.1.2", "1.2.1"]  # not 10.1.1
    listed = autobahn.case_ids(suite)
    assert listed is not None and {"1.1.1", "6.4.1", "7.13.2", "10.1.1"} <= set(listed)


def test_case_patterns_of_no_group_are_refused() -> None:
    assert check_cases(["6.*", "7.1.5", "12.1.1"]) == ["6.*", "7.1.5", "12.1.1"]
    with pytest.raises(ConformanceError, match=r"'8\.\*': no case group '8'"):
        check_cases(["8.*"])


def test_the_command_grades_the_reference_into_the_conformance_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # uv, as ./bench
    monkeypatch.setenv("PATH", path)
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path))
    argv = ["conformance", "--impl", "native", "--cases", "1.1.*", "--machine", "t"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    docs = sorted((tmp_path / "conformance" / "t").glob("*/*.json"))
    by_config = {doc.impl.config: doc for doc in map(load, docs)}
    assert sorted(by_config) == ["socketio", "websocket"]
    plain = by_config["websocket"].conformance
    assert plain is not None and plain.outcome == "graded"
    assert [c.id for c in plain.cases] == [f"1.1.{n}" for n in range(1, 9)]
    assert {c.behavior for c in plain.cases} == {"OK"}
    assert by_config["websocket"].benchmarks == []
    socketio = by_config["socketio"].conformance
    assert socketio is not None and socketio.outcome == "not applicable"
    assert "Native reference (Rust) · wsbench-loadgen · tokio" in out
    assert not list(tmp_path.glob("*/*/*.json"))  # never among the measurements


def test_several_servers_are_graded_at_once_and_reported_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    envs = [e for e in bench_envs() if e.is_default][:5]
    running: list[str] = []
    most = 0
    lock = threading.Lock()

    def fake_grade(env: BenchEnv, *args: object, **kwargs: object) -> Outcome:
        nonlocal most
        with lock:
            running.append(env.name)
            most = max(most, len(running))
        time.sleep(0.2 if env is envs[0] else 0.05)  # the first finishes last
        with lock:
            running.remove(env.name)
        blank = Conformance("suite", "route", [], "not applicable", None, 0.0)
        return Outcome(env.row_name, "", Path(env.name), blank)

    monkeypatch.setattr(conformance, "grade_env", fake_grade)
    said: list[str] = []

    def grade(at_once: int) -> list[Outcome]:
        return conformance.grade_all(
            envs, autobahn.Suite(("wstest",), "route", "suite"), "default",
            placement=default_placement(), root=Path("unused"), machine="m", run_id="r",
            log=said.append, at_once=at_once,
        )  # fmt: skip

    found = grade(3)
    assert [o.row_name for o in found] == [e.row_name for e in envs]
    assert most == 3 and len(said) == len(envs)
    with pytest.raises(ConformanceError, match="at least 1"):
        grade(0)
