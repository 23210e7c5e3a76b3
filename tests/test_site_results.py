"""wsbench.site without mkdocs: reading asv's format, merging records, escaping table cells."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from wsbench.site.asvfile import AsvFormatError, load_result_file, parse_param
from wsbench.site.frameworks import load_frameworks
from wsbench.site.pages import resolve_inputs
from wsbench.site.render import cell, render_leaderboard
from wsbench.site.results import Results, load_results

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "site"
MACHINE_DIR = FIXTURE / "results" / "wsbench-ci"


def test_reads_the_same_values_as_asv() -> None:
    """Every figure of every fixture file matches what asv 0.6.6's own reader returns."""
    asv_results = pytest.importorskip("asv.results")
    for path in sorted(MACHINE_DIR.glob("*-*.json")):
        ours = load_result_file(path)
        theirs = asv_results.Results.load(str(path), machine_name="wsbench-ci")
        assert ours.env_name == theirs.env_name
        assert ours.commit == theirs.commit_hash
        assert ours.date_ms == theirs.date
        for name, values in ours.values.items():
            expected = theirs.get_result_value(name, theirs.get_result_params(name))
            assert [v.value for v in values.values()] == expected, name


def test_parameter_combinations_follow_asv_order() -> None:
    ws_env = "uvpip-py3.11-websockets15.0.1-WSBENCH_IMPLwebsockets"
    result = load_result_file(MACHINE_DIR / f"eea2bed8-{ws_env}.json")
    spm = result.values["echo.Echo.track_seconds_per_message"]
    assert list(spm) == [(16, 1), (16, 64), (1024, 1), (1024, 64), (65536, 1), (65536, 64)]
    assert spm[(65536, 64)].state == "failed"
    assert spm[(16, 1)].value == pytest.approx(4e-5)
    assert result.requirements == {"websockets": "15.0.1"}


def test_param_strings_are_reprs() -> None:
    assert parse_param("16") == 16
    assert parse_param("'binary'") == "binary"
    with pytest.raises(AsvFormatError):
        parse_param("object()")


def test_nan_is_skipped_and_newest_file_wins(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(FIXTURE / "results", results)
    path = results / "wsbench-ci" / "eea2bed8-uvpip-py3.11-aiohttp3.13.2-WSBENCH_IMPLaiohttp.json"
    data = json.loads(path.read_text())
    data["results"]["stream.Stream.track_seconds_per_message"][0][0] = math.nan
    path.write_text(json.dumps(data))  # bare NaN, as asv writes it
    loaded = load_results(results, tmp_path / "no-records")
    aiohttp = next(r for r in loaded.runs if r.impl.name == "aiohttp")
    stream16 = next(r for r in aiohttp.rows if r.scenario == "stream")
    assert stream16.params == (("size_bytes", 16),)
    assert stream16.status == "skipped"
    websockets = next(r for r in loaded.runs if r.impl.name == "websockets")
    assert websockets.commit.startswith("eea2bed8")
    assert websockets.rows[0].messages_per_s == pytest.approx(25_000)


def test_malformed_result_file_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    results = tmp_path / "results"
    shutil.copytree(FIXTURE / "results", results)
    (results / "wsbench-ci" / "deadbeef-virtualenv-py3.11-broken.json").write_text("{not json")
    loaded = load_results(results, FIXTURE / "records")
    assert len(loaded.runs) == 3
    assert any("broken" in r.message for r in caplog.records if r.levelname == "WARNING")


def test_without_records_names_come_from_meta_toml_and_flags_from_asv() -> None:
    frameworks = load_frameworks(FIXTURE / "impls")
    loaded = load_results(FIXTURE / "results", Path("/nonexistent"), frameworks)
    aiohttp = next(r for r in loaded.runs if r.impl.name == "aiohttp")
    flagged = [r.params for r in aiohttp.rows if r.client_bound]
    assert flagged == [(("size_bytes", 16), ("in_flight", 64))]
    assert not aiohttp.has_record and aiohttp.environment is None
    assert aiohttp.impl.version == "3.13.2"
    native = loaded.runs[0]
    assert native.impl.reference and native.impl.display_name == "native reference"
    # Without meta.toml either: the WSBENCH_IMPL variable, then the requirement.
    bare = load_results(FIXTURE / "results", Path("/nonexistent"))
    assert {r.impl.name for r in bare.runs} == {"native", "aiohttp", "websockets"}
    assert not any(r.impl.reference for r in bare.runs)


def test_empty_leaderboard_says_so() -> None:
    assert "No results yet" in render_leaderboard("echo", Results())


def test_cells_escape_markdown_and_pipes() -> None:
    assert cell("a | b\nc") == "a &#124; b c"
    assert cell("x*2*_y_ <b>") == r"x\*2\*\_y\_ &lt;b&gt;"


def test_relative_inputs_resolve_against_the_mkdocs_folder(tmp_path: Path) -> None:
    inputs = resolve_inputs(tmp_path, None, {"WSBENCH_RECORDS_DIR": "/abs/records"})
    assert inputs.results_dir == tmp_path / ".asv" / "results"
    assert inputs.records_dir == Path("/abs/records")
    assert inputs.impls_dir == tmp_path / "impls"
    assert inputs.repo_url == "https://github.com/wsbench/wsbench"
