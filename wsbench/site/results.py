"""The results store -> what the site shows: the current comparison group of every machine.

Figures measured with different settings or different load generator builds never share a
table or a chart. Per machine, the *current comparison group* is the
:meth:`~wsbench.runformat.Run.comparable_key` of that machine's newest run (the largest run
id); only documents with that key are shown, and of those, each environment's newest. Every
other run is listed (never mixed in) on the Runs and environment page, with why it is not
shown.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from wsbench import runformat
from wsbench.runformat import ImplInfo, LoadgenBuild, Settings
from wsbench.site.frameworks import SOCKETIO
from wsbench.site.rows import Row, row_of
from wsbench.store import Store, load_store

log = logging.getLogger("mkdocs.plugins.wsbench.site")
"""Under ``mkdocs.``: a warning here fails ``mkdocs build --strict``."""

SUPERSEDED = "superseded: each of its environments was measured again by a newer run"
PARTLY_SUPERSEDED = "some of its environments were measured again by a newer run"
OTHER_SETTINGS = "measured with other settings"
OTHER_LOADGEN = "measured with another load generator build"


@dataclass(frozen=True)
class EnvRun:
    """One environment's newest document in its machine's current comparison group.

    Attributes:
        doc: the run document.
        rows: one per benchmark, in the document's order.
    """

    doc: runformat.Run
    rows: tuple[Row, ...]

    @property
    def machine(self) -> str:
        """The machine's name."""
        return self.doc.machine.name

    @property
    def run_id(self) -> str:
        """The run the document belongs to."""
        return self.doc.run_id

    @property
    def env_name(self) -> str:
        """asv's environment name."""
        return self.doc.environment.env_name

    @property
    def impl(self) -> ImplInfo:
        """What ran: the implementation in one configuration at one version."""
        return self.doc.impl

    @property
    def label(self) -> str:
        """The row's name wherever results are shown (the display name if it has none)."""
        return self.doc.impl.row_name or self.doc.impl.display_name

    @property
    def socketio(self) -> bool:
        """True for a Socket.IO server (a different protocol, with its own overhead)."""
        return self.doc.impl.protocol == SOCKETIO


@dataclass(frozen=True)
class RunInfo:
    """One run on one machine: its documents that share one comparable key.

    Attributes:
        run_id: the run's id.
        machine: the machine's name.
        started_at: ISO 8601 start of its earliest document.
        finished_at: ISO 8601 end of its latest document; None if one never finished.
        settings: how its samples were taken.
        loadgen: the load generator build that measured.
        harness_commits: the harness commits of its documents (usually one).
        environments: how many environments it measured.
        shown: how many of them the site shows (0 outside the current group).
        current: it belongs to its machine's current comparison group.
        why_not_shown: why none or only some of its figures are shown ("" when all are):
            another comparison group (:data:`OTHER_SETTINGS`, :data:`OTHER_LOADGEN`),
            :data:`SUPERSEDED` or :data:`PARTLY_SUPERSEDED`.
    """

    run_id: str
    machine: str
    started_at: str
    finished_at: str | None
    settings: Settings
    loadgen: LoadgenBuild
    harness_commits: tuple[str, ...]
    environments: int
    shown: int
    current: bool
    why_not_shown: str


