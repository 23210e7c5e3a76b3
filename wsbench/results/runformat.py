"""The wsbench run format: one JSON document per (run, environment), the single source of
truth for every figure (asv's result files, the site and the comparisons derive from it).

In the spirit of pyperf's JSON format: the document holds every sample and the metadata
needed to interpret it, and everything else (medians, intervals, verdicts) is computed from
it. The schema is these :mod:`msgspec` structures; :func:`decode` validates a document
against them and names the first field that does not fit. ``docs``: the site's Methodology
page and ``README.md`` describe it for readers.

Shape (``format`` is always ``"wsbench-run"``; ``version`` is :data:`VERSION`)::

    {"format": "wsbench-run", "version": 2,
     "run_id": "20261123T190000Z-3f9a1c",            # shared by every environment of a run
     "started_at": ISO 8601, "finished_at": ISO 8601 or null,
     "machine": {"name", "cpu_model", "cpu_count", "kernel", "ram_bytes"},
     "harness": {"commit": 40 hex digits or "unknown", "source_sha256"},
     "loadgen": {"version", "source_sha256", "rustc"},
     "settings": {"warmup_s", "window_s", "processes", "windows_per_process",
                  "connections", "server_cpus", "loadgen_cpus",
                  "max_other_cpu_percent", "max_steal_percent", "retries",
                  "open_files", "waited_retries", "first_wait_s", "wait_budget_s",
                  "multi_server_cpus"},
     "impl": {"name", "display_name", "package", "version", "config", "row_name", "server",
              "ws_backend", "event_loop", "protocol", "reference", "deviations",
              "slow_subscriber", "role", "api"},
     "environment": {"env_name", "python", "install_error",
                     "interpreter": {"version", "implementation", "free_threaded",
                                     "gil_enabled", "jit", "compiler", "optimizations"},
                     "packages": ["aiohttp==3.14.5", ...],
                     "resolution": {"source", "sha256", "resolved_on", "lock_file"}},
     "benchmarks": [
       {"scenario": "echo", "params": {"size_bytes": 16, "in_flight": 64},
        "status": "ok" | "failed", "error": text or null,
        "samples": [{"process": 0, "window": 0, "status": "ok", "error": null,
                     "messages_per_s", "bytes_per_s", "messages_received", "window_s",
                     "latency_s": {"p50", "p90", "p99", "p99_9", "max"} or null,
                     "server_cpu_percent", "server_kernel_cpu_percent", "server_rss_bytes",
                     "loadgen_cpu_percent", "other_cpu_percent", "steal_percent", "disturbed": bool,
                     "waited_s",
                     "connections_ok", "connections_per_s", "handshake_s",
                     "per_connection_messages_per_s": {"min", "median", "max"},
                     "errors": {kind: count}, "rss_idle_bytes", "rss_held_bytes",
                     "server_rss_growth_bytes",
                     "memory_steps": [{"connections", "rss_bytes", "kernel_bytes"}, ...]},
                    ...],
        "server_exit_codes": [0, -15, ...], "waits_skipped": 0}, ...],
     "system": {"items": [{"name", "value", "ok", "reason"}, ...], "tuned": bool} or null,
     "counting": {"tool", "hash_seed", "aslr"} or null,
     "instructions": [
       {"scenario": "echo", "params": {"size_bytes": 16, "in_flight": 64},
        "status": "ok" | "failed", "error": text or null,
        "counts": [{"count", "messages", "instructions"}, ...]}, ...]}

A counted set's ``functions`` (added within version 2; empty in earlier documents and in a
failed set) are the functions that executed the most instructions per message between its
low and high runs, most first: their own (exclusive) instructions, C functions of the
interpreter, the extension modules and the libraries, named as callgrind names them::

        "functions": [{"name": "_PyEval_EvalFrameDefault", "file": "libpython3.11.so.1.0",
                       "per_message": 41234.5}, ...]

``conformance`` (added within version 2; null in earlier documents and in measurements) is
the Autobahn|Testsuite's grade of the server (``./bench conformance``), in a document of its
own with no benchmarks, kept in the store's ``conformance/`` folder
(:func:`wsbench.results.store.conformance_store`)::

     "conformance": {"suite": "autobahntestsuite 25.10.1", "route", "cases_selected": [...],
                     "outcome": "graded" | "not applicable" | "failed", "error", "wall_s",
                     "cases": [{"id": "7.1.5", "behavior", "behavior_close", "duration_ms",
                                "remote_close_code", "description", "expectation", "result",
                                "result_close", "remote_close_reason", "http_response",
                                "wirelog": [...]}, ...],
                     "not_offered": {"12": why, "13": why}}

``profiling`` and ``profiles`` (added within version 2; null and empty elsewhere) are CPU
profiles of the server (``./bench profile``, :mod:`wsbench.instrument.profile`), in a
document of its own with no benchmarks, kept in the store's ``profiles/`` folder
(:func:`wsbench.results.store.profile_store`)::

     "profiling": {"profiler": "py-spy 0.4.3", "native": false},
     "profiles": [{"scenario", "params", "status", "error", "duration_s", "rate_hz",
                   "stacks": {"main (server.py:9);handler (server.py:20)": 57, ...},
                   "profiled": {"messages_per_s", "server_cpu_percent",
                                "server_kernel_cpu_percent"},
                   "unprofiled": [{...}, {...}]}, ...]

``counting`` and ``instructions`` (version 2) are the server's instruction counts under
valgrind (:mod:`wsbench.instrument.instructions`): null and empty when they were not counted, and in
every version 1 document, which reads as a version 2 document without them.

A sample's ``server_kernel_cpu_percent`` (added within version 2; null in earlier
documents) is the part of ``server_cpu_percent`` spent in the kernel.

``settings.waited_retries`` and ``settings.first_wait_s`` (the waited retries of a set that
would otherwise have no usable window, :mod:`wsbench.instrument.sampling`) and a sample's
``waited_s`` (the wait before it) were added within version 2: earlier documents read as
measured without waits (0, 0.0 and null), which they were. ``settings.wait_budget_s`` and
a benchmark's ``waits_skipped`` (the run's budget for those waits,
:mod:`wsbench.instrument.waitbudget`) were added within version 2 too: null and 0 in earlier
documents, whose waits had only the per-set bound.

``environment.interpreter`` (added within version 2; null in earlier documents, all measured
on CPython 3.11 with the GIL and no JIT) is what the environment's interpreter says of its
build (:mod:`wsbench.instrument.interpreters`).

``environment.packages`` and ``environment.resolution`` (added within version 2; null in
earlier documents, which read as *not recorded*) are every distribution installed in the
environment and the lock it was installed from (:class:`Resolution`).

``system`` (added within version 1; null in earlier documents) is the machine's tuning
check (:mod:`wsbench.instrument.system`) when the run started. The many-connection fields of a
sample (``connections_ok`` to ``server_rss_growth_bytes``), the memory scenario's
``memory_steps`` and ``settings.open_files`` were also added within version 1: null (or
absent) in earlier documents and in scenarios that do not have them
(:mod:`wsbench.scenarios`).

Units: seconds, bytes, messages/s, bytes/s, percent of one core (100 = one core busy).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import msgspec

FORMAT = "wsbench-run"
"""The ``format`` field of every run document."""
VERSION = 2
"""The version of the format this module writes."""
READS = (1, 2)
"""The versions it reads; a reader rejects any other. Version 2 added the instruction counts
(``counting``, ``instructions``); a version 1 document reads as one without them."""
READS_TEXT = f"{READS[0]}-{READS[-1]}"
""":data:`READS` (a range of versions) as the errors say it: ``"1-2"``."""

Status = Literal["ok", "failed"]

FUNCTIONS_KEPT = 100
"""The most functions a counted set keeps (:attr:`InstructionSet.functions`): those with the
most instructions per message. A function outside one side's list counts as 0 there when
two counts are compared, and had at most the smallest figure kept
(:mod:`wsbench.results.function_diff`). Measured on the calibration's test server (echo
16 B x1, 130,437 instructions per message in 447 functions with any): the 100th function
had 180 (0.14 %, a seventh of the verdict's smallest change) and the 100 held 87 % of the
instructions; at 40 they were 428 and 75 %, and of the 3,043 instructions its ``--extra 24``
added, the range iterator's 240 fell outside the list. About 11 kB per counted set in a
document."""


class FormatError(ValueError):
    """A file is not a wsbench run document of a version in :data:`READS` (the message names
    the file and the first field that does not fit)."""


class Machine(msgspec.Struct, frozen=True):
    """Where the run happened: asv's machine name and facts read from the system."""

    name: str
    cpu_model: str
    cpu_count: int
    kernel: str
    ram_bytes: int


class Harness(msgspec.Struct, frozen=True):
    """The harness that measured: the git commit asv measured (or the checkout's ``HEAD``;
    ``"unknown"`` outside a checkout), and a SHA-256 of the code as imported (the harness,
    the implementations and the benchmarks), which tells two commits' code apart."""

    commit: str
    source_sha256: str = ""


class LoadgenBuild(msgspec.Struct, frozen=True):
    """The load generator's build identity: crate version, a SHA-256 of its sources
    (``Cargo.toml``, ``Cargo.lock``, ``src/``) and the Rust compiler that built it."""

    version: str
    source_sha256: str
    rustc: str


WAIT_GROWTH = 2
"""Each wait before a waited retry is this many times the one before (:func:`waits`)."""


WAIT_BUDGET_SPENT = "the run's wait budget was spent"
"""What a set's reason says when the run's wait budget left out its waited retries."""


def waits(first_wait_s: float, waited_retries: int) -> tuple[float, ...]:
    """The waits before each waited retry, seconds: ``first_wait_s`` growing by
    :data:`WAIT_GROWTH`, ``waited_retries`` of them (``waits(1.0, 3)``: 1, 2 and 4 s, 7 s
    in all).
    The rule and its reasons: :mod:`wsbench.instrument.sampling`."""
    return tuple(first_wait_s * WAIT_GROWTH**i for i in range(waited_retries))


class Settings(msgspec.Struct, frozen=True):
    """How the samples were taken; results with different settings are never compared.

    Attributes:
        warmup_s: seconds of traffic before each measurement window (not counted).
        window_s: length of each measurement window, seconds.
        processes: fresh server processes per benchmark (pyperf's worker processes).
        windows_per_process: measurement windows per parameter set in each process.
        connections: WebSocket connections of the load generator.
        server_cpus: CPUs the server is pinned to.
        loadgen_cpus: CPUs the load generator is pinned to.
        max_other_cpu_percent: a window in which everything else used more CPU than this
            on the measured CPUs (percent of one core) is disturbed.
        max_steal_percent: likewise for the hypervisor's steal time.
        retries: how often a window disturbed by other work is measured again at once, per
            parameter set and server process.
        open_files: the open-file limit (``RLIMIT_NOFILE``) of the server and the load
            generator; null in documents from before it was recorded.
        waited_retries: how many more windows a parameter set whose windows were all
            disturbed is measured in its last server process, each after a wait; 0 in
            documents from before these waits (they had none).
        first_wait_s: the first of those waits, seconds; each next one is
            :data:`WAIT_GROWTH` (2) times the one before (:meth:`waits`), so the waits of
            one set total at most ``first_wait_s * (2 ** waited_retries - 1)`` seconds.
        wait_budget_s: the run's budget for its waited retries, seconds: each costs its wait
            plus its window's warm-up and window, and once they reach the budget no set is
            measured again after a wait (:mod:`wsbench.instrument.waitbudget`); null in
            documents from before the budget (their waits had only the per-set bound).
        multi_server_cpus: the server's CPUs in the multi-CPU deployment profiles
            (:mod:`wsbench.deployment`: *2 CPUs* on the first two, *workers* one worker
            process on each); ``()`` where the runner had none (those profiles were not
            measured) and in documents from before them.
    """

    warmup_s: float
    window_s: float
    processes: int
    windows_per_process: int
    connections: int
    server_cpus: tuple[int, ...]
    loadgen_cpus: tuple[int, ...]
    max_other_cpu_percent: float
    max_steal_percent: float
    retries: int
    open_files: int | None = None
    waited_retries: int = 0
    first_wait_s: float = 0.0
    wait_budget_s: float | None = None
    multi_server_cpus: tuple[int, ...] = ()

    def waits(self) -> tuple[float, ...]:
        """The waits that were applied before each waited retry, seconds (:func:`waits`)."""
        return waits(self.first_wait_s, self.waited_retries)

    def comparable(self) -> Settings:
        """These settings without the retry policy (``retries``, ``waited_retries``,
        ``first_wait_s``, ``wait_budget_s``): what must be equal for two runs' figures to
        be compared. The policy decides which windows are measured again after a
        disturbance, not what a usable window measures or how a figure is computed from the
        usable ones; so runs from before the waited retries compare with runs after them."""
        return msgspec.structs.replace(
            self, retries=0, waited_retries=0, first_wait_s=0.0, wait_budget_s=None
        )


class ImplInfo(msgspec.Struct, frozen=True):
    """What ran: the implementation in one configuration at one version (from its
    ``meta.toml``; ``version`` is the installed one). ``slow_subscriber``: what its
    broadcast does with a subscriber slower than the messages (waits, buffers or drops,
    and how; impls/PROTOCOL.md), "" in documents from before the fan-out scenarios.
    ``role``: ``"server"``, or ``"client"`` for a client library that drove the native
    reference server (``clients/``; a sample's ``loadgen_cpu_percent`` is then the client's
    CPU), with the ``api`` it used (e.g. ``"sync client"``); both added within version 1.
    ``shipped_compression`` and ``tls``: what its server does with a browser's offer of
    permessage-deflate under its framework's defaults (``"accepts: ..."`` or ``"declines:
    ..."``) and whether it serves TLS (``"supported: ..."`` or ``"not supported: ..."``),
    from its ``meta.toml`` (:mod:`wsbench.deployment`); "" in documents from before them
    (added within version 1). ``workers``: whether its server starts worker processes with
    its framework's workers option (``"supported: ..."`` or ``"not supported: ..."``, the
    *workers* profile), likewise."""

    name: str
    display_name: str
    package: str | None
    version: str | None
    config: str
    row_name: str
    server: str
    ws_backend: str
    event_loop: str
    protocol: str
    reference: bool
    deviations: dict[str, str]
    slow_subscriber: str = ""
    role: str = "server"
    api: str = ""
    shipped_compression: str = ""
    tls: str = ""
    workers: str = ""


class Interpreter(msgspec.Struct, frozen=True):
    """An interpreter's build, in its own words (:mod:`wsbench.instrument.interpreters`).

    Attributes:
        version: the full version, e.g. ``"3.12.1"``.
        implementation: ``"CPython"``, ``"PyPy"``...
        free_threaded: built without the GIL (``Py_GIL_DISABLED``, PEP 703).
        gil_enabled: whether the GIL was on in the process that answered, before any
            framework was imported (a free-threaded build turns it back on for an extension
            that does not declare itself safe without it, or with ``PYTHON_GIL=1``); True
            for every other build.
        jit: the experimental JIT (PEP 744): ``"on"``, ``"off"`` (built with it, not
            enabled) or ``"none"`` (not built with it).
        compiler: the C compiler that built it, e.g. ``"GCC 12.2.0"``.
        optimizations: the build's optimizations from its ``configure`` options
            (``sysconfig``'s ``CONFIG_ARGS``): ``"pgo"`` (``--enable-optimizations``,
            profile-guided) and ``"lto"`` (``--with-lto``, link-time), in that order: both
            are what CPython's README calls an optimized build; empty for a build with
            neither (pyenv's default, this development machine's 3.11, 3.12 and 3.13), None
            in documents from before. Two Pythons' figures differ by their builds as well as
            by their versions.
    """

    version: str
    implementation: str
    free_threaded: bool
    gil_enabled: bool
    jit: str
    compiler: str
    optimizations: tuple[str, ...] | None = None

    @property
    def python(self) -> str:
        """The Python it is as wsbench names it (:mod:`wsbench.pythons`): ``"3.12"``,
        ``"3.14t"``."""
        major, minor = self.version.split(".")[:2]
        return f"{major}.{minor}{'t' if self.free_threaded else ''}"


Source = Literal["lock", "project", "resolved"]


class Resolution(msgspec.Struct, frozen=True):
    """Where an environment's packages came from (:mod:`wsbench.envlock`).

    Attributes:
        source: ``"lock"``: its entry in a committed environment lock
            (``impls/<name>/lock.toml``), installed exactly; ``"project"``: the project's
            ``.venv``, installed exactly from ``uv.lock``; ``"resolved"``: no lock lists it
            (a release newer than ``meta.toml`` lists, measured by the nightly), so uv
            resolved it from the registry on the day it was installed.
        sha256: the SHA-256 (hex) of what was installed from: the lock entry
            (:func:`wsbench.envlock.entry_sha256`) or ``uv.lock``; None for ``"resolved"``.
        resolved_on: the day the lock entry was resolved (``YYYY-MM-DD``), or the day a
            ``"resolved"`` environment was installed; None for ``"project"``.
        lock_file: the lock's path in the repository (``"impls/channels/lock.toml"``,
            ``"uv.lock"``); None for ``"resolved"``.
    """

    source: Source
    sha256: str | None = None
    resolved_on: str | None = None
    lock_file: str | None = None


class Environment(msgspec.Struct, frozen=True):
    """The asv environment: its name, its Python (``python``: the full version), why it did
    not install (or null), its interpreter's build, every distribution installed in it and
    where they came from.

    Attributes:
        packages: ``name==version`` of every distribution installed, as ``uv pip freeze``
            prints them (normalized names, sorted); None in documents from before, which
            read as *not recorded*.
        resolution: where they came from (:class:`Resolution`); None in documents from
            before.
    """

    env_name: str
    python: str
    install_error: str | None = None
    interpreter: Interpreter | None = None
    packages: tuple[str, ...] | None = None
    resolution: Resolution | None = None


class Latency(msgspec.Struct, frozen=True):
    """Latency percentiles of one window, seconds: round trips, deliveries, or handshakes.
    ``mean``, ``min`` and ``stdev`` (population standard deviation) come with the fan-out
    scenarios' figures (seed-shaped tables show them); older documents lack them."""

    p50: float
    p90: float
    p99: float
    p99_9: float
    max: float
    mean: float | None = None
    min: float | None = None
    stdev: float | None = None


ERROR_KINDS = (
    "connection_refused",
    "handshake_failed",
    "closed_early",
    "timeout",
    "socketio_connect_error",
    "other",
    "lost",
)
"""The kinds of :attr:`Sample.errors`: the load generator's connection errors
(``loadgen/README.md``) and its lost messages."""


class Spread(msgspec.Struct, frozen=True):
    """Smallest, median and largest of one value over the connections of a window."""

    min: float
    median: float
    max: float


class MemoryStep(msgspec.Struct, frozen=True):
    """The memory scenario at one connection count, read after the settle time.

    Attributes:
        connections: connections open and idle (0: before the first one opened).
        rss_bytes: the server's resident memory (its process tree), bytes.
        kernel_bytes: the kernel's memory that grows with sockets, on the whole machine:
            unreclaimable slab (``SUnreclaim`` in ``/proc/meminfo``: socket structures,
            files, epoll entries) plus TCP socket buffers (``mem`` of ``/proc/net/sockstat``,
            in pages), bytes. A loopback connection has two sockets, so this counts the load
            generator's end too. Null where ``/proc`` does not tell.
    """

    connections: int
    rss_bytes: int
    kernel_bytes: int | None = None


class Sample(msgspec.Struct, frozen=True):
    """One measurement window.

    Attributes:
        process: index of the server process it was measured in (0-based).
        window: index of the window within that process and parameter set (0-based;
            a re-measured disturbed window gets the next index).
        status: ``"ok"``, or ``"failed"`` with ``error``.
        messages_per_s: messages received per second over the window.
        bytes_per_s: payload bytes received per second.
        messages_received: messages received in the window.
        window_s: the window's length, seconds.
        latency_s: round-trip latency percentiles (echo), null for push.
        server_cpu_percent: the server's CPU over the window.
        server_kernel_cpu_percent: the part of it spent in the kernel (system time: system
            calls, and on loopback the TCP processing of what the server sends).
        server_rss_bytes: the server's peak resident memory, bytes.
        loadgen_cpu_percent: the load generator's CPU over the window.
        other_cpu_percent: CPU everything else used on the measured CPUs.
        steal_percent: steal time on the measured CPUs.
        disturbed: other work competed for the CPUs (see :class:`Settings`): the sample is
            kept but left out of every statistic.
        waited_s: seconds the harness waited before this window, a waited retry of a
            parameter set with no usable window yet (:class:`Settings`' ``waited_retries``);
            null for a window measured without a wait.
        connections_ok: connections established (connect scenario: cycles completed in
            the window).
        connections_per_s: connections established per second during the connect phase
            (connect scenario: completed cycles per second over the window).
        handshake_s: TCP connect + WebSocket upgrade (Socket.IO: + namespace connection)
            percentiles, seconds.
        per_connection_messages_per_s: each connection's received messages/s over the
            window: min, median, max (how fairly the server shares itself).
        errors: failed connections and lost messages by kind (``connection_refused``,
            ``handshake_failed``, ``closed_early``, ``timeout``, ``socketio_connect_error``,
            ``other``, ``lost``; see ``loadgen/README.md``) in the many-connection
            scenarios, where they are figures rather than failures.
        rss_idle_bytes: the server's RSS before the connections of the memory scenario.
        rss_held_bytes: its RSS with them all open and idle.
        memory_steps: memory scenario: the server's and the kernel's memory at each
            connection count, in ascending order (:data:`wsbench.scenarios.memory.STEPS`).
        server_rss_growth_bytes: its RSS at the window's end minus at its start.
        offered_per_s: a fixed offered load's rate, messages/s (the offered scenario's
            percentage of capacity resolved; broadcast and market: the publisher's rate).
        published_per_s: broadcast, market: messages published per second in the window
            (``messages_per_s`` are then deliveries per second, ``latency_s`` delivery
            latency from the send, or the intended send at a fixed rate, to each read).
        last_delivery_s: broadcast, market: for each message delivered to every
            subscriber, the latency of the last one to get it.
        order_round_trip_s: market: each order's round trip (send to acknowledgement).
        orders_per_s: market: orders acknowledged per second in the window.
        deflate: in a profile that offers permessage-deflate: what the server agreed to,
            as the load generator read it (e.g. ``"permessage-deflate;
            client_max_window_bits=15"``), null when it declined (and in every other
            profile).
        wire_bytes: where permessage-deflate was agreed: the data frames' payload bytes on
            the wire, both directions, over the load generator's run (warm-up included).
        payload_bytes: the same messages' bytes before compression (``payload_bytes /
            wire_bytes`` is the compression ratio).
        tls: over TLS: the protocol version, cipher suite and key exchange the first
            connection agreed, e.g. ``"TLSv1.3 TLS_AES_256_GCM_SHA384 X25519"``; null over
            plain TCP.
        tcp_connect_s, tls_handshake_s, upgrade_s: over TLS, the three parts of
            ``handshake_s``, which add up to it connection by connection: the TCP connect,
            the TLS handshake, the WebSocket upgrade (Socket.IO: with the session's
            opening); percentiles, seconds.
    """

    process: int
    window: int
    status: Status
    error: str | None = None
    messages_per_s: float | None = None
    bytes_per_s: float | None = None
    messages_received: int | None = None
    window_s: float | None = None
    latency_s: Latency | None = None
    server_cpu_percent: float | None = None
    server_kernel_cpu_percent: float | None = None
    server_rss_bytes: int | None = None
    loadgen_cpu_percent: float | None = None
    other_cpu_percent: float | None = None
    steal_percent: float | None = None
    disturbed: bool = False
    waited_s: float | None = None
    connections_ok: int | None = None
    connections_per_s: float | None = None
    handshake_s: Latency | None = None
    per_connection_messages_per_s: Spread | None = None
    errors: dict[str, int] | None = None
    rss_idle_bytes: int | None = None
    rss_held_bytes: int | None = None
    server_rss_growth_bytes: int | None = None
    memory_steps: tuple[MemoryStep, ...] | None = None
    offered_per_s: float | None = None
    published_per_s: float | None = None
    last_delivery_s: Latency | None = None
    order_round_trip_s: Latency | None = None
    orders_per_s: float | None = None
    deflate: str | None = None
    wire_bytes: int | None = None
    payload_bytes: int | None = None
    tls: str | None = None
    tcp_connect_s: Latency | None = None
    tls_handshake_s: Latency | None = None
    upgrade_s: Latency | None = None

    @property
    def usable(self) -> bool:
        """True when the sample counts in statistics: measured, and not disturbed."""
        return self.status == "ok" and not self.disturbed


ALL_DISTURBED = "every window was disturbed (other work or steal time on the measured CPUs)"
"""Why a benchmark that measured fine has no figure: none of its samples is usable (the
start of :func:`all_disturbed`'s text)."""


def all_disturbed(benchmark: Benchmark) -> str:
    """:data:`ALL_DISTURBED` with what the measured windows of ``benchmark`` read: the range of
    their steal time and other work (percent of one core, summed over the measured CPUs,
    rounded; other work below 0, the kernel's coarse accounting on a quiet machine, reads
    0), how many windows, and how many were measured after a wait and how long those waits
    were in all (:attr:`Sample.waited_s`), e.g. ``"every window was disturbed (...): steal
    8-48 % and other work 0-3 % over 5 windows, 3 of them after waits (7 s in all)"``, and
    the waited retries the run's wait budget left out (:attr:`Benchmark.waits_skipped`), e.g.
    ``"..., 2 waited retries skipped: the run's wait budget was spent"``. A reading no window
    has is left out (memory windows have none), and so are the waits of a document from
    before them."""
    measured = [s for s in benchmark.samples if s.status == "ok"]
    steal = [s.steal_percent for s in measured if s.steal_percent is not None]
    other = [max(0.0, s.other_cpu_percent) for s in measured if s.other_cpu_percent is not None]
    readings = [
        f"{name} {_percent_range(values)} %"
        for name, values in (("steal", steal), ("other work", other))
        if values
    ]
    windows = "window" if len(measured) == 1 else "windows"
    text = f"{ALL_DISTURBED}: " + (" and ".join(readings) + " over " if readings else "")
    text += f"{len(measured)} {windows}"
    waited = [s.waited_s for s in measured if s.waited_s is not None]
    if waited:
        text += f", {len(waited)} of them after waits ({sum(waited):g} s in all)"
    if benchmark.waits_skipped:
        retries = "retry" if benchmark.waits_skipped == 1 else "retries"
        text += f", {benchmark.waits_skipped} waited {retries} skipped: {WAIT_BUDGET_SPENT}"
    return text


def _percent_range(values: Sequence[float]) -> str:
    """``"8-48"`` (smallest and largest, rounded to whole percent), or ``"8"`` when they round
    alike."""
    lo, hi = f"{min(values):.0f}", f"{max(values):.0f}"
    return lo if lo == hi else f"{lo}-{hi}"


class Benchmark(msgspec.Struct, frozen=True):
    """Every sample of one scenario at one parameter set.

    Attributes:
        scenario: ``"echo"`` or ``"stream"``.
        params: e.g. ``{"size_bytes": 16, "in_flight": 64}``.
        status: ``"failed"`` when any window failed (``error`` is the first reason).
        error: why it failed, or null.
        samples: every window, failed and disturbed ones included.
        server_exit_codes: exit code of each server process that served it.
        waits_skipped: waited retries the set was due (every window disturbed) but did not
            get because the run's wait budget was spent (:class:`Settings`'
            ``wait_budget_s``); 0 in documents from before the budget.
    """

    scenario: str
    params: dict[str, int]
    status: Status
    error: str | None
    samples: list[Sample]
    server_exit_codes: list[int | None] = msgspec.field(default_factory=list)
    waits_skipped: int = 0

    def usable(self) -> list[Sample]:
        """The samples statistics are computed from (ok and not disturbed)."""
        return [s for s in self.samples if s.usable]

    @property
    def begun(self) -> bool:
        """Whether the set was measured at all: it failed, or has a sample. A run writes its
        document first with every set and no sample, then again after each window, so a
        run that was interrupted leaves the sets it never reached in this state."""
        return self.status == "failed" or bool(self.samples)

    def finished(self, processes: int) -> bool:
        """Whether the set was measured to the end of a plan of ``processes`` server
        processes: it failed, or has a sample from each of them (each process measures every
        set, :func:`wsbench.instrument.sampling.sample_scenarios`)."""
        return self.status == "failed" or {s.process for s in self.samples} >= set(range(processes))


class CheckItem(msgspec.Struct, frozen=True):
    """One item of the machine's tuning check (:mod:`wsbench.instrument.system`): its name (e.g.
    ``"governor"``), the value read, whether it is as a benchmark machine needs, and why
    not (empty when ok)."""

    name: str
    value: str
    ok: bool
    reason: str = ""


class SystemCheck(msgspec.Struct, frozen=True):
    """The machine's tuning check when the run started: every item, and ``tuned`` when
    every item is ok."""

    items: tuple[CheckItem, ...]
    tuned: bool


class InstructionCount(msgspec.Struct, frozen=True):
    """One count-mode run of the load generator against a server under callgrind.

    Attributes:
        count: the load generator's ``--count`` (messages per connection; fan-out:
            messages published).
        messages: the messages the run carried
            (:func:`wsbench.instrument.instructions.messages_of`).
        instructions: the user-space instructions the server's process tree executed
            during the run.
    """

    count: int
    messages: int
    instructions: int


class FunctionCount(msgspec.Struct, frozen=True):
    """One function's own (exclusive: not its callees') instructions per message in a
    counted set: ``(fn_hi - fn_lo) / (M_hi - M_lo)``, the set's figure
    (:attr:`InstructionSet.per_message`) restricted to the function.

    Attributes:
        name: the function as callgrind names it (the symbol, e.g.
            ``"_PyEval_EvalFrameDefault"``; ``"0x..."`` where the object has no symbols).
            Python functions are not seen by name: their work is the interpreter's.
        file: the file name (no folder) of the object the function is in: the executable,
            ``libpython3.11.so.1.0``, an extension module's ``.so``, ``libc.so.6``; the
            folder is left out, so that the same function matches in two environments.
        per_message: its instructions per message (may be slightly negative for a function
            whose work does not grow with the messages).
    """

    name: str
    file: str
    per_message: float

    @property
    def key(self) -> tuple[str, str]:
        """``(name, file)``: what identifies the function on both sides of a comparison."""
        return (self.name, self.file)


class InstructionSet(msgspec.Struct, frozen=True):
    """The instruction counts of one parameter set: its low and high runs
    (:mod:`wsbench.instrument.instructions`), from which the instructions per message derive.

    Attributes:
        scenario: e.g. ``"echo"``.
        params: e.g. ``{"size_bytes": 16, "in_flight": 64}``.
        status: ``"failed"`` with ``error`` when a run or a dump failed.
        error: why, or null.
        counts: the low run, the high run, and the high run again (its spread).
        functions: the functions with the most instructions per message, most first, at most
            :data:`FUNCTIONS_KEPT` (:func:`wsbench.instrument.instructions.functions_per_message`;
            empty in documents from before they were kept, and in a failed set).
        layouts: the instructions per message in each server process that counted the set,
            each started with its own memory layout
            (:data:`wsbench.results.count_sets.LAYOUTS`); ``counts`` and ``functions``
            are the first process's. Empty in documents from before, counted in one process.
    """

    scenario: str
    params: dict[str, int]
    status: Status
    error: str | None
    counts: list[InstructionCount]
    functions: list[FunctionCount] = msgspec.field(default_factory=list)
    layouts: list[float] = msgspec.field(default_factory=list)

    @property
    def per_message(self) -> float | None:
        """Instructions per message: the mean of :attr:`layouts`, or, in a document without
        them, ``(I_hi - I_lo) / (M_hi - M_lo)`` of the first two counts; None when it failed
        or the messages did not grow."""
        if self.status == "ok" and self.layouts:
            return sum(self.layouts) / len(self.layouts)
        return self.first_per_message

    @property
    def first_per_message(self) -> float | None:
        """The first process's instructions per message: ``(I_hi - I_lo) / (M_hi - M_lo)``
        of the first two counts; None when it failed or the messages did not grow."""
        if self.status != "ok" or len(self.counts) < 2:
            return None
        lo, hi = self.counts[0], self.counts[1]
        if hi.messages <= lo.messages:
            return None
        return (hi.instructions - lo.instructions) / (hi.messages - lo.messages)

    @property
    def spread(self) -> float | None:
        """How far the count moves, relative (0.01 = 1 %): the larger of how far the repeated
        high run's per-message figure is from the first's (``|I_hi2 - I_hi| / (I_hi - I_lo)``
        with the messages' difference accounted for), and the range of :attr:`layouts` over
        their mean. None without a third count. A deterministic server gives 0-0.2 % between
        runs; a server whose work depends on time (threads, polling) more; one whose work
        depends on where its objects lie in memory moves between layouts."""
        first = self.first_per_message
        if first is None or len(self.counts) < 3 or not first:
            return None
        lo, again = self.counts[0], self.counts[2]
        if again.messages <= lo.messages:
            return None
        second = (again.instructions - lo.instructions) / (again.messages - lo.messages)
        runs = abs(second - first) / first
        if len(self.layouts) < 2:
            return runs
        mean = sum(self.layouts) / len(self.layouts)
        return max(runs, (max(self.layouts) - min(self.layouts)) / mean)


class Counting(msgspec.Struct, frozen=True):
    """How instructions were counted; counts made differently are never compared.

    Attributes:
        tool: e.g. ``"valgrind-3.19.0 callgrind"``.
        hash_seed: ``PYTHONHASHSEED`` of the server.
        aslr: whether the server's address space was randomised (never: ``setarch -R``).
        layout_bytes: what the server's command line and environment were padded to a
            multiple of, bytes, so that its stack starts at one address whatever their
            lengths (:func:`wsbench.instrument.server.padded_env`); 0: not padded (documents
            from before, whose counts moved by up to 1 % with those lengths).
        layouts: how many server processes, each with its own memory layout, counted every
            set (:data:`wsbench.results.count_sets.LAYOUTS`); 1 in documents from
            before.
    """

    tool: str
    hash_seed: int
    aslr: bool = False
    layout_bytes: int = 0
    layouts: int = 1


class ConformanceCase(msgspec.Struct, frozen=True):
    """One case of the Autobahn|Testsuite's fuzzing client against the server's ``/echo``
    (:mod:`wsbench.instrument.autobahn`), as the suite's report gives it.

    Attributes:
        id: the suite's case id, e.g. ``"7.1.5"`` (its group is the first number).
        behavior: the suite's verdict: ``"OK"``, ``"NON-STRICT"``, ``"INFORMATIONAL"``,
            ``"UNIMPLEMENTED"`` or ``"FAILED"``.
        behavior_close: the verdict on the closing handshake (``"OK"``, ``"WRONG CODE"``,
            ``"FAILED BY CLIENT"``, ``"UNCLEAN"``, ``"INFORMATIONAL"``...).
        duration_ms: the case's wall time, milliseconds.
        remote_close_code: the close code the server sent, or null.
        description: what the case sends (the suite's text).
        expectation: what it expects.
        result: why it gave ``behavior``.
        result_close: why it gave ``behavior_close``.
        remote_close_reason: the close reason the server sent, or null.
        http_response: the server's opening handshake response (kept for cases that did not
            pass, "" otherwise).
        wirelog: the frames of the case, one line each, up to
            :data:`wsbench.instrument.autobahn.WIRELOG_LINES` (kept for cases that did not
            pass, empty otherwise): the suite's HTML report is regenerated from these.
    """

    id: str
    behavior: str
    behavior_close: str
    duration_ms: int
    remote_close_code: int | None
    description: str
    expectation: str
    result: str
    result_close: str
    remote_close_reason: str | None = None
    http_response: str = ""
    wirelog: list[str] = msgspec.field(default_factory=list)


ConformanceOutcome = Literal["graded", "not applicable", "failed"]


class Conformance(msgspec.Struct, frozen=True):
    """The server's conformance to RFC 6455, graded by the Autobahn|Testsuite
    (``./bench conformance``, :mod:`wsbench.jobs.conformance`).

    Attributes:
        suite: e.g. ``"autobahntestsuite 25.10.1"``.
        route: how the suite ran: ``"Python 2.7.18 virtualenv"`` or ``"docker IMAGE@DIGEST"``.
        cases_selected: the case patterns asked for, e.g. ``["1.*", ..., "10.*"]``.
        outcome: ``"graded"``; ``"not applicable"`` (a Socket.IO configuration: Engine.IO
            frames its messages, the suite speaks plain WebSocket); ``"failed"`` (the
            server did not start or the suite did not finish: ``error`` says why).
        error: the reason of ``"not applicable"`` or ``"failed"``, else null.
        wall_s: seconds the suite ran.
        cases: every case's verdict, in the suite's order.
        not_offered: case groups skipped because the configuration does not offer what
            they test, with why, e.g. ``{"12": "permessage-deflate: compression is off"}``.
    """

    suite: str
    route: str
    cases_selected: list[str]
    outcome: ConformanceOutcome
    error: str | None
    wall_s: float
    cases: list[ConformanceCase] = msgspec.field(default_factory=list)
    not_offered: dict[str, str] = msgspec.field(default_factory=dict)


class ProfiledWindow(msgspec.Struct, frozen=True):
    """The figures of one window of a profiled server process (never a measurement
    sample): with the profiler recording, or without it, before and after, to state the
    profiler's own cost.

    Attributes:
        messages_per_s: the load generator's throughput, or null.
        server_cpu_percent: the server's user+system CPU, percent of one core, or null.
        server_kernel_cpu_percent: its system (kernel) part, or null.
    """

    messages_per_s: float | None
    server_cpu_percent: float | None
    server_kernel_cpu_percent: float | None


class ProfileSet(msgspec.Struct, frozen=True):
    """A CPU profile of the server at one parameter set (:mod:`wsbench.instrument.profile`).

    Attributes:
        scenario: e.g. ``"echo"``.
        params: e.g. ``{"size_bytes": 16, "in_flight": 64}``.
        status: ``"failed"`` with ``error`` when the server, the load generator or the
            profiler failed.
        error: why, or null.
        duration_s: the profiled window, seconds.
        rate_hz: the profiler's samples per second.
        stacks: folded stacks, root first, ``"frame;frame;frame"`` -> samples; a frame is
            ``"function (file:line)"`` (Python) or ``"function (library)"`` (native).
        profiled: the profiled window's figures.
        unprofiled: the same server process's windows without the profiler (before and
            after): the profiler's cost is the profiled rate against theirs.
    """

    scenario: str
    params: dict[str, int]
    status: Status
    error: str | None
    duration_s: float
    rate_hz: int
    stacks: dict[str, int] = msgspec.field(default_factory=dict)
    profiled: ProfiledWindow | None = None
    unprofiled: list[ProfiledWindow] = msgspec.field(default_factory=list)


class Profiling(msgspec.Struct, frozen=True):
    """How the profiles of a document were taken; profiles taken differently are never
    compared.

    Attributes:
        profiler: e.g. ``"py-spy 0.4.3"``.
        native: whether native frames were sampled (the server paused for each sample).
    """

    profiler: str
    native: bool


class Run(msgspec.Struct, frozen=True):
    """One environment's part of a run (see the module's docstring for the shape)."""

    run_id: str
    started_at: str
    finished_at: str | None
    machine: Machine
    harness: Harness
    loadgen: LoadgenBuild
    settings: Settings
    impl: ImplInfo
    environment: Environment
    benchmarks: list[Benchmark]
    format: str = FORMAT
    version: int = VERSION
    system: SystemCheck | None = None
    counting: Counting | None = None
    instructions: list[InstructionSet] = msgspec.field(default_factory=list)
    conformance: Conformance | None = None
    profiling: Profiling | None = None
    profiles: list[ProfileSet] = msgspec.field(default_factory=list)

    @property
    def python(self) -> str:
        """The Python its environment ran, as wsbench names it (:mod:`wsbench.pythons`):
        ``"3.12"``, ``"3.14t"``; from the full version for documents without
        ``environment.interpreter`` (none of which ran a free-threaded build)."""
        if self.environment.interpreter is not None:
            return self.environment.interpreter.python
        return ".".join(self.environment.python.split(".")[:2])

    def comparable_key(self) -> tuple[object, ...]:
        """What must be equal for two runs' figures to share a table or a chart: the
        machine, the load generator build and the settings (:meth:`Settings.comparable`)."""
        return (self.machine.name, self.loadgen, self.settings.comparable())


def encode(run: Run) -> bytes:
    """The run as indented JSON (UTF-8 bytes)."""
    return msgspec.json.format(msgspec.json.encode(run), indent=1) + b"\n"


def decode(data: bytes | str, *, source: str = "<run>") -> Run:
    """Parse and validate a run document.

    Raises:
        FormatError: not JSON, not a ``wsbench-run`` document, a version not in
            :data:`READS` (a newer one is said to be written by a newer wsbench), or a field
            that does not fit the schema (the message names ``source`` and the field).
    """
    try:
        head = msgspec.json.decode(data, type=dict[str, object])
    except msgspec.DecodeError as exc:
        raise FormatError(f"{source}: not a JSON object: {exc}") from exc
    if head.get("format") != FORMAT:
        raise FormatError(f"{source}: not a wsbench run (format {head.get('format')!r})")
    version = head.get("version")
    if version not in READS:
        if isinstance(version, int) and version > VERSION:
            raise FormatError(
                f"{source}: written in run format version {version} by a newer wsbench; "
                f"this wsbench reads versions {READS_TEXT}"
            )
        raise FormatError(
            f"{source}: run format version {version!r}; this wsbench reads versions {READS_TEXT}"
        )
    try:
        return msgspec.json.decode(data, type=Run)
    except msgspec.ValidationError as exc:
        raise FormatError(f"{source}: {exc}") from exc


def load(path: Path) -> Run:
    """Read and validate the run document at ``path``.

    Raises:
        FormatError: see :func:`decode`; also when the file cannot be read.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read: {exc}") from exc
    return decode(data, source=str(path))
