"""The run format: what is written reads back identically; anything else is refused with a
message naming the problem."""

from __future__ import annotations

import json

import msgspec
import pytest

from tests.runs import run
from wsbench.results.runformat import CheckItem, FormatError, SystemCheck, decode, encode


def test_a_run_reads_back_identically() -> None:
    original = run([100.0, 101.0, 99.0])
    assert decode(encode(original)) == original


def test_the_document_is_versioned_json() -> None:
    doc = json.loads(encode(run([100.0])))
    assert doc["format"] == "wsbench-run"
    assert doc["version"] == 2
    assert doc["benchmarks"][0]["samples"][0]["messages_per_s"] == 100.0


def test_a_newer_version_is_refused_saying_so() -> None:
    doc = json.loads(encode(run([100.0])))
    doc["version"] = 3
    with pytest.raises(FormatError) as newer:
        decode(json.dumps(doc), source="x.json")
    assert str(newer.value) == (
        "x.json: written in run format version 3 by a newer wsbench; "
        "this wsbench reads versions 1-2"
    )
    for other in (0, "2", None):
        doc["version"] = other
        with pytest.raises(FormatError) as unknown:
            decode(json.dumps(doc), source="x.json")
        assert str(unknown.value) == (
            f"x.json: run format version {other!r}; this wsbench reads versions 1-2"
        )


def test_a_version_1_document_reads_as_one_without_instruction_counts() -> None:
    doc = json.loads(encode(run([100.0])))
    doc["version"] = 1
    del doc["counting"], doc["instructions"]
    read = decode(json.dumps(doc), source="x.json")
    assert read.version == 1
    assert read.counting is None and read.instructions == []
    assert read.benchmarks == run([100.0]).benchmarks


def test_instruction_counts_read_back_with_their_figures() -> None:
    from wsbench.results.runformat import Counting, InstructionCount, InstructionSet

    counts = [InstructionCount(1000, 1000, 10_000_000), InstructionCount(5000, 5000, 50_000_000),
              InstructionCount(5000, 5000, 50_040_000)]  # fmt: skip
    original = msgspec.structs.replace(
        run([100.0]),
        counting=Counting("valgrind-3.19.0 callgrind", 0),
        instructions=[InstructionSet("echo", {"size_bytes": 16}, "ok", None, counts)],
    )
    read = decode(encode(original))
    assert read == original
    assert read.instructions[0].per_message == 10_000.0
    assert read.instructions[0].spread == 0.001
    failed = InstructionSet("echo", {"size_bytes": 16}, "failed", "boom", [])
    assert failed.per_message is None and failed.spread is None


def test_a_set_counted_in_several_layouts_is_their_mean_and_spreads_over_their_range() -> None:
    from wsbench.results.runformat import InstructionCount, InstructionSet

    counts = [InstructionCount(1000, 1000, 10_000_000), InstructionCount(5000, 5000, 50_000_000),
              InstructionCount(5000, 5000, 50_004_000)]  # fmt: skip
    one = InstructionSet("echo", {"size_bytes": 16}, "ok", None, counts)
    two = msgspec.structs.replace(one, layouts=[10_000.0, 10_200.0])
    assert one.per_message == two.first_per_message == 10_000.0
    assert two.per_message == 10_100.0
    assert one.spread == pytest.approx(0.0001)  # the repeated high run only
    assert two.spread == pytest.approx(200 / 10_100)  # the layouts' range is larger
    assert decode(encode(msgspec.structs.replace(run([1.0]), instructions=[two]))).instructions == [
        two
    ]


def test_a_sets_functions_read_back_and_a_document_from_before_them_reads_without() -> None:
    from tests.runs import counted_set
    from wsbench.results.runformat import Counting, FunctionCount, InstructionSet

    kept = [FunctionCount("_PyEval_EvalFrameDefault", "libpython3.11.so.1.0", 41_234.5),
            FunctionCount("burn", "counted_echo.so", -0.25)]  # fmt: skip
    with_functions = msgspec.structs.replace(counted_set(10_000), functions=kept)
    doc = msgspec.structs.replace(
        run([100.0]), counting=Counting("valgrind-3.19.0 callgrind", 0),
        instructions=[with_functions],
    )  # fmt: skip
    assert decode(encode(doc)) == doc
    assert json.loads(encode(doc))["instructions"][0]["functions"][0] == {
        "name": "_PyEval_EvalFrameDefault",
        "file": "libpython3.11.so.1.0",
        "per_message": 41_234.5,
    }
    older = json.loads(encode(doc))
    del older["instructions"][0]["functions"]
    (read,) = decode(json.dumps(older)).instructions
    assert read.functions == [] and read == counted_set(10_000)
    assert InstructionSet("echo", {}, "failed", "boom", []).functions == []


