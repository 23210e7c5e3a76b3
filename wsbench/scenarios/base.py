"""What a scenario is (:class:`ScenarioSpec`), the settings it drives the load generator
with (:class:`Settings`), and the pieces several scenarios share: the load generator's
modes (:class:`EchoMode`, :class:`StreamMode`, :class:`ConnectMode`, :class:`HoldMode`,
:class:`FanoutMode`), figure lists and leaderboard columns.

A scenario module (``wsbench/scenarios/<name>.py``) holds one ``SPEC``: its parameters
and grids, how it drives the load generator (:meth:`ScenarioSpec.loadgen_options`) and
checks its report (:meth:`ScenarioSpec.check`), its figures (names of
:data:`wsbench.results.metrics.METRICS`, the one it ranks by first), and its leaderboard's
columns, notes and sentences. The registry (:mod:`wsbench.scenarios`) finds the modules;
everything else (the measurement, the asv benchmarks, the metrics, the site) loops over
it. This module imports nothing else of wsbench but the load generator report's contract
(:mod:`wsbench.loadreport`): the scenarios are the bottom layer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Literal, Protocol

from wsbench.deployment import (
    PROFILE_PARAMS,
    TUNED,
    Profile,
    in_profile,
    measured_profiles,
)
from wsbench.loadreport import Report

Scenario = str
"""A scenario's name, one of :data:`wsbench.scenarios.SCENARIOS`."""
Params = dict[str, int]
"""One parameter set, e.g. ``{"size_bytes": 16, "in_flight": 64}``."""
ParamSets = tuple[tuple[tuple[str, int], ...], ...]
"""Parameter sets in a hashable form (a frozen dataclass field): tuples of name-value
pairs."""
Grid = Literal["default", "full"]

CORPUS_PARAM = "corpus"
"""The parameter of the sets whose messages are the JSON corpus's (1; left out when 0)."""
CORPUS_SIZE = 1024
"""The size of every message of the JSON corpus, bytes (``loadgen/corpus/json-1024.jsonl``,
impls/PROTOCOL.md "The JSON corpus"): a corpus set's ``size_bytes``."""

SWITCHES = (CORPUS_PARAM, *PROFILE_PARAMS)
"""The parameters that are 0 or 1 and left out of a parameter set at 0, so that a set
without them reads, and keys, as it did before they existed: the JSON corpus and the
deployment profile's (:mod:`wsbench.deployment`)."""


def canonical(params: Params) -> Params:
    """``params`` with its :data:`SWITCHES` at 0 left out, e.g. ``{"size_bytes": 16,
    "deflate": 0}`` -> ``{"size_bytes": 16}``: how a grid names the set."""
    return {k: v for k, v in params.items() if not (k in SWITCHES and v == 0)}


SOURCE_ADDRESSES = 16
"""Loopback source addresses (127.0.0.1-16) the load generator spreads the connections of
the many-connection scenarios over (``--source-addresses``): one address offers only the
ephemeral port range (28,232 ports here), and every connection the client closes first
keeps its port in TIME_WAIT for 60 s, so repeated windows of 10,000 connections, or a
connect storm, would run out of ports from one address."""
BROADCAST_IN_FLIGHT = 16
"""Without a fixed rate (``rate`` 0), the fan-out publisher keeps at most this many
messages not yet delivered to every subscriber (the load generator's ``--in-flight``)."""
FANOUT_MAX_CLIENT_MESSAGES_PER_S = 30_000
"""The most messages per second a fixed-rate fan-out set asks of the load generator's one
core (subscribers x rate deliveries, and for market as many orders sent and acknowledgements
read): half of the 60,500 deliveries/s it reached at 100 % CPU against the native reference
(one read system call per delivery per socket, four fifths of it in the kernel's TCP), so
that the client's own queueing stays out of the latency it measures. Sets above it (e.g.
1,000 subscribers at 100 messages/s) are not in the grids; ``rate`` 0 (as fast as
delivered) is self-limiting and kept."""
ERRORS_NOTE = (
    "*Errors*: connections that failed (by kind: refused, handshake failed, closed early, "
    "timed out...) and messages lost, summed over every usable window of the row: they are "
    "figures here, not failures; a window fails only when no connection succeeds"
)
"""The leaderboard note of the scenarios that count errors as figures."""


