"""The results store -> what the site shows: the current comparison group of every machine.

Figures measured with different settings or different load generator builds never share a
table or a chart. Per machine, the *current comparison group* is the
:meth:`~wsbench.results.runformat.Run.comparable_key` of that machine's newest run (the largest run
id); only documents with that key are shown, and of those, the newest figure of each
(environment, scenario, parameter set): the benchmark of the newest document (largest run
id) that measured it. A partial re-run (one parameter set of one environment) thus replaces
that figure only; the environment's other figures stay, each naming the run it comes from.
A set an interrupted run never reached (no sample, not failed:
:attr:`~wsbench.results.runformat.Benchmark.begun`) replaces nothing.
An environment whose documents hold no benchmark at all is shown by its newest document,
without figures.

An environment whose figures come from several documents is several :class:`EnvRun`, one
per document with the rows it supplies (:attr:`EnvRun.env_id` tells them apart from other
environments, :func:`by_environment` groups them). Every other run, and every run of which
only some figures are shown, is listed on the Runs and environment page with why
(:class:`RunInfo`).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from wsbench.results import runformat
from wsbench.results.runformat import ImplInfo, LoadgenBuild, Settings
from wsbench.results.store import Store, load_store
from wsbench.site.frameworks import SOCKETIO
from wsbench.site.rows import Row, row_of

log = logging.getLogger("mkdocs.plugins.wsbench.site")
"""Under ``mkdocs.``: a warning here fails ``mkdocs build --strict``."""

SUPERSEDED = "superseded: each of its figures was measured again by a newer run"
PARTLY_SUPERSEDED = "some of its figures were measured again by a newer run"
NO_FIGURES = "it recorded no figure"
OTHER_SETTINGS = "measured with other settings"
OTHER_LOADGEN = "measured with another load generator build"


FigureKey = tuple[str, tuple[tuple[str, int], ...]]
"""What a benchmark measures within its environment: its scenario and its parameter set as
``(name, value)`` pairs in name order."""


def figure_key(bench: runformat.Benchmark) -> FigureKey:
    """``bench``'s :data:`FigureKey`, e.g. ``("echo", (("in_flight", 64), ("size_bytes",
    16)))``."""
    return bench.scenario, tuple(sorted(bench.params.items()))


class OfDocument:
    """What every view of one run document says of it (:class:`EnvRun`, a graded
    environment, a profile): its machine, what ran, its row's name and version. A subclass
    is a frozen dataclass with the field ``doc``."""

    doc: runformat.Run

    @property
    def machine(self) -> str:
        """The machine's name."""
        return self.doc.machine.name

    @property
    def impl(self) -> ImplInfo:
        """What ran: the implementation in one configuration at one version."""
        return self.doc.impl

    @property
    def label(self) -> str:
        """The row's name wherever results are shown (the display name if it has none)."""
        return self.doc.impl.row_name or self.doc.impl.display_name

    @property
    def version(self) -> str:
        """The implementation's version, "" for none (the reference)."""
        return self.doc.impl.version or ""

    @property
    def title(self) -> str:
        """The row's name and version, e.g. ``"aiohttp · asyncio 3.14.5"``."""
        return f"{self.label} {self.version}".strip()

    @property
    def socketio(self) -> bool:
        """True for a Socket.IO server (a different protocol, with its own overhead)."""
        return self.doc.impl.protocol == SOCKETIO


@dataclass(frozen=True)
class EnvRun(OfDocument):
    """One document's shown figures in its machine's current comparison group: of one
    environment, the figures (scenario, parameter set) no newer document of the group
    measured again.

    Attributes:
        doc: the run document.
        rows: one per shown benchmark, in the document's order (empty only for an
            environment none of whose documents holds a benchmark).
    """

    doc: runformat.Run
    rows: tuple[Row, ...]

    @property
    def run_id(self) -> str:
        """The run the document belongs to."""
        return self.doc.run_id

    @property
    def env_name(self) -> str:
        """asv's environment name."""
        return self.doc.environment.env_name

    @property
    def env_id(self) -> tuple[str, str]:
        """The environment on its machine: (machine, asv environment name). Several shown
        documents of one environment are several EnvRuns with the same ``env_id``."""
        return self.machine, self.env_name


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
        shown: how many of them the site shows a figure of (or, for an environment with no
            figure in any document, the document; 0 outside the current group).
        current: it belongs to its machine's current comparison group.
        why_not_shown: why none or only some of its figures are shown ("" when all are):
            another comparison group (:data:`OTHER_SETTINGS`, :data:`OTHER_LOADGEN`),
            :data:`SUPERSEDED` (a newer run of the group measured each of its figures
            again), :data:`PARTLY_SUPERSEDED` (some of them) or :data:`NO_FIGURES`.
        figures: how many figures (benchmarks) its documents hold.
        figures_shown: how many of them the site shows.
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
    figures: int = 0
    figures_shown: int = 0


