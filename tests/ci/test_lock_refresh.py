"""The lock refresh's pull request: its body names the packages that moved (downgrades called
out) and the tests' result, ``./bench lock-refresh-body`` writes it, and the workflow keeps
the code it installs away from its write token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ci.test_devtest_log import LOG
from tests.ci.test_lock_changes import lock
from wsbench.ci import devtest_log, lock_refresh
from wsbench.ci.devtest_log import FailedStep, FailingTest, Outcome
from wsbench.ci.lock_changes import PackageChange, package_changes
from wsbench.commands.cli import main
from wsbench.paths import REPO_ROOT

OLD = lock(("daphne", "4.2.3"), ("cryptography", "50.0.2"), ("sniffio", "1.3.1"),
           ("numpy", "2.4.6", ("python_full_version < '3.12'",)),
           ("numpy", "2.5.5", ("python_full_version >= '3.12'",)))  # fmt: skip
NEW = lock(("daphne", "2.3.0"), ("cryptography", "51.0.0"), ("pyasn1", "0.6.1"),
           ("numpy", "2.4.6", ("python_full_version < '3.12'",)),
           ("numpy", "2.5.6", ("python_full_version >= '3.12'",)))  # fmt: skip
PACKAGES = """\
### Packages (5 changed)

> [!WARNING]
> 1 went back to an older release: a new release of another package can force the \
resolver back to an old release of one it conflicts with. Check that each is wanted before \
merging; if not, bound it in pyproject.toml.

**Downgraded (1)**

- `daphne` 4.2.3 → 2.3.0

**Upgraded (2)**

- `cryptography` 50.0.2 → 51.0.0
- `numpy` 2.4.6, 2.5.5 → 2.4.6, 2.5.6

**Added (1)**

- `pyasn1` 0.6.1

**Removed (1)**

- `sniffio` 1.3.1"""
TESTS = """\
### Tests: failed

`./bench test` exited with status 1.

Failed steps: mypy, pytest, pytest, alone.

- **mypy** (its output's last lines are below)
- **pytest**: 2 failing
  - `tests/impls/test_impls.py::test_echo[daphne]`
  - `tests/asv/test_tls.py` (error: it could not run)
- **pytest, alone** (its output's last lines are below)

<details><summary>mypy: its output's last lines</summary>

```text
wsbench/asv/venvs.py:41: error: Module "cryptography.x509" has no attribute "x"  [attr-defined]
Found 1 error in 1 file (checked 318 source files)
```

</details>

<details><summary>pytest, alone: its output's last lines</summary>

```text
.
1 passed
```

</details>"""


def test_the_packages_are_listed_by_kind_downgrades_first_with_a_warning() -> None:
    assert lock_refresh.packages_section(package_changes(OLD, NEW)) == PACKAGES


def test_without_a_downgrade_there_is_no_warning() -> None:
    changes = [PackageChange("anyio", "upgraded", ("4.15.0",), ("4.16.0",))]
    assert lock_refresh.packages_section(changes) == (
        "### Packages (1 changed)\n\n**Upgraded (1)**\n\n- `anyio` 4.15.0 → 4.16.0"
    )
    assert "No package's version changed" in lock_refresh.packages_section([])


def test_the_failed_steps_name_their_tests_or_show_their_last_lines() -> None:
    assert lock_refresh.tests_section(devtest_log.parse(LOG, 1)) == TESTS


def test_passed_and_stopped_runs() -> None:
    passed = Outcome(0, ("ruff", "mypy"), ())
    assert lock_refresh.tests_section(passed) == (
        "### Tests: passed\n\n`./bench test` passed (2 steps)."
    )
    stopped = devtest_log.parse("error: Failed to build `x==1.0`\n", 2)
    assert lock_refresh.tests_section(stopped) == (
        "### Tests: failed\n\n`./bench test` exited with status 2.\n\n"
        "It stopped before the first step, without the steps' verdict; the log ends:\n\n"
        "```text\nerror: Failed to build `x==1.0`\n```"
    )


def test_a_test_name_with_backticks_stays_one_code_span() -> None:
    outcome = Outcome(1, ("pytest",), (FailedStep("pytest", (FailingTest("t.py::x[`a`]"),)),))
    assert "  - ``t.py::x[`a`]``" in lock_refresh.tests_section(outcome)


def test_the_body_says_ci_does_not_run_and_fits_githubs_limit() -> None:
    changes, outcome = package_changes(OLD, NEW), devtest_log.parse(LOG, 1)
    body = lock_refresh.body(changes, outcome, "https://github.com/o/r/actions/runs/7")
    assert "([the workflow run](https://github.com/o/r/actions/runs/7))" in body
    assert "CI does not run on this pull request by itself" in body
    assert body.index(TESTS) < body.index(PACKAGES)
    many = [PackageChange(f"p{i:05}", "added", (), ("1.0",)) for i in range(5000)]
    long = lock_refresh.body(many, outcome)
    assert len(long) == lock_refresh.BODY_LIMIT
    assert long.endswith("(cut here: GitHub keeps 65536 characters; the run's log has the rest)\n")


def test_the_command_writes_the_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "old.lock").write_text(OLD)
    (tmp_path / "new.lock").write_text(NEW)
    (tmp_path / "test.log").write_text(LOG)
    argv = ["lock-refresh-body", "--old", str(tmp_path / "old.lock"),
            "--new", str(tmp_path / "new.lock"), "--test-log", str(tmp_path / "test.log"),
            "--test-status", "1", "--output", str(tmp_path / "body.md")]  # fmt: skip
    assert main(argv) == 0
    body = (tmp_path / "body.md").read_text()
    assert PACKAGES in body and TESTS in body
    assert capsys.readouterr().out == (
        f"wsbench: wrote {tmp_path / 'body.md'}: 1 downgraded, 2 upgraded, 1 added, "
        "1 removed; tests failed (3 steps)\n"
    )
    (tmp_path / "old.lock").write_text("[[package]\n")
    assert main(argv) == 2
    assert "wsbench: not a uv.lock (TOML)" in capsys.readouterr().err


def _jobs() -> dict[str, Any]:
    path = REPO_ROOT / ".github" / "workflows" / "lock-refresh.yml"
    jobs: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]
    return jobs


def test_the_job_that_runs_the_new_code_cannot_write() -> None:
    jobs = _jobs()
    refresh, pull_request = jobs["refresh"], jobs["pull-request"]
    runs = [str(s.get("run", "")) for s in refresh["steps"]]
    assert any("./bench lock --project --upgrade" in r for r in runs)
    assert any("./bench test" in r for r in runs)
    assert refresh["permissions"] == {"contents": "read"}
    assert pull_request["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert pull_request["runs-on"] == "ubuntu-24.04"
    # The writing job runs none of the project's code, and keeps no credentials.
    assert not any("bench" in str(s.get("run", "")) for s in pull_request["steps"])
    for job in (refresh, pull_request):
        checkouts = [
            s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")
        ]
        assert [s["with"]["persist-credentials"] for s in checkouts] == [False]
