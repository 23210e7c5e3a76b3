"""What failed in a log of ``./bench test`` (:mod:`wsbench.ci.devtest`): its steps, and the
tests each failed step names.

:func:`wsbench.ci.devtest.run` prints a header before each step, ``=== [3/10] mypy``, the
step's own output after it, and at the end, when a step failed, one line naming them all:
``wsbench test: FAILED steps: cargo test, pytest``. In a step's output:

- pytest's short summary names each test that failed, ``FAILED tests/a.py::test_x - msg``,
  and each that could not run, ``ERROR tests/a.py::test_y - msg`` (its fixture failed) or
  ``ERROR tests/a.py - msg`` (the file could not be collected);
- cargo test names each test that failed, ``test tests::bad ... FAILED``.

Before the first header, ``./bench`` sets up ``.venv`` (``uv sync``): a failure there stops it
before any step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

HEADER = re.compile(r"^=== \[\d+/\d+\] (?P<step>.+)$")
"""A step's header, as :func:`wsbench.ci.devtest.run` prints it."""
FAILED_STEPS = "wsbench test: FAILED steps: "
"""The start of :func:`wsbench.ci.devtest.run`'s last line when a step failed."""
PYTEST_LINE = re.compile(r"^(?P<outcome>FAILED|ERROR) (?P<test>\S.*?)(?: - .*)?$")
CARGO_LINE = re.compile(r"^test (?P<test>.+?)(?: - should panic)? \.\.\. FAILED$")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
"""A terminal colour or cursor sequence, which a tool may print even into a file."""
TAIL_LINES = 40
"""How many of a failed step's last lines are kept when it names no test (its findings:
ruff's, mypy's...)."""
TAIL_CHARS = 4000
"""The most characters kept of those lines (a line can be very long)."""


@dataclass(frozen=True)
class FailingTest:
    """A test a step named as failing.

    Attributes:
        name: pytest's node id (``tests/ci/test_x.py::test_y[param]``, or the file alone when
            it could not be collected) or cargo's test path (``tests::bad``).
        error: pytest's ``ERROR``: the test could not run (a fixture or the collection
            failed), rather than failed.
    """

    name: str
    error: bool = False


@dataclass(frozen=True)
class FailedStep:
    """A step of ``./bench test`` that failed.

    Attributes:
        name: its name (:data:`wsbench.ci.devtest.STEPS`), e.g. ``"pytest"``.
        tests: the tests it named as failing, in the log's order, each once.
        tail: its output's last lines (at most :data:`TAIL_LINES` and :data:`TAIL_CHARS`),
            when it named no test.
    """

    name: str
    tests: tuple[FailingTest, ...]
    tail: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a ``./bench test`` log and its exit status say.

    Attributes:
        status: ``./bench test``'s exit status (0: every step passed).
        steps: the steps that started, in order.
        failed: the steps that failed, in order (those the last line names, and any other
            whose output names a failing test).
        stopped: when the log does not end with the steps' verdict although the status is
            not 0, where it stopped: ``"before the first step"`` (setting up ``.venv``) or
            ``"in step <name>"``; else ``""``.
        tail: with ``stopped``, the log's last lines (as :attr:`FailedStep.tail`).
    """

    status: int
    steps: tuple[str, ...]
    failed: tuple[FailedStep, ...]
    stopped: str = ""
    tail: str = ""

    @property
    def passed(self) -> bool:
        """Whether every step passed (the exit status is 0)."""
        return self.status == 0


def _tail(lines: Sequence[str]) -> str:
    kept = list(lines)
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept[-TAIL_LINES:])[-TAIL_CHARS:]


def _failing_tests(lines: Sequence[str]) -> tuple[FailingTest, ...]:
    found: list[FailingTest] = []
    for line in lines:
        pytest_match, cargo_match = PYTEST_LINE.match(line), CARGO_LINE.match(line)
        if pytest_match:
            test = FailingTest(pytest_match["test"], pytest_match["outcome"] == "ERROR")
        elif cargo_match:
            test = FailingTest(cargo_match["test"])
        else:
            continue
        if test not in found:
            found.append(test)
    return tuple(found)


def _named_steps(text: str, steps: Sequence[str]) -> list[str] | None:
    """``text`` (the verdict's list, ``"a, b"``) as names of ``steps`` in their order, or
    None. A name may itself hold ``", "`` (``"pytest, alone"``), hence the search."""
    if not text:
        return []
    for i, step in enumerate(steps):
        if text == step:
            return [step]
        if text.startswith(step + ", "):
            rest = _named_steps(text[len(step) + 2 :], steps[i + 1 :])
            if rest is not None:
                return [step, *rest]
    return None


def parse(log: str, status: int) -> Outcome:
    """What the ``./bench test`` log ``log`` (its standard output and error together) and its
    exit ``status`` say: which steps ran, which failed and with which tests.

    A status of 0 means every step passed, whatever the log holds.
    """
    lines = ANSI.sub("", log).replace("\r\n", "\n").split("\n")
    sections: list[tuple[str, list[str]]] = []
    verdict: str | None = None
    for line in lines:
        header = HEADER.match(line)
        if header:
            sections.append((header["step"], []))
        elif line.startswith(FAILED_STEPS):
            verdict = line[len(FAILED_STEPS) :].strip()
        elif sections:
            sections[-1][1].append(line)
    steps = tuple(name for name, _ in sections)
    if status == 0:
        return Outcome(status, steps, ())
    named = set(_named_steps(verdict, steps) or [verdict]) if verdict else set()
    failed = []
    for name, output in sections:
        tests = _failing_tests(output)
        if name in named or tests:
            failed.append(FailedStep(name, tests, "" if tests else _tail(output)))
    failed += [FailedStep(n, (), "") for n in sorted(named - set(steps))]
    if verdict is not None:
        return Outcome(status, steps, tuple(failed))
    where = f"in step {steps[-1]}" if steps else "before the first step"
    return Outcome(status, steps, tuple(failed), where, _tail(lines))
