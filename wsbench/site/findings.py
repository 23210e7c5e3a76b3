"""What the results say, computed for the Findings page from the figures the leaderboards
and framework pages show (per machine, the current comparison group:
:mod:`wsbench.site.results`).

Every verdict is :func:`wsbench.results.stats.compare` on messages/s samples grouped by server
process (Welch's t test over the processes, p < :data:`wsbench.results.stats.ALPHA`, and a
change of at least :data:`wsbench.results.stats.MIN_EFFECT`; at least
:data:`wsbench.results.stats.MIN_PROCESSES` processes a side), with the test's interval of the
ratio; nothing here adds a statistic. Four kinds of findings:

- :class:`Contest`: per machine, scenario, parameter set and protocol, the fastest
  configuration, its runner-up and which configurations are tied with it (the reference
  is never ranked; it is quoted for scale);
- :class:`ReleaseChange`: the significant changes between consecutive releases of a
  configuration, as the framework pages chart them (:mod:`wsbench.site.changes`);
- :class:`Pairing`: a Socket.IO configuration and a plain WebSocket configuration on the
  same server build, WebSocket backend and event loop (read from the run documents and the
  implementations' metadata), compared per scenario and parameter set; of the WebSocket
  configurations on that stack, the thinnest app is the Socket.IO configuration's baseline
  (:func:`thinness`: no framework in between), which the home page's cost of Socket.IO
  uses;
- :class:`Lineup`: configurations that differ in one layer only, ranked per scenario and
  parameter set: one app at one version served by several servers (the ASGI servers under
  the same Starlette app), and several frameworks on one server build and event loop (the
  cost of a framework layer, e.g. FastAPI over Starlette on the same uvicorn);
- :class:`OutlierFinding`: a configuration far below its peers at a set
  (:mod:`wsbench.results.outliers`: the other configurations of the same app), with its
  newest CPU profile there when the profile store has one;
- failed rows, and rows flagged client-bound or unstable.

Contests, pairings and flags cover the scenarios whose leaderboards rank by messages/s
(:func:`by_messages`); the failures cover every scenario.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from wsbench.impls import ImplError
from wsbench.results import outliers as outlier_rule
from wsbench.results.env_diff import distribution_name
from wsbench.results.outliers import Outlier
from wsbench.results.profile_diff import Located, find_profile
from wsbench.results.runformat import Run
from wsbench.results.stats import Comparison
from wsbench.scenarios import SCENARIOS
from wsbench.site.changes import Change, compare_samples
from wsbench.site.framework_pages import chart_machine, framework_machines
from wsbench.site.frameworks import SOCKETIO, Framework
from wsbench.site.headline import HEADLINES, Headline, Line, chart
from wsbench.site.results import EnvRun, Results, by_environment, natural_key
from wsbench.site.rows import MESSAGES, Params, Row, headline_of


@dataclass(frozen=True)
class Entry:
    """One configuration (an environment's row) in a :class:`Contest`.

    Attributes:
        run: the environment (configuration and version) and its document.
        row: its row of the contest's scenario and parameter set (ok: it has figures).
        versus_fastest: :func:`wsbench.results.stats.compare` with this row's messages/s samples
            as base and the fastest's as head (``head_over_base`` is fastest / this row);
            None for the fastest itself.
    """

    run: EnvRun
    row: Row
    versus_fastest: Comparison | None = None


@dataclass(frozen=True)
class Contest:
    """Which configuration is fastest at one scenario and parameter set on one machine,
    among the servers of one protocol (Socket.IO servers are compared among themselves).

    Attributes:
        machine: the machine's name.
        scenario: ``"echo"`` or ``"stream"``.
        params: the parameter set.
        protocol: ``"websocket"`` or ``"socketio"``.
        entries: every non-reference row with a figure, fastest first (highest median
            messages/s; equal medians by name and version).
        failed: the non-reference rows without a figure (they are listed as failures).
        reference: the reference server's row of this protocol, scenario and parameter set
            (with a figure), or None.
    """

    machine: str
    scenario: str
    params: Params
    protocol: str
    entries: tuple[Entry, ...]
    failed: tuple[tuple[EnvRun, Row], ...] = ()
    reference: tuple[EnvRun, Row] | None = None

    @property
    def fastest(self) -> Entry | None:
        """The configuration with the highest median, None when every one failed."""
        return self.entries[0] if self.entries else None

    @property
    def runner_up(self) -> Entry | None:
        """The second highest median, None when fewer than two have a figure."""
        return self.entries[1] if len(self.entries) > 1 else None

    @property
    def tied(self) -> tuple[Entry, ...]:
        """The configurations the comparison does not tell from the fastest (not
        significantly slower, or too few samples to tell), in order; empty when the fastest
        is significantly faster than every other."""
        return tuple(
            e for e in self.entries[1:] if e.versus_fastest and not e.versus_fastest.significant
        )

    @property
    def runs(self) -> list[EnvRun]:
        """The environments the contest's figures come from: the fastest, the runner-up,
        the tied ones and the reference."""
        shown = [e.run for e in self.entries[:2]] + [e.run for e in self.tied]
        if self.reference:
            shown.append(self.reference[0])
        return list({id(r): r for r in shown}.values())


@dataclass(frozen=True)
class ReleaseChange:
    """A significant change of a headline figure between consecutive releases of one
    configuration (what the framework page's chart marks).

    Attributes:
        machine: the machine's name.
        framework: the framework.
        line: the configuration's line of the chart (``config``, ``label``).
        headline: the figure.
        change: the versions and the comparison (``head_over_base``: newer / older, in the
            figure's unit).
        base_run: the run id the older version's figure comes from.
        head_run: the run id the newer version's figure comes from.
        chart_machine: the machine's name when the framework page has charts per machine
            (:func:`wsbench.site.framework_pages.chart_machine`), else None.
    """

    machine: str
    framework: Framework
    line: Line
    headline: Headline
    change: Change
    base_run: str
    head_run: str
    chart_machine: str | None = None


@dataclass(frozen=True)
class ServerBuild:
    """Which server build a configuration runs on: what "the same server" means when
    pairing a Socket.IO configuration with a WebSocket one.

    Attributes:
        server: the server's name as the run document records it (e.g. ``"uvicorn"``).
        version: the server's version when known: the pin of the server's distribution in
            the implementation's version matrix at the measured version
            (``uvicorn==0.54.0``) or in the configuration's own pins (Flask-SocketIO's
            ``eventlet==0.41.3``), or the measured version when the server is the
            implementation's own package; None otherwise.
        owner: when the version is unknown, the implementation (name and version) the
            server is part of, e.g. ``"native 0.1.0"``: only the same implementation at the
            same version runs the same server. None when ``version`` is known.
    """

    server: str
    version: str | None
    owner: str | None = None

    @property
    def text(self) -> str:
        """In words, e.g. ``"uvicorn 0.54.0"`` or ``"wsbench-loadgen serve (native 0.1.0)"``."""
        if self.version:
            return f"{self.server} {self.version}"
        return f"{self.server} ({self.owner})" if self.owner else self.server


def server_build(run: EnvRun, frameworks: Mapping[str, Framework]) -> ServerBuild:
    """The server build ``run`` was measured on (see :class:`ServerBuild`), from its
    document (server) and its implementation's ``meta.toml`` (the version matrix's pins,
    then the configuration's)."""
    impl = run.impl
    framework = frameworks.get(impl.name)
    if framework is not None and impl.version is not None:
        listed = next((v for v in framework.impl.versions if v.version == impl.version), None)
        pinned = listed.requires.get(impl.server) if listed else None
        if pinned is None:
            try:
                pinned = framework.impl.config(impl.config).requires.get(impl.server)
            except ImplError:  # a configuration the metadata no longer lists
                pinned = None
        if pinned:
            return ServerBuild(impl.server, pinned)
    if impl.package and impl.server == impl.package and impl.version:
        return ServerBuild(impl.server, impl.version)
    return ServerBuild(impl.server, None, f"{impl.name} {impl.version or ''}".strip())


def ws_backend(run: EnvRun, frameworks: Mapping[str, Framework]) -> str:
    """The WebSocket backend ``run`` was measured on: the one its document names, else the
    one its version names in the metadata (:meth:`wsbench.impls.Impl.ws_backend`: the
    server's default that the implementation runs, e.g. python-socketio's
    ``websockets-sansio`` on uvicorn 0.54); "" when neither names one (the server's only
    WebSocket implementation, or a default the metadata does not state)."""
    if run.impl.ws_backend:
        return run.impl.ws_backend
    framework = frameworks.get(run.impl.name)
    if framework is None:
        return ""
    try:
        config = framework.impl.config(run.impl.config)
    except ImplError:  # a configuration the metadata no longer lists
        return ""
    if config.server != run.impl.server:
        return ""
    return framework.impl.ws_backend(config, run.impl.version)


PairKey = tuple[str, ServerBuild, str, str]
"""What a Socket.IO configuration and its WebSocket counterpart share: machine, server
build, WebSocket backend (:func:`ws_backend`) and event loop."""


def pair_key(run: EnvRun, frameworks: Mapping[str, Framework]) -> PairKey:
    """``run``'s :data:`PairKey`."""
    build = server_build(run, frameworks)
    return (run.machine, build, ws_backend(run, frameworks), run.impl.event_loop)


def _built_upon(frameworks: Mapping[str, Framework]) -> dict[str, set[str]]:
    """Per distribution, the implementations whose metadata pins it (a version's or a
    configuration's ``requires``): those built on it, e.g. ``{"starlette": {"fastapi"}}``."""
    found: dict[str, set[str]] = {}
    for name, framework in frameworks.items():
        pins = [p for v in framework.impl.versions for p in v.requires]
        pins += [p for c in framework.impl.configs for p in c.requires]
        for pin in pins:
            found.setdefault(distribution_name(pin), set()).add(name)
    return found


def thinness(
    run: EnvRun, frameworks: Mapping[str, Framework]
) -> tuple[int, int, tuple[tuple[int, int | str], ...]]:
    """How thin the plain WebSocket app of ``run`` is, as a sort key (thinnest first), from
    the metadata alone: first what sits between the server and the handlers, the server's
    own WebSocket API when the server is the implementation itself (websockets, aiohttp),
    then a toolkit other measured implementations build on (its package is pinned in
    another's metadata: Starlette, which FastAPI pins), then the rest (frameworks such as
    BlackSheep or Litestar); then the fewest pins installed beside it at its version (the
    least code around it); then its name.

    A Socket.IO configuration's baseline is the thinnest of the plain WebSocket
    configurations on its stack (:data:`PairKey`): Socket.IO's cost is what it adds to the
    plainest app the server runs, not to a framework's extra layer nor a faster backend."""
    impl = run.impl
    package = distribution_name(impl.package or impl.name)
    if impl.server in (impl.name, impl.package):
        layer = 0
    elif _built_upon(frameworks).get(package, set()) - {impl.name}:
        layer = 1
    else:
        layer = 2
    framework = frameworks.get(impl.name)
    listed = None
    if framework is not None:
        listed = next((v for v in framework.impl.versions if v.version == impl.version), None)
    pins = len(listed.requires) if listed else 0
    return (layer, pins, natural_key(run.label))


def unshared(key: PairKey, stacks: Iterable[PairKey]) -> str:
    """Why a Socket.IO configuration of :data:`PairKey` ``key`` has no plain WebSocket
    counterpart: the narrowest part of its stack that no plain WebSocket configuration of
    ``stacks`` (their keys, every machine's) runs on, in words: the server (``"eventlet"``:
    none runs on it at all), the server build (``"uvicorn 0.30.6"``), or the whole stack
    (``"uvicorn 0.54.0 with WebSocket backend wsproto and event loop uvloop"``)."""
    machine, build, backend, loop = key
    mine = [k for k in stacks if k[0] == machine]
    if not any(k[1].server == build.server for k in mine):
        return build.server
    if not any(k[1] == build for k in mine):
        return build.text
    return f"{build.text} with WebSocket backend {backend or 'unnamed'} and event loop {loop}"


@dataclass(frozen=True)
class PairFigure:
    """One scenario and parameter set measured by both sides of a :class:`Pairing`.

    Attributes:
        scenario: ``"echo"`` or ``"stream"``.
        params: the parameter set.
        socketio: the Socket.IO configuration's row.
        websocket: the WebSocket configuration's row.
        comparison: :func:`wsbench.results.stats.compare` of messages/s with the WebSocket row as
            base and the Socket.IO row as head (``head_over_base`` = Socket.IO / WebSocket);
            None when either row failed.
        runs: the shown documents the two rows come from (Socket.IO's, WebSocket's).
    """

    scenario: str
    params: Params
    socketio: Row
    websocket: Row
    comparison: Comparison | None
    runs: tuple[EnvRun, EnvRun]


@dataclass(frozen=True)
class Pairing:
    """A Socket.IO configuration and a WebSocket configuration sharing their
    :data:`PairKey`: the difference between their figures is the cost of Socket.IO.

    Attributes:
        socketio: the Socket.IO environment (its first EnvRun in the results' order: an
            environment's figures may come from several, each :class:`PairFigure` names
            its own).
        websocket: the WebSocket environment (likewise).
        server: the server build both run on.
        figures: every scenario and parameter set both measured, in leaderboard order.
        baseline: the WebSocket configuration is the Socket.IO configuration's baseline:
            the thinnest of those on its stack (:func:`thinness`), one per Socket.IO
            configuration.
    """

    socketio: EnvRun
    websocket: EnvRun
    server: ServerBuild
    figures: tuple[PairFigure, ...]
    baseline: bool = False

    @property
    def machine(self) -> str:
        """The machine's name."""
        return self.socketio.machine


LINEUP_KINDS = ("servers", "frameworks")
"""What a :class:`Lineup`'s configurations differ in: the server under one app at one
version, or the framework on one server build and event loop."""


@dataclass(frozen=True)
class Lineup:
    """Plain WebSocket configurations that differ in one layer only, with a
    :class:`Contest` among them per scenario and parameter set they measured (at least two
    of them).

    Attributes:
        machine: the machine's name.
        kind: ``"servers"``: one implementation at one version on several servers (and
            their backends and loops); ``"frameworks"``: several implementations on one
            server build (:class:`ServerBuild`) and event loop (:data:`LINEUP_KINDS`).
        shared: what the configurations share, in words (e.g. ``"Starlette 1.10.0"``,
            ``"uvicorn 0.54.0, asyncio"``).
        runs: the configurations' shown documents, by label (an environment whose figures
            come from several runs has several, :func:`wsbench.site.results.by_environment`).
        contests: per scenario and parameter set, leaderboard order.
    """

    machine: str
    kind: str
    shared: str
    runs: tuple[EnvRun, ...]
    contests: tuple[Contest, ...]


@dataclass(frozen=True)
class OutlierFinding:
    """A configuration far below its peers at one set (:mod:`wsbench.results.outliers`).

    Attributes:
        run: its shown document.
        row: its row at the set.
        outlier: the rule's verdict: its figure, its peers' and their median.
        peers: the peers' shown documents, in the outlier's order of peers.
        profile: its newest CPU profile at the set on the same machine, of the same
            version (:func:`wsbench.results.profile_diff.find_profile`), or None.
    """

    run: EnvRun
    row: Row
    outlier: Outlier
    peers: tuple[EnvRun, ...]
    profile: Located | None = None


@dataclass(frozen=True)
class Findings:
    """Everything the Findings page states.

    Attributes:
        machines: the machines with shown results, sorted.
        contests: per machine, scenario, parameter set (leaderboard order) and protocol
            (WebSocket first).
        changes: per machine, framework (index order), figure and configuration.
        pairings: per machine, Socket.IO configuration and WebSocket configuration.
        lineups: per machine, kind (servers first) and what the configurations share.
        unpaired: the Socket.IO environments without a WebSocket counterpart (the first
            EnvRun of each), with their key.
        stacks: the :data:`PairKey` of every plain WebSocket environment (the reference's
            included), in the results' order: what :func:`unshared` looks among.
        failures: every shown row without a figure (reference included).
        flagged: every shown row with a figure that is client-bound or unstable
            (reference included).
        outliers: per machine, the configurations far below their peers
            (:func:`outliers_of`).
    """

    machines: tuple[str, ...] = ()
    contests: tuple[Contest, ...] = ()
    changes: tuple[ReleaseChange, ...] = ()
    pairings: tuple[Pairing, ...] = ()
    lineups: tuple[Lineup, ...] = ()
    unpaired: tuple[tuple[EnvRun, PairKey], ...] = ()
    stacks: tuple[PairKey, ...] = ()
    failures: tuple[tuple[EnvRun, Row], ...] = ()
    flagged: tuple[tuple[EnvRun, Row], ...] = ()
    outliers: tuple[OutlierFinding, ...] = ()


def _samples(row: Row) -> list[list[float]]:
    """``row``'s messages/s grouped by server process (what a comparison takes)."""
    return row.groups(MESSAGES)


def by_messages(row: Row) -> bool:
    """``row``'s scenario is ranked by messages/s (:func:`wsbench.site.rows.headline_of`):
    the findings compare its throughput."""
    return headline_of(row.scenario) is MESSAGES


def _comparable(row: Row) -> bool:
    """The row has messages/s samples that :func:`wsbench.results.stats.compare` accepts."""
    values = row.values(MESSAGES)
    return row.ok and bool(values) and min(values) > 0


def _scenario_order(scenario: str) -> tuple[int, str]:
    """Scenarios in :data:`wsbench.scenarios.SCENARIOS` order (the leaderboards'), unknown
    ones last by name."""
    known = list(SCENARIOS)
    return (known.index(scenario), "") if scenario in known else (len(known), scenario)


def _param_key(params: Params) -> tuple[tuple[str, str], ...]:
    return tuple((k, f"{v:020.6f}") for k, v in params)


def contest(
    machine: str,
    scenario: str,
    params: Params,
    protocol: str,
    rows: Sequence[tuple[EnvRun, Row]],
) -> Contest:
    """The :class:`Contest` of ``rows`` (one machine's rows of ``scenario`` at ``params``
    speaking ``protocol``, the reference's included: it is quoted for scale)."""
    ranked = [(run, row) for run, row in rows if not run.impl.reference and _comparable(row)]
    ranked.sort(
        key=lambda item: (
            -(item[1].messages_per_s.value if item[1].messages_per_s else 0.0),
            natural_key(item[0].label),
            natural_key(item[0].impl.version or ""),
        )
    )
    entries: list[Entry] = []
    if ranked:
        best_run, best_row = ranked[0]
        best = _samples(best_row)
        entries.append(Entry(best_run, best_row))
        for run, row in ranked[1:]:
            versus = compare_samples(_samples(row), best, higher_is_better=True)
            entries.append(Entry(run, row, versus))
    failed = tuple(
        (run, row) for run, row in rows if not run.impl.reference and not _comparable(row)
    )
    reference = next(((run, row) for run, row in rows if run.impl.reference and row.ok), None)
    return Contest(machine, scenario, params, protocol, tuple(entries), failed, reference)


def _grouped(
    runs: Sequence[EnvRun],
) -> dict[tuple[str, Params, str], list[tuple[EnvRun, Row]]]:
    """``runs``' messages/s rows by scenario, parameter set and protocol, in leaderboard
    order (scenarios, then parameter sets, WebSocket before Socket.IO)."""
    groups: dict[tuple[str, Params, str], list[tuple[EnvRun, Row]]] = {}
    for run in runs:
        for row in filter(by_messages, run.rows):
            groups.setdefault((row.scenario, row.params, run.impl.protocol), []).append((run, row))
    order = sorted(
        groups, key=lambda k: (_scenario_order(k[0]), _param_key(k[1]), k[2] == SOCKETIO, k[2])
    )
    return {key: groups[key] for key in order}


def contests(results: Results) -> list[Contest]:
    """Every :class:`Contest` of ``results``: per machine, scenario, parameter set and
    protocol that has rows."""
    out = []
    for machine in results.machines:
        mine = [run for run in results.runs if run.machine == machine]
        for (scenario, params, protocol), rows in _grouped(mine).items():
            if any(not run.impl.reference for run, _ in rows):
                out.append(contest(machine, scenario, params, protocol, rows))
    return out


def lineups(results: Results, frameworks: Mapping[str, Framework]) -> list[Lineup]:
    """Every :class:`Lineup` of ``results``' plain WebSocket configurations (the reference
    excluded): per machine, the implementations measured at one version on two servers or
    more, then the server builds and event loops that run two implementations or more.
    Each contest holds the parameter sets at least two of the lineup's configurations
    measured."""
    out = []
    for machine in results.machines:
        runs = [
            r
            for r in results.runs
            if r.machine == machine and not r.impl.reference and r.impl.protocol != SOCKETIO
        ]
        groups: dict[tuple[str, str], list[EnvRun]] = {}
        for run in runs:
            app = f"{run.impl.display_name} {run.impl.version or ''}".strip()
            groups.setdefault(("servers", app), []).append(run)
            build = server_build(run, frameworks)
            groups.setdefault(("frameworks", f"{build.text}, {run.impl.event_loop}"), []).append(
                run
            )
        for (kind, shared), members in sorted(
            groups.items(), key=lambda g: (LINEUP_KINDS.index(g[0][0]), natural_key(g[0][1]))
        ):
            layer = {r.impl.server if kind == "servers" else r.impl.name for r in members}
            if len(layer) < 2:
                continue
            members.sort(key=lambda r: natural_key(r.label))
            found = [
                contest(machine, scenario, params, protocol, rows)
                for (scenario, params, protocol), rows in _grouped(members).items()
                if len(rows) >= 2
            ]
            if found:
                out.append(Lineup(machine, kind, shared, tuple(members), tuple(found)))
    return out


def release_changes(results: Results, frameworks: Sequence[Framework]) -> list[ReleaseChange]:
    """Every significant change between consecutive releases that the framework pages
    chart (:func:`wsbench.site.headline.chart` of each headline figure, per machine), in
    framework, machine, figure and configuration order. Implementations without a package
    (the reference) have no version axis and no changes."""
    out = []
    for framework in frameworks:
        if not framework.package:
            continue
        machines = framework_machines(framework, results)
        for machine in machines:
            mine = [r for r in results.runs if r.impl.name == framework.name]
            mine = [r for r in mine if r.machine == machine]
            for headline in HEADLINES:
                for line, change in chart(framework, mine, headline).changes:
                    points = {p.version: p.run_id for p in line.points}
                    out.append(
                        ReleaseChange(
                            machine,
                            framework,
                            line,
                            headline,
                            change,
                            points[change.base],
                            points[change.head],
                            chart_machine(machines, machine),
                        )
                    )
    return out


def _figures(socketio: Sequence[EnvRun], websocket: Sequence[EnvRun]) -> tuple[PairFigure, ...]:
    """The figures both environments measured (each given as its EnvRuns), in leaderboard
    order (scenarios, then parameter sets)."""
    theirs = {(row.scenario, row.params): (run, row) for run in websocket for row in run.rows}
    figures = []
    for mine in socketio:
        for row in filter(by_messages, mine.rows):
            found = theirs.get((row.scenario, row.params))
            if found is None:
                continue
            run, other = found
            comparison = None
            if _comparable(row) and _comparable(other):
                comparison = compare_samples(_samples(other), _samples(row), higher_is_better=True)
            figures.append(
                PairFigure(row.scenario, row.params, row, other, comparison, (mine, run))
            )
    figures.sort(key=lambda f: (_scenario_order(f.scenario), _param_key(f.params)))
    return tuple(figures)


def pairings(
    results: Results, frameworks: Mapping[str, Framework]
) -> tuple[list[Pairing], list[tuple[EnvRun, PairKey]]]:
    """The Socket.IO/WebSocket pairs of ``results`` (see :class:`Pairing`): every Socket.IO
    environment with every WebSocket environment of the same :data:`PairKey` that measured
    a scenario and parameter set it measured too (an environment's figures from all its
    EnvRuns, :func:`wsbench.site.results.by_environment`); the thinnest WebSocket app of
    each Socket.IO environment's pairs (:func:`thinness`) is its baseline.

    Returns:
        The pairings, and the Socket.IO environments without a counterpart (with their key).
    """
    environments = by_environment(results.runs)
    websocket: dict[PairKey, list[list[EnvRun]]] = {}
    for env in environments:
        if env[0].impl.protocol != SOCKETIO:
            websocket.setdefault(pair_key(env[0], frameworks), []).append(env)
    found: list[Pairing] = []
    unpaired: list[tuple[EnvRun, PairKey]] = []
    for env in environments:
        run = env[0]
        if run.impl.protocol != SOCKETIO:
            continue
        key = pair_key(run, frameworks)
        pairs = [
            Pairing(run, other[0], key[1], figures)
            for other in websocket.get(key, [])
            if (figures := _figures(env, other))
        ]
        if pairs:
            thinnest = min(pairs, key=lambda p: thinness(p.websocket, frameworks))
            pairs = [replace(p, baseline=p is thinnest) for p in pairs]
        found += pairs
        if not pairs:
            unpaired.append((run, key))
    return found, unpaired


def outliers_of(results: Results, profiles: Sequence[Run] = ()) -> list[OutlierFinding]:
    """The outliers of ``results`` (:func:`wsbench.results.outliers.outliers`) among the
    messages/s rows of each implementation's newest version shown on each machine (the
    older versions of the matrix have their own pages), each with its newest profile at
    the set among ``profiles`` (the profile store's documents), in the results' order."""
    newest: dict[tuple[str, str], str] = {}
    for run in results.runs:
        key = (run.machine, run.impl.name)
        version = run.impl.version or ""
        if natural_key(version) > natural_key(newest.get(key, "")):
            newest[key] = version
    figures: list[outlier_rule.Figure] = []
    shown: dict[outlier_rule.Figure, tuple[EnvRun, Row]] = {}
    for run in results.runs:
        if (run.impl.version or "") != newest.get((run.machine, run.impl.name), ""):
            continue
        for row in run.rows:
            if not (row.ok and by_messages(row) and row.messages_per_s):
                continue
            figure = outlier_rule.Figure(
                machine=run.machine, impl=run.impl.name, version=run.impl.version,
                config=run.impl.config, protocol=run.impl.protocol,
                reference=run.impl.reference, scenario=row.scenario,
                params=tuple(sorted(row.params)), messages_per_s=row.messages_per_s,
            )  # fmt: skip
            figures.append(figure)
            shown[figure] = (run, row)
    out = []
    for found in outlier_rule.outliers(figures):
        f = found.figure
        run, row = shown[f]
        profile = find_profile(
            profiles, impl=f.impl, config=f.config, scenario=f.scenario, params=dict(f.params),
            version=f.version, machine=f.machine,
        )  # fmt: skip
        peers = tuple(shown[p][0] for p in found.peers)
        out.append(OutlierFinding(run, row, found, peers, profile))
    return out


def findings_of(
    results: Results, frameworks: Sequence[Framework], profiles: Sequence[Run] = ()
) -> Findings:
    """Every finding of ``results`` (the current comparison group of every machine; see
    :class:`Findings`), with ``frameworks``' metadata (server pins, version order) and the
    profile store's documents ``profiles`` (for the outliers' profiles)."""
    by_name = {f.name: f for f in frameworks}
    found, unpaired = pairings(results, by_name)
    shown = [(run, row) for run in results.runs for row in run.rows]
    stacks = [
        pair_key(env[0], by_name)
        for env in by_environment(results.runs)
        if env[0].impl.protocol != SOCKETIO
    ]
    return Findings(
        machines=tuple(results.machines),
        contests=tuple(contests(results)),
        changes=tuple(release_changes(results, frameworks)),
        pairings=tuple(found),
        lineups=tuple(lineups(results, by_name)),
        unpaired=tuple(unpaired),
        stacks=tuple(stacks),
        failures=tuple((run, row) for run, row in shown if not row.ok),
        flagged=tuple(
            (run, row)
            for run, row in shown
            if row.ok and by_messages(row) and (row.client_bound or row.unstable)
        ),
        outliers=tuple(outliers_of(results, profiles)),
    )
