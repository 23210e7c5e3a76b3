"""The command line rejects bad input with a clear message and exit code 2."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from tests.runs import newer_version, run, truncated
from wsbench.ci.confirm import CONFIRM_PLAN
from wsbench.commands import calibrate, cli, noise
from wsbench.commands import compare as compare_command
from wsbench.commands.cli import main
from wsbench.commands.options import plan_from_args
from wsbench.instrument.cpus import available_cpus
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs.calibrate import DEFAULT_PLAN as CALIBRATE_PLAN
from wsbench.jobs.compare import CompareOptions
from wsbench.jobs.noise import DEFAULT_PLAN, NoiseOptions
from wsbench.paths import REPO_ROOT
from wsbench.results import store
from wsbench.results.runformat import SystemCheck


def test_unknown_implementation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--impl", "nosuchframework"]) == 2
    err = capsys.readouterr().err
    assert "unknown implementation 'nosuchframework'" in err
    assert "native" in err  # lists the known ones


def test_bad_cpu_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--impl", "native", "--server-cpus", "x-y"]) == 2
    assert "bad CPU list 'x-y'" in capsys.readouterr().err


def test_unknown_option_exits_2() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["measure", "--impl", "native", "--colour", "blue"])
    assert exc.value.code == 2


def test_run_with_unknown_implementation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--impl", "nosuchframework", "--no-site"]) == 2
    assert "unknown implementation 'nosuchframework'" in capsys.readouterr().err


def test_measure_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--impl", "native", "--count", "50", "--in-flight", "8"]) == 0
    out = capsys.readouterr().out
    assert "native · echo · 16 B x8 · binary · 1 connection(s) · 50 messages per connection" in out
    assert "integrity: lost 0, corrupted 0, duplicated 0, out_of_order 0" in out


def test_system_check_prints_every_item_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["system", "check", "--json"]) == 0
    result = msgspec.json.decode(capsys.readouterr().out, type=SystemCheck)
    assert [i.name for i in result.items][:2] == ["governor", "turbo"]
    assert result.tuned == all(i.ok for i in result.items)
    code = main(["system", "check", "--json", "--require-tuned"])
    again = msgspec.json.decode(capsys.readouterr().out, type=SystemCheck)
    assert code == (0 if again.tuned else 1)


def test_system_layout_sizes_the_load_generator_from_the_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.runs import benchmark, impl

    broadcast = benchmark("broadcast", {"subscribers": 100}, [1000.0], loadgen_cpu=90.0)
    store.save(run([], impl_info=impl("picows"), benchmarks=[broadcast]), tmp_path)
    # 90 % of load generator (client-bound) against a server at 99 %: a demand of 91 %, so
    # 5 CPUs for 5x headroom.
    assert main(["system", "layout", "--cores", "12", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "a runner with 12 CPUs: system 0-1, server 2, load generator 3-7 (5 runtime threads)\n"
        "  ./bench run --server-cpus 2 --loadgen-cpus 3-7\n"
        "  multi-CPU profiles (2 CPUs, workers): none, no room for 2 server CPUs and 10 load "
        "generator CPUs (at least 14 cores)\n"
        "  largest demand: 91 % of one core (broadcast subscribers=100 against "
    ), out
    assert main(["system", "check", "--results", str(tmp_path)]) == 0
    here = len(available_cpus())  # the check gives this machine's layout after its items
    assert f"\na runner with {here} CPUs: system " in capsys.readouterr().out
    assert main(["system", "layout", "--cores", "0"]) == 2
    assert "--cores 0: a runner has at least 1 CPU" in capsys.readouterr().out


def test_run_with_unknown_environment_or_with_impl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--environment", "uvpip-nosuch", "--no-site"]) == 2
    assert "unknown environment(s) ['uvpip-nosuch']" in capsys.readouterr().err
    assert main(["run", "--environment", "x", "--impl", "websockets", "--no-site"]) == 2
    assert "--environment selects environments by itself" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--impl", "websockets", "--scenario", "memory", "--no-site"],
        ["compare", "--commits", "main", "HEAD", "--impl", "websockets", "--scenario", "memory"],
    ],
)
def test_a_param_that_selects_nothing_exits_2_before_any_step(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(store.ROOT_ENV, str(tmp_path / "results"))
    assert main([*argv, "--param", "connections=10000"]) == 2
    said = capsys.readouterr()
    assert said.err == (
        "wsbench: no parameter set of memory in the default grid has connections=10000 "
        "(the full grid has it: --grid full)\n"
    )
    assert "[1/5]" not in said.out  # nothing built
    assert not (tmp_path / "results").exists()  # nothing measured


def test_a_param_value_no_grid_has_is_refused_with_the_values_the_grids_have(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--grid", "full", "--param", "connections=5", "--no-site"]) == 2
    assert capsys.readouterr().err == (
        "wsbench: no parameter set of clients, memory or ping in the full grid has "
        "connections=5, nor does any grid (connections: 1000 in the default grid; "
        "1, 10, 100, 1000, 10000 in the full grid)\n"
    )


def test_nightly_measure_in_auto_mode_needs_the_results_branch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["nightly", "measure", "--run-id", "20261126T022300Z-cccccc", "--store", "/nonexistent"]
    assert main(argv) == 2
    assert "--matrix auto reads the results branch: give --remote" in capsys.readouterr().err


BASE, HEAD = "20261126T100000Z-base00", "20261126T110000Z-head00"


@pytest.fixture
def two_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store (``WSBENCH_RESULTS``) with run BASE and run HEAD, head 20 % slower."""
    monkeypatch.setenv(store.ROOT_ENV, str(tmp_path))
    store.save(run([1000.0, 1010.0, 990.0, 1005.0, 995.0, 1000.0], run_id=BASE), tmp_path)
    store.save(run([800.0, 808.0, 792.0, 804.0, 796.0, 800.0], run_id=HEAD), tmp_path)
    return tmp_path