def test_a_field_of_the_wrong_type_is_named() -> None:
    doc = json.loads(encode(run([100.0])))
    doc["settings"]["processes"] = "three"
    with pytest.raises(FormatError, match=r"x\.json: .*\$\.settings\.processes"):
        decode(json.dumps(doc), source="x.json")


@pytest.mark.parametrize(
    ("text", "message"),
    [("not json", "not a JSON object"), ('{"format": "pyperf"}', "not a wsbench run")],
)
def test_other_files_are_refused(text: str, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        decode(text, source="x.json")


def test_usable_samples_leave_out_disturbed_and_failed_windows() -> None:
    from tests.runs import sample
    from wsbench.results.runformat import Sample

    bench = run([1.0]).benchmarks[0]
    kept = sample(100.0)
    samples = [kept, sample(50.0, disturbed=True), Sample(0, 2, "failed", error="boom")]
    bench = type(bench)(bench.scenario, bench.params, "failed", "boom", samples)
    assert bench.usable() == [kept]


def test_the_tuning_check_reads_back_and_older_documents_without_it_still_read() -> None:
    check = SystemCheck(items=(CheckItem("SMT", "on", False, "siblings"),), tuned=False)
    doc = msgspec.structs.replace(run([1000.0]), system=check)
    assert decode(encode(doc)).system == check
    older = json.loads(encode(doc))
    del older["system"]
    assert decode(json.dumps(older)).system is None


def test_a_document_from_before_the_waited_retries_reads_as_measured_without_waits() -> None:
    from wsbench.results.runformat import Benchmark, Sample, all_disturbed

    doc = json.loads(encode(run([100.0])))
    assert (doc["settings"]["waited_retries"], doc["settings"]["first_wait_s"]) == (0, 0.0)
    assert (doc["settings"]["wait_budget_s"], doc["benchmarks"][0]["waits_skipped"]) == (None, 0)
    del doc["settings"]["waited_retries"], doc["settings"]["first_wait_s"]
    del doc["settings"]["wait_budget_s"], doc["benchmarks"][0]["waits_skipped"]
    del doc["benchmarks"][0]["samples"][0]["waited_s"]
    read = decode(json.dumps(doc))
    assert read == run([100.0]) and read.settings.waits() == ()
    assert read.benchmarks[0].samples[0].waited_s is None
    # What a set with no usable window says: its readings, its windows, its waits.
    stolen = Sample(0, 0, "ok", other_cpu_percent=-6.2, steal_percent=8.4, disturbed=True)
    failed = Sample(0, 1, "failed", error="boom")
    assert all_disturbed(Benchmark("echo", {}, "failed", "boom", [stolen, failed])) == (
        "every window was disturbed (other work or steal time on the measured CPUs): "
        "steal 8 % and other work 0 % over 1 window"
    )
    waited = msgspec.structs.replace(stolen, steal_percent=47.6, waited_s=0.5)
    assert all_disturbed(Benchmark("echo", {}, "ok", None, [stolen, waited])).endswith(
        "steal 8-48 % and other work 0 % over 2 windows, 1 of them after waits (0.5 s in all)"
    )
    # ... and the waited retries the run's wait budget left out.
    skipped = Benchmark("echo", {}, "ok", None, [stolen, waited], waits_skipped=2)
    assert all_disturbed(skipped).endswith(
        "1 of them after waits (0.5 s in all), 2 waited retries skipped: "
        "the run's wait budget was spent"
    )


def test_the_wait_budget_is_policy_so_runs_with_and_without_it_compare() -> None:
    settings = run([100.0]).settings
    budgeted = msgspec.structs.replace(
        settings, retries=2, waited_retries=3, first_wait_s=1.0, wait_budget_s=90.0
    )
    assert budgeted.comparable() == settings.comparable()
    assert msgspec.structs.replace(settings, window_s=2.5).comparable() != settings.comparable()
