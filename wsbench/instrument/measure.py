"""One measurement: start a server, drive it with the load generator, sample it, stop it."""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import msgspec
import psutil

from wsbench import loadreport
from wsbench.deployment import TUNED, Profile, TlsFiles, profile_of, server_args
from wsbench.impls import Impl, get_impl
from wsbench.instrument import loadgen
from wsbench.instrument.cpus import CpuPlacement, default_placement, placement_from
from wsbench.instrument.server import STOP_GRACE_S, ServerError, ServerProcess, free_port
from wsbench.instrument.usage import (
    CpuActivity,
    ServerUsage,
    WindowSampler,
    kernel_socket_memory,
    tree_rss,
)
from wsbench.loadreport import Report, Summary
from wsbench.results.metrics import client_bound
from wsbench.results.runformat import MemoryStep
from wsbench.scenarios import SCENARIOS, SOURCE_ADDRESSES, Params, Scenario, canonical, memory, spec
from wsbench.scenarios.base import CORPUS_PARAM, CORPUS_SIZE
from wsbench.scenarios.offered import CAPACITY_IN_FLIGHT

SOCKETIO_PATH = "/socket.io/?EIO=4&transport=websocket"
"""Where a Socket.IO server takes Engine.IO v4 WebSocket connections (every scenario)."""
HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 30.0
"""Seconds a server has to complete its first WebSocket handshake."""
LOADGEN_SLACK_S = 60.0
"""Seconds a load generator run may last beyond its warm-up and window before the harness
kills it (:attr:`MeasureConfig.bound_s`): its own ``--timeout`` waits (10 s by default) fit
in it many times over."""
CONNECT_ALLOWANCE_S = 0.01
"""Seconds per connection added to :data:`LOADGEN_SLACK_S` for the connect phase."""
CLIENT_MODES = ("echo", "stream")
"""The load generator's subcommands a client program (``clients/``) implements."""


class ConfigError(ValueError):
    """A measurement configuration that cannot be run (the message names the bad option)."""


