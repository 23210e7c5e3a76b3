"""Instruction counts under valgrind: the dumps are read and summed, function by function
too (by callgrind_annotate), fan-out priming is counted, a missing valgrind is a recorded
failure; and the calibration at small scale: a server counted twice gives the same figure,
one made about 4 % more expensive per message is reported slower while the unchanged one is
not, with its extra work's functions on top of the growers, and one that only waits longer
(a blocking sleep per message) is slower by the clock and not by its count."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import sysconfig
from pathlib import Path

import msgspec
import pytest

from tests.conftest import NEVER_DISTURBED, fixture_impl
from tests.reports import report
from tests.runs import impl as impl_info
from tests.runs import run
from wsbench.impls import ImplConfig
from wsbench.instrument import instructions
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.instructions import (
    CountError,
    dump_total,
    function_name,
    function_totals,
    functions_per_message,
    messages_of,
    parse_dump,
)
from wsbench.instrument.interleave import Arm, measure_interleaved
from wsbench.instrument.sampling import SamplingPlan
from wsbench.instrument.server import LAYOUT_BLOCK_BYTES
from wsbench.results.compare import compare_runs, to_text
from wsbench.results.count_sets import LAYOUTS, SETS, CountSet
from wsbench.results.instruction_verdicts import SPREAD_FACTOR, compare_counts
from wsbench.results.instruction_verdicts import to_text as to_text_counts
from wsbench.results.runformat import FUNCTIONS_KEPT, Counting, FunctionCount, InstructionSet, Run
from wsbench.scenarios.selection import ParamError

ECHO = CountSet("echo", {"size_bytes": 16, "in_flight": 1}, 100, 500)
"""A small echo set, ping-pong: 400 round trips between the low and high runs."""
EXTRA_ITERATIONS = 48
"""Loop iterations per message that add about 4 % to the test server's instructions per
message (about 5,200 of about 130,000). The verdict needs the larger of 1 % and three times
the spread of both sides' counts, and the spread between memory layouts depends on the
clone's path (0.01 % in one clone, 0.37 % in another, enough in one CI clone for a 2 %
change to read *no significant change*): 4 % is read *slower* up to a spread of 1.3 %. The
test asks for more than 2 % and less than 8 % (a loop that cost far more would not be the
small change this calibrates), and for the verdict "slower"."""


def test_a_dump_total_is_read(tmp_path: Path) -> None:
    dump = tmp_path / "callgrind.out.1.1"
    dump.write_bytes(b"version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 123\n"
                     b"fn=main\n0 123\ntotals: 123456\n")  # fmt: skip
    assert dump_total(dump) == 123
    dump.write_bytes(b"events: Ir\nfn=main\n0 5\ntotals: 5\n")
    assert dump_total(dump) == 5
    dump.write_bytes(b"not a dump\n")
    with pytest.raises(CountError, match="no totals line"):
        dump_total(dump)


# A callgrind dump in the format callgrind writes with TOOL_ARGS: ``outer`` executes 100
# instructions itself, 50 of code inlined from a header (fi=) and 10 more after; it calls
# ``inner`` 5 times (600 instructions: the callee's, not outer's own); an extension
# module's function without debug information executes 240.
HAND_MADE_DUMP = b"""version: 1
creator: callgrind-3.19.0
pid: 1
cmd: test
part: 1

positions: line
events: Ir
summary: 1000

ob=/usr/lib/libdemo.so.1
fl=/src/demo.c
fn=outer
0 100
cob=/usr/lib/libdemo.so.1
cfl=/src/demo.c
cfn=inner
calls=5 0
0 600
fi=/src/demo.h
0 50
fe=/src/demo.c
0 10

fn=inner
0 600

ob=/env/lib/python3.11/site-packages/pkg/ext.cpython-311-x86_64-linux-gnu.so
fl=???
fn=ext_call
0 240