class Settings(Protocol):
    """What one measurement asks of a scenario (:class:`wsbench.instrument.measure.MeasureConfig`
    is one): sizes in bytes, times in seconds, rates in messages/s."""

    @property
    def size_bytes(self) -> int: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def connections(self) -> int: ...
    @property
    def workers(self) -> int: ...
    @property
    def subscribers(self) -> int: ...
    @property
    def rate(self) -> float: ...
    @property
    def load_percent(self) -> int: ...
    @property
    def warmup_s(self) -> float: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def count(self) -> int | None: ...
    @property
    def bound_s(self) -> float: ...


@dataclass(frozen=True)
class ColumnSpec:
    """One figure column of a scenario's leaderboard, drawn by :mod:`wsbench.site.render`.

    Attributes:
        header: its header with the unit, e.g. ``"p99 latency (µs)"``.
        figure: the metric it shows (a name of :data:`wsbench.results.metrics.METRICS`), or None
            for a column the site computes itself (``special``).
        fmt: the number format, e.g. ``",.1f"``.
        scale: the unit the figure is divided by (``1e-6``: seconds shown in µs).
        interval: the figure over the server processes with its 95 % interval
            (:func:`wsbench.results.stats.summarize`; else the median over the windows).
        special: the name of a column the site computes (``"errors"``,
            ``"per_connection"``, ``"connections_ok"``, ``"memory_slope"``,
            ``"memory_counts"``, ``"memory_check"``).
    """

    header: str
    figure: str | None = None
    fmt: str = ",.1f"
    scale: float = 1.0
    interval: bool = False
    special: str | None = None


def spread(header: str, figure: str, fmt: str, scale: float = 1.0) -> ColumnSpec:
    """A column of ``figure`` over the server processes with its 95 % interval."""
    return ColumnSpec(header, figure, fmt, scale, interval=True)


def median(header: str, figure: str, fmt: str, scale: float = 1.0) -> ColumnSpec:
    """A column of ``figure``'s median over the windows."""
    return ColumnSpec(header, figure, fmt, scale)


MIB = float(2**20)
KIB = 1024.0
MB = 1e6
MESSAGES_COLUMN = spread("Messages/s", "messages_per_s", ",.0f")
MB_COLUMN = median("MB/s", "bytes_per_s", ",.2f", MB)
CPU_COLUMN = median("Server CPU (%)", "server_cpu_percent", ".1f")
RSS_COLUMN = median("Server RSS (MiB)", "server_rss_bytes", ",.1f", MIB)
P50_COLUMN = spread("p50 latency (µs)", "latency_p50", ",.1f", 1e-6)
P99_COLUMN = spread("p99 latency (µs)", "latency_p99", ",.1f", 1e-6)
P99_9_COLUMN = median("p99.9 latency (µs)", "latency_p99_9", ",.1f", 1e-6)
MAX_LATENCY_COLUMN = median("Max latency (µs)", "latency_max", ",.1f", 1e-6)
ERRORS_COLUMN = ColumnSpec("Errors (all windows)", special="errors")
"""Failed connections by kind and lost messages, summed over the row's usable windows."""
ECHO_COLUMNS = (MESSAGES_COLUMN, MB_COLUMN, P50_COLUMN, P99_COLUMN, CPU_COLUMN, RSS_COLUMN)
ERRORS_AND_SERVER = (ERRORS_COLUMN, CPU_COLUMN, RSS_COLUMN)

WINDOW_FIGURES = ("server_cpu_percent", "server_rss_bytes", "loadgen_cpu_percent")
"""The figures of every scenario with a measurement window the server's CPU is sampled
over."""
MESSAGE_FIGURES = ("messages_per_s", "bytes_per_s")
"""The figures of the scenarios whose windows carry messages."""
ROUND_TRIP_FIGURES = ("latency_p50", "latency_p99", "latency_p99_9")
"""The round-trip latency percentiles."""
CONNECTING_FIGURES = ("connections_per_s", "handshake_p50", "handshake_p99", "errors")
"""The figures of a scenario whose connect phase (or cycles) is measured."""
FANOUT_FIGURES = (
    "offered_per_s", "delivery_p50", "delivery_p99", "delivery_p99_9", "delivery_max",
    "last_delivery_p50", "last_delivery_p99", "published_per_s",
)  # fmt: skip
"""The figures of one publisher and many subscribers (deliveries, not round trips)."""


def param_sets(axes: Mapping[str, tuple[int, ...]], keep: object = None) -> ParamSets:
    """The axes' product (filtered by ``keep``, a predicate on a dict) as hashable tuples."""
    names = list(axes)
    sets = [dict(zip(names, v, strict=True)) for v in product(*axes.values())]
    if callable(keep):
        sets = [p for p in sets if keep(p)]
    return tuple(tuple(p.items()) for p in sets)


