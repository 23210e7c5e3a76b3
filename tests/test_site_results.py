"""wsbench.site without mkdocs: reading asv's format, merging records, escaping table cells."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from wsbench.site.asvfile import AsvFormatError, load_result_file, parse_param
from wsbench.site.frameworks import load_frameworks
from wsbench.site.markup import cell, first_line, short_reason
from wsbench.site.pages import expand_nav, resolve_inputs
from wsbench.site.render import render_leaderboard
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
    assert len(loaded.runs) == 12
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
    # Configured environments: WSBENCH_IMPL and WSBENCH_CONFIG name the row as the harness
    # does; the protocol comes from meta.toml.
    starlette = {
        (r.impl.config, r.impl.version): r.impl for r in loaded.runs if r.impl.name == "starlette"
    }
    wsproto = starlette[("wsproto-asyncio", "1.10.0")]
    assert wsproto.row_name == "Starlette · uvicorn 0.54 · wsproto · asyncio"
    assert not wsproto.socketio
    socketio = [r.impl for r in loaded.runs if r.impl.name == "python-socketio"]
    assert [i.row_name for i in socketio] == [
        "python-socketio · uvicorn 0.32 · asyncio",
        "python-socketio · uvicorn 0.54 · asyncio",
    ]
    assert all(i.socketio for i in socketio)
    # Old environments (no WSBENCH_CONFIG): no configuration, named by the display name.
    assert aiohttp.impl.config is None and aiohttp.impl.row_name == "aiohttp"
    # Without meta.toml either: the WSBENCH_IMPL variable, then the requirement.
    bare = load_results(FIXTURE / "results", Path("/nonexistent"))
    assert {r.impl.name for r in bare.runs} == {
        "native",
        "aiohttp",
        "websockets",
        "starlette",
        "python-socketio",
    }
    assert not any(r.impl.reference for r in bare.runs)
    assert "starlette · wsproto-asyncio" in {r.impl.label for r in bare.runs}


def test_records_name_rows_per_configuration_and_keep_install_failures() -> None:
    loaded = load_results(FIXTURE / "results", FIXTURE / "records")
    rows = {(r.impl.label, r.impl.version): r for r in loaded.runs}
    assert ("Starlette · uvicorn 0.34 · websockets · uvloop", "0.46.2") in rows
    assert ("Starlette · uvicorn 0.34 · websockets · asyncio", "0.46.2") in rows
    failed = rows[("Starlette · uvicorn 0.29 · websockets · uvloop", "0.37.2")]
    assert failed.impl.config == "websockets-uvloop"
    assert {r.status for r in failed.rows} == {"failed"}
    assert all((r.error or "").startswith("does not install: ") for r in failed.rows)
    # Runs sort by display name, then row name, then version.
    names = [r.impl.label for r in loaded.runs if r.impl.name == "starlette"]
    assert names[0] == "Starlette · uvicorn 0.29 · websockets · asyncio"
    assert rows[("websockets", "15.0.1")].impl.config is None  # a record from before configs


def test_empty_leaderboard_says_so() -> None:
    assert "No results yet" in render_leaderboard("echo", Results())


def test_cells_escape_markdown_and_pipes() -> None:
    assert cell("a | b\nc") == "a &#124; b c"
    assert cell("x*2*_y_ <b>") == r"x\*2\*\_y\_ &lt;b&gt;"


def test_long_reasons_keep_their_first_and_last_lines() -> None:
    reason = (
        "does not install: 'uv pip install x==1' failed:\n" + "noise " * 100 + "\ncause: no x==1"
    )
    short = short_reason(reason, 120)
    assert short.startswith("does not install: 'uv pip install x==1' failed:")
    assert short.endswith("cause: no x==1")
    assert " … " in short
    assert short_reason("short reason\non two lines") == "short reason on two lines"
    assert first_line(reason) == "does not install: 'uv pip install x==1' failed: …"
    assert first_line("one line") == "one line"


def test_nav_lists_every_framework_page_under_the_index() -> None:
    frameworks = load_frameworks(FIXTURE / "impls")
    nav = [{"Home": "index.md"}, {"Frameworks": ["frameworks/index.md"]}, {"M": "m.md"}]
    expanded = expand_nav(nav, frameworks)
    assert expanded[0] == nav[0] and expanded[2] == nav[2]
    section = expanded[1]["Frameworks"]
    assert section[0] == "frameworks/index.md"
    assert section[1:] == [
        {"native reference": "frameworks/native.md"},
        {"aiohttp": "frameworks/aiohttp.md"},
        {"python-socketio": "frameworks/python-socketio.md"},
        {"Starlette": "frameworks/starlette.md"},
        {"websockets": "frameworks/websockets.md"},
    ]


def test_frameworks_read_configurations_through_the_harness() -> None:
    starlette = next(f for f in load_frameworks(FIXTURE / "impls") if f.name == "starlette")
    assert [c.id for c in starlette.configs] == [
        "websockets-asyncio",
        "websockets-uvloop",
        "wsproto-asyncio",
    ]
    wsproto = starlette.configs[2]
    assert wsproto.versions == ("1.10.0",)
    assert wsproto.requires == ("wsproto==1.3.2",)
    assert wsproto.row_name == "Starlette · uvicorn · wsproto · asyncio"
    assert starlette.configs[1].versions == ("0.37.2", "0.46.2", "1.10.0")
    assert starlette.row_name("websockets-uvloop", "0.46.2") == (
        "Starlette · uvicorn 0.34 · websockets · uvloop"
    )
    assert starlette.row_name("no-such-config", "0.46.2") is None
    assert starlette.versions[0].requires == ("uvicorn==0.29.0", "websockets==12.0")


def test_a_meta_toml_breaking_the_schema_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copytree(FIXTURE / "impls" / "aiohttp", tmp_path / "aiohttp")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "meta.toml").write_text('name = "bad"\nprotocol = "carrier-pigeon"\n')
    assert [f.name for f in load_frameworks(tmp_path)] == ["aiohttp"]
    assert any("carrier-pigeon" in r.message for r in caplog.records)


def test_relative_inputs_resolve_against_the_mkdocs_folder(tmp_path: Path) -> None:
    inputs = resolve_inputs(tmp_path, None, {"WSBENCH_RECORDS_DIR": "/abs/records"})
    assert inputs.results_dir == tmp_path / ".asv" / "results"
    assert inputs.records_dir == Path("/abs/records")
    assert inputs.impls_dir == tmp_path / "impls"
    assert inputs.repo_url == "https://github.com/wsbench/wsbench"