@dataclass(frozen=True)
class Results:
    """Everything the site shows from the store.

    Attributes:
        runs: the shown environments, one per (machine, environment) of each machine's
            current group, sorted by machine, the reference first, then by display name,
            row name and version.
        history: every run of every machine, by machine, newest first.
    """

    runs: tuple[EnvRun, ...] = ()
    history: tuple[RunInfo, ...] = ()

    @property
    def empty(self) -> bool:
        """True when there is nothing to show."""
        return not self.runs

    @property
    def machines(self) -> list[str]:
        """The machines with shown results, sorted."""
        return sorted({r.machine for r in self.runs})


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key ordering the numbers inside ``text`` by value (``"0.9" < "0.10"``)."""
    parts = re.split(r"(\d+)", text.lower())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


def _sort_key(run: EnvRun) -> tuple[object, ...]:
    return (
        run.machine,
        not run.impl.reference,
        run.impl.display_name.lower(),
        natural_key(run.label),
        natural_key(run.impl.version or ""),
    )


def _why(key: tuple[object, ...], current: tuple[object, ...]) -> str:
    """Why a run of comparable key ``key`` is not in the group of key ``current``."""
    _, loadgen, settings = key
    _, current_loadgen, current_settings = current
    reasons = []
    if settings != current_settings:
        reasons.append(OTHER_SETTINGS)
    if loadgen != current_loadgen:
        reasons.append(OTHER_LOADGEN)
    return " and ".join(reasons) or OTHER_SETTINGS


def _run_info(docs: list[runformat.Run], shown: int, current: bool, why: str) -> RunInfo:
    first = docs[0]
    finished = [d.finished_at for d in docs]
    return RunInfo(
        run_id=first.run_id,
        machine=first.machine.name,
        started_at=min(d.started_at for d in docs),
        finished_at=None if None in finished else max(f for f in finished if f),
        settings=first.settings,
        loadgen=first.loadgen,
        harness_commits=tuple(dict.fromkeys(d.harness.commit for d in docs)),
        environments=len({d.environment.env_name for d in docs}),
        shown=shown,
        current=current,
        why_not_shown=why,
    )


def current_group(docs: list[runformat.Run]) -> list[runformat.Run]:
    """One machine's shown documents: of those whose comparable key is that of the newest
    run (largest run id), each environment's newest."""
    newest = max(docs, key=lambda d: (d.run_id, d.environment.env_name))
    key = newest.comparable_key()
    per_env: dict[str, runformat.Run] = {}
    for doc in sorted(docs, key=lambda d: d.run_id):
        if doc.comparable_key() == key:
            per_env[doc.environment.env_name] = doc
    return list(per_env.values())


def _history(docs: list[runformat.Run], shown: list[runformat.Run]) -> list[RunInfo]:
    """One machine's runs, newest first, with how many of their documents are ``shown``."""
    current = shown[0].comparable_key()
    picked = {id(d) for d in shown}
    by_run: dict[tuple[str, tuple[object, ...]], list[runformat.Run]] = {}
    for doc in docs:
        by_run.setdefault((doc.run_id, doc.comparable_key()), []).append(doc)
    infos = []
    for (_, key), run_docs in by_run.items():
        count = sum(1 for d in run_docs if id(d) in picked)
        if key != current:
            why = _why(key, current)
        elif count < len(run_docs):
            why = PARTLY_SUPERSEDED if count else SUPERSEDED
        else:
            why = ""
        infos.append(_run_info(run_docs, count, key == current, why))
    return sorted(infos, key=lambda i: i.run_id, reverse=True)


def select(docs: list[runformat.Run]) -> Results:
    """The current comparison group of every machine in ``docs`` (:func:`current_group`),
    as rows, and every run for the history."""
    shown: list[EnvRun] = []
    history: list[RunInfo] = []
    for machine in sorted({d.machine.name for d in docs}):
        mine = [d for d in docs if d.machine.name == machine]
        group = current_group(mine)
        shown += [EnvRun(d, tuple(row_of(b) for b in d.benchmarks)) for d in group]
        history += _history(mine, group)
    return Results(runs=tuple(sorted(shown, key=_sort_key)), history=tuple(history))


def load_results(root: Path) -> Results:
    """Read the results store at ``root`` (:func:`wsbench.store.load_store`) and select what
    the site shows (:func:`select`); a missing or empty store gives ``Results().empty``.

    A file that is not a valid run document is skipped with a warning naming it on the
    ``mkdocs`` logger (which fails a ``--strict`` build): a broken file must not silently
    vanish from the site.
    """
    return results_of(load_store(root))


def results_of(store: Store) -> Results:
    """What the site shows of an already loaded store (:func:`select` of its documents);
    each of its :attr:`~wsbench.store.Store.problems` is a warning, as in
    :func:`load_results`."""
    for problem in store.problems:
        log.warning("wsbench site: skipping a file of the results store: %s", problem)
    return select(store.runs)