@dataclass(frozen=True)
class ScenarioSpec:
    """One scenario.

    Attributes:
        name: its identifier (asv benchmark ``<name>.<Name>``, run documents, the site).
        title: its name on the site, e.g. ``"Concurrent clients"``.
        summary: one sentence saying what is measured.
        mode: the load generator's subcommand (``hold`` for memory).
        endpoint: the path on a plain WebSocket server (``impls/PROTOCOL.md``); Socket.IO
            servers take every scenario on their Socket.IO path.
        axes: each parameter's values in the full grid, in asv ``param_names`` order.
        full: the full grid's parameter sets (a subset of the axes' product).
        default: the default grid's parameter sets (a subset of ``full``).
        position: where tables and pages list it (ascending).
        figures: the names of its figures (:data:`wsbench.results.metrics.METRICS`).
        headline: the figure its leaderboard ranks by (default messages/s).
        columns: its leaderboard's figure columns, the ranking figure first (empty: the
            headline with its interval, server CPU and RSS).
        notes: bullets under its leaderboard's intro (what its own columns mean).
        order_sentence: how its leaderboard is sorted and which way each figure is better
            (None: the site's sentence for a leaderboard ranked by messages/s).
        intro: its leaderboard's first paragraph (None: from the summary, endpoint and
            parameters).
        site_title: its name on the site where that differs from ``title``.
        default_rate: the rate ``./bench measure`` asks for when given none, messages/s.
        slow_subscriber_policy: its tables show each row's slow-subscriber policy.
        text: text frames instead of binary.
        json: the JSON workload (``--json``; the message size is fixed).
        pinned_rate: a fixed offered load whose rate is a parameter (``rate`` messages/s,
            or ``load_percent`` of the capacity measured first in the same server process;
            0 = not that one): the load generator's ``--rate``, latency measured from each
            message's intended send time.
        many_connections: spread connections over :data:`SOURCE_ADDRESSES` addresses, and
            count connection failures and lost messages as figures rather than failing the
            sample (a run fails only when no connection succeeds).
        fixed: values of parameters that are not axes but differ from the defaults
            (16 B, 1 in flight, 1 connection), e.g. the soak run's 100 connections.
        windows_per_process: windows per parameter set in each server process when the
            scenario sets it, whatever the sampling plan says (None: the plan's).
        profiled: the full grid's parameter sets also measured in every other deployment
            profile the runner measures (:func:`wsbench.deployment.measured_profiles`):
            :meth:`grid` adds each in each profile.
    """

    name: Scenario
    title: str
    summary: str
    mode: str
    endpoint: str
    axes: dict[str, tuple[int, ...]]
    full: ParamSets
    default: ParamSets
    position: int
    figures: tuple[str, ...]
    headline: str = "messages_per_s"
    columns: tuple[ColumnSpec, ...] = ()
    notes: tuple[str, ...] = ()
    order_sentence: str | None = None
    intro: str | None = None
    site_title: str | None = None
    default_rate: float = 0.0
    slow_subscriber_policy: bool = False
    text: bool = False
    json: bool = False
    pinned_rate: bool = False
    many_connections: bool = False
    fixed: Mapping[str, int] = field(default_factory=dict)
    windows_per_process: int | None = None
    profiled: ParamSets = ()

    def grid(self, which: Grid = "full", profiles: Sequence[Profile] | None = None) -> list[Params]:
        """The parameter sets of the ``which`` grid, as dicts: the full grid's tuned sets,
        then each of :attr:`profiled` in each other profile of ``profiles``, profile by
        profile (None: :func:`wsbench.deployment.measured_profiles`, which leaves out the
        multi-CPU profiles on a runner without a multi-CPU server set).

        Raises:
            wsbench.cpulist.CpuSetError: ``WSBENCH_MULTI_SERVER_CPUS`` is malformed.
        """
        if which != "full":
            return [dict(p) for p in self.default]
        tuned = [dict(p) for p in self.full]
        measured = measured_profiles() if profiles is None else profiles
        others = [profile for profile in measured if profile is not TUNED]
        return tuned + [in_profile(dict(p), o) for o in others for p in self.profiled]

    def asv_axes(self) -> dict[str, tuple[int, ...]]:
        """asv's ``params`` by name: :attr:`axes`, then 0 and 1 of each switch
        (:data:`SWITCHES`) the full grid sets on this runner: the multi-CPU profiles'
        switches only where it measures them (:func:`wsbench.deployment.measured_profiles`),
        so that a runner without them does not pay for asv skipping their combinations."""
        used = {name for p in self.grid("full") for name in p}
        return {**self.axes, **{name: (0, 1) for name in SWITCHES if name in used}}

    def product(self) -> list[Params]:
        """Every combination of :meth:`asv_axes`' values, as dicts (switches at 0 left out,
        :func:`canonical`)."""
        axes = self.asv_axes()
        return [canonical(dict(zip(axes, v, strict=True))) for v in product(*axes.values())]

    @property
    def windowed(self) -> bool:
        """True when the load generator measures over a window the server's CPU is sampled
        over (every mode but ``hold``)."""
        return True

    def invalid(self, s: Settings) -> str | None:
        """Why ``s`` cannot be run in this scenario (None: it can), beyond the checks every
        scenario shares."""
        if self.pinned_rate and not (s.rate or s.load_percent):
            return f"the {self.name} scenario needs a rate or a load percentage"
        return None

    def loadgen_options(self, s: Settings) -> list[str]:
        """The load generator's options of this scenario's mode for ``s``, after
        ``<mode> --url URL`` (the options every mode shares, count, source addresses,
        frames and protocol, come after them: :meth:`wsbench.instrument.measure.MeasureConfig.
        loadgen_args`)."""
        raise NotImplementedError(self.mode)

    def check(self, report: Report, s: Settings) -> str | None:
        """Why the load generator's ``report`` does not count as a valid measurement of
        ``s`` (None: it does).

        A report is invalid when any message was corrupted, duplicated or out of order, or
        nothing was received; in count mode, when fewer messages came back than were asked
        for (:meth:`check_counts`). In the single-connection scenarios a failed connection
        or a lost message also invalidates it; in the many-connection scenarios
        (:attr:`many_connections`) those are figures (errors by kind), and the report is
        invalid only when no connection succeeded. When nothing was received, the reason
        says so first (a server that never answers loses every message it was sent).
        """
        problem = integrity_problem(report, self.many_connections)
        if problem and report.messages_received:
            return problem
        if self.many_connections and not report.connections_ok:
            return problem or (
                "no connection succeeded: " + (error_counts(report) or "no error was reported")
            )
        if not report.messages_received:
            if s.count is not None:
                silent = "no message was received"
            else:
                silent = (
                    f"no message was received in the {s.duration_s:g} s measurement window "
                    f"(after {s.warmup_s:g} s of warm-up): the server answered more slowly "
                    "than that, or not at all"
                )
            return f"{silent} ({problem})" if problem else silent
        return self.check_counts(report, s)

    def check_counts(self, report: Report, s: Settings) -> str | None:
        """Why a report that received messages does not count (None: it does): this mode's
        own checks, e.g. the exact count in count mode."""
        return None

    def connections_ok(self, report: Report) -> int | None:
        """The connections (or cycles) that succeeded, from ``report``."""
        return report.connections_ok

    @property
    def fanout(self) -> bool:
        """True for one publisher and many subscribers."""
        return False

    @property
    def frames(self) -> str:
        """The frame type words of ``./bench measure``'s summary: ``"binary"``, ``"text"``
        or ``"JSON"``."""
        return "JSON" if self.json else "text" if self.text else "binary"


