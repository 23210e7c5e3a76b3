"""The body of the lock refresh's pull request (``.github/workflows/lock-refresh.yml``):
the packages a refresh of ``uv.lock`` moved (:mod:`wsbench.ci.lock_changes`), downgrades
first, and what ``./bench test`` said of the refreshed lock (:mod:`wsbench.ci.devtest_log`):
passed, or each failed step with the tests it named.

The pull request is opened with the workflow's own token, so GitHub starts no other
workflow for it (CI does not run on it by itself): the body carries the test run the
refresh made.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wsbench.ci.devtest_log import FailedStep, FailingTest, Outcome
from wsbench.ci.lock_changes import PackageChange

BODY_LIMIT = 65_536
"""The most characters GitHub keeps of a pull request's body."""
MAX_TESTS = 50
"""The most failing tests listed for one step (the others are counted)."""
HEADINGS = {
    "downgraded": "Downgraded",
    "upgraded": "Upgraded",
    "added": "Added",
    "removed": "Removed",
    "changed": "Changed (versions PEP 440 cannot order)",
}
"""Each kind of change's heading (:data:`wsbench.ci.lock_changes.KINDS`)."""
DOWNGRADE_WARNING = (
    "> [!WARNING]\n"
    "> {count} went back to an older release: a new release of another package can force "
    "the resolver back to an old release of one it conflicts with. Check that each is wanted "
    "before merging; if not, bound it in pyproject.toml."
)


def _code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _block(text: str) -> str:
    """``text`` as a fenced code block, whatever backtick fences it holds."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _versions(versions: Sequence[str]) -> str:
    return ", ".join(v or "(no version)" for v in versions)


def _change(change: PackageChange) -> str:
    """``- `daphne` 4.2.3 → 2.3.0``, or for a name added or removed the versions it has."""
    if not change.old or not change.new:
        return f"- {_code(change.name)} {_versions(change.old or change.new)}"
    return f"- {_code(change.name)} {_versions(change.old)} → {_versions(change.new)}"


def packages_section(changes: Sequence[PackageChange]) -> str:
    """The packages part of the body: one list per kind of change, downgrades first with a
    warning; a sentence when no version moved (only the lock's hashes, markers or format
    changed).

    Args:
        changes: :func:`wsbench.ci.lock_changes.package_changes`'s list.
    """
    if not changes:
        return (
            "### Packages\n\nNo package's version changed: only the lock's other contents "
            "did (hashes, markers, or uv's format)."
        )
    parts = [f"### Packages ({len(changes)} changed)"]
    for kind, heading in HEADINGS.items():
        of_kind = [c for c in changes if c.kind == kind]
        if not of_kind:
            continue
        if kind == "downgraded":
            parts.append(DOWNGRADE_WARNING.format(count=len(of_kind)))
        parts.append(f"**{heading} ({len(of_kind)})**\n\n" + "\n".join(map(_change, of_kind)))
    return "\n\n".join(parts)


def _test(test: FailingTest) -> str:
    return f"  - {_code(test.name)}{' (error: it could not run)' if test.error else ''}"


def _step(step: FailedStep) -> str:
    count = f": {len(step.tests)} failing" if step.tests else ""
    tail = " (its output's last lines are below)" if step.tail else ""
    lines = [f"- **{step.name}**{count}{tail}", *map(_test, step.tests[:MAX_TESTS])]
    if len(step.tests) > MAX_TESTS:
        lines.append(f"  - and {len(step.tests) - MAX_TESTS} more (the run's log has them)")
    return "\n".join(lines)


def _details(summary: str, text: str) -> str:
    return f"<details><summary>{summary}</summary>\n\n{_block(text)}\n\n</details>"


def tests_section(outcome: Outcome) -> str:
    """The tests part of the body: passed, or the exit status, each failed step with the
    tests it named (or its output's last lines when it named none), and where the log
    stopped if it did before the steps' verdict."""
    if outcome.passed:
        return f"### Tests: passed\n\n`./bench test` passed ({len(outcome.steps)} steps)."
    parts = [f"### Tests: failed\n\n`./bench test` exited with status {outcome.status}."]
    if outcome.failed:
        names = ", ".join(s.name for s in outcome.failed)
        parts.append(f"Failed steps: {names}.\n\n" + "\n".join(map(_step, outcome.failed)))
        parts += [_details(f"{s.name}: its output's last lines", s.tail)
                  for s in outcome.failed if s.tail]  # fmt: skip
    if outcome.stopped:
        stopped = f"It stopped {outcome.stopped}, without the steps' verdict; the log ends:"
        parts.append(f"{stopped}\n\n{_block(outcome.tail)}")
    return "\n\n".join(parts)


def body(changes: Sequence[PackageChange], outcome: Outcome, run_url: str = "") -> str:
    """The pull request's body (Markdown): what it is, the tests' outcome, then the packages;
    cut to :data:`BODY_LIMIT` characters with a last line saying so.

    Args:
        changes: :func:`wsbench.ci.lock_changes.package_changes` of the lock before and
            after the refresh.
        outcome: :func:`wsbench.ci.devtest_log.parse` of ``./bench test``'s log on the
            refreshed lock.
        run_url: the workflow run's address, linked when given.
    """
    run = f" ([the workflow run]({run_url}))" if run_url else ""
    intro = (
        "`uv.lock` refreshed from the registry's releases of the day "
        f"(`./bench lock --project --upgrade`), by the lock-refresh workflow{run}. Each "
        "refresh rewrites this pull request's branch: to fix a test the refresh breaks, "
        "push the fix to another branch.\n\n"
        "CI does not run on this pull request by itself (GitHub starts no workflow for a "
        "pull request its workflows' token opens): the tests below are the refresh's own "
        "run of `./bench test` on the refreshed lock."
    )
    text = "\n\n".join([intro, tests_section(outcome), packages_section(changes)]) + "\n"
    if len(text) <= BODY_LIMIT:
        return text
    cut = f"\n\n(cut here: GitHub keeps {BODY_LIMIT} characters; the run's log has the rest)\n"
    return text[: BODY_LIMIT - len(cut)] + cut
