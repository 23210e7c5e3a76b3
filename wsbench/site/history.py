"""Each configuration's headline figures night by night, from the whole results store.

Unlike :mod:`wsbench.site.results` (each machine's current comparison group), this reads
*every* run of every machine, so that the runner's drift (the same version measured on
several nights) and changes of the harness show. Per machine, headline figure
(:data:`wsbench.site.headline.HEADLINES`) and (implementation, configuration, version) it
gives a :class:`Series`: one :class:`HistoryPoint` per :class:`Night` that measured it,
oldest first, with the figure of the benchmark's usable samples over its server processes
and its 95 % interval (:func:`wsbench.site.rows.summary_of`, as every other headline figure
of the site). A failed
benchmark, one whose every window was disturbed, or one without a messages/s figure has no
point, exactly as :func:`wsbench.site.rows.row_of` makes it a failed row.

A *night* is one run on one machine with one harness, load generator build and settings
(a run's documents almost always share them; a run over a range of commits,
``./bench run --commits A..B``, has one night per commit). Where the harness, the load
generator build or the settings differ from the night before, the figures are not
comparable across the step: :func:`changes_between` names what changed, and the points and
nights carry it as their "harness changed" marker. Nothing here compares figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Literal

import msgspec

from wsbench.results import runformat
from wsbench.results.metrics import BY_NAME, client_bound
from wsbench.results.runformat import Benchmark, Harness, LoadgenBuild, Sample, Settings
from wsbench.site.frameworks import Framework
from wsbench.site.headline import HEADLINES, Headline
from wsbench.site.interactive import lines_data, point_data
from wsbench.site.results import natural_key
from wsbench.site.rows import headline_of, median_of, summary_of
from wsbench.site.sources import HEX, commit_text, loadgen_text

ChangeKind = Literal["harness", "load generator", "settings"]
"""What changed between two nights: the harness's code (its source hash, else its commit),
the load generator build (version, sources or compiler), or the settings."""
HARNESS_CHANGED: ChangeKind = "harness"
LOADGEN_CHANGED: ChangeKind = "load generator"
SETTINGS_CHANGED: ChangeKind = "settings"


@dataclass(frozen=True)
class Night:
    """One run on one machine, as a position on the history's x-axis.

    Attributes:
        machine: the machine's name.
        run_id: the run's id (sorts by time, e.g. ``"20261124T020000Z-aaaaaa"``).
        started_at: ISO 8601 start of its earliest document.
        harness: the harness commit and source hash that measured.
        loadgen: the load generator build that measured.
        settings: how the samples were taken.
        tuned: the tuning check's verdict when the run started: True when every document
            that recorded one was tuned, False when any was not, None when none recorded
            one (:attr:`wsbench.results.runformat.Run.system`).
        changes: what differs from the machine's previous night (:func:`changes_between`);
            empty for its first night.
    """

    machine: str
    run_id: str
    started_at: str
    harness: Harness
    loadgen: LoadgenBuild
    settings: Settings
    tuned: bool | None
    changes: tuple[ChangeKind, ...] = ()

    @property
    def date(self) -> str:
        """The UTC day it started, e.g. ``"2026-11-24"`` (from the run id when the start
        time cannot be read)."""
        try:
            moment = datetime.fromisoformat(self.started_at)
        except ValueError:
            stamp = self.run_id[:8]
            return f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}"
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC).strftime("%Y-%m-%d")

    @property
    def commit(self) -> str:
        """The harness commit, shortened to :data:`wsbench.site.sources.HEX` digits."""
        return commit_text(self.harness.commit)

    def key(self) -> tuple[str, str, str, str, str, str]:
        """Its sort key on its machine: run id, start, harness, load generator, settings."""
        return (
            self.run_id,
            self.started_at,
            self.harness.commit,
            self.harness.source_sha256,
            repr(self.loadgen),
            repr(self.settings),
        )


def changes_between(before: Night, after: Night) -> tuple[ChangeKind, ...]:
    """What differs between two nights, in the order harness, load generator, settings.

    The harness differs when both recorded a source hash and the hashes differ (a commit
    that does not touch the harness's code is no change), else when the commits differ.
    The load generator build and the settings differ when any of their fields does.
    """
    out: list[ChangeKind] = []
    a, b = before.harness, after.harness
    if a.source_sha256 and b.source_sha256:
        if a.source_sha256 != b.source_sha256:
            out.append(HARNESS_CHANGED)
    elif a.commit != b.commit:
        out.append(HARNESS_CHANGED)
    if before.loadgen != after.loadgen:
        out.append(LOADGEN_CHANGED)
    if before.settings != after.settings:
        out.append(SETTINGS_CHANGED)
    return tuple(out)


def _settings_diff(before: Settings, after: Settings) -> str:
    old, new = msgspec.structs.asdict(before), msgspec.structs.asdict(after)
    parts = [f"{name} {old[name]} → {new[name]}" for name in old if old[name] != new[name]]
    return ", ".join(parts)


def change_notes(before: Night, after: Night) -> tuple[str, ...]:
    """:func:`changes_between` in words (plain text, one item per change), e.g.
    ``"harness 0123456789ab → 89abcdef0123"``, ``"settings: window_s 3.0 → 5.0"``."""
    notes = []
    for kind in changes_between(before, after):
        if kind == HARNESS_CHANGED:
            a, b = before.harness, after.harness
            if a.commit != b.commit:
                notes.append(f"harness {commit_text(a.commit)} → {commit_text(b.commit)}")
            else:
                old, new = a.source_sha256[:HEX], b.source_sha256[:HEX]
                notes.append(f"harness sources {old} → {new} (same commit)")
        elif kind == LOADGEN_CHANGED:
            old_text, new_text = loadgen_text(before.loadgen), loadgen_text(after.loadgen)
            if old_text == new_text:
                old_text, new_text = before.loadgen.rustc, after.loadgen.rustc
            notes.append(f"load generator {old_text} → {new_text}")
        else:
            notes.append(f"settings: {_settings_diff(before.settings, after.settings)}")
    return tuple(notes)


@dataclass(frozen=True)
class HistoryPoint:
    """One headline figure of one (configuration, version) in one night.

    Attributes:
        night: the night it was measured in (its run, harness, load generator, settings
            and tuning verdict).
        value: the figure over the server processes of the usable samples (the geometric
            mean of the processes' values, :func:`wsbench.site.rows.summary_of`), in the
            headline's unit (:attr:`~wsbench.site.headline.Headline.unit`).
        interval: its 95 % interval in the same unit, None with one server process.
        n: how many server processes it comes from.
        unstable: the server processes' values vary too much (coefficient of variation
            above 10 %).
        client_bound: the median over the windows of the load generator's CPU was above
            80 % of its CPUs
            (:func:`wsbench.results.metrics.client_bound`).
        since: the night of its series' previous point (None for the first point).
        changes: what differs from ``since`` (:func:`changes_between`): the "harness
            changed" marker of this point.
    """

    night: Night
    value: float
    interval: tuple[float, float] | None
    n: int
    unstable: bool = False
    client_bound: bool = False
    since: Night | None = None
    changes: tuple[ChangeKind, ...] = ()

    @property
    def run_id(self) -> str:
        """The run it comes from."""
        return self.night.run_id


@dataclass(frozen=True)
class Series:
    """One line of the history: one headline figure of one (implementation, configuration,
    version) on one machine, over the nights.

    Attributes:
        machine: the machine's name.
        headline: the figure.
        impl: the implementation's name (``impls/<name>``).
        config: the configuration id.
        version: the package version (None when the document recorded none).
        points: one per night that has the figure, oldest first.
    """

    machine: str
    headline: Headline
    impl: str
    config: str
    version: str | None
    points: tuple[HistoryPoint, ...]

    @property
    def runs(self) -> int:
        """How many distinct runs have a point."""
        return len({p.run_id for p in self.points})


@dataclass(frozen=True)
class History:
    """The whole store's headline figures night by night.

    Attributes:
        nights: every night of every machine, by machine name, then oldest first.
        series: every series with at least one point, by machine, headline
            (:data:`~wsbench.site.headline.HEADLINES` order), implementation,
            configuration and version.
    """

    nights: tuple[Night, ...] = ()
    series: tuple[Series, ...] = ()

    def of(self, impl: str, machine: str | None = None) -> list[Series]:
        """The series of implementation ``impl`` (on ``machine`` only, when given)."""
        return [s for s in self.series if s.impl == impl and machine in (None, s.machine)]

    def machines(self, impl: str) -> list[str]:
        """The machines ``impl`` has points on, sorted."""
        return sorted({s.machine for s in self.of(impl)})

    def runs(self, impl: str, config: str, machine: str) -> int:
        """How many distinct runs have a point of (``impl``, ``config``) on ``machine``, any
        version and headline."""
        return len(
            {p.run_id for s in self.of(impl, machine) if s.config == config for p in s.points}
        )


def figure_samples(benchmark: Benchmark) -> tuple[Sample, ...]:
    """The samples a benchmark's figures come from, as :func:`wsbench.site.rows.row_of`
    takes them (ok and not disturbed); empty when its row is failed (the benchmark failed,
    every window was disturbed, or no usable window has the scenario's headline figure,
    :func:`wsbench.site.rows.headline_of`)."""
    if benchmark.status != "ok":
        return ()
    usable = tuple(benchmark.usable())
    return usable if median_of(headline_of(benchmark.scenario), usable) is not None else ()


def _matches(headline: Headline, benchmark: Benchmark) -> bool:
    return benchmark.scenario == headline.scenario and benchmark.params == headline.params


LOADGEN_CPU = BY_NAME["loadgen_cpu_percent"]
"""The load generator's CPU (percent of one core): a point is client-bound when its median
over the windows is above 80 % of its CPUs (:func:`wsbench.results.metrics.client_bound`)."""


def _point(
    headline: Headline, benchmark: Benchmark, night: Night, loadgen_cpus: int
) -> HistoryPoint | None:
    samples = figure_samples(benchmark)
    summary = summary_of(headline.metric, samples) if samples else None
    if summary is None:
        return None
    scale = headline.scale
    interval = summary.interval
    loadgen_cpu = median_of(LOADGEN_CPU, samples)
    return HistoryPoint(
        night=night,
        value=summary.value / scale,
        interval=(interval[0] / scale, interval[1] / scale) if interval else None,
        n=summary.n,
        unstable=summary.unstable,
        client_bound=client_bound(loadgen_cpu, loadgen_cpus),
    )


NightKey = tuple[str, Harness, LoadgenBuild, Settings]
"""What tells one machine's nights apart: run id, harness, load generator build, settings."""


def _night_key(doc: runformat.Run) -> NightKey:
    return (doc.run_id, doc.harness, doc.loadgen, doc.settings)


def _tuned(docs: Sequence[runformat.Run]) -> bool | None:
    checks = [d.system for d in docs if d.system is not None]
    return all(c.tuned for c in checks) if checks else None


def _nights(docs: Sequence[runformat.Run]) -> dict[NightKey, Night]:
    """One machine's nights, oldest first, each with its changes since the previous one."""
    grouped: dict[NightKey, list[runformat.Run]] = {}
    for doc in docs:
        grouped.setdefault(_night_key(doc), []).append(doc)
    found = sorted(
        (
            Night(
                machine=mine[0].machine.name,
                run_id=key[0],
                started_at=min(d.started_at for d in mine),
                harness=key[1],
                loadgen=key[2],
                settings=key[3],
                tuned=_tuned(mine),
            )
            for key, mine in grouped.items()
        ),
        key=Night.key,
    )
    nights: list[Night] = []
    for night in found:
        changes = changes_between(nights[-1], night) if nights else ()
        nights.append(replace(night, changes=changes))
    return {(n.run_id, n.harness, n.loadgen, n.settings): n for n in nights}


LineKey = tuple[int, str, str, str | None]
"""A series on one machine: headline index, implementation, configuration, version."""


def _chain(points: Sequence[HistoryPoint]) -> tuple[HistoryPoint, ...]:
    """``points`` oldest first, each with its previous point's night and what changed."""
    ordered = sorted(points, key=lambda p: p.night.key())
    out: list[HistoryPoint] = []
    for point in ordered:
        if out:
            since = out[-1].night
            point = replace(point, since=since, changes=changes_between(since, point.night))
        out.append(point)
    return tuple(out)


def history_of(docs: Sequence[runformat.Run]) -> History:
    """The history of every headline figure in ``docs`` (the whole store,
    :attr:`wsbench.results.store.Store.runs`): every night of every machine, and one series per
    (machine, headline, implementation, configuration, version) that has a figure in at
    least one night, with one point per night (a second document of the same series in
    the same night, e.g. under another Python, replaces the first in ``docs``' order)."""
    all_nights: list[Night] = []
    all_series: list[Series] = []
    for machine in sorted({d.machine.name for d in docs}):
        mine = [d for d in docs if d.machine.name == machine]
        nights = _nights(mine)
        all_nights += nights.values()
        found: dict[LineKey, dict[NightKey, HistoryPoint]] = {}
        for doc in mine:
            key = _night_key(doc)
            impl = doc.impl
            for index, headline in enumerate(HEADLINES):
                bench = next((b for b in doc.benchmarks if _matches(headline, b)), None)
                cpus = len(doc.settings.loadgen_cpus)
                point = _point(headline, bench, nights[key], cpus) if bench else None
                if point is not None:
                    line = (index, impl.name, impl.config, impl.version)
                    found.setdefault(line, {})[key] = point

        def order(line: LineKey) -> tuple[object, ...]:
            index, impl_name, config, version = line
            return (index, impl_name, config, natural_key(version or ""))

        for line in sorted(found, key=order):
            index, impl_name, config, version = line
            all_series.append(
                Series(
                    machine=machine,
                    headline=HEADLINES[index],
                    impl=impl_name,
                    config=config,
                    version=version,
                    points=_chain(list(found[line].values())),
                )
            )
    return History(tuple(all_nights), tuple(all_series))


@dataclass(frozen=True)
class ChartLine:
    """One series as a chart draws it.

    Attributes:
        series: the series.
        label: the legend's text: ``"<configuration> <version>"``, or the version alone
            when the chart has one configuration.
        config_index: the configuration's place in ``meta.toml`` (its line colour).
        version_index: the version's place among the configuration's charted versions,
            oldest first (its marker).
    """

    series: Series
    label: str
    config_index: int
    version_index: int


@dataclass(frozen=True)
class HistoryChart:
    """One headline figure of one framework on one machine, night by night.

    Attributes:
        machine: the machine's name.
        headline: the figure.
        nights: the x-axis: every night in which any of the framework's series on this
            machine has a point (of any headline, so the framework's charts share it),
            oldest first.
        changes: per night of ``nights``, what differs from the night before it on this
            axis (:func:`changes_between`; empty for the first): the chart's markers.
        lines: one per (configuration, version) with a point of this figure, the
            configurations in ``meta.toml`` order, each one's versions oldest first.
    """

    machine: str
    headline: Headline
    nights: tuple[Night, ...]
    changes: tuple[tuple[ChangeKind, ...], ...]
    lines: tuple[ChartLine, ...]

    @property
    def untuned(self) -> list[Night]:
        """The nights whose tuning check said the machine was not tuned."""
        return [n for n in self.nights if n.tuned is False]


def _version_order(framework: Framework, version: str | None) -> tuple[int, object]:
    listed = [v.version for v in framework.versions]
    if version in listed:
        return (listed.index(version), ())
    return (len(listed), natural_key(version or ""))


def history_chart(
    framework: Framework, history: History, machine: str, headline: Headline
) -> HistoryChart:
    """``headline`` of ``framework`` on ``machine``, night by night (see
    :class:`HistoryChart`); versions ordered as in ``meta.toml``, unlisted ones after."""
    mine = history.of(framework.name, machine)
    by_key = {p.night.key(): p.night for s in mine for p in s.points}
    nights = tuple(by_key[k] for k in sorted(by_key))
    changes = tuple(
        changes_between(nights[i - 1], night) if i else () for i, night in enumerate(nights)
    )
    ids = [c.id for c in framework.configs]
    charted = [s for s in mine if s.headline.slug == headline.slug]
    configs = sorted(
        {s.config for s in charted},
        key=lambda c: (ids.index(c), "") if c in ids else (len(ids), c),
    )
    several = len(configs) > 1
    lines = []
    for config_index, config in enumerate(configs):
        versions = sorted(
            (s for s in charted if s.config == config),
            key=lambda s: _version_order(framework, s.version),
        )
        for version_index, series in enumerate(versions):
            version = series.version or ""
            label = f"{config} {version}".strip() if several else version or config
            lines.append(ChartLine(series, label, config_index, version_index))
    return HistoryChart(machine, headline, nights, changes, tuple(lines))


def history_chart_data(
    c: HistoryChart, labels: Sequence[str], title: str, facets: Mapping[str, Mapping[str, object]]
) -> dict[str, object]:
    """``c`` as plain data in the format of :func:`wsbench.site.sweeps.chart_data` (what the
    site's interactive charts draw): the nights as the x-axis's values (``labels``, one per
    night of ``c.nights``, oldest first), one series per line, each with the facets of its
    configuration (``facets``: ``{configuration id: {"socketio", "reference", "server",
    "event_loop"}}``); a point's ``at`` names its night and ``run_id`` its run."""
    where = {night.run_id: label for night, label in zip(c.nights, labels, strict=True)}
    h = c.headline
    series: list[dict[str, object]] = []
    for line in c.lines:
        s = line.series
        series.append(
            {
                "label": line.label,
                "configuration": s.config,
                "version": s.version,
                "socketio": False,
                "reference": False,
                "server": "",
                "event_loop": "",
                **facets.get(s.config, {}),
                "points": [
                    point_data(
                        where.get(p.night.run_id, p.night.date),
                        f"run {p.night.run_id} ({p.night.date})",
                        p.value,
                        p.interval,
                        unstable=p.unstable,
                        client_bound=p.client_bound,
                        run_id=p.night.run_id,
                    )
                    for p in s.points
                ],
            }
        )
    figure = (h.metric.name, h.unit, h.higher_is_better)
    return lines_data(title, figure, ("night", "run (night)", labels), series)
