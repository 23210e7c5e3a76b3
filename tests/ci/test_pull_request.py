"""What a pull request's change asks to measure, the instruction-count comparison a hosted
runner makes of it, and the profiles of the sets that read slower (the measuring and
profiling themselves stood in for)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from tests.runs import benchmark, counted_set, impl, run, with_counts
from wsbench.ci import pr_conformance, pr_profiles
from wsbench.ci import pull_request as prcompare
from wsbench.ci.confirm import CONFIRM_PLAN
from wsbench.ci.github import COUNTS_MARKER
from wsbench.ci.pull_request import REDUCED_SETS, PrCompareOptions, screening_grids, select
from wsbench.commands.cli import parser
from wsbench.commands.pr_compare import options_of
from wsbench.instrument.autobahn import NoSuiteError
from wsbench.instrument.profile import NoProfilerError
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import commits as commitcompare
from wsbench.jobs.commits import CommitSides
from wsbench.jobs.compare import COMPARISONS
from wsbench.results import store
from wsbench.results.runformat import Interpreter, Run
from wsbench.scenarios import in_grid
from wsbench.scenarios.selection import select as select_sets


def test_a_harness_or_load_generator_change_measures_everything_at_a_reduced_scale() -> None:
    chosen = select(["impls/aiohttp/server.py", "loadgen/src/main.rs", "README.md"])
    assert chosen.everything and chosen.impls == () and not chosen.empty
    assert "loadgen/src/main.rs" in chosen.reason
    assert select(["wsbench/instrument/measure.py"]).everything
    assert select(["pyproject.toml"]).everything and select(["bench"]).everything
    assert not select(["bench.md"]).everything


def test_an_implementation_change_measures_those_implementations() -> None:
    chosen = select(["impls/tornado/server.py", "impls/aiohttp/meta.toml", "site/index.md"])
    assert chosen.impls == ("aiohttp", "tornado") and not chosen.everything


def test_documentation_tests_and_workflows_measure_nothing() -> None:
    chosen = select(["README.md", "tests/test_x.py", ".github/workflows/ci.yml",
                     "impls/PROTOCOL.md", "site/methodology.md"])  # fmt: skip
    assert chosen.empty and "no implementation" in chosen.reason


def _change(
    monkeypatch: pytest.MonkeyPatch, changed: str, measure_commits: Callable[..., CommitSides]
) -> None:
    """Stand-ins for git (a pull request changing ``changed``, its merge base ``m`` x 40,
    each ref resolved to itself x 40) and for the measurement of both commits."""

    def git(*args: str, **_: object) -> str:
        return "m" * 40 if args[0] == "merge-base" else changed

    monkeypatch.setattr(commitcompare, "measure_commits", measure_commits)
    monkeypatch.setattr(commitcompare, "resolve", lambda ref, *_: ref * 40)
    monkeypatch.setattr(commitcompare, "git", git)


def _no_profiler(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """py-spy stood in for as not installed; the list gets the sets each call asked for."""
    asked: list[object] = []

    def no_profiler(commits: object, chosen: object, **kw: object) -> object:
        asked.append(chosen)
        raise NoProfilerError("py-spy is not installed")

    monkeypatch.setattr(pr_profiles, "profile_commits", no_profiler)
    return asked


def _counted(doc: Run, per_message: int) -> Run:
    return with_counts(doc, counted_set(per_message))


@pytest.mark.parametrize(
    ("changed", "impls", "count"),
    [("impls/websockets/server.py", ("websockets",), ()),
     ("wsbench/instrument/measure.py", (), REDUCED_SETS)],
)  # fmt: skip
def test_instructions_only_counts_what_changed_and_writes_its_own_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str, impls: tuple[str, ...],
    count: tuple[str, ...],
) -> None:  # fmt: skip
    asked: dict[str, object] = {}

    def measure_commits(base: str, head: str, **kw: object) -> CommitSides:
        asked.update(kw, base=base, head=head)
        doc = run([], impl_info=impl("websockets", "15.0.1", "asyncio"), benchmarks=[])
        return CommitSides((base, head), [_counted(doc, 80_000)], [_counted(doc, 82_000)],
                           ["aiohttp · asyncio: only on the base"])  # fmt: skip

    _change(monkeypatch, changed, measure_commits)
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path / "store"))
    out = tmp_path / "instructions.md"
    monkeypatch.setattr(prcompare, "run_pythons", lambda names, log: ["3.11", "3.13"])
    args = parser().parse_args(["pr-compare", "--base", "b", "--head", "h",
                                "--instructions-only", "--python", "all",
                                "--markdown", str(out)])  # fmt: skip
    options = options_of(args)
    assert options == PrCompareOptions(base="b", head="h", markdown=out, plan=SamplingPlan(),
                                       instructions_only=True, pythons=("all",))  # fmt: skip
    assert prcompare.run(options) == 0
    assert asked["impls"] == impls and asked["count"] == count
    # every configuration (a harness change) is counted on the default Python only
    assert asked["pythons"] == (["3.11"] if count else ["3.11", "3.13"])
    assert asked["wall_clock"] is False and asked["base"] == "m" * 40
    text = out.read_text()
    assert text.startswith(COUNTS_MARKER + "\n### wsbench: hhhhhhhh against its merge base")
    assert "| websockets · asyncio | echo 16 B x64 | 80,000 | 82,000 | 1.0250 |" in text
    assert "| slower |" in text and "not compared: aiohttp · asyncio: only on the base" in text
    assert "environments (base → head):\n\n- packages: not recorded on either side\n" in text


def test_a_slower_set_is_profiled_on_both_sides_and_a_profiler_that_cannot_run_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fast = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
    info = impl("websockets", "15.0.1", "asyncio")

    def measure_commits(base: str, head: str, **kw: object) -> CommitSides:
        slow = run([r * 0.8 for r in fast], impl_info=info)
        return CommitSides((base, head), [run(fast, impl_info=info)], [slow])

    _change(monkeypatch, "wsbench/instrument/measure.py", measure_commits)
    asked = _no_profiler(monkeypatch)
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path / "store"))
    out = tmp_path / "comment.md"
    options = PrCompareOptions(base="b", head="h", markdown=out)
    assert prcompare.run(options) == 0
    assert asked == [[pr_profiles.Slowed("websockets", "asyncio", "websockets · asyncio", "echo",
                                         {"size_bytes": 16, "in_flight": 64})]]  # fmt: skip
    text = out.read_text()
    assert f"#### {pr_profiles.TITLE}\n\nNot profiled: py-spy is not installed\n" in text
    assert text.index("| slower |") < text.index(pr_profiles.TITLE)
    capsys.readouterr()


def test_the_comment_names_what_differs_between_the_sides_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fast = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
    info = impl("websockets", "15.0.1", "asyncio")
    build = Interpreter("3.11.7", "CPython", False, True, "none", "GCC 12.2.0", ())

    def installed(doc: Run, anyio: str) -> Run:
        packages = (f"anyio=={anyio}", "websockets==15.0.1")
        env = msgspec.structs.replace(doc.environment, packages=packages, interpreter=build)
        return msgspec.structs.replace(doc, environment=env)

    def measure_commits(base: str, head: str, **kw: object) -> CommitSides:
        # The change moved a transitive release in the implementation's lock.
        sides = [installed(run(fast, impl_info=info), v) for v in ("4.15.0", "4.16.0")]
        return CommitSides((base, head), sides[:1], sides[1:])

    _change(monkeypatch, "wsbench/instrument/measure.py", measure_commits)
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path / "store"))
    out = tmp_path / "comment.md"
    assert prcompare.run(PrCompareOptions(base="b", head="h", markdown=out)) == 0
    said = "environments (base → head):\n\n- packages: anyio 4.15.0 → 4.16.0\n"
    assert f"3 no significant change\n\n{said}\n| configuration" in out.read_text()
    printed = capsys.readouterr().out
    assert "3 no significant change\nenvironments (base → head):\n" in printed
    assert "  - packages: anyio 4.15.0 → 4.16.0\n" in printed


FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
X64 = {"size_bytes": 16, "in_flight": 64}
X1 = {"size_bytes": 16, "in_flight": 1}


def _side(config: str, run_id: str, x64: float, x1: float) -> Run:
    """websockets in ``config``: echo 16 B x 64 and x 1 at FAST times ``x64`` and ``x1``."""
    benchmarks = [benchmark("echo", X64, [r * x64 for r in FAST]),
                  benchmark("echo", X1, [r * x1 for r in FAST])]  # fmt: skip
    return run([], run_id=run_id, benchmarks=benchmarks,
               impl_info=impl("websockets", "15.0.1", config))  # fmt: skip


def test_a_change_is_screened_at_the_default_grid_and_what_moved_is_confirmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The screening reads asyncio slower at x 64 (the change) and at x 1 (by chance); the
    # confirmation measures those two sets of asyncio again: slower at x 64 only.
    calls: list[dict[str, object]] = []

    def measure_commits(base: str, head: str, **kw: object) -> CommitSides:
        calls.append(kw)
        run_id = str(kw["run_id"])
        if len(calls) == 1:
            sides = [[_side("asyncio", f"{run_id}-{label}", x64, x1),
                      _side("uvloop", f"{run_id}-{label}", 1, 1)]
                     for label, x64, x1 in (("base", 1, 1), ("head", 0.8, 0.9))]  # fmt: skip
        else:
            sides = [[_side("asyncio", f"{run_id}-{label}", x64, 1)]
                     for label, x64 in (("base", 1), ("head", 0.8))]  # fmt: skip
        return CommitSides((base, head), sides[0], sides[1])

    def no_suite(*args: object, **kw: object) -> object:
        raise NoSuiteError("no Python 2.7 and no Docker")

    _change(monkeypatch, "impls/websockets/server.py", measure_commits)
    profiled = _no_profiler(monkeypatch)
    monkeypatch.setattr(pr_conformance, "grade_commits", no_suite)
    monkeypatch.setenv("WSBENCH_RESULTS", str(tmp_path / "store"))
    out = tmp_path / "comment.md"
    assert prcompare.run(PrCompareOptions(base="b", head="h", markdown=out)) == 0

    screening, confirming = calls
    assert screening["grid"] == select_sets("default", in_grid("default"), ())
    assert screening["grid"] == screening_grids(everything=False)
    assert screening["plan"] == SamplingPlan() and screening["impls"] == ("websockets",)
    assert confirming["grid"] == {"echo": [X64, X1]} and confirming["plan"] is CONFIRM_PLAN
    assert confirming["configs"] == ["asyncio"]
    assert confirming["run_id"] == f"{screening['run_id']}-confirm"
    # Both measurements' documents are kept.
    kept = {d.run_id for d in store.load_store(tmp_path / "store" / COMPARISONS).runs}
    stem = screening["run_id"]
    assert kept == {f"{stem}-base", f"{stem}-head", f"{stem}-confirm-base", f"{stem}-confirm-head"}

    text = out.read_text()
    assert "Screened at the default grid's sets." in text
    assert ("Confirmed (measured again, 8 rounds x 2 windows a side; these sets' verdicts are "
            "the confirmation's):\n\n- websockets · asyncio: echo 16 B x64, echo 16 B x1\n"
            ) in text  # fmt: skip
    assert "3 slower, 9 no significant change" in text
    assert "Screening, 6 rounds x 1 window a side" in text
    assert "any faster or slower verdict in at most 5% of comparisons" in text
    assert " (family " in text  # the confirmed figures' adjusted p-values
    # Only the final slower set is profiled; the grades still run (here: no suite).
    assert profiled == [[pr_profiles.Slowed("websockets", "asyncio", "websockets · asyncio",
                                            "echo", X64)]]  # fmt: skip
    assert "Not graded: no Python 2.7 and no Docker" in text
    assert "3 slower, 9 no significant change" in capsys.readouterr().out