def test_compare_of_stored_runs_fails_on_slower_only_when_asked(
    two_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown = two_runs / "table.md"
    # the sampling options are checked only when measuring: stored runs ignore them
    argv = ["compare", BASE, HEAD, "--metric", "messages_per_s", "--processes", "0"]
    assert main(argv) == 0
    assert f"{BASE} → {HEAD}" in capsys.readouterr().out
    assert main([*argv, "--fail-on-slower", "--markdown", str(markdown)]) == 1
    assert "| slower |" in markdown.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give two run ids, --impl NAME --versions BASE HEAD, or --commits BASE HEAD"),
        (["--versions", "1", "2", "--commits", "a", "b"], "give --versions or --commits"),
        (["--commits", "a", "b", BASE], "--versions and --commits take no run ids"),
        (["--commits", "a", "b", "--processes", "0"], "processes and windows per process"),
        (["--versions", "1", "2"], "--versions needs exactly one --impl"),
        ([BASE, HEAD, "--metric", "colour"], "unknown figure 'colour'"),
    ],
)
def test_compare_rejects_bad_input(
    two_runs: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["compare", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("fault", ["truncated", "newer"])
def test_compare_refuses_a_run_with_a_document_it_cannot_read(
    two_runs: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    doc = run([1.0] * 6, run_id=HEAD, env_name="zz-env")
    bad = store.save(doc, two_runs)
    bad.write_bytes(truncated(doc) if fault == "truncated" else newer_version(doc))
    assert main(["compare", BASE, HEAD]) == 2
    reason = (
        "not a JSON object: Input data was truncated" if fault == "truncated"
        else "written in run format version 3 by a newer wsbench; this wsbench reads versions 1-2"
    )  # fmt: skip
    assert capsys.readouterr().err == f"wsbench: {bad}: {reason}\n"
    # A run of the store that is not compared is not read.
    assert main(["compare", BASE, BASE]) == 0


def test_compare_options_from_the_command_line() -> None:
    args = cli.parser().parse_args(
        ["compare", "--impl", "websockets", "--versions", "13.1", "15.0.1", "--scenario", "echo",
         "--param", "size_bytes=16", "--window", "0.4", "--processes", "0", "--by",
         "configuration", "--instructions"]
    )  # fmt: skip
    assert compare_command.options_of(args) == CompareOptions(
        impl=["websockets"], versions=("13.1", "15.0.1"), scenario=["echo"],
        param=("size_bytes=16",), by="configuration", instructions=True,
        plan=SamplingPlan(processes=0, window_s=0.4),  # not checked: the job does that
    )  # fmt: skip


def test_noise_options_default_to_the_study_and_take_the_window_lengths() -> None:
    assert noise.options_of(cli.parser().parse_args(["noise"])) == NoiseOptions()
    options = noise.options_of(cli.parser().parse_args(
        ["noise", "--server", "native:websocket", "--window", "0.25", "--window", "0.5",
         "--processes", "2", "--scenario", "echo"]
    ))  # fmt: skip
    assert options == NoiseOptions(
        servers=("native:websocket",), window_lengths_s=(0.25, 0.5),
        plan=SamplingPlan(processes=2, windows_per_process=DEFAULT_PLAN.windows_per_process),
        scenarios=("echo",),
    )  # fmt: skip


def test_clients_names_an_unknown_client_before_checking_the_plan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["clients", "--client", "nope", "--processes", "0"]) == 2
    assert "unknown client 'nope'" in capsys.readouterr().err


def test_crosscheck_of_no_run(two_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["crosscheck", "20261126T000000Z-nope00"]) == 2
    assert "no run '20261126T000000Z-nope00'" in capsys.readouterr().err
    assert main(["crosscheck", BASE, "--results", str(two_runs)]) == 2
    assert f"run {BASE} has no counted set" in capsys.readouterr().err


WAITING_COMMAND = """
import sys, time
from wsbench.commands import cli, list_impls


def wait(args):
    print("waiting", flush=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.1)
    return 0


list_impls.run = wait
sys.exit(cli.console(["list"]))
"""
"""``./bench list`` as ``./bench`` runs it (:func:`wsbench.commands.cli.console`), waiting
instead of listing: a command that is busy when the signal comes, with no server. It waits
in short sleeps: a signal that comes after Python last checked for one and before a sleep
begins is handled only when that sleep ends (CI once saw a 60 s sleep outlast the test's
60 s, after a SIGINT sent the moment "waiting" was read)."""


def _as_a_background_job() -> None:
    """A ``preexec_fn``: SIGINT ignored, as a non-interactive shell starts a background job
    (``./bench test &`` in a script)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_a_command_started_as_a_background_job(
    sig: signal.Signals, code: int
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WAITING_COMMAND], cwd=REPO_ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=_as_a_background_job,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert ready == "waiting\n", err
    assert proc.returncode == code, err
    assert f"({sig.name}): what was measured is in the store" in err


def test_a_commands_own_plan_is_its_default_and_what_its_help_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    confirm_args = ["nightly", "confirm", "store", "--run-id", "r"]
    assert plan_from_args(cli.parser().parse_args(confirm_args)) == CONFIRM_PLAN
    given = plan_from_args(cli.parser().parse_args([*confirm_args, "--windows", "1"]))
    assert (given.processes, given.windows_per_process) == (CONFIRM_PLAN.processes, 1)
    assert calibrate.options_of(cli.parser().parse_args(["calibrate"])).plan == CALIBRATE_PLAN
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["nightly", "confirm", "--help"])
    out = capsys.readouterr().out
    assert f"(default {CONFIRM_PLAN.processes})" in out
    assert f"(default {CONFIRM_PLAN.windows_per_process})" in out
    # a value out of range is refused, not replaced by the default
    with pytest.raises(ValueError, match="processes"):
        plan_from_args(cli.parser().parse_args([*confirm_args, "--processes", "0"]))


def test_the_command_line_starts_without_the_heavy_libraries() -> None:
    # every ./bench command, and every test that starts one, pays for what the parser's
    # modules import: scipy.stats alone took 1.2 s, asv 0.25 s; they are imported where used
    heavy = "{'scipy', 'asv', 'matplotlib'}"
    probe = f"import sys, wsbench.commands.cli; print(sorted({heavy} & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_processes_a_command_starts_read_and_write_bytecode_in_the_build_cache(
    tmp_path: Path,
) -> None:
    # A command started where bytecode may not be written beside the sources (as on the
    # development machine) passes the build cache's bytecode folder to what it starts.
    code = ("import os, sys; from wsbench.commands import cli; "
            "cli.main = lambda argv: print(os.environ.get('PYTHONDONTWRITEBYTECODE'), "
            "os.environ.get('PYTHONPYCACHEPREFIX')) or 0; sys.exit(cli.console([]))")  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "WSBENCH_CACHE": str(tmp_path)}
    quiet = {**env, "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                         text=True, check=True, env=quiet)  # fmt: skip
    assert out.stdout.split() == ["None", str(tmp_path / "pycache")]
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                         text=True, check=True, env=env)  # fmt: skip
    assert out.stdout.split() == ["None", "None"]  # bytecode beside the sources: left alone