totals: 1000
"""


def test_a_dump_gives_each_functions_own_instructions_by_object(tmp_path: Path) -> None:
    dump = tmp_path / "callgrind.out.1.1"
    dump.write_bytes(HAND_MADE_DUMP)
    assert function_totals(dump) == {
        ("outer", "libdemo.so.1"): 160,
        ("inner", "libdemo.so.1"): 600,
        ("ext_call", "ext.cpython-311-x86_64-linux-gnu.so"): 240,
    }
    dump.write_bytes(HAND_MADE_DUMP.replace(b": 1000", b": 1001"))  # summary and totals
    with pytest.raises(CountError, match="add up to 1000 instructions, its total is 1001"):
        function_totals(dump)


def test_compressed_names_recursion_levels_and_same_named_functions_of_two_objects() -> None:
    text = (
        "events: Ir\n"
        "ob=(1) /env/a/_parser.so\nfl=(1) ???\nfn=(1) __Pyx_PyObject_Call\n0 7\n"
        "cob=(2) /env/b/_writer.so\ncfn=(1)\ncalls=1 0\n0 30\n"
        "ob=(2)\nfn=(1)\n0 30\n"
        "ob=(1)\nfn=(3) __Pyx_PyObject_Call'2\n0 3\n"
    )
    assert parse_dump(text) == {
        ("__Pyx_PyObject_Call", "_parser.so"): 10,
        ("__Pyx_PyObject_Call", "_writer.so"): 30,
    }
    with pytest.raises(CountError, match=r"fn=\(9\) was never named"):
        parse_dump("events: Ir\nfn=(9)\n0 1\n", source="x")
    with pytest.raises(CountError, match="before any fn= line"):
        parse_dump("events: Ir\n0 1\n")


def _annotated(path: Path) -> dict[str, int]:
    """callgrind_annotate's own instructions per function name (every function, no
    percentages): ``"  1,234  file:function [object]"`` lines."""
    done = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no",
         "--show-percs=no", str(path)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    table = done.stdout.split(" file:function\n", 1)[1].split("\n", 1)[1]
    by_name: dict[str, int] = {}
    for line in table.split("\n\n", 1)[0].splitlines():
        count, where = line.split(maxsplit=1)
        name = function_name(where.split(":", 1)[1].rsplit(" [", 1)[0])
        if count != ".":  # a function that only called others
            by_name[name] = by_name.get(name, 0) + int(count.replace(",", ""))
    return {name: count for name, count in by_name.items() if count}


def test_a_real_dump_reads_as_callgrind_annotate_reads_it(tmp_path: Path) -> None:
    out = tmp_path / "callgrind.out.true"
    args = [a for a in instructions.TOOL_ARGS if a != "--instr-atstart=no"]
    subprocess.run(["valgrind", *args, f"--callgrind-out-file={out}", "true"],
                   check=True, capture_output=True)  # fmt: skip
    found = function_totals(out)  # raises unless the functions add up to the dump's total
    assert any(file.startswith("ld-linux") for _, file in found)
    by_name: dict[str, int] = {}
    for (name, _), count in found.items():
        by_name[name] = by_name.get(name, 0) + count
    assert {name: count for name, count in by_name.items() if count} == _annotated(out)


def test_functions_per_message_are_the_largest_differences_per_message() -> None:
    lo = {("steady", "a.so"): 1_000, ("grows", "a.so"): 2_000, ("gone", "b.so"): 50}
    hi = {("steady", "a.so"): 1_000, ("grows", "a.so"): 10_000, ("new", "b.so"): 400}
    assert functions_per_message(lo, hi, 400) == [
        FunctionCount("grows", "a.so", 20.0),
        FunctionCount("new", "b.so", 1.0),
        FunctionCount("steady", "a.so", 0.0),
        FunctionCount("gone", "b.so", -0.125),
    ]
    assert functions_per_message(lo, hi, 400, keep=1) == [FunctionCount("grows", "a.so", 20.0)]
    with pytest.raises(ValueError, match="not above 0"):
        functions_per_message(lo, hi, 0)


def test_a_fanout_run_counts_its_priming_deliveries() -> None:
    assert messages_of(report(messages_received=5000)) == 5000
    fanout = report(messages_received=1000, fanout={"priming_messages": 3, "subscribers": 100})
    assert messages_of(fanout) == 1300


def test_the_server_runs_without_address_randomisation_under_callgrind(tmp_path: Path) -> None:
    argv = instructions.wrapper(tmp_path)
    assert argv[:3] == ["setarch", "-R", "valgrind"]
    assert "--tool=callgrind" in argv and "--trace-children=yes" in argv
    assert argv[-1] == f"--callgrind-out-file={tmp_path}/callgrind.out.%p"


def test_sets_are_chosen_by_scenario() -> None:
    assert instructions.sets_of() == list(SETS)
    assert {s.scenario for s in instructions.sets_of(["echo", "stream"])} == {"echo", "stream"}
    assert all(s.hi > s.lo for s in SETS)


def test_the_param_filters_narrow_the_counted_sets_as_they_narrow_the_measured_ones() -> None:
    narrowed = instructions.sets_of(["echo", "broadcast"], ["size_bytes=16", "in_flight=64"])
    keys = [s.key for s in narrowed]
    assert keys == [
        "echo/in_flight=64,size_bytes=16",
        "broadcast/rate=0,size_bytes=16,subscribers=100",
    ]
    kept = instructions.sets_of((), ["connections=100"])  # narrows only the clients sets
    assert [s.key for s in kept if s.scenario == "clients"] == [
        "clients/connections=100,in_flight=1,size_bytes=16"
    ]
    assert [s for s in kept if s.scenario != "clients"] == [
        s for s in SETS if s.scenario != "clients"
    ]
    assert instructions.sets_of(["echo"], ["deflate=1"]) == []  # tuned sets only
    with pytest.raises(ParamError, match="size_bytes=x"):
        instructions.sets_of((), ["size_bytes=x"])


def test_without_valgrind_every_set_fails_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    found = instructions.count_all(fixture_impl("counted_echo"), None, [ECHO],
                                   python=sys.executable)  # fmt: skip
    assert found.counting is None
    (failed,) = found.instructions
    assert failed.status == "failed"
    assert "valgrind is not installed (Debian package valgrind)" in (failed.error or "")


def test_a_set_the_configuration_does_not_support_is_refused_and_never_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a measured set is: Robyn's WebSocket class echoes binary frames in Rust, so its
    echo count would be Rust's, not its Python handler's."""
    from tests.runs import counted_set

    started: list[int] = []
    run: list[str] = []

    class Session:
        """A counting session that records what it counts and counts 1,000 per message."""

        def __init__(self, *args: object, layout: int, **kwargs: object) -> None:
            started.append(layout)

        def __enter__(self) -> Session:
            return self

        def __exit__(self, *exc_info: object) -> None:
            return None

        def count(self, wanted: CountSet) -> InstructionSet:
            run.append(wanted.key)
            return msgspec.structs.replace(counted_set(1000), scenario=wanted.scenario,
                                           params=dict(wanted.params))  # fmt: skip

    monkeypatch.setattr(instructions, "CountingSession", Session)
    why = "binary frames are echoed in Rust"
    config = ImplConfig("legacy", "test fixture", "asyncio", unsupported={"echo": why})
    impl = dataclasses.replace(fixture_impl("counted_echo"), configurations=(config,))
    text = CountSet("text", {"size_bytes": 16, "in_flight": 64}, 100, 500)
    json = CountSet("json", {"in_flight": 64}, 100, 500)

    found = instructions.count_sets(impl, "legacy", [text, ECHO, json], python=sys.executable,
                                    layouts=2)  # fmt: skip
    assert [(s.scenario, s.status, s.error) for s in found] == [
        ("text", "ok", None), ("echo", "failed", f"not supported: {why}"), ("json", "ok", None)
    ]  # fmt: skip
    assert [s.per_message for s in found] == [1000, None, 1000]
    assert started == [0, 1] and run == [text.key, json.key] * 2

    started.clear()
    run.clear()
    (refused,) = instructions.count_sets(impl, "legacy", [ECHO], python=sys.executable)
    assert refused.error == f"not supported: {why}" and refused.params == ECHO.params
    assert started == [] and run == []  # no server started for nothing to count


