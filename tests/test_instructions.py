"""Instruction counts under valgrind: the dumps are read and summed, fan-out priming is
counted, a missing valgrind is a recorded failure; and the calibration at small scale: a
server counted twice gives the same figure, and one made about 2 % more expensive per message
is reported slower while the unchanged one is not."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec
import pytest

from tests.conftest import fixture_impl
from tests.runs import impl as impl_info
from tests.runs import run
from wsbench import instructions
from wsbench.instruction_verdicts import compare_counts
from wsbench.instructions import CountError, CountSet, dump_total, messages_of
from wsbench.runformat import Counting, InstructionSet, Run

ECHO = CountSet("echo", {"size_bytes": 16, "in_flight": 1}, 100, 500)
"""A small echo set, ping-pong: 400 round trips between the low and high runs."""
EXTRA_ITERATIONS = 24
"""Loop iterations per message that add about 2 % to the test server's instructions per
message (about 2,560 of about 130,700, measured: 1.96 %)."""


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


def test_a_fanout_run_counts_its_priming_deliveries() -> None:
    assert messages_of({"messages_received": 5000}) == 5000
    fanout = {"messages_received": 1000, "fanout": {"priming_messages": 3, "subscribers": 100}}
    assert messages_of(fanout) == 1300


def test_the_server_runs_without_address_randomisation_under_callgrind(tmp_path: Path) -> None:
    argv = instructions.wrapper(tmp_path)
    assert argv[:3] == ["setarch", "-R", "valgrind"]
    assert "--tool=callgrind" in argv and "--trace-children=yes" in argv
    assert argv[-1] == f"--callgrind-out-file={tmp_path}/callgrind.out.%p"


def test_sets_are_chosen_by_scenario() -> None:
    assert instructions.sets_of() == list(instructions.SETS)
    assert {s.scenario for s in instructions.sets_of(["echo", "stream"])} == {"echo", "stream"}
    assert all(s.hi > s.lo for s in instructions.SETS)


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


def _count(*args: str) -> InstructionSet:
    found = instructions.count_all(fixture_impl("counted_echo", *args), None, [ECHO],
                                   python=sys.executable)  # fmt: skip
    (counted,) = found.instructions
    assert counted.status == "ok", counted.error
    assert [c.messages for c in counted.counts] == [100, 500, 500]
    return counted


def test_calibration_the_same_server_counts_the_same_and_two_percent_more_is_slower() -> None:
    base, again = _count(), _count()
    head = _count("--extra", str(EXTRA_ITERATIONS))
    assert base.per_message and again.per_message and head.per_message
    # A/A: two processes, and the repeated high run in each, within the stated spread.
    assert abs(again.per_message / base.per_message - 1) < 0.002
    assert base.spread is not None and base.spread < 0.003
    assert 1.015 < head.per_message / base.per_message < 1.025

    def doc(name: str, counted: InstructionSet) -> Run:
        return msgspec.structs.replace(
            run([1.0], impl_info=impl_info(name)),
            counting=Counting(instructions.tool(), instructions.HASH_SEED),
            instructions=[counted],
        )

    lines = compare_counts(
        [doc("changed", base), doc("unchanged", base)],
        [doc("changed", head), doc("unchanged", again)],
        match="environment",
    )
    assert {line.row: line.verdict for line in lines} == {
        "changed · asyncio": "slower",
        "unchanged · asyncio": "no significant change",
    }