@dataclass(frozen=True)
class MeasureConfig:
    """What to measure.

    Attributes:
        impl: implementation name (a folder of ``impls/``).
        config: the implementation's configuration id (None: its first configuration).
        scenario: one of :data:`wsbench.scenarios.SCENARIOS`.
        size_bytes: message size in bytes (at least 16: sequence number and filler; the
            JSON scenario's is fixed at 97).
        in_flight: messages each connection keeps in flight (echo-like scenarios; 1 =
            ping-pong).
        connections: concurrent WebSocket connections (memory: connections held).
        warmup_s: seconds of traffic before the measurement window (not counted).
        duration_s: length of the measurement window in seconds (memory: how long the
            connections are held before the server's RSS is read).
        text: text frames instead of binary (always, in the text scenario).
        count: if set, exactly this many messages per connection instead of a time window
            (used by correctness tests; every message is counted).
        workers: concurrent workers of the connect scenario.
        source_addresses: loopback source addresses the connections are spread over.
        subscribers: subscribers (market: clients) of the fan-out scenarios.
        rate: a fixed offered load in messages/s (echo: over all connections; broadcast,
            market: the publisher's); 0 = none (closed loop; broadcast: as fast as
            delivered).
        load_percent: offered scenario: the rate as a percentage of the capacity measured
            first in the same server process (:meth:`ServerSession.capacity`); 0 = none.
        time_limit_s: the load generator's time limit, seconds (None: :attr:`bound_s`'s
            own); a count under valgrind needs a longer one.
        loadgen_timeout_s: the load generator's ``--timeout``, seconds: how long it waits
            for a handshake, and for a reply before it gives the messages owed up as lost
            (after the window; in count mode, since the last reply); None: its own
            default, 10 s (``loadgen/README.md``). Tests shorten it.
        corpus: the messages are the JSON corpus's, as text frames (``--corpus``; the size
            must be :data:`~wsbench.scenarios.base.CORPUS_SIZE`).
        profile: the deployment profile (:mod:`wsbench.deployment`): the load generator
            offers permessage-deflate in those that offer it (``--deflate``); the server's
            flags are :class:`ServerSession`'s.
    """

    impl: str
    scenario: Scenario
    config: str | None = None
    size_bytes: int = 16
    in_flight: int = 1
    connections: int = 1
    warmup_s: float = 1.0
    duration_s: float = 3.0
    text: bool = False
    count: int | None = None
    workers: int = 1
    source_addresses: int = 1
    subscribers: int = 1
    rate: float = 0.0
    load_percent: int = 0
    time_limit_s: float | None = None
    loadgen_timeout_s: float | None = None
    corpus: bool = False
    profile: Profile = TUNED

    @classmethod
    def for_params(
        cls,
        impl: str,
        config: str | None,
        scenario: Scenario,
        params: Params,
        *,
        warmup_s: float,
        window_s: float,
    ) -> MeasureConfig:
        """The measurement of ``scenario`` at one parameter set of its grid
        (:mod:`wsbench.scenarios`), with the plan's warm-up and window (the soak scenario's
        window is its ``seconds`` parameter)."""
        defined = spec(scenario)
        params = {**defined.fixed, **params}
        return cls(
            impl=impl,
            config=config,
            scenario=scenario,
            size_bytes=params.get("size_bytes", 16),
            in_flight=params.get("in_flight", 1),
            connections=params.get("connections", 1),
            workers=params.get("workers", 1),
            warmup_s=warmup_s,
            duration_s=float(params.get("seconds", window_s)),
            source_addresses=SOURCE_ADDRESSES if defined.many_connections else 1,
            subscribers=params.get("subscribers", 1),
            rate=float(params.get("rate", 0)),
            load_percent=params.get("load_percent", 0),
            corpus=bool(params.get(CORPUS_PARAM, 0)),
            profile=profile_of(params),
        )

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the first bad option."""
        if self.scenario not in SCENARIOS:
            raise ConfigError(f"unknown scenario {self.scenario!r} (known: {', '.join(SCENARIOS)})")
        if self.size_bytes < 16:
            raise ConfigError(f"size {self.size_bytes} B is below the 16-byte minimum")
        if self.in_flight < 1 or self.connections < 1:
            raise ConfigError("in-flight and connections must be at least 1")
        if self.warmup_s < 0 or self.duration_s <= 0:
            raise ConfigError("warm-up must be >= 0 s and the window > 0 s")
        if self.count is not None and self.count < 1:
            raise ConfigError("count must be at least 1")
        if self.workers < 1 or self.source_addresses < 1 or self.subscribers < 1:
            raise ConfigError("workers, subscribers and source addresses must be at least 1")
        if self.rate < 0 or not 0 <= self.load_percent <= 1000:
            raise ConfigError("the rate must be >= 0 messages/s and the load 0-1000 %")
        if self.corpus and self.size_bytes != CORPUS_SIZE:
            raise ConfigError(
                f"the JSON corpus's messages are {CORPUS_SIZE} B, not {self.size_bytes} B"
            )
        problem = spec(self.scenario).invalid(self)
        if problem:
            raise ConfigError(problem)

    def loadgen_args(
        self,
        url: str,
        protocol: str = "websocket",
        *,
        hold_s: float | None = None,
        cpus: Sequence[int] = (),
        tls_ca: Path | None = None,
    ) -> list[str]:
        """The load generator's command line for this configuration against ``url``, in
        ``protocol`` (``"websocket"`` or ``"socketio"``): the scenario's mode and its options
        (:meth:`wsbench.scenarios.base.ScenarioSpec.loadgen_options`), then those every mode
        shares; ``loadgen/README.md`` documents each subcommand. ``hold_s``: how long a
        ``hold`` may last at most (default :attr:`bound_s`). ``cpus``: the load generator's
        CPUs (:attr:`CpuPlacement.loadgen`); two or more give ``--cpus`` (one runtime thread
        pinned to each, the connections spread round robin over them), one or none leave
        the single current-thread runtime. ``tls_ca``: over TLS (a ``wss://`` URL), the CA
        the load generator trusts (``--tls-ca``)."""
        defined = spec(self.scenario)
        held = self if hold_s is None else replace(self, time_limit_s=hold_s)
        args = [defined.mode, "--url", url, *defined.loadgen_options(held)]
        if defined.json:
            args.append("--json")
        elif self.corpus:
            args.append("--corpus")
        elif self.text or defined.text:
            args.append("--text")
        if self.profile.offers_deflate:
            args.append("--deflate")
        if self.count is not None:
            args += ["--count", str(self.count)]
        if self.source_addresses > 1:
            args += ["--source-addresses", str(self.source_addresses)]
        if self.loadgen_timeout_s is not None:
            args += ["--timeout", f"{self.loadgen_timeout_s:g}"]
        if protocol != "websocket":
            args += ["--protocol", protocol]
        if len(cpus) > 1:
            args += ["--cpus", ",".join(str(cpu) for cpu in cpus)]
        if tls_ca is not None:
            args += ["--tls-ca", str(tls_ca)]
        return args

    def params(self) -> Params:
        """This configuration's parameter set, named as its scenario's axes
        (:mod:`wsbench.scenarios`)."""
        values = {
            "size_bytes": self.size_bytes,
            "in_flight": self.in_flight,
            "connections": self.connections,
            "workers": self.workers,
            "seconds": round(self.duration_s),
            "subscribers": self.subscribers,
            "rate": round(self.rate) if not self.load_percent else 0,
            "load_percent": self.load_percent,
        }
        switches = {CORPUS_PARAM: int(self.corpus), **self.profile.params}
        return canonical({**{name: values[name] for name in spec(self.scenario).axes}, **switches})

    @property
    def bound_s(self) -> float:
        """An upper bound on the load generator's run time, in seconds (never reached
        normally; then the harness kills it): :attr:`time_limit_s` when set, else warm-up
        and window, plus :data:`LOADGEN_SLACK_S` (a minute), plus
        :data:`CONNECT_ALLOWANCE_S` (10 ms) per connection for the connect phase."""
        if self.time_limit_s is not None:
            return self.time_limit_s
        return (
            self.warmup_s + self.duration_s + LOADGEN_SLACK_S
            + CONNECT_ALLOWANCE_S * self.connections
        )  # fmt: skip


@dataclass
class Measurement:
    """The outcome of one measurement.

    Attributes:
        config: what was measured.
        status: ``"ok"``, or ``"failed"`` with :attr:`error` saying why.
        error: the reason of a failure (with the server's log tail where relevant).
        report: the load generator's report (:mod:`wsbench.loadreport`), if it ran.
        server: the server's CPU and peak RSS during the window, if sampled.
        placement: the CPUs used.
        server_exit_code: the server's exit code after the stop (negative: a signal).
        server_pid: the server's process id (gone once :func:`measure` returns).
        cpu_activity: how busy the measured CPUs were over the window, if sampled.
        rss_idle_bytes: memory scenario: the server's RSS before the connections opened.
        rss_held_bytes: memory scenario: its RSS with them all open and idle.
        memory_steps: memory scenario: the server's and the kernel's memory at each count.
    """

    config: MeasureConfig
    status: Literal["ok", "failed"] = "ok"
    error: str | None = None
    report: Report | None = None
    server: ServerUsage | None = None
    placement: CpuPlacement = field(default_factory=default_placement)
    server_exit_code: int | None = None
    server_pid: int | None = None
    cpu_activity: CpuActivity | None = None
    rss_idle_bytes: int | None = None
    rss_held_bytes: int | None = None
    memory_steps: tuple[MemoryStep, ...] | None = None

    def fail(self, reason: str) -> None:
        """Mark as failed; the first reason wins."""
        if self.status == "ok":
            self.status, self.error = "failed", reason

    @property
    def messages_per_s(self) -> float | None:
        """Throughput in messages/s (received by the load generator), None without a report
        or in a scenario without messages (connect, memory)."""
        return self.report.messages_per_s if self.report else None

    @property
    def latency_s(self) -> dict[str, float] | None:
        """Round-trip latency percentiles in seconds (echo only): p50, p90, p99, p99_9, max."""
        lat = self.report.latency_us if self.report else None
        return seconds_summary(lat) if lat else None

    @property
    def loadgen_cpu_percent(self) -> float | None:
        """The load generator's CPU over the window, in percent of one core (None in the
        memory scenario, which has no window)."""
        return self.report.loadgen_cpu_percent if self.report else None

    @property
    def client_bound(self) -> bool:
        """True when the load generator may have been the bottleneck: its CPU above 80 % of
        the CPUs its runtime threads ran on (:func:`wsbench.results.metrics.client_bound`)."""
        threads = (self.report.config.threads or 1) if self.report else 1
        return client_bound(self.loadgen_cpu_percent, threads)

    def to_record(self) -> dict[str, Any]:
        """This one window in full, for ``./bench measure --json``: the figures, the server's
        usage and exit code, and the load generator's whole report (runs keep samples in
        :mod:`wsbench.results.runformat` instead)."""
        report = self.report
        return {
            "benchmark": f"{self.config.scenario}.{self.config.scenario.capitalize()}",
            "scenario": self.config.scenario,
            "params": self.config.params(),
            "status": self.status,
            "error": self.error,
            "messages_per_s": self.messages_per_s,
            "bytes_per_s": report.bytes_per_s if report else None,
            "rss_idle_bytes": self.rss_idle_bytes,
            "rss_held_bytes": self.rss_held_bytes,
            "memory_steps": (
                [msgspec.structs.asdict(step) for step in self.memory_steps]
                if self.memory_steps
                else None
            ),
            "latency_s": self.latency_s,
            "server": asdict(self.server) if self.server else None,
            "loadgen_cpu_percent": self.loadgen_cpu_percent,
            "client_bound": self.client_bound,
            "server_exit_code": self.server_exit_code,
            "loadgen": loadreport.to_builtins(report) if report else None,
        }


def check_report(report: Report, config: MeasureConfig) -> str | None:
    """Why a load generator report does not count as a valid measurement of ``config``, or
    None if it does: its scenario's check
    (:meth:`wsbench.scenarios.base.ScenarioSpec.check`)."""
    return spec(config.scenario).check(report, config)


LATENCY_KEYS = ("p50", "p90", "p99", "p99_9", "max", "mean", "min", "stdev")
"""The figures of a load generator latency summary kept, in seconds (the summary is in
µs)."""


def seconds_summary(summary: Summary) -> dict[str, float]:
    """A load generator µs summary's figures (:data:`LATENCY_KEYS`) in seconds."""
    return {k: float(getattr(summary, k)) / 1e6 for k in LATENCY_KEYS}