def _count(*args: str, count_set: CountSet = ECHO, layouts: int = LAYOUTS) -> InstructionSet:
    found = instructions.count_all(fixture_impl("counted_echo", *args), None, [count_set],
                                   python=sys.executable, layouts=layouts)  # fmt: skip
    (counted,) = found.instructions
    assert counted.status == "ok", counted.error
    assert found.counting is not None and found.counting.layout_bytes == LAYOUT_BLOCK_BYTES
    assert found.counting.layouts == layouts == len(counted.layouts)
    assert [c.messages for c in counted.counts] == [count_set.lo, count_set.hi, count_set.hi]
    return counted


def _doc(name: str, counted: InstructionSet) -> Run:
    return msgspec.structs.replace(
        run([1.0], impl_info=impl_info(name)),
        counting=Counting(instructions.tool(), instructions.HASH_SEED),
        instructions=[counted],
    )


@pytest.fixture(scope="module")
def echo_count() -> InstructionSet:
    """The test server's count at :data:`ECHO`, unchanged: the base of both calibrations
    (counted once for the module, about 8 s)."""
    return _count()


@pytest.mark.alone  # A/A read 0.24 % (limit 0.2 %) twice with the parallel suite beside it
def test_calibration_the_same_server_counts_the_same_and_four_percent_more_is_slower(
    echo_count: InstructionSet,
) -> None:
    base, again = echo_count, _count(layouts=1)  # the first layout again
    head = _count("--extra", str(EXTRA_ITERATIONS))
    assert base.per_message and again.per_message and head.per_message
    # A/A: two processes in one layout, and the repeated high run in each, within the
    # stated spread.
    assert abs(again.per_message / base.layouts[0] - 1) < 0.002
    added = head.per_message / base.per_message - 1
    assert 0.02 < added < 0.08, f"{added:.2%} more instructions per message"
    # Both sides' spreads (layouts' range, repeated run) are part of what the verdict must
    # exceed: the change is more than SPREAD_FACTOR times the larger.
    assert base.spread is not None and head.spread is not None
    spreads = (base.spread, head.spread)
    assert max(spreads) * SPREAD_FACTOR < added, (
        f"{added:.2%} more; spreads {spreads}; layouts {base.layouts} and {head.layouts}"
    )
    lines = compare_counts(
        [_doc("changed", base), _doc("unchanged", base)],
        [_doc("changed", head), _doc("unchanged", again)],
        match="environment",
    )
    assert {line.row: line.verdict for line in lines} == {
        "changed · asyncio": "slower",
        "unchanged · asyncio": "no significant change",
    }
    # Where the instructions went: the extra work is a Python loop (``for _ in range(n):
    # pass``), so the interpreter's C code, its bytecode loop first, grew most.
    assert len(base.functions) == len(head.functions) == FUNCTIONS_KEPT
    changed = next(line for line in lines if line.row == "changed · asyncio")
    assert (changed.growers[0].name, changed.growers[0].file) == (
        "_PyEval_EvalFrameDefault",
        _interpreter_object(),
    )
    assert {g.file for g in changed.growers} == {_interpreter_object()}
    assert changed.base is not None and changed.head is not None
    assert sum(g.growth for g in changed.growers) > (changed.head - changed.base) / 2
    assert "    +" in to_text_counts([changed])  # printed under the slower line


