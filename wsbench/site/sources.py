"""Where shown figures come from, in words: run ids, settings, load generator build, dates.

Every leaderboard table and framework results table ends with :func:`source_line`; the Runs
and environment page uses the same phrases.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from wsbench.results.runformat import LoadgenBuild, Settings
from wsbench.site.markup import TIMES, cell, code
from wsbench.site.results import EnvRun

HEX = 12
"""How many hex digits of a commit or a source hash are shown."""
RUNS_PAGE_TITLE = "Runs and environment"


def seconds(value: float) -> str:
    """A duration in seconds without trailing zeros, e.g. ``"0.5 s"``, ``"3 s"``."""
    return f"{value:g} s"


def settings_text(settings: Settings) -> str:
    """How the samples were taken, e.g. ``"3 processes x 3 windows x 3 s, 1 s warm-up"``
    (with multiplication signs)."""
    return (
        f"{settings.processes} processes {TIMES} {settings.windows_per_process} windows {TIMES} "
        f"{seconds(settings.window_s)}, {seconds(settings.warmup_s)} warm-up"
    )


def waited_text(settings: Settings) -> str:
    """The waited retries of ``settings`` as a clause of the disturbed-window rule, e.g.
    ``"; a set with no usable window is measured up to 3 more times in its last process,
    after waits of 1, 2 and 4 s (7 s in all), while the run's 90 s wait budget lasts"``
    (the budget: :attr:`Settings.wait_budget_s`, left out for documents from before it);
    empty when the run did not wait (older documents)."""
    schedule = settings.waits()
    if not schedule:
        return ""
    if len(schedule) == 1:
        text = (
            "; a set with no usable window is measured once more in its last process, after "
            f"a wait of {schedule[0]:g} s"
        )
    else:
        *first, last = (f"{w:g}" for w in schedule)
        text = (
            f"; a set with no usable window is measured up to {len(schedule)} more times in "
            f"its last process, after waits of {', '.join(first)} and {last} s "
            f"({sum(schedule):g} s in all)"
        )
    if settings.wait_budget_s is not None:
        text += f", while the run's {settings.wait_budget_s:g} s wait budget lasts"
    return text


def loadgen_text(loadgen: LoadgenBuild) -> str:
    """The load generator build, e.g. ``"0.1.0 (sources abababababab)"``."""
    return f"{loadgen.version} (sources {loadgen.source_sha256[:HEX]})"


def commit_text(commit: str) -> str:
    """A harness commit shortened to :data:`HEX` digits (``"unknown"`` stays)."""
    return commit[:HEX]


def date_text(iso: str | None) -> str | None:
    """An ISO 8601 time as ``"2026-11-22 03:10 UTC"``; None for None; unparsable text
    as it is."""
    if not iso:
        return None
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def run_ids(runs: Iterable[EnvRun]) -> list[str]:
    """The distinct run ids of ``runs``, newest first."""
    return sorted({r.run_id for r in runs}, reverse=True)


def source_line(runs: Iterable[EnvRun], runs_page: str) -> str:
    """A markdown paragraph naming the run(s) ``runs`` (one comparison group) come from and
    their settings, linking to the Runs and environment page at ``runs_page``."""
    runs = list(runs)
    if not runs:
        return ""
    ids = run_ids(runs)
    first = runs[0].doc
    label = "Run" if len(ids) == 1 else "Runs"
    return (
        f"<small>{label} {', '.join(code(i) for i in ids)}: "
        f"{cell(settings_text(first.settings))}; load generator "
        f"{cell(loadgen_text(first.loadgen))} ([{RUNS_PAGE_TITLE.lower()}]({runs_page}))."
        "</small>\n"
    )
