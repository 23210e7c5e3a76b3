"""Instructions per message: the server's user-space instructions, counted by valgrind.

Wall-clock figures on a shared or virtual machine vary by 5-11 % between windows; the number
of instructions a server executes for a message does not depend on the machine's noise. Here
the server runs under valgrind's callgrind (``TOOL_ARGS``: the instruction count only, no
cache simulation), its address space not randomised (``setarch -R``) and Python's hash seed
fixed (:data:`HASH_SEED`), so that two runs execute the same instructions. The load
generator runs natively, in count mode (an exact number of messages).

One server process serves every parameter set of :data:`SETS` in turn (a
:class:`CountingSession`), and :data:`LAYOUTS` such processes, each started with its own
memory layout, count them all: where a server's objects lie can move its count by 1 %, a
start-up luck no rerun of one process sees. For each set the load generator runs three
times, each run followed by a dump of the counters (``callgrind_control --dump``, which also
zeroes them):

1. a warm-up run at the low count (first-use costs: imports, caches, a room created);
2. the low count ``lo``;
3. the high count ``hi``;
4. the high count again: how far it lands from the first is the set's spread
   (:attr:`~wsbench.results.runformat.InstructionSet.spread`), which tells a deterministic count
   (0-0.2 % measured) from one that depends on time (threads, polling).

The instructions per message are the mean over the layouts of ``(I_hi - I_lo) /
(M_hi - M_lo)``: ``I`` the instructions
the server's process tree executed during the run, ``M`` the messages the load generator
received (a fan-out scenario's priming messages added, each to every subscriber). What every
run costs alike (connections, handshakes, closes) cancels in the difference. A message is the
one of the scenario's messages/s: an echo round trip, a pushed message, a delivery to one
subscriber of a broadcast, a tick delivered to one market client (with its order and
acknowledgement).

The same difference, function by function, says where those instructions go: the low and
high dumps are read function by function (:func:`function_totals`: each function's own
instructions, summed over the processes) and the
:data:`~wsbench.results.runformat.FUNCTIONS_KEPT` functions with the most instructions per
message are kept (:func:`functions_per_message`,
:attr:`~wsbench.results.runformat.InstructionSet.functions`). They are C functions: the
interpreter's (the work of Python code is ``_PyEval_EvalFrameDefault``'s and its callees'),
the extension modules' and the libraries'. A comparison that says *slower* names the ones
that grew most (:mod:`wsbench.results.function_diff`).

What it does not see (the Methodology page gives the measured sizes): the kernel's work
(system calls, TCP), instruction-level parallelism and cache misses; valgrind runs a
process's threads one at a time; a server that polls while it waits (socketify) counts its
polling, which grows with time rather than with messages.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import msgspec
import psutil
from msgspec.structs import replace as replace_struct

from wsbench.impls import Impl
from wsbench.instrument.cpus import CpuPlacement
from wsbench.instrument.measure import MeasureConfig, ServerSession
from wsbench.instrument.server import LAYOUT_BLOCK_BYTES
from wsbench.loadreport import Report
from wsbench.results.count_sets import LAYOUTS, SETS, CountSet
from wsbench.results.runformat import (
    FUNCTIONS_KEPT,
    Counting,
    FunctionCount,
    InstructionCount,
    InstructionSet,
)
from wsbench.scenarios import selection

LAYOUT_SHIFT_ENV = "WSBENCH_LAYOUT_SHIFT"
"""The environment variable whose length gives each layout after the first its own heap:
Python copies the environment into ``os.environ`` at start-up, so a small string of another
length moves every object allocated after it."""
LAYOUT_SHIFT_BYTES = 24
"""How many bytes longer :data:`LAYOUT_SHIFT_ENV` is in each layout than in the one before
(absent in the first)."""
HASH_SEED = 0
"""``PYTHONHASHSEED`` of a counted server: string hashes, and so the order of sets and
dictionaries' collisions, are the same in every run."""
TOOL_ARGS = (
    "--tool=callgrind",
    "--cache-sim=no",
    "--branch-sim=no",
    "--dump-instr=no",
    "--dump-line=no",
    "--compress-strings=no",
    "--compress-pos=no",
    "--trace-children=yes",
    "--instr-atstart=no",
)
"""valgrind's options: callgrind counting instructions only (it can dump its counters while
the server runs, which cachegrind 3.19 cannot), following every child process, and not
instrumenting until the server is ready (:meth:`CountingSession.__enter__` switches it on):
a server starts about 5 times faster uninstrumented."""
STARTUP_TIMEOUT_S = 300.0
"""Seconds a server under valgrind has to complete its first handshake (it runs 15-50 times
slower than natively)."""
STOP_GRACE_S = 60.0
"""Seconds a server under valgrind has to exit after SIGTERM."""
COUNT_RUN_LIMIT_S = 300.0
"""Seconds one count run (a set's low or high count) has under valgrind. With the usual
limit of about a minute (:attr:`~wsbench.instrument.measure.MeasureConfig.bound_s`), the slowest
servers' pipelined and broadcast sets did not finish."""
DUMP_TIMEOUT_S = 120.0
"""Seconds ``callgrind_control --dump`` has to dump a process's counters."""
DUMP_FILE_PREFIX = "callgrind.out"
"""Dump files are ``<prefix>.<pid>.<n>``: the n-th dump of process ``pid``."""