def _interpreter_object() -> str:
    """The file name of the object the interpreter's C code is in: libpython's in a shared
    build (``libpython3.11.so.1.0``), else the executable's."""
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return str(sysconfig.get_config_var("INSTSONAME"))
    return Path(sys.executable).resolve().name


BLOCK_MS = "2"
"""Milliseconds the test server blocks in ``time.sleep`` before each reply: a wait in the
kernel, which adds about 0.6 % of user-space work per message (775 of 130,249 instructions
at 1 ms, the same in every process measured: the call costs the same whatever it waits).
It was 5 ms: each counted process slept 5.5 s of its 1,100 messages, for the same verdict."""


@pytest.mark.alone
def test_calibration_waiting_longer_is_slower_by_the_clock_and_not_by_the_count(
    echo_count: InstructionSet,
) -> None:
    # Blocking 2 ms per message at 16 B x 1 caps the server under 500 round trips/s
    # instead of 1,300-3,700 (as measured here); the count adds only the sleep call's own
    # instructions.
    # (Nagle's algorithm, the wait this once used, also changes how replies and requests
    # batch, so its count moved -0.3 % to +1.8 % at x 8: Methodology, Instructions per message.)
    base, head = echo_count, _count("--block-ms", BLOCK_MS)
    (line,) = compare_counts([_doc("wait", base)], [_doc("wait", head)], match="environment")
    assert line.verdict == "no significant change", (line.base, line.head, line.spread)

    plan = SamplingPlan(processes=3, windows_per_process=1, warmup_s=0.2, window_s=0.4,
                        max_steal_percent=NEVER_DISTURBED)  # fmt: skip
    arms = [
        fixture_impl("counted_echo", *args, name="wait") for args in ((), ("--block-ms", BLOCK_MS))
    ]
    sides = [[Arm(arm, "default", sys.executable, "wait")] for arm in arms]
    timed = measure_interleaved(
        sides, ["echo"], plan, placement=default_placement(), machine_name="t",
        grids={"echo": [dict(ECHO.params)]},
    )  # fmt: skip
    lines = compare_runs(*timed, metric_names=["messages_per_s", "latency_p50"])
    assert [line.verdict for line in lines] == ["slower", "slower"], to_text(lines, "")


def test_each_layout_after_the_first_starts_with_a_longer_variable() -> None:
    envs = [instructions.layout_env(layout) for layout in range(3)]
    assert envs[0] == {}
    assert [len(e[instructions.LAYOUT_SHIFT_ENV]) for e in envs[1:]] == [
        instructions.LAYOUT_SHIFT_BYTES,
        2 * instructions.LAYOUT_SHIFT_BYTES,
    ]


def test_a_set_merged_over_layouts_keeps_the_first_counts_and_every_figure() -> None:
    from tests.runs import counted_set

    first, second = counted_set(10_000), counted_set(10_300)
    both = instructions.merged([first, second])
    assert both.counts == first.counts and both.functions == first.functions
    assert both.layouts == [first.per_message, second.per_message]
    failed = InstructionSet("echo", {"size_bytes": 16}, "failed", "the server died", [])
    assert instructions.merged([first, failed]).error == "layout 2 of 2: the server died"
    assert instructions.merged([failed, second]).error == "the server died"
    assert instructions.merged([first, failed]).status == "failed"


def test_a_count_run_gets_the_longer_time_limit() -> None:
    first = instructions.count_run("counted_echo", None, ECHO)
    assert first.count == ECHO.lo and first.bound_s == instructions.COUNT_RUN_LIMIT_S
