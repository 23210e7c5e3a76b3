"""Tests of wsbench.instrument.waitbudget: the run's budget for its waited retries."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from wsbench.instrument.waitbudget import ACCOUNT_ENV, WaitBudget, waits_spent


def test_a_budget_in_memory_takes_what_fits_and_refuses_the_rest() -> None:
    budget = WaitBudget(5.0)
    assert [budget.take(2.0), budget.take(2.5), budget.take(1.0), budget.take(0.5)] == [
        True, True, False, True,
    ]  # fmt: skip
    assert budget.taken() == [2.0, 2.5, 0.5]
    assert WaitBudget(0.0).take(0.1) is False
    with pytest.raises(ValueError, match="wait budget must be >= 0 s, not -1"):
        WaitBudget(-1.0)


def test_an_account_file_is_shared_by_every_budget_that_names_it(tmp_path: Path) -> None:
    account = tmp_path / "waits.txt"
    first, second = WaitBudget(4.0, account), WaitBudget(4.0, account)
    assert first.taken() == [] and not account.exists()
    assert first.take(1.75) and second.take(1.75)
    assert not first.take(1.75)  # 3.5 s taken: 0.5 s left for both
    assert second.take(0.5) and not first.take(0.001)
    assert first.taken() == second.taken() == [1.75, 1.75, 0.5]
    assert account.read_text(encoding="utf-8") == "1.750\n1.750\n0.500\n"


def _take_all(account: str, results: multiprocessing.Queue[int]) -> None:
    budget = WaitBudget(50.0, Path(account))
    results.put(sum(budget.take(1.0) for _ in range(40)))


def test_processes_taking_at_once_never_overdraw_the_account(tmp_path: Path) -> None:
    account = tmp_path / "waits.txt"
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[int] = context.Queue()
    workers = [context.Process(target=_take_all, args=(str(account), results)) for _ in range(3)]
    for worker in workers:
        worker.start()
    granted = [results.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    # 120 asked for by 3 processes at once, 50 s in the budget: exactly 50 taken, once each.
    assert sum(granted) == 50
    assert WaitBudget(50.0, account).taken() == [1.0] * 50


def test_the_account_comes_from_the_environment(tmp_path: Path) -> None:
    shared = WaitBudget.from_env(9.0, {ACCOUNT_ENV: str(tmp_path / "waits.txt")})
    assert (shared.total_s, shared.account) == (9.0, tmp_path / "waits.txt")
    assert WaitBudget.from_env(9.0, {}).account is None


def test_what_the_main_job_says_a_run_took_of_its_budget() -> None:
    assert waits_spent([1.75, 2.75], 90.0) == (
        "2 windows measured after waits, 4.5 s of the run's 90 s wait budget"
    )
    assert (
        waits_spent([], 90.0)
        == "0 windows measured after waits, 0.0 s of the run's 90 s wait budget"
    )
    assert waits_spent([1.75], 90.0).startswith("1 window measured")
