"""The nightly and pull-request workflows set up the Pythons of wsbench/pythons.py and hand
them to the harness."""

from __future__ import annotations

from typing import Any

import yaml

from wsbench.paths import REPO_ROOT
from wsbench.pythons import DEFAULT_PYTHON, PYTHONS

WORKFLOWS = REPO_ROOT / ".github" / "workflows"


def _jobs(name: str = "nightly.yml") -> dict[str, Any]:
    jobs: dict[str, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))["jobs"]
    return jobs


def test_the_measure_job_sets_up_the_plans_pythons_then_the_default_and_measures_all() -> None:
    jobs = _jobs()
    outputs = jobs["plan"]["outputs"]
    assert outputs["python"] == "${{ steps.plan.outputs.python }}"
    assert outputs["pythons"] == "${{ steps.plan.outputs.pythons }}"
    steps = jobs["measure"]["steps"]
    setups = [s for s in steps if str(s.get("uses", "")).startswith("actions/setup-python@")]
    assert [s["with"]["python-version"] for s in setups] == [
        "${{ needs.plan.outputs.pythons }}",  # the others, where the runner can
        "${{ needs.plan.outputs.python }}",  # then the default, first on PATH
    ]
    assert setups[0].get("continue-on-error") is True and "continue-on-error" not in setups[1]
    (measure,) = [s for s in steps if "./bench nightly measure" in str(s.get("run", ""))]
    assert measure["run"].rstrip().endswith("--python all")
    assert steps.index(setups[1]) < steps.index(measure)


def test_the_pull_requests_counts_are_made_on_every_python_the_runner_sets_up() -> None:
    steps = _jobs("pr-instructions.yml")["count"]["steps"]
    setups = [s for s in steps if str(s.get("uses", "")).startswith("actions/setup-python@")]
    others, default = (str(s["with"]["python-version"]).split() for s in setups)
    assert others == [p for p in PYTHONS if p != DEFAULT_PYTHON] and default == [DEFAULT_PYTHON]
    assert setups[0].get("continue-on-error") is True
    (count,) = [s for s in steps if "./bench pr-compare" in str(s.get("run", ""))]
    assert "--instructions-only" in count["run"] and "--python all" in count["run"]
