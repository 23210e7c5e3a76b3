"""The run's wait budget: how long the waited retries of a whole run may take, together.

A parameter set whose windows were all disturbed is measured again after waits (1, 2 and 4 s
by default, :mod:`wsbench.instrument.sampling`): at most 9.25 s per set. That bound is per
set; a busy hour makes many sets wait. On 2026-11-27 a main job from a clean clone, in an hour
when the hypervisor stole a median 10 % (p90 51.5 %) of the measured CPUs, measured 181
windows after waits, 403 s of waits in all, and took 36 min 52 s: over its 30-minute budget,
where the same run without them would have taken about 27.9 min. So a run also has a budget
for its waited retries, shared by every benchmark process of the run: each waited retry
costs its wait plus its window's warm-up and window (:meth:`WaitBudget.take`), sets are
served first come, first served, and once the budget is spent a set that is due a waited
retry is not measured again: it ends with no usable window, its ``waits_skipped`` says how
many retries it did not get, and its reason (:func:`wsbench.results.runformat.all_disturbed`)
says that the run's wait budget was spent.

The account is a file the main job creates for the run and names in :data:`ACCOUNT_ENV`;
every benchmark process appends what it takes to it under ``flock(2)``, so two processes
never both take the last seconds. Without that variable (``./bench measure``, a benchmark run
by hand), each process keeps its own account in memory with the same budget.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

ACCOUNT_ENV = "WSBENCH_WAIT_ACCOUNT"
"""Environment variable naming the run's wait account file (the main job sets it)."""

BUDGET_ENV = "WSBENCH_WAIT_BUDGET_S"
"""Environment variable giving the run's wait budget, seconds (the main job sets it from its
sampling plan; default: :class:`wsbench.instrument.sampling.SamplingPlan`'s)."""


class WaitBudget:
    """A budget of seconds for a run's waited retries, kept in memory or in an account file
    shared by the run's processes (one line per retry taken: its cost in seconds).

    Args:
        total_s: the budget, seconds (>= 0).
        account: the shared account file (created when missing), or None to keep the account
            in this process only.
    """

    def __init__(self, total_s: float, account: Path | None = None) -> None:
        if total_s < 0:
            raise ValueError(f"the wait budget must be >= 0 s, not {total_s:g}")
        self.total_s = total_s
        self.account = account
        self._taken: list[float] = []

    @classmethod
    def from_env(cls, total_s: float, env: dict[str, str] | None = None) -> WaitBudget:
        """The run's budget of ``total_s`` seconds, in the account file :data:`ACCOUNT_ENV`
        names (``env``: default ``os.environ``), or in memory when it names none."""
        name = (os.environ if env is None else env).get(ACCOUNT_ENV)
        return cls(total_s, Path(name) if name else None)

    def take(self, cost_s: float) -> bool:
        """Take ``cost_s`` seconds from the budget if that many are left, and say whether they
        were taken (False: the budget is spent; nothing is taken).

        Raises:
            OSError: the account file cannot be opened, read or written.
        """
        if self.account is None:
            if sum(self._taken) + cost_s > self.total_s:
                return False
            self._taken.append(cost_s)
            return True
        with self.account.open("a+", encoding="utf-8") as file:
            fcntl.flock(file, fcntl.LOCK_EX)  # released when the file is closed
            file.seek(0)
            if sum(_costs(file.read())) + cost_s > self.total_s:
                return False
            file.write(f"{cost_s:.3f}\n")
            file.flush()
            return True

    def taken(self) -> list[float]:
        """The cost of every retry taken so far (in the whole run when the account is
        shared), seconds, in the order taken.

        Raises:
            OSError: the account file exists but cannot be read.
        """
        if self.account is None:
            return list(self._taken)
        if not self.account.exists():
            return []
        return _costs(self.account.read_text(encoding="utf-8"))


def waits_spent(taken: list[float], total_s: float) -> str:
    """What a run's waited retries took of its budget, for the main job's log: e.g. ``"12
    windows measured after waits, 41.5 s of the run's 90 s wait budget"`` (``taken``: the
    cost of each, seconds, :meth:`WaitBudget.taken`)."""
    windows = "window" if len(taken) == 1 else "windows"
    return (
        f"{len(taken)} {windows} measured after waits, {sum(taken):.1f} s of the run's "
        f"{total_s:g} s wait budget"
    )


def _costs(text: str) -> list[float]:
    """The costs of an account file's lines, seconds."""
    return [float(line) for line in text.split()]