@dataclass(frozen=True)
class Results:
    """Everything the site shows from the store.

    Attributes:
        runs: the shown documents of each machine's current group, each with the figures
            it supplies (:func:`current_group`; an environment may have several), sorted
            by machine, the reference first, then by display name, row name, version and
            environment, newest run first.
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
        run.env_name,
    )


def by_environment(runs: Iterable[EnvRun]) -> list[list[EnvRun]]:
    """``runs`` grouped by environment (:attr:`EnvRun.env_id`): one list per environment,
    in the order of its first EnvRun in ``runs``, each in ``runs``' order."""
    groups: dict[tuple[str, str], list[EnvRun]] = {}
    for run in runs:
        groups.setdefault(run.env_id, []).append(run)
    return list(groups.values())


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


def _run_info(docs: list[runformat.Run], shown: dict[int, int], current: bool) -> RunInfo:
    """The run of ``docs``, ``shown`` giving how many benchmarks of each shown document
    (by ``id``) are shown; :attr:`RunInfo.why_not_shown` is left to the caller."""
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
        shown=len({d.environment.env_name for d in docs if id(d) in shown}),
        current=current,
        why_not_shown="",
        figures=sum(len(d.benchmarks) for d in docs),
        figures_shown=sum(shown.get(id(d), 0) for d in docs),
    )


Shown = list[tuple[runformat.Run, tuple[runformat.Benchmark, ...]]]
"""Shown documents, each with the benchmarks of it that are shown."""


def current_group(docs: list[runformat.Run]) -> Shown:
    """One machine's shown figures: of the documents whose comparable key is that of the
    newest run (largest run id), per (environment, scenario, parameter set) the benchmark
    of the newest document that has it begun, else of the newest that has it (ties of run
    id: the later in ``docs``).

    Returns:
        Each document that supplies a shown benchmark with those benchmarks (in its order),
        in run id order; an environment with no benchmark in any document of the group
        appears as its newest document with none.
    """
    newest = max(docs, key=lambda d: (d.run_id, d.environment.env_name))
    key = newest.comparable_key()
    group = sorted((d for d in docs if d.comparable_key() == key), key=lambda d: d.run_id)
    owner: dict[tuple[str, FigureKey], int] = {}
    last: dict[str, int] = {}
    for i, doc in enumerate(group):
        env = doc.environment.env_name
        last[env] = i
        for bench in doc.benchmarks:
            if bench.begun or (env, figure_key(bench)) not in owner:
                owner[(env, figure_key(bench))] = i
    measured = {env for env, _ in owner}
    shown: Shown = []
    for i, doc in enumerate(group):
        env = doc.environment.env_name
        mine = tuple(b for b in doc.benchmarks if owner[(env, figure_key(b))] == i)
        if mine or (env not in measured and last[env] == i):
            shown.append((doc, mine))
    return shown


def _history(docs: list[runformat.Run], shown: Shown) -> list[RunInfo]:
    """One machine's runs, newest first, with how many of their environments and figures
    are ``shown``."""
    current = shown[0][0].comparable_key()
    picked = {id(doc): len(benches) for doc, benches in shown}
    by_run: dict[tuple[str, tuple[object, ...]], list[runformat.Run]] = {}
    for doc in docs:
        by_run.setdefault((doc.run_id, doc.comparable_key()), []).append(doc)
    infos = []
    for (_, key), run_docs in by_run.items():
        info = _run_info(run_docs, picked, key == current)
        if key != current:
            why = _why(key, current)
        elif info.figures_shown == info.figures:
            why = "" if info.shown or info.figures else NO_FIGURES
        else:
            why = PARTLY_SUPERSEDED if info.figures_shown else SUPERSEDED
        infos.append(dataclasses.replace(info, why_not_shown=why))
    return sorted(infos, key=lambda i: i.run_id, reverse=True)


def select(docs: list[runformat.Run]) -> Results:
    """The current comparison group of every machine in ``docs`` (:func:`current_group`),
    as rows, and every run for the history."""
    shown: list[EnvRun] = []
    history: list[RunInfo] = []
    for machine in sorted({d.machine.name for d in docs}):
        mine = [d for d in docs if d.machine.name == machine]
        group = current_group(mine)
        shown += [
            EnvRun(d, tuple(row_of(b, d.instructions, len(d.settings.loadgen_cpus)) for b in bs))
            for d, bs in group
        ]
        history += _history(mine, group)
    newest_first = sorted(shown, key=lambda r: r.run_id, reverse=True)
    return Results(runs=tuple(sorted(newest_first, key=_sort_key)), history=tuple(history))


def load_results(root: Path) -> Results:
    """Read the results store at ``root`` (:func:`wsbench.results.store.load_store`) and select what
    the site shows (:func:`select`); a missing or empty store gives ``Results().empty``.

    A file that is not a valid run document is skipped with a warning naming it on the
    ``mkdocs`` logger (which fails a ``--strict`` build): a broken file must not silently
    vanish from the site.
    """
    return results_of(load_store(root))


def results_of(store: Store) -> Results:
    """What the site shows of an already loaded store (:func:`select` of its documents);
    each of its :attr:`~wsbench.results.store.Store.problems` is a warning, as in
    :func:`load_results`."""
    for problem in store.problems:
        log.warning("wsbench site: skipping a file of the results store: %s", problem)
    return select(store.runs)