class ServerSession:
    """One server process that serves several load generator runs, pyperf's worker process:
    started and probed once, then :meth:`run` measures as many windows or exact counts as
    wanted against it, then stopped (always, also after a failure).

    Use it as a context manager; a server that does not start does not raise here: every
    :meth:`run` then returns a failed :class:`Measurement` with the reason (so that the
    caller records it like any other failure).

    Args:
        impl: the implementation.
        config_id: its configuration (None: the first).
        python: the interpreter that runs a Python server (the asv environment's).
        placement: CPUs of server and load generator (default: :func:`placement_from`
            without options: the runner's layout where its variables are set, else
            :func:`default_placement`).
        label: the server's name in error messages (default: the implementation name).
        startup_timeout_s: seconds the server has to complete its first handshake.
        client: the command of a client program (``clients/``) that drives the server in
            the load generator's place, with its arguments and report (echo and stream
            only); None: the load generator.
        wrapper: a command the server's command line is prefixed with (e.g. valgrind's,
            :mod:`wsbench.instrument.instructions`).
        env: extra environment variables of the server.
        stop_grace_s: seconds the server has to exit after SIGTERM
            (:class:`~wsbench.instrument.server.ServerProcess`).
        profile: the deployment profile the server is started in: its flags
            (:func:`wsbench.deployment.server_args`) follow its command line; every
            :meth:`run` must ask for the same profile.
        tls: the run's TLS files, for the profiles over TLS.
        fixed_layout: start the server with the same stack layout whatever the lengths of
            its command line and environment (:func:`wsbench.instrument.server.padded_env`).

    In a profile that starts worker processes, the server gets one per CPU of
    ``placement.server`` (:func:`wsbench.deployment.server_args`).

    Raises:
        wsbench.impls.ImplError: unknown configuration.
        wsbench.instrument.loadgen.LoadgenError: the load generator cannot be built.
        wsbench.cpulist.CpuSetError: no ``placement`` and the runner's layout names CPUs
            this process cannot use.
        ValueError: a profile over TLS without ``tls``, or with worker processes on one
            CPU.
    """

    def __init__(
        self,
        impl: Impl,
        config_id: str | None = None,
        *,
        python: str = sys.executable,
        placement: CpuPlacement | None = None,
        label: str | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        client: Sequence[str] | None = None,
        wrapper: Sequence[str] = (),
        env: dict[str, str] | None = None,
        stop_grace_s: float = STOP_GRACE_S,
        profile: Profile = TUNED,
        tls: TlsFiles | None = None,
        fixed_layout: bool = False,
    ) -> None:
        self.impl = impl
        self.profile = profile
        self.tls_ca = tls.cafile if tls is not None and profile.tls else None
        self.client = tuple(client) if client else None
        self.run_config = impl.config(config_id)
        self.placement = placement or placement_from(None, None)
        self.binary = loadgen.ensure_built()
        self.startup_timeout_s = startup_timeout_s
        port = free_port(HOST)
        self.base_url = f"{'wss' if profile.tls else 'ws'}://{HOST}:{port}"
        argv = impl.argv(
            python=python, loadgen=self.binary, host=HOST, port=port, config=self.run_config,
            profile_args=server_args(profile, tls, server_cpus=len(self.placement.server)),
        )  # fmt: skip
        self.server = ServerProcess(
            [*wrapper, *argv],
            cpus=self.placement.server,
            name=label or impl.name,
            env=env,
            stop_grace_s=stop_grace_s,
            fixed_layout=fixed_layout,
        )
        self.start_error: str | None = None
        self.exit_code: int | None = None
        self._capacity: dict[tuple[int, int], Measurement] = {}

    def url(self, scenario: Scenario) -> str:
        """The URL the load generator connects to for ``scenario``."""
        if self.run_config.protocol == "socketio":
            return self.base_url + SOCKETIO_PATH
        return self.base_url + spec(scenario).endpoint

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.server.pid

    def alive(self) -> bool:
        """True while the server runs (False when it never started or has exited)."""
        proc = self.server.proc
        return self.start_error is None and proc is not None and proc.poll() is None

    def __enter__(self) -> ServerSession:
        try:
            self.server.start()
            self.server.wait_ready(
                lambda t: loadgen.probe(
                    self.url("echo"), timeout_s=t, binary=self.binary, tls_ca=self.tls_ca
                ),
                timeout_s=self.startup_timeout_s,
            )
        except ServerError as exc:
            self.start_error = str(exc)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.exit_code = self.server.stop()
        self.server.__exit__(None, None, None)

    def run(self, config: MeasureConfig) -> Measurement:
        """Measure ``config`` against this server: one load generator run (one measurement
        window, or an exact count), sampling the server and the CPUs over the window.

        Returns:
            The measurement; failed with the reason when the server did not start or died,
            or the load generator failed (exited non-zero, was killed, or ran past
            :attr:`MeasureConfig.bound_s`) or saw an error (then with the server's log tail;
            the server's exit first when it has exited).

        Raises:
            ConfigError: the configuration is invalid, or asks for another deployment
                profile than the server was started in.
        """
        config.validate()
        if config.profile != self.profile:
            raise ConfigError(
                f"profile {config.profile.name!r} asked of a server started in "
                f"{self.profile.name!r}"
            )
        if self.client and spec(config.scenario).mode not in CLIENT_MODES:
            raise ConfigError(
                f"a client program runs {' and '.join(CLIENT_MODES)} only, not {config.scenario}"
            )
        if config.load_percent and not config.rate:
            measured = self.capacity(config)
            if measured.status != "ok" or not measured.messages_per_s:
                result = Measurement(config=config, placement=self.placement)
                why = f"the capacity run before the fixed-load windows failed: {measured.error}"
                result.fail(why)
                return result
            config = replace(config, rate=measured.messages_per_s * config.load_percent / 100)
        result = Measurement(config=config, placement=self.placement)
        result.server_pid = self.server.proc.pid if self.server.proc else None
        if self.start_error is not None:
            result.fail(self.start_error)
            return result
        try:
            self.server.check_alive("before the measurement")
            if not spec(config.scenario).windowed:
                self._hold(config, result)
            else:
                self._traffic(config, result)
            self.server.check_alive("during the measurement")
        except ServerError as exc:
            result.fail(str(exc))
        except loadgen.LoadgenError as exc:
            result.fail(self._loadgen_failed(exc))
        else:
            assert result.report is not None
            reason = check_report(result.report, config)
            if reason:
                tail = self.server.log_tail() or "(no output)"
                result.fail(f"{reason}\n--- server log (tail) ---\n{tail}")
        return result

    def _loadgen_failed(self, exc: loadgen.LoadgenError) -> str:
        """The reason of a measurement whose load generator failed with ``exc``: the
        server's exit when it has exited (it comes first: the load generator's failure
        follows from it), else ``exc``; then the server's log tail."""
        try:
            self.server.check_alive(f"during the measurement ({exc})")
        except ServerError as died:
            return str(died)
        return f"{exc}\n--- server log (tail) ---\n{self.server.log_tail() or '(no output)'}"

    def capacity(self, config: MeasureConfig) -> Measurement:
        """The closed-loop echo run that gives this server's capacity for ``config``'s
        connections and message size (:data:`wsbench.scenarios.CAPACITY_IN_FLIGHT` messages
        in flight per connection, the same warm-up and window), measured once per server
        process and kept: the fixed-load windows at a percentage of it
        (``load_percent``) all take the same capacity."""
        key = (config.connections, config.size_bytes)
        if key not in self._capacity:
            closed = replace(
                config, scenario="echo", rate=0.0, load_percent=0, in_flight=CAPACITY_IN_FLIGHT,
                count=None,
            )  # fmt: skip
            self._capacity[key] = self.run(closed)
        return self._capacity[key]

    def _traffic(self, config: MeasureConfig, result: Measurement) -> None:
        """One load generator run with traffic; the sampler's window opens ``warmup_s`` after
        the connect phase (count mode: when the traffic starts)."""
        sampler = WindowSampler(
            self.server.pid,
            delay_s=0.0 if config.count else config.warmup_s,
            duration_s=config.duration_s,
            cpus=sorted({*self.placement.server, *self.placement.loadgen}),
            after_traffic_starts=True,
        )
        sampler.start()
        try:
            # A client program (Python) runs one thread: it is not given --cpus.
            cpus = () if self.client else self.placement.loadgen
            url = self.url(config.scenario)
            result.report = loadgen.run_report(
                config.loadgen_args(url, self.run_config.protocol, cpus=cpus, tls_ca=self.tls_ca),
                cpus=self.placement.loadgen,
                timeout_s=config.bound_s,
                binary=self.binary,
                on_traffic=sampler.traffic_started,
                command=self.client,
            )
        finally:
            result.server = sampler.result()
            result.cpu_activity = sampler.activity

    def _hold(self, config: MeasureConfig, result: Measurement) -> None:
        """The memory scenario, a staircase in one server process: the server's and the
        kernel's memory before any connection, then at each count of
        :func:`~wsbench.scenarios.memory.counts` (``config.connections`` the last): the
        connections added by one load generator ``hold`` each, the earlier ones kept open
        and idle, an equal share of ``config.duration_s`` to settle (the window is split
        between the steps, so that the scenario takes as long as a one-count hold did),
        then both read again; then every connection closed. A step in which no connection
        opened ends the staircase.

        The report is the last step's (its handshakes are those made with the most
        connections already open), with ``connections_ok``, ``errors``, ``closed`` and
        ``closed_early`` summed over the steps; connections the server closed during the
        hold also count as ``closed_early`` errors.

        Raises:
            ServerError: the server is gone.
            wsbench.instrument.loadgen.LoadgenError: the load generator failed.
        """
        url = self.url(config.scenario)
        counts = memory.counts(config.connections)
        settle_s = config.duration_s / (len(counts) - 1)
        steps = [self._memory_step(0)]
        reports: list[Report] = []
        with ExitStack() as stack:
            holds = []
            opened = 0
            for before, count in itertools.pairwise(counts):
                added = replace(config, connections=count - before)
                hold = stack.enter_context(
                    loadgen.Hold(
                        added.loadgen_args(
                            url,
                            self.run_config.protocol,
                            hold_s=config.bound_s,
                            cpus=self.placement.loadgen,
                            tls_ca=self.tls_ca,
                        ),
                        cpus=self.placement.loadgen,
                        timeout_s=added.bound_s,
                        binary=self.binary,
                    )
                )
                holds.append(hold)
                assert hold.opened is not None
                reports.append(hold.opened)
                ok = hold.opened.connections_ok or 0
                if not ok:
                    break
                opened += ok
                time.sleep(settle_s)
                steps.append(self._memory_step(opened))
            closed = [hold.release() for hold in reversed(holds)]
        result.memory_steps = tuple(steps)
        result.rss_idle_bytes = steps[0].rss_bytes
        result.rss_held_bytes = steps[-1].rss_bytes if len(steps) > 1 else None
        errors: dict[str, int] = {}
        for part in reports:
            for kind, n in part.errors.items():
                errors[kind] = errors.get(kind, 0) + n
        early = sum(c.closed_early for c in closed)
        if early:
            errors["closed_early"] = errors.get("closed_early", 0) + early
        result.report = msgspec.structs.replace(
            reports[-1],
            connections_ok=sum(r.connections_ok or 0 for r in reports),
            errors=errors,
            closed=sum(c.closed for c in closed),
            closed_early=early,
        )

    def _memory_step(self, connections: int) -> MemoryStep:
        """The server's RSS and the kernel's socket memory now, with ``connections`` open.

        Raises:
            ServerError: the server is gone.
        """
        try:
            rss = tree_rss(self.server.pid)
        except psutil.Error as exc:
            raise ServerError(f"{self.server.name}: cannot read its memory: {exc}") from exc
        return MemoryStep(connections, rss, kernel_socket_memory())