def window_options(s: Settings) -> list[str]:
    """``--warmup`` and ``--duration`` of ``s``."""
    return ["--warmup", str(s.warmup_s), "--duration", str(s.duration_s)]


@dataclass(frozen=True)
class EchoMode(ScenarioSpec):
    """The load generator's ``echo``: N connections, each keeping W messages in flight (or
    sending at a fixed rate), every reply checked."""

    def loadgen_options(self, s: Settings) -> list[str]:
        options = ["--connections", str(s.connections)]
        if not self.json:
            options += ["--size", str(s.size_bytes)]
        options += window_options(s)
        if s.rate:
            return [*options, "--rate", f"{s.rate:g}"]
        return [*options, "--in-flight", str(s.in_flight)]

    def check_counts(self, report: Report, s: Settings) -> str | None:
        return exact_count(report, s)


@dataclass(frozen=True)
class StreamMode(ScenarioSpec):
    """The load generator's ``stream``: the server pushes messages as fast as its flow
    control allows."""

    def loadgen_options(self, s: Settings) -> list[str]:
        return ["--connections", str(s.connections), "--size", str(s.size_bytes),
                *window_options(s)]  # fmt: skip


@dataclass(frozen=True)
class ConnectMode(ScenarioSpec):
    """The load generator's ``connect``: workers repeating connect, handshake, one message,
    close."""

    def loadgen_options(self, s: Settings) -> list[str]:
        return ["--workers", str(s.workers), "--size", str(s.size_bytes), *window_options(s)]

    def check(self, report: Report, s: Settings) -> str | None:
        problem = integrity_problem(report, self.many_connections)
        if problem or report.cycles:
            return problem
        return "no connect cycle completed in the window: " + (error_counts(report) or "no error")

    def connections_ok(self, report: Report) -> int | None:
        return report.cycles


