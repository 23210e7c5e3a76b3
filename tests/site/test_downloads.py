"""wsbench.site.downloads: every run of the store as JSON (its documents) and CSV (one row
per sample, plus failures), and the column list the Runs and environment page shows."""

from __future__ import annotations

import csv
import io
import json

import msgspec
import pytest

from tests.runs import ECHO_16_64, benchmark, failed, impl, run
from tests.site_runs import CURRENT, OLD_RUN, OTHER_RUN, REFERENCE_RUN, TOO_BIG, UV_FAILURE
from tests.site_runs import site_runs as fixture_runs
from wsbench.results import runformat
from wsbench.results.metrics import METRICS
from wsbench.results.runformat import FormatError, Run
from wsbench.scenarios import PARAM_NAMES
from wsbench.site.downloads import (
    COLUMNS,
    HEADER,
    bundle,
    decode_bundle,
    download_links,
    download_path,
    group_runs,
    render_downloads,
    samples_csv,
    text,
)
from wsbench.site.environment import raw_results

MACHINE = "wsbench-ci"


def _current() -> list[Run]:
    return [d for d in fixture_runs() if d.run_id == CURRENT]


def _rows(data: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(data, newline=""))
    assert reader.fieldnames == list(HEADER)
    return list(reader)


def test_every_run_of_the_store_has_a_json_and_a_csv_file() -> None:
    files = render_downloads(fixture_runs())
    runs = [CURRENT, REFERENCE_RUN, OLD_RUN, OTHER_RUN]  # not only the shown ones
    assert set(files) == {
        f"downloads/{MACHINE}/{run_id}.{ext}" for run_id in runs for ext in ("json", "csv")
    }
    assert isinstance(files[f"downloads/{MACHINE}/{CURRENT}.json"], bytes)
    assert isinstance(files[f"downloads/{MACHINE}/{CURRENT}.csv"], str)
    assert render_downloads([]) == {}
    groups = {(g.machine, g.run_id): len(g.docs) for g in group_runs(fixture_runs())}
    assert groups == {
        (MACHINE, OTHER_RUN): 1,
        (MACHINE, OLD_RUN): 1,
        (MACHINE, REFERENCE_RUN): 1,
        (MACHINE, CURRENT): 12,
    }


def test_the_json_download_is_the_runs_documents_and_decodes_with_the_run_format() -> None:
    docs = _current()
    data = bundle(docs)
    assert decode_bundle(data) == docs
    # A plain JSON array of run documents; each element is one, as runformat reads it.
    items = json.loads(data)
    assert len(items) == 12
    assert {item["format"] for item in items} == {"wsbench-run"}
    assert {item["run_id"] for item in items} == {CURRENT}
    again = [runformat.decode(json.dumps(item).encode()) for item in items]
    assert again == docs
    # The documents as the store writes them.
    assert runformat.encode(docs[0]).rstrip(b"\n") in data


def test_a_broken_json_download_is_a_format_error_naming_the_element() -> None:
    with pytest.raises(FormatError, match="not a JSON array"):
        decode_bundle(b'{"format": "wsbench-run"}', source="x.json")
    with pytest.raises(FormatError, match="not a JSON array"):
        decode_bundle(b"[", source="x.json")
    doc = json.loads(runformat.encode(_current()[0]))
    doc["version"] = 99
    with pytest.raises(
        FormatError, match=r"x\.json\[1\]: written in run format version 99 by a newer wsbench"
    ):
        decode_bundle(json.dumps([json.loads(bundle(_current()[:1]))[0], doc]), source="x.json")


def test_the_csv_has_one_row_per_sample_with_its_values() -> None:
    docs = _current()
    rows = _rows(samples_csv(docs))
    expected = sum(max(len(b.samples), 1) for d in docs for b in d.benchmarks)
    assert len(rows) == expected
    # Row by row, in the documents' order: every value parses back to the sample's.
    pairs = [
        (doc, bench, i, sample)
        for doc in docs
        for bench in doc.benchmarks
        for i, sample in enumerate(bench.samples or [None])
    ]
    assert len(pairs) == len(rows)
    for (doc, bench, i, sample), row in zip(pairs, rows, strict=True):
        assert row["machine"] == MACHINE and row["run_id"] == CURRENT
        assert row["commit"] == doc.harness.commit
        assert row["environment"] == doc.environment.env_name
        assert row["implementation"] == doc.impl.name
        assert row["configuration"] == doc.impl.config
        assert row["version"] == (doc.impl.version or "")
        assert row["scenario"] == bench.scenario
        for name in PARAM_NAMES:
            assert row[name] == str(bench.params.get(name, "")), name
        assert json.loads(row["params"]) == bench.params
        if sample is None:
            assert row["sample"] == row["process"] == row["messages_per_s"] == ""
            continue
        assert row["sample"] == str(i)
        assert (row["process"], row["window"]) == (str(sample.process), str(sample.window))
        assert row["disturbed"] == ("true" if sample.disturbed else "false")
        assert row["usable"] == ("true" if sample.usable else "false")
        for metric in METRICS:
            value = metric.of(sample)
            cell = row[metric.name]
            assert (float(cell) if cell else None) == value, metric.name


