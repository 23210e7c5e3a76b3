"""The nightly's publishing steps against a local bare repository standing in for GitHub:
a second run adds to the history and loses nothing, untuned runs are refused unless
allowed, a document is never replaced by a different one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import msgspec
import pytest

from tests.runs import impl, newer_version, run, truncated, with_grade
from wsbench.asv.conf import bench_envs
from wsbench.ci import matrix, nightly
from wsbench.ci.confirm import CONFIRMATIONS
from wsbench.ci.matrix import NEW_GROUP
from wsbench.ci.nightly import (
    AllOptions,
    MeasureOptions,
    NightlyError,
    confirm_shard,
    file_issues,
    older_versions_due,
    other_pythons_due,
    plan_outputs,
    publish,
    split_pythons,
    without_selection,
    write_reports,
)
from wsbench.commands.cli import parser
from wsbench.commands.nightly import all_options_of, given_plan_options, measure_options_of
from wsbench.impls import get_impl
from wsbench.instrument.interpreters import InterpreterNotFound
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import selection as jobs_selection
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results import store
from wsbench.results.regressions import Regression
from wsbench.results.runformat import CheckItem, ProfileSet, Profiling, Run, SystemCheck

TUNED = SystemCheck(items=(CheckItem("governor", "performance", True),), tuned=True)
UNTUNED = SystemCheck(items=(CheckItem("governor", "powersave", False, "x"),), tuned=False)


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _shard(root: Path, run_id: str, system: SystemCheck | None, rate: float = 1000.0) -> Path:
    doc: Run = msgspec.structs.replace(run([rate] * 6, run_id=run_id), system=system)
    store.save(doc, root)
    return root


def _branch_files(remote: Path, tmp: Path, name: str) -> list[str]:
    clone = tmp / name
    _git("clone", "--quiet", "--branch", "results", str(remote), str(clone), cwd=tmp)
    return sorted(p.relative_to(clone).as_posix() for p in clone.rglob("*.json"))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    _git("init", "--quiet", "--bare", str(bare), cwd=tmp_path)
    return bare


def test_publishing_twice_keeps_the_first_run(tmp_path: Path, remote: Path) -> None:
    first = _shard(tmp_path / "s1", "20261124T020000Z-aaaaaa", TUNED)
    publish([first], remote=str(remote), branch="results", store_dir=tmp_path / "c1",
            allow_untuned=False)  # fmt: skip
    second = _shard(tmp_path / "s2", "20261125T020000Z-bbbbbb", TUNED)
    publish([second], remote=str(remote), branch="results", store_dir=tmp_path / "c2",
            allow_untuned=False)  # fmt: skip
    files = _branch_files(remote, tmp_path, "check")
    assert [f.split("/")[1] for f in files] == [
        "20261124T020000Z-aaaaaa",
        "20261125T020000Z-bbbbbb",
    ]
    log = _git("log", "--format=%s", "results", cwd=remote)
    assert log.splitlines() == [
        "nightly 20261125T020000Z-bbbbbb: 1 documents",
        "nightly 20261124T020000Z-aaaaaa: 1 documents",
    ]


def test_two_shards_of_one_run_are_merged(tmp_path: Path, remote: Path) -> None:
    a = _shard(tmp_path / "a", "20261124T020000Z-aaaaaa", TUNED)
    b = tmp_path / "b"
    doc = msgspec.structs.replace(
        run([900.0] * 6, run_id="20261124T020000Z-aaaaaa", env_name="other-env"), system=TUNED
    )
    store.save(doc, b)
    publish([a, b], remote=str(remote), branch="results", store_dir=tmp_path / "c",
            allow_untuned=False)  # fmt: skip
    assert len(_branch_files(remote, tmp_path, "check")) == 2


def test_an_untuned_run_is_refused_unless_allowed(tmp_path: Path, remote: Path) -> None:
    shard = _shard(tmp_path / "s", "20261124T020000Z-aaaaaa", UNTUNED)
    with pytest.raises(NightlyError, match=r"untuned machine(.|\n)*governor"):
        publish([shard], remote=str(remote), branch="results", store_dir=tmp_path / "c1",
                allow_untuned=False)  # fmt: skip
    assert _git("branch", "--list", cwd=remote) == ""
    publish([shard], remote=str(remote), branch="results", store_dir=tmp_path / "c2",
            allow_untuned=True)  # fmt: skip
    assert len(_branch_files(remote, tmp_path, "check")) == 1


def test_a_different_document_of_the_same_name_is_refused(tmp_path: Path, remote: Path) -> None:
    run_id = "20261124T020000Z-aaaaaa"
    publish([_shard(tmp_path / "s1", run_id, TUNED)], remote=str(remote), branch="results",
            store_dir=tmp_path / "c1", allow_untuned=False)  # fmt: skip
    changed = _shard(tmp_path / "s2", run_id, TUNED, rate=5.0)
    with pytest.raises(NightlyError, match="a different document of this name exists"):
        publish([changed], remote=str(remote), branch="results", store_dir=tmp_path / "c2",
                allow_untuned=False)  # fmt: skip


def test_malformed_or_missing_documents_are_not_published(tmp_path: Path, remote: Path) -> None:
    bad = tmp_path / "bad" / "m" / "20261124T020000Z-aaaaaa"
    bad.mkdir(parents=True)
    (bad / "x.json").write_text("{")
    with pytest.raises(NightlyError, match=f"^not published, unreadable documents: {bad}/x.json: "):
        publish([tmp_path / "bad"], remote=str(remote), branch="results",
                store_dir=tmp_path / "c1", allow_untuned=True)  # fmt: skip
    with pytest.raises(NightlyError, match="no run document"):
        publish([tmp_path / "empty"], remote=str(remote), branch="results",
                store_dir=tmp_path / "c2", allow_untuned=True)  # fmt: skip


def test_an_unreadable_confirmation_is_not_published(tmp_path: Path, remote: Path) -> None:
    run_id = "20261124T020000Z-aaaaaa"
    shard = _shard(tmp_path / "s", run_id, TUNED)
    doc = run([1.0] * 6, run_id=f"{run_id}-confirm-head")
    bad = store.save(doc, shard / CONFIRMATIONS)
    bad.write_bytes(newer_version(doc))
    # The confirmations decide the reports: one left out would drop a regression silently.
    with pytest.raises(NightlyError) as refused:
        publish([shard], remote=str(remote), branch="results", store_dir=tmp_path / "c",
                allow_untuned=False)  # fmt: skip
    assert str(refused.value) == (
        f"not published, unreadable documents: {bad}: written in run format version 3 by a "
        "newer wsbench; this wsbench reads versions 1-2"
    )
    assert _git("branch", "--list", cwd=remote) == ""


def test_an_unreadable_document_on_the_branch_is_named_and_carried_along(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    publish([_shard(tmp_path / "s1", "20261124T020000Z-aaaaaa", TUNED)], remote=str(remote),
            branch="results", store_dir=tmp_path / "c1", allow_untuned=False)  # fmt: skip
    newer = run([1.0] * 6, run_id="20261124T030000Z-eeeeee")
    name = store.run_path(Path(), machine="m", run_id=newer.run_id, commit="c" * 8,
                          env_name=newer.environment.env_name)  # fmt: skip
    (tmp_path / "c1" / name).parent.mkdir(parents=True)
    (tmp_path / "c1" / name).write_bytes(newer_version(newer))
    _git("add", "--all", cwd=tmp_path / "c1")
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "newer", cwd=tmp_path / "c1")
    _git("push", "--quiet", "origin", "HEAD:results", cwd=tmp_path / "c1")
    capsys.readouterr()
    publish([_shard(tmp_path / "s2", "20261125T020000Z-bbbbbb", TUNED)], remote=str(remote),
            branch="results", store_dir=tmp_path / "c2", allow_untuned=False)  # fmt: skip
    err = capsys.readouterr().err
    assert err == (
        f"nightly: on results, carried along unchanged, unreadable: {tmp_path / 'c2' / name}: "
        "written in run format version 3 by a newer wsbench; this wsbench reads versions 1-2\n"
    )
    files = _branch_files(remote, tmp_path, "check")
    assert [f.split("/")[1] for f in files] == [
        "20261124T020000Z-aaaaaa", "20261124T030000Z-eeeeee", "20261125T020000Z-bbbbbb"
    ]  # fmt: skip
    assert (tmp_path / "check" / name).read_bytes() == newer_version(newer)


def test_confirm_refuses_a_store_it_cannot_read(tmp_path: Path) -> None:
    run_id = "20261124T020000Z-aaaaaa"
    doc = run([1.0] * 6, run_id=run_id)
    bad = store.save(doc, tmp_path)
    bad.write_bytes(truncated(doc))
    with pytest.raises(NightlyError, match=f"^nothing confirmed, unreadable documents: {bad}: "):
        confirm_shard(tmp_path, run_id, SamplingPlan())
    assert not (tmp_path / CONFIRMATIONS).exists()


def test_plan_gives_a_run_id_and_the_shards() -> None:
    text = plan_outputs(3)
    head, pythons = text.split("pythons<<WSBENCH_PYTHONS_END\n")
    lines = dict(line.split("=", 1) for line in head.splitlines())
    assert store.RUN_ID_PATTERN.fullmatch(lines["run_id"])
    assert json.loads(lines["shards"]) == [1, 2, 3] and lines["count"] == "3"
    assert lines["python"] == DEFAULT_PYTHON
    assert pythons == "3.12\n3.13\n3.14\n3.14t\nWSBENCH_PYTHONS_END\n"
    with pytest.raises(NightlyError):
        plan_outputs(0)


def test_reports_name_only_files_of_their_folder(tmp_path: Path) -> None:
    found = [Regression("websockets", "99.0", "17.4", "Benchmark regression: websockets 99.0", "B")]
    write_reports(found, tmp_path / "r")
    index = json.loads((tmp_path / "r" / "reports.json").read_text())
    assert index == [{"title": found[0].title, "body_file": "000-websockets-99.0.md"}]
    (tmp_path / "r" / "reports.json").write_text(
        json.dumps([{"title": "T", "body_file": "../../etc/passwd"}])
    )
    with pytest.raises(NightlyError, match="is not in"):
        file_issues(tmp_path / "r", "o/r", gh="/bin/false")


def _websockets(version: str, rates: list[float], run_id: str, root: Path) -> None:
    ws = get_impl("websockets")
    info = msgspec.structs.replace(impl("websockets", version, "asyncio"),
                                   display_name=ws.display_name)  # fmt: skip
    doc = run(rates, run_id=run_id, impl_info=info, env_name=f"ws-{version}-asyncio")
    store.save(msgspec.structs.replace(doc, system=TUNED), root)


def test_a_regression_is_reported_only_when_its_confirmation_holds(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, last = "20261124T020000Z-aaaaaa", get_impl("websockets").versions[-1].version
    fast = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
    slow = [r * 0.8 for r in fast]
    found = {}
    for name, again in (("held", slow), ("not-held", fast)):
        shard = tmp_path / name
        _websockets(last, fast, run_id, shard)
        _websockets("99.0", slow, run_id, shard)
        _websockets(last, fast, f"{run_id}-confirm-base", shard / CONFIRMATIONS)
        _websockets("99.0", again, f"{run_id}-confirm-head", shard / CONFIRMATIONS)
        found[name] = publish(
            [shard], remote=str(remote), branch="results", store_dir=tmp_path / f"c-{name}",
            allow_untuned=False, reports=tmp_path / f"r-{name}",
        )  # fmt: skip
    out = capsys.readouterr().out
    assert [r.title for r in found["held"]] == ["Benchmark regression: websockets 99.0"]
    assert "interleaved confirmation: 3 slower figure(s) confirmed" in out
    assert found["not-held"] == [] and "interleaved confirmation: not confirmed" in out
    index = json.loads((tmp_path / "r-held" / "reports.json").read_text())
    body = (tmp_path / "r-held" / index[0]["body_file"]).read_text()
    assert "confirmation (interleaved)" in body and "the nightly run" in body
    # Beside the verdicts, what else differs between the releases' environments: these
    # documents (the night's and the confirmation's) do not record their packages.
    besides = f"environments (base → head), besides websockets {last} → 99.0 (the compared"
    besides += " package):"
    assert f"{besides}\n\n- packages: not recorded on either side\n" in body
    assert f"3 slower\n{besides}\n  - packages: not recorded on either side\n" in out
    assert json.loads((tmp_path / "r-not-held" / "reports.json").read_text()) == []


def test_confirm_gets_the_sampling_options_given_to_the_run() -> None:
    argv = ["--impl", "x", "--windows", "2", "--window", "0.2", "--machine", "m"]
    assert given_plan_options(argv) == ["--windows", "2", "--window", "0.2"]
    assert given_plan_options(["--impl", "x"]) == []


def test_the_command_line_gives_the_steps_typed_options() -> None:
    every = parser().parse_args(["nightly", "all", "--remote", "r", "--shards", "2", "--",
                                 "--impl", "x", "--windows", "2", "--machine", "m"])  # fmt: skip
    assert all_options_of(every) == AllOptions(
        remote="r", shards=2, run_args=("--impl", "x", "--windows", "2", "--machine", "m"),
        confirm_args=("--windows", "2"),
    )  # fmt: skip
    shard = parser().parse_args(["nightly", "measure", "--run-id", "R", "--store", "s",
                                 "--matrix", "never", "--", "--machine", "m"])  # fmt: skip
    assert measure_options_of(shard) == MeasureOptions(
        run_id="R", store=Path("s"), matrix="never", run_args=("--machine", "m")
    )


def test_the_older_versions_run_without_the_shards_selection() -> None:
    kept = ["--scenario", "stream", "--windows", "2", "--machine", "e2e"]
    argv = ["--impl", "websockets", "--config=asyncio", "--new-releases", "--grid", "full",
            "--shard", "1/2", *kept]  # fmt: skip
    assert without_selection(argv) == kept


def test_older_versions_of_the_configurations_measured_tonight_by_mode() -> None:
    tonight = [run([1.0], run_id="20261126T022300Z-cccccc", impl_info=impl("websockets", "17.4"))]
    asyncio = [e for e in bench_envs() if (e.impl.name, e.config.id) == ("websockets", "asyncio")]
    older = [e for e in asyncio if not e.is_default]
    assert len(older) == 5  # not those of uvloop: not measured tonight
    assert [d.env for d in older_versions_due(tonight, "always", None)] == older
    assert older_versions_due(tonight, "never", None) == []
    assert [d.env for d in older_versions_due(tonight, "auto", [])] == older  # none published


def test_the_pythons_are_taken_out_of_the_run_options() -> None:
    assert split_pythons(["--machine", "m", "--python", "3.12", "--python=3.14t"]) == (
        ["3.12", "3.14t"],
        ["--machine", "m"],
    )
    assert split_pythons(["--machine", "m"]) == (["all"], ["--machine", "m"])


def _pythons_here(monkeypatch: pytest.MonkeyPatch, here: set[str]) -> None:
    def find(name: object) -> object:
        if str(name) not in here:
            raise InterpreterNotFound(f"no Python {name}: looked on PATH")
        return name

    monkeypatch.setattr(jobs_selection, "find_python", find)


def test_the_latest_releases_on_the_other_pythons_here_by_mode(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _pythons_here(monkeypatch, {"3.11", "3.12", "3.13"})
    tonight = [run([1.0], run_id="20261126T022300Z-cccccc", impl_info=impl("websockets", "17.4"))]
    (latest,) = [e for e in bench_envs() if e.is_default
                 and (e.impl.name, e.config.id) == ("websockets", "asyncio")]  # fmt: skip
    due = other_pythons_due(tonight, "auto", [], ["all"])
    assert [(d.env.python, d.env.requirements) for d in due] == [
        ("3.12", latest.requirements),
        ("3.13", latest.requirements),
    ]
    assert {d.reason for d in due} == {NEW_GROUP}  # a Python new to the runner: due at once
    assert "Python 3.14t is not on this machine: not measured" in capsys.readouterr().out
    assert other_pythons_due(tonight, "never", [], ["all"]) == []
    assert [d.env.python for d in other_pythons_due(tonight, "always", None, ["3.13"])] == ["3.13"]
    with pytest.raises(NightlyError, match=r"no Python 3\.14"):
        other_pythons_due(tonight, "auto", [], ["3.14"])
    # measured on this night's group two days ago: not due again before the period
    measured = [
        msgspec.structs.replace(
            run([1.0], run_id="20261124T022300Z-aaaaaa", impl_info=impl("websockets", "17.4")),
            environment=msgspec.structs.replace(tonight[0].environment, env_name=d.env.name),
        )
        for d in due
    ]
    assert other_pythons_due(tonight, "auto", measured, ["all"]) == []


def _recorded_bench_runs(monkeypatch: pytest.MonkeyPatch, run_id: str) -> list[list[str]]:
    """The arguments of every ``./bench run`` the nightly starts, none run: the first one
    (the shard's latest releases) saves a websockets 17.4 document of ``run_id``."""
    runs: list[list[str]] = []

    def bench_run(argv: list[str], shard_store: Path, what: str) -> None:
        runs.append(list(argv))
        if len(runs) == 1:
            store.save(run([1.0], run_id=run_id, impl_info=impl("websockets", "17.4")),
                       shard_store)  # fmt: skip

    monkeypatch.setattr(nightly, "_bench_run", bench_run)
    return runs


def test_a_shard_measures_the_older_versions_then_the_other_pythons_with_their_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pythons_here(monkeypatch, {"3.11", "3.13"})
    run_id = "20261126T022300Z-cccccc"
    runs = _recorded_bench_runs(monkeypatch, run_id)
    found = nightly.measure_shard("1/1", run_id, tmp_path, ["--instructions", "--python", "all",
                                  "--machine", "m"], mode="always")  # fmt: skip
    first, older, pythons = runs
    assert "--python" not in first and "--instructions" in first
    assert "--instructions" not in older
    assert "--instructions" in pythons and "--machine" in pythons
    names = [pythons[i + 1] for i, t in enumerate(pythons) if t == "--environment"]
    assert names == [d.env.name for d in found if d.env.python == "3.13"]
    assert len(names) == 1 and "py3.13" in names[0]
    assert nightly.due_name(found[-1].env).endswith(" on Python 3.13")


def test_other_pythons_start_no_environment_once_the_budget_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each due environment is its own ``./bench run``; the clock passes 25 minutes in each,
    so a 60-minute budget starts three (at 0, 25 and 50 minutes) and leaves the rest due."""
    now = [0.0]
    started: list[str] = []

    def run_one(d: matrix.Due) -> None:
        started.append(d.env.name)
        now[0] += 25 * 60.0

    envs = [e for e in bench_envs() if e.is_default][:5]
    found = [matrix.Due(e, NEW_GROUP) for e in envs]
    done = nightly.within_budget(found, run_one, 60 * 60.0, clock=lambda: now[0])
    assert done == found[:3] and started == [e.name for e in envs[:3]]
    assert nightly.within_budget(found, run_one, 0.0, clock=lambda: now[0]) == found[:1]

    _pythons_here(monkeypatch, {"3.11", "3.12", "3.13"})
    run_id = "20261126T022300Z-cccccc"
    runs = _recorded_bench_runs(monkeypatch, run_id)
    monkeypatch.setattr(nightly, "OTHER_PYTHONS_MINUTES", 0)
    found = nightly.measure_shard("1/1", run_id, tmp_path, ["--python", "all"], mode="always")
    pythons = [r for r in runs if any("-py3.12-" in t or "-py3.13-" in t for t in r)]
    assert [d.env.python for d in found if d.env.python != DEFAULT_PYTHON] == ["3.12"]
    assert len(pythons) == 1 and sum(t == "--environment" for t in pythons[0]) == 1
    assert "other Pythons: 1 of 2 measured in 0 minutes (OTHER_PYTHONS_MINUTES); the rest " \
           "stay due" in capsys.readouterr().out  # fmt: skip


def test_a_release_that_newly_fails_a_case_is_reported_and_its_grades_published(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    earlier, tonight = "20261123T020000Z-aaaaaa", "20261124T020000Z-bbbbbb"
    last = get_impl("websockets").versions[-1].version
    ok = {"1.1.1": "OK", "7.1.5": "OK"}
    before = tmp_path / "before"
    _websockets(last, [1000.0] * 6, earlier, before)
    _graded(last, ok, earlier, before)
    publish([before], remote=str(remote), branch="results", store_dir=tmp_path / "c1",
            allow_untuned=False)  # fmt: skip
    shard = tmp_path / "shard"
    _websockets("99.0", [1000.0] * 6, tonight, shard)
    _graded("99.0", {**ok, "7.1.5": "FAILED"}, tonight, shard)
    found = publish(
        [shard], remote=str(remote), branch="results", store_dir=tmp_path / "c2",
        allow_untuned=False, reports=tmp_path / "r",
    )  # fmt: skip
    assert [r.title for r in found] == ["Conformance regression: websockets 99.0"]
    out = capsys.readouterr().out
    assert f"nightly: new release websockets · asyncio: {last} → 99.0: conformance: newly " \
           "fails 7.1.5\n" in out  # fmt: skip
    index = json.loads((tmp_path / "r" / "reports.json").read_text())
    assert index == [{"title": found[0].title, "body_file": "000-websockets-99.0.md"}]
    assert (tmp_path / "r" / index[0]["body_file"]).read_text() == found[0].body
    files = _branch_files(remote, tmp_path, "check")
    assert [f.split("/")[:3] for f in files if f.startswith("conformance/")] == [
        ["conformance", "m", earlier],
        ["conformance", "m", tonight],
    ]


def _graded(version: str, verdicts: dict[str, str], run_id: str, root: Path) -> None:
    ws = get_impl("websockets")
    info = msgspec.structs.replace(impl("websockets", version, "asyncio"),
                                   display_name=ws.display_name)  # fmt: skip
    doc = run([], run_id=run_id, impl_info=info, env_name=f"ws-{version}-asyncio", benchmarks=[])
    store.save(with_grade(doc, verdicts), store.conformance_store(root))


def _profiled(version: str, burn: int, run_id: str, root: Path) -> None:
    """websockets ``version`` (asyncio) profiled at echo 16 B x 64 in run ``run_id``:
    ``burn`` % of its samples in one function."""
    ws = get_impl("websockets")
    info = msgspec.structs.replace(impl("websockets", version, "asyncio"),
                                   display_name=ws.display_name)  # fmt: skip
    stacks = {"p;h (s.py:1);burn (s.py:5)": burn, "p;h (s.py:1);send (s.py:9)": 100 - burn}
    found = ProfileSet("echo", {"size_bytes": 16, "in_flight": 64}, "ok", None, 2.0, 250,
                       stacks=stacks)  # fmt: skip
    doc = run([], run_id=run_id, impl_info=info, env_name=f"ws-{version}-asyncio", benchmarks=[])
    doc = msgspec.structs.replace(doc, profiles=[found], profiling=Profiling("py-spy 0.4.3", True))
    store.save(doc, store.profile_store(root))


def test_a_slower_verdict_prints_the_differential_profile_and_the_profiles_are_published(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, last = "20261124T020000Z-aaaaaa", get_impl("websockets").versions[-1].version
    fast = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
    shard = tmp_path / "shard"
    _websockets(last, fast, run_id, shard)
    _websockets("99.0", [r * 0.8 for r in fast], run_id, shard)
    _profiled(last, 5, run_id, shard)
    _profiled("99.0", 60, run_id, shard)
    publish([shard], remote=str(remote), branch="results", store_dir=tmp_path / "c",
            allow_untuned=False)  # fmt: skip
    out = capsys.readouterr().out
    verdict = out.index(f"nightly: new release websockets · asyncio: {last} → 99.0: 3 ")
    differential = out.index("  CPU profile at echo in_flight=64,size_bytes=16: ")
    assert verdict < differential
    assert "     +55.0 points  burn (s.py)  (5.0 % -> 60.0 %)\n" in out
    assert f"    head: websockets · asyncio 99.0, run {run_id} (profiles/m/{run_id}/" in out
    files = _branch_files(remote, tmp_path, "check")
    assert [f.split("/")[:3] for f in files if f.startswith("profiles/")] == [
        ["profiles", "m", run_id],
        ["profiles", "m", run_id],
    ]


def test_the_profile_step_and_no_profile_on_the_command_line() -> None:
    every = parser().parse_args(["nightly", "all", "--remote", "r", "--no-profile"])
    assert all_options_of(every) == AllOptions(remote="r", no_profile=True)
    step = parser().parse_args(["nightly", "profile", "--shard", "2/4", "--run-id", "R",
                                "--store", "s"])  # fmt: skip
    assert (step.step, step.shard, step.run_id, step.store, step.remote) == (
        "profile",
        "2/4",
        "R",
        Path("s"),
        None,
    )