@dataclass(frozen=True)
class HoldMode(ScenarioSpec):
    """The load generator's ``hold``: N connections opened and held idle (no window; the
    harness reads the server's memory meanwhile)."""

    @property
    def windowed(self) -> bool:
        return False

    def loadgen_options(self, s: Settings) -> list[str]:
        return ["--connections", str(s.connections), "--hold-s", f"{s.bound_s:g}"]

    def check(self, report: Report, s: Settings) -> str | None:
        if report.connections_ok:
            return None
        return "no connection succeeded: " + (error_counts(report) or "no error was reported")


@dataclass(frozen=True)
class FanoutMode(ScenarioSpec):
    """The load generator's ``broadcast`` and ``market``: one publisher, N subscribers,
    at a fixed rate or as fast as delivered (:data:`BROADCAST_IN_FLIGHT`)."""

    sized: bool = True
    """The message size is a parameter (``--size``); market's tick is fixed."""
    messages_per_delivery: int = 1
    """Messages the load generator handles per delivery to one subscriber (market: the
    tick, the order it sends, the acknowledgement)."""

    @property
    def fanout(self) -> bool:
        return True

    def loadgen_options(self, s: Settings) -> list[str]:
        options = ["--subscribers", str(s.subscribers)]
        if self.sized:
            options += ["--size", str(s.size_bytes)]
        if s.rate:
            options += ["--rate", f"{s.rate:g}"]
        else:
            options += ["--in-flight", str(BROADCAST_IN_FLIGHT)]
        return [*options, *window_options(s)]

    def check_counts(self, report: Report, s: Settings) -> str | None:
        echoed = report.fanout.publisher_received if report.fanout else 0
        if echoed:
            return f"the server sent {echoed} message(s) back to the publisher (never the sender)"
        if s.count is None:
            return None
        expected = s.count * s.subscribers
        if report.messages_received != expected:
            return f"subscribers received {report.messages_received} of {expected} messages"
        orders = report.fanout.orders if report.fanout else None
        if orders and (orders.acked != orders.sent or orders.mismatched):
            return (
                f"{orders.acked} of {orders.sent} orders acknowledged, "
                f"{orders.mismatched} acknowledgements mismatched"
            )
        return None


def exact_count(report: Report, s: Settings, unit: str = "messages") -> str | None:
    """In count mode, ``"received N of M <unit>"`` when the report did not get exactly
    ``count`` answers on each of the connections; else None."""
    if s.count is None:
        return None
    expected = s.count * s.connections
    if report.messages_received != expected:
        return f"received {report.messages_received} of {expected} {unit}"
    return None


def client_messages_per_s(p: Params, messages_per_delivery: int = 1) -> int:
    """Messages per second a fan-out set ``p`` asks of the load generator: subscribers x
    rate x ``messages_per_delivery`` (0 for ``rate`` 0, which follows the server)."""
    return p["subscribers"] * p["rate"] * messages_per_delivery


def error_counts(report: Report) -> str:
    """The report's non-zero connection errors as ``"kind=n"``, comma-separated, e.g.
    ``"timeout=3, connection_refused=2"`` (empty: none)."""
    return ", ".join(f"{k}={v}" for k, v in report.errors.items() if v)


def integrity_problem(report: Report, many_connections: bool) -> str | None:
    """``"load generator saw corrupted=1, ..."`` when the report counts a corrupted,
    duplicated or reordered message (and, with one connection, a lost message or a failed
    connection), else None."""
    integrity = report.integrity
    if many_connections:
        problems = [f"{k}={v}" for k, v in integrity.items() if v and k != "lost"]
    else:
        problems = [f"{k}={v}" for k, v in integrity.items() if v]
        problems += [f"{k}={v}" for k, v in report.errors.items() if v]
    return "load generator saw " + ", ".join(problems) if problems else None
