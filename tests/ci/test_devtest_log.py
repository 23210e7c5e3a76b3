"""What a ``./bench test`` log says failed: the steps, and the tests pytest and cargo name;
parsed from what :func:`wsbench.ci.devtest.run` really prints."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from wsbench.ci import devtest, devtest_log
from wsbench.ci.devtest_log import FailedStep, FailingTest, Outcome
from wsbench.paths import REPO_ROOT

# cargo test's output for two failing tests, one of them #[should_panic] (as cargo prints it).
CARGO_OUTPUT = """\
running 3 tests
test tests::good ... ok
test tests::nopanic - should panic ... FAILED
test tests::bad ... FAILED

failures:

---- tests::bad stdout ----
thread 'tests::bad' panicked at src/lib.rs:8:24:
assertion `left == right` failed

failures:
    tests::bad
    tests::nopanic

test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out
"""
LOG = """\
=== [1/4] ruff
All checks passed!

=== [2/4] mypy
wsbench/asv/venvs.py:41: error: Module "cryptography.x509" has no attribute "x"  [attr-defined]
Found 1 error in 1 file (checked 318 source files)

=== [3/4] pytest
....F..E
=========================== short test summary info ============================
FAILED tests/impls/test_impls.py::test_echo[daphne] - ConnectionRefusedError: [Errno 111]
FAILED tests/impls/test_impls.py::test_echo[daphne] - ConnectionRefusedError: [Errno 111]
ERROR tests/asv/test_tls.py - ImportError: cannot import name 'x509'
1 failed, 998 passed, 1 error

=== [4/4] pytest, alone
.
1 passed

wsbench test: FAILED steps: mypy, pytest, pytest, alone
"""


def test_each_failed_step_with_its_tests_or_its_last_lines() -> None:
    outcome = devtest_log.parse(LOG, 1)
    assert not outcome.passed
    assert outcome.steps == ("ruff", "mypy", "pytest", "pytest, alone")
    assert outcome.failed == (
        FailedStep("mypy", (), (
            'wsbench/asv/venvs.py:41: error: Module "cryptography.x509" has no attribute "x"'
            "  [attr-defined]\nFound 1 error in 1 file (checked 318 source files)"
        )),
        FailedStep("pytest", (
            FailingTest("tests/impls/test_impls.py::test_echo[daphne]"),
            FailingTest("tests/asv/test_tls.py", error=True),
        )),
        FailedStep("pytest, alone", (), ".\n1 passed"),
    )  # fmt: skip
    assert outcome.stopped == ""


def test_a_zero_status_passes_whatever_the_log_holds() -> None:
    assert devtest_log.parse(LOG, 0) == Outcome(0, ("ruff", "mypy", "pytest", "pytest, alone"), ())


def test_cargos_failing_tests_are_named_without_should_panic() -> None:
    log = f"=== [1/1] cargo test\n{CARGO_OUTPUT}\nwsbench test: FAILED steps: cargo test\n"
    (step,) = devtest_log.parse(log, 1).failed
    assert step == FailedStep(
        "cargo test", (FailingTest("tests::nopanic"), FailingTest("tests::bad"))
    )


def test_a_failure_before_the_first_step_keeps_the_logs_end() -> None:
    log = "wsbench: uv.lock does not match pyproject.toml: run './bench lock'\n\n"
    outcome = devtest_log.parse(log, 2)
    assert (outcome.steps, outcome.failed) == ((), ())
    assert outcome.stopped == "before the first step"
    assert outcome.tail == "wsbench: uv.lock does not match pyproject.toml: run './bench lock'"


def test_a_log_cut_in_a_step_says_where_and_keeps_the_tests_found() -> None:
    log = "=== [1/2] ruff\nok\n=== [2/2] pytest\n\x1b[31mFAILED tests/a.py::test_b\x1b[0m\n"
    outcome = devtest_log.parse(log, 143)
    assert outcome.failed == (FailedStep("pytest", (FailingTest("tests/a.py::test_b"),)),)
    assert outcome.stopped == "in step pytest"
    assert outcome.tail.endswith("FAILED tests/a.py::test_b")


def test_the_last_lines_are_bounded() -> None:
    output = "\n".join(f"line {i}" for i in range(100))
    log = f"=== [1/1] mypy\n{output}\nwsbench test: FAILED steps: mypy\n"
    (step,) = devtest_log.parse(log, 1).failed
    assert step.tail.splitlines() == [f"line {i}" for i in range(60, 100)]
    long = f"=== [1/1] mypy\n{'x' * 10_000}\nwsbench test: FAILED steps: mypy\n"
    assert devtest_log.parse(long, 1).failed[0].tail == "x" * devtest_log.TAIL_CHARS


FAILING_TESTS = """\
import pytest

def test_ok() -> None:
    pass

def test_bad() -> None:
    assert 1 == 2

@pytest.mark.parametrize("x", ["a b", "c"])
def test_param(x: str) -> None:
    assert x == "c"
"""


def test_what_devtest_run_prints_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "test_demo.py").write_text(FAILING_TESTS)

    def cargo_test() -> int:
        print(CARGO_OUTPUT, flush=True)
        return 101

    steps = [
        ("ruff", [sys.executable, "-c", "print('All checks passed!')"]),
        ("cargo test", cargo_test),
        ("pytest", [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--rootdir={tmp_path}", str(tmp_path)]),
    ]  # fmt: skip
    monkeypatch.setattr(devtest, "STEPS", steps)
    status = devtest.run()
    outcome = devtest_log.parse(capfd.readouterr().out, status)
    assert (outcome.status, outcome.steps) == (1, ("ruff", "cargo test", "pytest"))
    # pytest names a test by its path from where it runs (the repository's root).
    demo = f"{os.path.relpath(tmp_path, REPO_ROOT)}/test_demo.py"
    assert outcome.failed == (
        FailedStep("cargo test", (FailingTest("tests::nopanic"), FailingTest("tests::bad"))),
        FailedStep("pytest", (
            FailingTest(f"{demo}::test_bad"), FailingTest(f"{demo}::test_param[a b]"),
        )),
    )  # fmt: skip
    assert outcome.stopped == ""
