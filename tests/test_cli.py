"""The command line rejects bad input with a clear message and exit code 2."""

from __future__ import annotations

import msgspec
import pytest

from wsbench.commands.cli import main
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


def test_run_with_unknown_environment_or_with_impl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--environment", "uvpip-nosuch", "--no-site"]) == 2
    assert "unknown environment(s) ['uvpip-nosuch']" in capsys.readouterr().err
    assert main(["run", "--environment", "x", "--impl", "websockets", "--no-site"]) == 2
    assert "--environment selects environments by itself" in capsys.readouterr().err


def test_nightly_measure_in_auto_mode_needs_the_results_branch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["nightly", "measure", "--run-id", "20261126T022300Z-cccccc", "--store", "/nonexistent"]
    assert main(argv) == 2
    assert "--matrix auto reads the results branch: give --remote" in capsys.readouterr().err
