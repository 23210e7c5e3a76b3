"""The workflow linters run and report: this repository's workflows are clean, and a
workflow with an unpinned action and an injectable expression is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from wsbench.ci.workflow_lint import run

BAD = """\
name: bad
on: pull_request
jobs:
  x:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      - run: echo "${{ github.event.pull_request.title }}"
"""


def test_the_repositorys_workflows_are_clean() -> None:
    assert run() == 0


def test_an_unpinned_action_and_an_injection_are_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.yml").write_text(BAD)
    assert run(tmp_path) == 1
    out = capsys.readouterr().out
    assert "lint-workflows: findings from actionlint, zizmor" in out