def measure(
    config: MeasureConfig,
    *,
    python: str = sys.executable,
    placement: CpuPlacement | None = None,
    impl: Impl | None = None,
    label: str | None = None,
    startup_timeout_s: float = STARTUP_TIMEOUT_S,
    stop_grace_s: float = STOP_GRACE_S,
) -> Measurement:
    """Run one measurement with a server of its own (a :class:`ServerSession` serving one
    run); never raises for a server or load generator failure.

    Args:
        config: what to measure.
        python: the interpreter that runs a Python server (the asv environment's).
        placement: CPUs of server and load generator (default: :func:`placement_from`
            without options: the runner's layout where its variables are set, else
            :func:`default_placement`).
        impl: the implementation, if already loaded (default: looked up by ``config.impl``).
        label: the server's name in error messages (default: the implementation name).
        startup_timeout_s: seconds the server has to complete its first handshake.
        stop_grace_s: seconds the server has to exit after SIGTERM before it is killed with
            SIGKILL (:data:`~wsbench.instrument.server.STOP_GRACE_S`).

    Returns:
        The measurement; ``status == "failed"`` with the reason when the server did not
        start, died, or the load generator failed or saw an error. The server is always
        stopped, with every process it started, and its exit code is in
        ``server_exit_code`` (-9 when it had to be killed).

    Raises:
        ConfigError: the configuration is invalid.
        wsbench.impls.ImplError: unknown implementation.
        wsbench.instrument.loadgen.LoadgenError: the load generator cannot be built.
    """
    config.validate()
    session = ServerSession(
        impl or get_impl(config.impl),
        config.config,
        python=python,
        placement=placement,
        label=label,
        startup_timeout_s=startup_timeout_s,
        stop_grace_s=stop_grace_s,
    )
    with session:
        result = session.run(config)
    result.server_exit_code = session.exit_code
    return result