def test_the_csv_values_of_one_sample() -> None:
    rows = _rows(samples_csv(_current()))
    aiohttp = [r for r in rows if r["implementation"] == "aiohttp"]
    # Echo 16 B x 1: six windows, then one disturbed window at 9,000 msg/s.
    ping_pong = [
        r
        for r in aiohttp
        if r["scenario"] == "echo" and r["size_bytes"] == "16" and r["in_flight"] == "1"
    ]
    assert [r["sample"] for r in ping_pong] == ["0", "1", "2", "3", "4", "5", "6"]
    assert [(r["process"], r["window"]) for r in ping_pong[:3]] == [
        ("0", "0"),
        ("0", "1"),
        ("1", "0"),
    ]
    last = ping_pong[-1]
    assert (last["disturbed"], last["usable"], last["status"]) == ("true", "false", "ok")
    assert last["messages_per_s"] == "9000"
    assert last["bytes_per_s"] == "144000"
    assert float(last["latency_p50"]) == 1 / 9000
    assert last["latency_p90"] == repr(1.1 / 9000)
    assert last["server_rss_bytes"] == "20000000"
    assert last["loadgen_cpu_percent"] == "40"
    assert last["benchmark_status"] == "ok" and last["benchmark_error"] == ""
    # A stream window has no latency: empty cells.
    push = next(r for r in aiohttp if r["scenario"] == "stream")
    assert push["latency_p50"] == push["latency_max"] == push["in_flight"] == ""


def test_failures_are_rows_with_their_reason() -> None:
    rows = _rows(samples_csv(_current()))
    too_big = [r for r in rows if r["benchmark_error"] == TOO_BIG]
    assert len(too_big) == 1
    row = too_big[0]
    assert (row["implementation"], row["version"], row["scenario"]) == (
        "websockets",
        "15.0.1",
        "echo",
    )
    assert (row["size_bytes"], row["in_flight"]) == ("65536", "64")
    assert (row["benchmark_status"], row["sample"], row["status"]) == ("failed", "", "")
    # An environment that did not install: one row per parameter set, with the reason.
    install = [r for r in rows if r["install_error"]]
    assert len(install) == 9
    assert {r["install_error"] for r in install} == {UV_FAILURE}
    assert {r["benchmark_error"] for r in install} == {UV_FAILURE}
    # Every window disturbed (python-socketio 5.11.4, stream 64 KiB): the windows are rows.
    disturbed = [
        r
        for r in rows
        if r["implementation"] == "python-socketio"
        and r["version"] == "5.11.4"
        and r["scenario"] == "stream"
        and r["size_bytes"] == "65536"
    ]
    assert len(disturbed) == 6 and {r["usable"] for r in disturbed} == {"false"}


def test_a_document_without_benchmarks_is_one_row_only_when_it_failed() -> None:
    broken = run([], impl_info=impl("x", "1.0"), benchmarks=[], install_error="no wheel")
    running = run([], impl_info=impl("y", "1.0"), benchmarks=[])
    rows = _rows(samples_csv([broken, running]))
    assert len(rows) == 1
    assert rows[0]["implementation"] == "x" and rows[0]["install_error"] == "no wheel"
    assert rows[0]["scenario"] == rows[0]["benchmark_status"] == ""


def test_a_failed_window_keeps_its_own_error() -> None:
    bench = benchmark("echo", ECHO_16_64, [100.0, 101.0])
    bad = msgspec.structs.replace(
        bench.samples[1], status="failed", error="lost 3 messages", messages_per_s=None
    )
    bench = msgspec.structs.replace(
        bench, status="failed", error="lost 3 messages", samples=[bench.samples[0], bad]
    )
    rows = _rows(
        samples_csv([run([], benchmarks=[bench, failed("stream", {"size_bytes": 16}, "x")])])
    )
    assert [(r["sample"], r["status"], r["error"], r["messages_per_s"]) for r in rows] == [
        ("0", "ok", "", "100"),
        ("1", "failed", "lost 3 messages", ""),
        ("", "", "", ""),
    ]
    assert [r["benchmark_error"] for r in rows] == ["lost 3 messages", "lost 3 messages", "x"]


def test_cells_paths_and_links() -> None:
    assert [text(v) for v in (None, True, False, 3, 2.0, 0.1, "a")] == [
        "",
        "true",
        "false",
        "3",
        "2",
        "0.1",
        "a",
    ]
    assert download_path("wsbench ci/x", "r1", "csv") == "downloads/wsbench-ci-x/r1.csv"
    assert download_path("..", "r1", "json") == "downloads/--/r1.json"
    with pytest.raises(ValueError, match="unknown download format"):
        download_path("m", "r", "xml")
    assert download_links("m", "r", "../") == (
        "[JSON](../downloads/m/r.json) · [CSV](../downloads/m/r.csv)"
    )


def test_the_column_list_documents_every_column() -> None:
    assert len(set(HEADER)) == len(HEADER)
    assert {m.name for m in METRICS} <= set(HEADER)
    for required in ("machine", "run_id", "commit", "environment", "implementation",
                     "configuration", "version", "scenario", "sample", "process", "window",
                     "disturbed"):  # fmt: skip
        assert required in HEADER, required
    page = raw_results()
    assert "{ #raw-results }" in page
    listed = [line.split(" | ")[0].removeprefix("| ").strip("`") for line in page.splitlines()
              if line.startswith("| `")]  # fmt: skip
    assert listed == list(HEADER)
    units = {c.name: c.unit for c in COLUMNS}
    assert units["messages_per_s"] == "messages/s" and units["latency_p50"] == "s"
    assert units["server_rss_bytes"] == "bytes" and units["size_bytes"] == "bytes"