FunctionKey = tuple[str, str]
"""A function as :func:`function_totals` names it: ``(name, object's file name)``
(:attr:`~wsbench.results.runformat.FunctionCount.key`)."""


class CountError(RuntimeError):
    """Instructions could not be counted (valgrind missing, a dump that did not come)."""


def valgrind_version() -> str:
    """valgrind's version, e.g. ``"valgrind-3.19.0"``.

    Raises:
        CountError: valgrind is not installed (Debian package ``valgrind``).
    """
    program = shutil.which("valgrind")
    if program is None:
        raise CountError("valgrind is not installed (Debian package valgrind): cannot count")
    done = subprocess.run([program, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "valgrind (unknown version)"


def tool() -> str:
    """The counting tool as a run document records it (``Counting.tool``), e.g.
    ``"valgrind-3.19.0 callgrind"``.

    Raises:
        CountError: valgrind is not installed.
    """
    return f"{valgrind_version()} callgrind"


def wrapper(out_dir: Path) -> list[str]:
    """The command a counted server's command line is prefixed with: no address-space
    randomisation, valgrind's callgrind writing its dumps to ``out_dir``."""
    out = out_dir / f"{DUMP_FILE_PREFIX}.%p"
    return ["setarch", "-R", "valgrind", *TOOL_ARGS, f"--callgrind-out-file={out}"]


_TOTALS = re.compile(rb"^(?:totals|summary):\s*(\d+)", re.MULTILINE)


def dump_total(path: Path) -> int:
    """The instructions of one callgrind dump (its ``totals:`` line).

    Raises:
        CountError: the file has no total.
    """
    found = _TOTALS.search(path.read_bytes())
    if found is None:
        raise CountError(f"{path}: no totals line (not a callgrind dump)")
    return int(found.group(1))


_NAMED = re.compile(r"^\((\d+)\)\s*(.*)$")
_RECURSION = re.compile(r"'\d+$")
_SPEC = re.compile(r"^([a-z]+)=(.*)$")
_HEADER = re.compile(r"^([a-z]+):\s*(.*)$")
# The name spaces of callgrind's compressed names: the lines that name an object, a file
# and a function.
_NAME_SPACE = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
               "cfl": "fl", "jfi": "fl", "fn": "fn", "cfn": "fn", "jfn": "fn"}  # fmt: skip


def function_name(name: str) -> str:
    """A function's name without the recursion level callgrind appends to it:
    ``"_PyEval_EvalFrameDefault'2"`` -> ``"_PyEval_EvalFrameDefault"``."""
    return _RECURSION.sub("", name)


def parse_dump(text: str, *, source: str = "<dump>") -> dict[FunctionKey, int]:
    """Each function's own (exclusive) instructions in a callgrind dump's text, by ``(name,
    object's file name)``: the cost lines of each ``fn=`` block, less the line after each
    ``calls=`` (a callee's inclusive cost, which is the callee's own). callgrind names a
    function's recursion levels apart (``_PyEval_EvalFrameDefault'2``, its
    ``--separate-recs``): they are one function here (:func:`function_name`).

    Why not valgrind's ``callgrind_annotate``: it keys a function by source file and name,
    not by object, so it cannot tell a function's object in the two cases that matter
    here: code inlined from another file (``fi=``/``fe=`` lines: printed without an
    object), and two functions of one name in two objects without debug information (the
    static helpers every Cython module has, ``__Pyx_PyObject_Call``..., are one function to
    it, in the last object read). This reads the format as callgrind writes it with
    :data:`TOOL_ARGS` and the format's name compression (``fn=(12) name``, then ``fn=(12)``);
    the test checks it against callgrind_annotate on a real dump.

    Raises:
        CountError: a cost line before any function, a compressed name never defined, or an
            ``Ir`` event missing.
    """
    names: dict[tuple[str, str], str] = {}

    def named(kind: str, value: str) -> str:
        found = _NAMED.match(value)
        if found is None:
            return value
        index, name = found.groups()
        if name:
            names[(_NAME_SPACE[kind], index)] = name
            return name
        try:
            return names[(_NAME_SPACE[kind], index)]
        except KeyError:
            raise CountError(f"{source}: {kind}=({index}) was never named") from None

    positions, column = 1, 0
    obj_file, function = "???", None  # the current object's file name ("???": none named)
    after_call = False
    totals: dict[FunctionKey, int] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line[0].isdigit() or line[0] in "+-*":
            if after_call:  # the call's inclusive cost: the callee's own, counted there
                after_call = False
                continue
            fields = line.split()[positions:]
            if len(fields) > column:
                if function is None:
                    raise CountError(f"{source}: a cost line before any fn= line: {line!r}")
                key = (function, obj_file)
                totals[key] = totals.get(key, 0) + int(fields[column])
            continue
        spec = _SPEC.match(line)
        if spec is not None:
            kind, value = spec.groups()
            if kind in _NAME_SPACE:
                name = named(kind, value)
                if kind == "ob":  # named once here, not on each of its cost lines
                    obj_file = Path(name).name if name else "???"
                elif kind == "fn":
                    function = function_name(name)
            elif kind == "calls":
                after_call = True
            continue  # jump=, jcnd= (jumps are not collected) and what a newer format adds
        header = _HEADER.match(line)
        if header is not None and header[1] == "positions":
            positions = len(header[2].split())
        elif header is not None and header[1] == "events":
            events = header[2].split()
            if "Ir" not in events:
                raise CountError(f"{source}: no Ir event (events: {header[2]})")
            column = events.index("Ir")
    return totals


def function_totals(path: Path) -> dict[FunctionKey, int]:
    """Each function's own (exclusive) instructions in one callgrind dump file, by ``(name,
    object's file name)`` (:func:`parse_dump`).

    Raises:
        CountError: the file is not a dump that :func:`parse_dump` reads, or its functions
            do not add up to its total (:func:`dump_total`): it was not understood.
    """
    found = parse_dump(path.read_bytes().decode("utf-8", "replace"), source=str(path))
    total = dump_total(path)
    if sum(found.values()) != total:
        raise CountError(
            f"{path}: its functions add up to {sum(found.values())} instructions, "
            f"its total is {total}"
        )
    return found


def functions_per_message(
    lo: Mapping[FunctionKey, int],
    hi: Mapping[FunctionKey, int],
    messages: int,
    *,
    keep: int = FUNCTIONS_KEPT,
) -> list[FunctionCount]:
    """Each function's own instructions per message, ``(fn_hi - fn_lo) / messages`` (a
    function missing from a dump executed 0 there), the ``keep`` largest, most first (ties
    by name, then file).

    Args:
        lo, hi: the functions' instructions in the low and the high run
            (:func:`function_totals`, summed over the processes).
        messages: ``M_hi - M_lo``, above 0.

    Raises:
        ValueError: ``messages`` is not above 0.
    """
    if messages <= 0:
        raise ValueError(f"messages between the low and high runs: {messages}, not above 0")
    figures = [
        FunctionCount(name, file, (hi.get((name, file), 0) - lo.get((name, file), 0)) / messages)
        for name, file in {**lo, **hi}
    ]
    figures.sort(key=lambda f: (-f.per_message, f.name, f.file))
    return figures[:keep]


def messages_of(report: Report) -> int:
    """The messages a count-mode run carried, from the load generator's report: messages
    received, plus a fan-out run's priming messages delivered to each subscriber
    (``loadgen/README.md``)."""
    fanout = report.fanout
    primed = fanout.priming_messages * fanout.subscribers if fanout else 0
    return report.messages_received + primed


@dataclass(frozen=True)
class Dump:
    """What one dump of every process of the server counted.

    Attributes:
        instructions: the instructions since the previous dump, summed over the processes.
        functions: each function's own instructions (:func:`function_totals`), summed over
            the processes; empty when they were not read.
    """

    instructions: int
    functions: dict[FunctionKey, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CountedRun:
    """One count-mode run: its count and, when read, its functions (:class:`Dump`)."""

    count: InstructionCount
    functions: dict[FunctionKey, int] = field(default_factory=dict)


class CountingSession:
    """One server process under callgrind that serves every counted parameter set in turn.

    Use it as a context manager: it starts the server (:class:`ServerSession` with
    valgrind's :func:`wrapper`) and stops it at the end, also after a failure.

    Args:
        impl: the implementation.
        config_id: its configuration.
        python: the interpreter of a Python server.
        placement: CPUs of the server and of the load generator.
        label: the server's name in error messages.
        layout: which memory layout the server starts with (0 to :data:`LAYOUTS` - 1;
            :func:`layout_env`).
    """

    def __init__(
        self,
        impl: Impl,
        config_id: str | None,
        *,
        python: str,
        placement: CpuPlacement | None = None,
        label: str | None = None,
        layout: int = 0,
    ) -> None:
        self.impl = impl
        self.config_id = config_id
        self._dir = tempfile.TemporaryDirectory(prefix="wsbench-callgrind-")
        self.out_dir = Path(self._dir.name)
        self.session = ServerSession(
            impl,
            config_id,
            python=python,
            placement=placement,
            label=label,
            startup_timeout_s=STARTUP_TIMEOUT_S,
            wrapper=wrapper(self.out_dir),
            env={"PYTHONHASHSEED": str(HASH_SEED), **layout_env(layout)},
            stop_grace_s=STOP_GRACE_S,
            fixed_layout=True,
        )
        self._dumps: dict[int, int] = {}

    def __enter__(self) -> CountingSession:
        self.session.__enter__()
        if self.session.start_error is None:
            try:
                for pid in self._processes():
                    self._control(pid, "--instr=on")
            except CountError as exc:
                self.session.start_error = str(exc)
        return self

    def _control(self, pid: int, option: str) -> None:
        """``callgrind_control OPTION PID``.

        Raises:
            CountError: it failed (with its output).
        """
        try:
            done = subprocess.run(
                ["callgrind_control", option, str(pid)],
                capture_output=True,
                text=True,
                timeout=DUMP_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CountError(f"{self.impl.name}: callgrind_control {option}: {exc}") from exc
        if done.returncode != 0:
            why = (done.stdout + done.stderr).strip()
            raise CountError(f"{self.impl.name}: callgrind_control {option} {pid}: {why}")

    def __exit__(self, *exc_info: object) -> None:
        self.session.__exit__(*exc_info)
        self._dir.cleanup()

    def _processes(self) -> list[int]:
        """The server's process and its descendants, by pid."""
        try:
            root = psutil.Process(self.session.pid)
            return [root.pid, *(p.pid for p in root.children(recursive=True))]
        except psutil.Error as exc:
            raise CountError(f"{self.impl.name}: the server is gone: {exc}") from exc

    def dump(self, *, functions: bool = False) -> Dump:
        """Dump every process's counters (which zeroes them) and return the instructions
        they counted since the previous dump, summed over the processes; with
        ``functions``, each function's too (:func:`function_totals`).

        Raises:
            CountError: a dump did not come, or could not be read.
        """
        total = 0
        by_function: dict[FunctionKey, int] = {}
        for pid in self._processes():
            self._control(pid, "--dump")
            n = self._dumps.get(pid, 0) + 1
            path = self.out_dir / f"{DUMP_FILE_PREFIX}.{pid}.{n}"
            if not path.exists():
                raise CountError(f"{self.impl.name}: callgrind dump of process {pid}: no file")
            self._dumps[pid] = n
            total += dump_total(path)
            if functions:
                for key, count in function_totals(path).items():
                    by_function[key] = by_function.get(key, 0) + count
            path.unlink()
        return Dump(total, by_function)

    def run(self, config: MeasureConfig, *, functions: bool = False) -> CountedRun:
        """One load generator run of ``config`` (count mode) and the dump after it (with
        ``functions``, read function by function).

        Raises:
            CountError: the run failed (with the reason), or the dump did not come.
        """
        measured = self.session.run(config)
        if measured.status != "ok" or measured.report is None:
            raise CountError(measured.error or "the load generator ran no traffic")
        dumped = self.dump(functions=functions)
        assert config.count is not None
        count = InstructionCount(config.count, messages_of(measured.report), dumped.instructions)
        return CountedRun(count, dumped.functions)

    def count(self, wanted: CountSet) -> InstructionSet:
        """Count ``wanted``: a warm-up run, then its low, high and repeated high runs (the
        module's method), the low and high runs function by function too. Never raises: a
        failure is recorded with its reason."""
        base = count_run(self.impl.name, self.config_id, wanted)
        try:
            if self.session.start_error is not None:
                raise CountError(self.session.start_error)
            self.run(base)  # warm-up; its dump also takes what came before (start-up, the
            # previous set), which is not counted
            lo = self.run(base, functions=True)
            hi = self.run(replace(base, count=wanted.hi), functions=True)
            again = self.run(replace(base, count=wanted.hi)).count
            messages = hi.count.messages - lo.count.messages
            kept = (  # no messages between the runs: no figure (InstructionSet.per_message)
                functions_per_message(lo.functions, hi.functions, messages) if messages > 0
                else []
            )  # fmt: skip
        except (CountError, subprocess.TimeoutExpired) as exc:
            return InstructionSet(wanted.scenario, wanted.params, "failed", str(exc), [])
        counts = [lo.count, hi.count, again]
        return InstructionSet(wanted.scenario, wanted.params, "ok", None, counts, kept)


def layout_env(layout: int) -> dict[str, str]:
    """The variables that start a counted server in memory layout ``layout`` (0: none;
    else :data:`LAYOUT_SHIFT_ENV`, ``layout`` times :data:`LAYOUT_SHIFT_BYTES` long)."""
    return {LAYOUT_SHIFT_ENV: "s" * (layout * LAYOUT_SHIFT_BYTES)} if layout else {}


def merged(per_layout: Sequence[InstructionSet]) -> InstructionSet:
    """One set counted in several layouts, as one: the first layout's counts and functions
    with every layout's instructions per message (:attr:`InstructionSet.layouts`); the first
    failure, its error naming the layout, when one failed."""
    for layout, counted in enumerate(per_layout):
        if counted.per_message is None:
            error = counted.error or "no messages between the two counts"
            why = f"layout {layout + 1} of {len(per_layout)}: {error}" if layout else error
            return replace_struct(counted, status="failed", error=why)
    figures = [c.per_message for c in per_layout if c.per_message is not None]
    return replace_struct(per_layout[0], layouts=figures)


def count_run(impl: str, config_id: str | None, wanted: CountSet) -> MeasureConfig:
    """The load generator run of ``wanted``'s low count (the high count: the same with
    ``count=wanted.hi``): count mode, no warm-up, :data:`COUNT_RUN_LIMIT_S` to finish."""
    base = MeasureConfig.for_params(
        impl, config_id, wanted.scenario, wanted.params, warmup_s=0.0, window_s=1.0
    )
    return replace(base, count=wanted.lo, duration_s=1.0, time_limit_s=COUNT_RUN_LIMIT_S)


class Counted(msgspec.Struct, frozen=True):
    """What :func:`count_all` gives a run document: how it counted (None when valgrind is
    missing) and every set's counts (a failed set with its reason)."""

    counting: Counting | None
    instructions: list[InstructionSet]


def sets_of(scenarios: Sequence[str] = (), params: Sequence[str] = ()) -> list[CountSet]:
    """The sets of :data:`SETS` whose scenario or :attr:`~CountSet.key` is in ``scenarios``
    (e.g. ``["echo"]``, ``["stream/size_bytes=16"]``; empty: every set), narrowed by the
    ``--param`` filters ``params`` (``NAME=V[,V...]``) by the rule the measured sets follow
    (:func:`wsbench.scenarios.selection.narrowed`): ``["size_bytes=16", "in_flight=64"]``
    keeps echo 16 B x64 and not echo 16 B x1, and leaves broadcast, which has no
    ``in_flight``, to its size.

    Raises:
        ParamError: a malformed filter (:func:`wsbench.scenarios.selection.parse_params`).
    """
    wanted = selection.parse_params(params)
    return [
        s
        for s in SETS
        if (not scenarios or s.scenario in scenarios or s.key in scenarios)
        and selection.narrowed([s.params], wanted, selection.switches_of(s.scenario))
    ]


def count_all(
    impl: Impl,
    config_id: str | None,
    sets: Sequence[CountSet],
    *,
    python: str,
    placement: CpuPlacement | None = None,
    layouts: int = LAYOUTS,
) -> Counted:
    """Count ``sets`` (:func:`count_sets`); when valgrind is missing, every set failed with
    that reason. Never raises for a server, load generator or valgrind failure."""
    try:
        counting = Counting(tool(), HASH_SEED, layout_bytes=LAYOUT_BLOCK_BYTES, layouts=layouts)
    except CountError as exc:
        failed = [InstructionSet(s.scenario, s.params, "failed", str(exc), []) for s in sets]
        return Counted(None, failed)
    counted = count_sets(impl, config_id, sets, python=python, placement=placement,
                         layouts=layouts)  # fmt: skip
    return Counted(counting, counted)


def count_sets(
    impl: Impl,
    config_id: str | None,
    sets: Sequence[CountSet] = SETS,
    *,
    python: str,
    placement: CpuPlacement | None = None,
    label: str | None = None,
    layouts: int = LAYOUTS,
) -> list[InstructionSet]:
    """Count every set of ``sets`` in ``layouts`` server processes under callgrind, one after
    the other, each in its own memory layout (:data:`LAYOUTS`), and merge each set's counts
    (:func:`merged`); a failed set is recorded with its reason and the next one counted, and
    when every set failed in one layout the others are not tried. A set of a scenario the
    configuration does not support (:meth:`~wsbench.impls.ImplConfig.refuses`) is recorded
    as failed with that reason, as a measured one is, and never run: no server starts when
    no other set is left. Never raises for a server or load generator failure.

    Raises:
        ImplError: ``impl`` has no configuration ``config_id``.
    """
    config = impl.config(config_id)
    refused = {s.key: why for s in sets if (why := config.refuses(s.scenario)) is not None}
    runnable = [s for s in sets if s.key not in refused]
    per_layout: list[list[InstructionSet]] = []
    for layout in range(layouts if runnable else 0):
        with CountingSession(impl, config_id, python=python, placement=placement, label=label,
                             layout=layout) as c:  # fmt: skip
            per_layout.append([c.count(s) for s in runnable])
        if not any(counted.status == "ok" for counted in per_layout[-1]):
            break  # a server that counted nothing (it did not start) is not started again
    counted = iter([merged(each) for each in zip(*per_layout, strict=True)])
    return [
        InstructionSet(s.scenario, dict(s.params), "failed", refused[s.key], [])
        if s.key in refused
        else next(counted)
        for s in sets
    ]
