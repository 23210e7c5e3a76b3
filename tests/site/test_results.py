"""wsbench.site without mkdocs: which runs are shown, rows with their spread, ranks,
release-to-release changes, the inputs, escaping table cells."""

# The pages' typography (multiplication sign, en dash, minus sign) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path

import msgspec
import pytest

from tests.runs import ECHO_16_64, LOADGEN, SETTINGS, benchmark, failed, impl, run
from tests.site_runs import (
    CLIENTS,
    CURRENT,
    ECHO,
    IMPLS,
    OLD_RUN,
    OTHER_RUN,
    REFERENCE_RUN,
    SPREAD,
    STREAM,
    UV_FAILURE,
    clients,
    environment,
    site_runs,
)
from tests.site_runs import OTHER_SETTINGS as LONGER_WINDOWS
from tests.site_runs import SETTINGS as SITE_SETTINGS
from wsbench import impls
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.results import stats, store
from wsbench.results.runformat import ALL_DISTURBED, ImplInfo, Run, Settings
from wsbench.site.changes import significant_changes
from wsbench.site.clients import latest_runs
from wsbench.site.environment import render_environment
from wsbench.site.findings import findings_of
from wsbench.site.findings_page import render_findings
from wsbench.site.framework_pages import render_page
from wsbench.site.frameworks import load_frameworks
from wsbench.site.headline import HEADLINES, chart
from wsbench.site.history import history_of
from wsbench.site.markup import cell, first_line, short_reason, spread
from wsbench.site.pages import expand_nav, resolve_inputs
from wsbench.site.render import ranks, render_leaderboard, render_leaderboard_page
from wsbench.site.results import (
    NO_FIGURES,
    OTHER_LOADGEN,
    OTHER_SETTINGS,
    PARTLY_SUPERSEDED,
    SUPERSEDED,
    EnvRun,
    Results,
    by_environment,
    load_results,
    select,
)
from wsbench.site.rows import row_of
from wsbench.site.sources import settings_text, source_line

ROOT = Path(__file__).resolve().parents[2]
STABLE = [98.0, 99.0, 99.9, 100.1, 101.0, 102.0]
"""Six windows around 100 (median 100, cv 1.5 %), 2 per server process as
:func:`tests.runs.benchmark` makes them."""
STABLE_BY_PROCESS = [STABLE[0:2], STABLE[2:4], STABLE[4:6]]
"""The same grouped by server process."""
GEOMEAN = statistics.geometric_mean(SPREAD)
"""A figure of the site's fixture over its 3 processes of 2 windows: the rate times this."""


def _ids(results: Results) -> list[tuple[str, str | None, str]]:
    return [(r.impl.name, r.impl.version, r.run_id) for r in results.runs]


def test_the_newest_run_of_a_machine_sets_its_comparison_group() -> None:
    results = select(site_runs())
    shown = _ids(results)
    assert len(shown) == 13
    assert ("native", "0.1.0", REFERENCE_RUN) in shown  # same settings, an earlier run
    assert ("aiohttp", "3.13.2", CURRENT) in shown
    assert all(run_id in (CURRENT, REFERENCE_RUN) for _, _, run_id in shown)
    # Each environment once: the newest of its group (websockets 15.0.1 of OLD_RUN is not).
    assert len({(r.machine, r.env_name) for r in results.runs}) == 13
    why = {i.run_id: i.why_not_shown for i in results.history}
    assert why == {CURRENT: "", REFERENCE_RUN: "", OLD_RUN: SUPERSEDED, OTHER_RUN: OTHER_SETTINGS}
    assert [i.run_id for i in results.history] == [CURRENT, REFERENCE_RUN, OLD_RUN, OTHER_RUN]
    other = next(i for i in results.history if i.run_id == OTHER_RUN)
    assert not other.current and other.shown == 0 and other.environments == 1


def test_a_newer_run_with_other_settings_replaces_the_group_instead_of_mixing() -> None:
    longer = msgspec.structs.replace(SETTINGS, window_s=10.0)
    old = [
        run(STABLE, run_id="20260101T000000Z-000001", impl_info=impl("aiohttp", "3.13.2")),
        run(STABLE, run_id="20260101T000000Z-000001", impl_info=impl("websockets", "15.0.1")),
    ]
    new = run([200.0] * 6, run_id="20260102T000000Z-000002", settings=longer)
    results = select([*old, new])
    assert _ids(results) == [("websockets", "15.0.1", "20260102T000000Z-000002")]
    assert results.runs[0].rows[0].messages_per_s is not None
    assert results.runs[0].rows[0].messages_per_s.value == pytest.approx(200.0)
    old_info = results.history[1]
    assert (old_info.run_id, old_info.current, old_info.why_not_shown) == (
        "20260101T000000Z-000001",
        False,
        OTHER_SETTINGS,
    )
    # Another load generator build is another group too; a run some of whose environments
    # were measured again is partly shown.
    rebuilt = msgspec.structs.replace(LOADGEN, source_sha256="cd" * 32)
    newest = run(STABLE, run_id="20260103T000000Z-000003", loadgen=rebuilt, settings=longer)
    assert select([*old, new, newest]).history[1].why_not_shown == OTHER_LOADGEN
    again = run(STABLE, run_id="20260104T000000Z-000004", impl_info=impl("aiohttp", "3.13.2"))
    partly = select([*old, again])
    assert partly.history[1].why_not_shown == PARTLY_SUPERSEDED
    assert partly.history[1].shown == 1 and partly.history[1].current


def test_each_machine_has_its_own_group() -> None:
    a = run(STABLE, run_id="20260101T000000Z-00000a", machine="a")
    five = msgspec.structs.replace(SETTINGS, processes=5)
    b = run(STABLE, run_id="20260102T000000Z-00000b", machine="b", settings=five)
    results = select([a, b])
    assert results.machines == ["a", "b"]
    assert [r.run_id for r in results.runs] == [a.run_id, b.run_id]
    page = render_leaderboard("echo", results)
    assert "## Machine `a`" in page and "## Machine `b`" in page
    assert "5 processes" in page and "3 processes" in page


RERUN = "20261122T041000Z-0e0001"
"""A partial re-run an hour after :data:`CURRENT` (the main job): websockets 15.0.1 at echo
16 B x 64 in flight and clients at 1,000 connections only."""
WS_ROW = "websockets · asyncio 15.0.1"


def _partial_rerun(settings: Settings = SITE_SETTINGS) -> list[Run]:
    """The main job's websockets 15.0.1 (echo and stream at every parameter set, clients at
    10, 100 and 1,000 connections) and aiohttp 3.13.2, then :data:`RERUN`."""
    c10, c100, c1000 = CLIENTS
    ws_clients = [clients(c10, 24_000), clients(c100, 26_000), clients(c1000, 25_000)]
    again = environment("websockets", "default", "15.0.1", 30_000, 0, run_id=RERUN)
    rerun = msgspec.structs.replace(
        again,
        settings=settings,
        benchmarks=[b for b in again.benchmarks if b.params == ECHO_16_64]
        + [clients(c1000, 31_000)],
    )
    return [
        environment("websockets", "default", "15.0.1", 25_000, 100_000, extra=ws_clients),
        environment("aiohttp", "default", "3.13.2", 50_000, 200_000),
        rerun,
    ]


def _figures(run: EnvRun) -> list[tuple[str, dict[str, int]]]:
    return [(row.scenario, dict(row.params)) for row in run.rows]


def _section(page: str, title: str) -> str:
    """The markdown from the heading ``title`` to the next heading of any level."""
    start = next(m.start() for m in re.finditer(r"^#+ (.*)$", page, re.M) if title in m[1])
    end = page.find("\n#", start)
    return page[start : end if end >= 0 else None]


def _messages(run: EnvRun, scenario: str, params: dict[str, int]) -> float | None:
    row = next(r for r in run.rows if r.scenario == scenario and dict(r.params) == params)
    return row.messages_per_s.value if row.messages_per_s else None


def test_a_partial_rerun_replaces_only_the_figures_it_measured_again() -> None:
    docs = _partial_rerun()
    results = select(docs)
    ws = [r for r in results.runs if r.impl.name == "websockets"]
    # One environment, two EnvRuns (newest first), each with the figures it supplies.
    assert [r.run_id for r in ws] == [RERUN, CURRENT]
    assert by_environment(results.runs) == [
        [r for r in results.runs if r.impl.name == "aiohttp"],
        ws,
    ]
    assert _figures(ws[0]) == [("echo", ECHO_16_64), ("clients", CLIENTS[2])]
    assert _messages(ws[0], "echo", ECHO_16_64) == pytest.approx(30_000 * GEOMEAN)
    assert _figures(ws[1]) == (
        [("echo", p) for p in ECHO if p != ECHO_16_64]
        + [("stream", p) for p in STREAM]
        + [("clients", c) for c in CLIENTS[:2]]
    )
    assert _messages(ws[1], "echo", ECHO[0]) == pytest.approx(25_000 * GEOMEAN)
    # The other environment keeps its figures, and each figure is shown once.
    (aiohttp,) = [r for r in results.runs if r.impl.name == "aiohttp"]
    assert (aiohttp.run_id, len(aiohttp.rows)) == (CURRENT, len(ECHO) + len(STREAM))
    shown = [(r.env_id, row.scenario, row.params) for r in results.runs for row in r.rows]
    assert len(shown) == len(set(shown)) == 6 + 3 + 3 + 9
    # The history: the main job is partly shown, and says how much of it.
    info = {i.run_id: i for i in results.history}
    assert [i.run_id for i in results.history] == [RERUN, CURRENT]
    assert (info[RERUN].why_not_shown, info[RERUN].shown, info[RERUN].figures_shown) == ("", 1, 2)
    main = info[CURRENT]
    assert (main.why_not_shown, main.current) == (PARTLY_SUPERSEDED, True)
    assert (main.shown, main.environments, main.figures_shown, main.figures) == (2, 2, 19, 21)


def test_sets_an_interrupted_run_never_reached_hide_no_earlier_figure() -> None:
    # The interrupted run's document: echo 16 B x 64 measured, 16 B x 1 never reached (a set
    # with no sample, as the document is first written), stream failed.
    never = msgspec.structs.replace(benchmark("echo", ECHO[0], []), samples=[])
    assert not never.begun
    earlier = run(STABLE, run_id="20261123T190000Z-aaaaaa", benchmarks=[
        benchmark("echo", ECHO[0], STABLE), benchmark("echo", ECHO_16_64, STABLE),
    ])  # fmt: skip
    cut = run([], run_id="20261124T190000Z-bbbbbb", benchmarks=[
        never, benchmark("echo", ECHO_16_64, [50.0] * 6), failed("stream", STREAM[0], "boom"),
    ])  # fmt: skip
    results = select([earlier, cut])
    figures = sorted(
        (r.run_id, row.scenario, dict(row.params)) for r in results.runs for row in r.rows
    )
    assert figures == [
        ("20261123T190000Z-aaaaaa", "echo", ECHO[0]),
        ("20261124T190000Z-bbbbbb", "echo", ECHO_16_64),
        ("20261124T190000Z-bbbbbb", "stream", STREAM[0]),
    ]


def test_a_partial_rerun_on_the_pages_names_both_runs() -> None:
    docs = _partial_rerun()
    results = select(docs)
    echo = render_leaderboard("echo", results)
    again = _section(echo, "16 B messages, 64 in flight per connection")
    # 30,000 and 25,000 msg/s over the server processes: 29,997 and 24,998.
    assert "29,997" in again and "24,998" not in again
    assert f"Runs `{RERUN}`, `{CURRENT}`:" in again
    before = _section(echo, "16 B messages, 1 in flight per connection")
    assert "24,998" in before and "29,997" not in before
    assert f"Run `{CURRENT}`:" in before and RERUN not in before

    # The clients chart: one series per environment, each point naming its run.
    files = render_leaderboard_page("clients", results).files
    data = next(
        json.loads(v)
        for k, v in files.items()
        if k.endswith(".json") and json.loads(v)["figure"]["name"] == "messages_per_s"
    )
    (series,) = [s for s in data["series"] if s["label"] == WS_ROW]
    assert [(p["x"], p["run_id"]) for p in series["points"]] == [
        (10, CURRENT),
        (100, CURRENT),
        (1000, RERUN),
    ]

    # The framework page: one row per (configuration, version), its charts one point per
    # version, each from the run that has the figure.
    frameworks = {f.name: f for f in load_frameworks(IMPLS)}
    websockets = frameworks["websockets"]
    ws = [r for r in results.runs if r.impl.name == "websockets"]
    points = {h.slug: chart(websockets, ws, h).lines[0].points for h in HEADLINES}
    assert [(p.version, p.run_id) for p in points["echo-throughput-16b"]] == [("15.0.1", RERUN)]
    assert [(p.version, p.run_id) for p in points["echo-latency-p50-16b"]] == [("15.0.1", CURRENT)]
    page = render_page(websockets, results, "https://x", history_of(docs)).markdown
    table = _section(page, "Results by version")
    rows = [line for line in table.splitlines() if line.startswith("| ") and "15.0.1" in line]
    # 30,000 msg/s over the server processes: 29,997; p50 1/25,000 s.
    assert len(rows) == 1 and "29,997" in rows[0] and "40.0" in rows[0]
    assert f"Runs `{RERUN}`, `{CURRENT}`:" in table

    # The Runs and environment page: one line per environment naming both runs, and the
    # main job partly shown.
    env_page = render_environment(results)
    assert sum(f"`{RERUN}`, `{CURRENT}`" in line for line in env_page.splitlines()) == 1
    note = "some of its figures were measured again by a newer run (19 of its 21 figures shown)"
    assert cell(note) in env_page


def test_a_rerun_with_other_settings_still_replaces_the_whole_group() -> None:
    docs = _partial_rerun(settings=LONGER_WINDOWS)
    results = select(docs)
    assert [(r.impl.name, r.run_id, len(r.rows)) for r in results.runs] == [
        ("websockets", RERUN, 2)
    ]
    info = {i.run_id: i for i in results.history}
    assert (info[CURRENT].why_not_shown, info[CURRENT].current, info[CURRENT].shown) == (
        OTHER_SETTINGS,
        False,
        0,
    )


def test_an_environment_is_paired_and_its_failures_counted_across_its_runs() -> None:
    native = load_impl(ROOT / "impls" / "native")
    sockets = (impl_info(native, native.config(c), "0.1.0") for c in ("socketio", "websocket"))
    sio, ws = sockets
    two = [dict(ECHO_16_64), {"size_bytes": 16, "in_flight": 1}]
    main = [
        run([], impl_info=sio, run_id=CURRENT,
            benchmarks=[benchmark("echo", p, [x * 2 for x in STABLE]) for p in two]),
        run([], impl_info=ws, run_id=CURRENT,
            benchmarks=[failed("echo", p, UV_FAILURE) for p in two]),
    ]  # fmt: skip
    rerun = run([], impl_info=ws, run_id=RERUN, benchmarks=[benchmark("echo", two[0], STABLE)])
    results = select([*main, rerun])
    findings = findings_of(results, load_frameworks(ROOT / "impls"))
    (pairing,) = findings.pairings
    assert [(dict(f.params), [r.run_id for r in f.runs]) for f in pairing.figures] == [
        ({"size_bytes": 16, "in_flight": 1}, [CURRENT, CURRENT]),
        (ECHO_16_64, [CURRENT, RERUN]),
    ]
    assert findings.unpaired == ()
    # The failure is of one parameter set, not of every measurement of the environment.
    page = render_findings(findings, results, {})
    failures = _section(page, "Failures")
    assert "every measurement" not in failures
    assert "echo 16 B messages, 1 in flight per connection" in failures


def test_a_lineup_and_the_clients_index_take_an_environment_across_its_runs() -> None:
    two = [ECHO_16_64, {"size_bytes": 16, "in_flight": 1}]

    def doc(info: ImplInfo, run_id: str, factor: float, params: list[dict[str, int]]) -> Run:
        rates = [x * factor for x in STABLE]
        return run([], impl_info=info, run_id=run_id,
                   benchmarks=[benchmark("echo", p, rates) for p in params])  # fmt: skip

    # One app on two servers; the one on s1 measured 16 B x 64 in flight again, faster.
    s1 = msgspec.structs.replace(impl("app", "1.0", "x"), server="s1", row_name="app on s1")
    s2 = msgspec.structs.replace(impl("app", "1.0", "y"), server="s2", row_name="app on s2")
    docs = [doc(s1, CURRENT, 1, two), doc(s2, CURRENT, 2, two), doc(s1, RERUN, 3, two[:1])]
    results = select(docs)
    findings = findings_of(results, [])
    assert len(findings.lineups) == 1
    page = render_findings(findings, results, {})
    table = _section(page, "app 1.0: 2 servers")
    rows = [line for line in table.splitlines() if line.startswith("| ")][2:]
    assert len(rows) == 2  # one per configuration, not one per run
    on_s1, on_s2 = (next(r for r in rows if name in r) for name in ("app on s1", "app on s2"))
    assert "slower" in on_s1 and "fastest" in on_s1  # 16 B x 1 from CURRENT, x 64 from RERUN
    assert "fastest" in on_s2 and "slower" in on_s2

    # The clients index: every EnvRun of a library's newest version.
    lib = [doc(impl("lib", "1.0"), CURRENT, 1, two), doc(impl("lib", "2.0"), CURRENT, 1, two)]
    results = select([*lib, doc(impl("lib", "2.0"), RERUN, 2, two[:1])])
    assert sorted((r.impl.version, r.run_id) for r in latest_runs(results)) == [
        ("2.0", CURRENT),
        ("2.0", RERUN),
    ]


def test_a_document_without_figures_hides_none() -> None:
    older = run(STABLE, run_id="20260101T000000Z-000001")
    empty = run([], run_id="20260102T000000Z-000002", benchmarks=[])
    results = select([older, empty])
    assert [(r.run_id, len(r.rows)) for r in results.runs] == [(older.run_id, 1)]
    info = {i.run_id: i for i in results.history}
    assert info[empty.run_id].why_not_shown == NO_FIGURES
    assert info[older.run_id].why_not_shown == ""
    # Alone, it still shows its environment (without figures).
    alone = select([empty])
    assert [(r.run_id, r.rows) for r in alone.runs] == [(empty.run_id, ())]
    assert alone.history[0].why_not_shown == ""


def test_rows_summarize_the_usable_samples() -> None:
    bench = benchmark("echo", ECHO_16_64, STABLE, disturbed=[5.0, 6.0])
    row = row_of(bench)
    assert row.ok and row.n == 6 and row.disturbed == 2
    expected = stats.summarize(STABLE_BY_PROCESS)
    assert row.messages_per_s == expected
    assert row.cv == expected.cv and not row.unstable
    assert row.latency_p50_s == stats.summarize([[1 / r for r in g] for g in STABLE_BY_PROCESS])
    assert row.bytes_per_s == stats.median([16 * r for r in STABLE])
    assert row.server_cpu_percent == 99.0 and row.server_rss_bytes == 20_000_000
    assert not row.client_bound
    # Client-bound: the median load generator CPU is above 80 %.
    assert row_of(benchmark("echo", ECHO_16_64, STABLE, loadgen_cpu=80.5)).client_bound
    assert not row_of(benchmark("echo", ECHO_16_64, STABLE, loadgen_cpu=80.0)).client_bound
    # ... of the CPUs it ran on: 150 % on two CPUs is 75 % of each.
    two_cpus = benchmark("echo", ECHO_16_64, STABLE, loadgen_cpu=150.0)
    assert row_of(two_cpus).client_bound and not row_of(two_cpus, loadgen_cpus=2).client_bound
    assert row_of(
        benchmark("echo", ECHO_16_64, STABLE, loadgen_cpu=161.0), loadgen_cpus=2
    ).client_bound
    # Unstable: the processes' values have a cv above 10 %.
    assert row_of(benchmark("echo", ECHO_16_64, [70, 80, 95, 105, 120, 130])).unstable
    # Stream windows have no latency.
    assert row_of(benchmark("stream", {"size_bytes": 16}, STABLE)).latency_p50_s is None


def test_failed_and_fully_disturbed_benchmarks_are_failed_rows() -> None:
    row = row_of(failed("echo", ECHO_16_64, "server crashed"))
    assert (row.status, row.error, row.messages_per_s) == ("failed", "server crashed", None)
    disturbed = row_of(benchmark("echo", ECHO_16_64, [], disturbed=STABLE))
    assert (disturbed.status, disturbed.disturbed) == ("failed", 6)
    assert disturbed.error == f"{ALL_DISTURBED}: steal 0 % and other work 1 % over 6 windows"
    assert ALL_DISTURBED == (
        "every window was disturbed (other work or steal time on the measured CPUs)"
    )


def test_ranks_tie_overlapping_intervals_and_skip_the_reference_and_failures() -> None:
    docs = [
        run(STABLE, impl_info=impl("native", "0.1.0", reference=True)),
        run([x * 2 for x in STABLE], impl_info=impl("a")),
        run([x * 2.01 for x in STABLE], impl_info=impl("b")),  # overlaps a: tied
        run(STABLE, impl_info=impl("c")),
        run([], impl_info=impl("d"), benchmarks=[failed("echo", ECHO_16_64, "boom")]),
    ]
    results = select(docs)
    by_name = {r.impl.name: (r, r.rows[0]) for r in results.runs}
    group = [by_name[n] for n in ("native", "b", "a", "c", "d")]
    assert ranks(group) == [None, 1, 1, 3, None]
    page = render_leaderboard("echo", results)
    assert "| 1 | [" not in page  # no links without pages
    assert "| 1 | <span" in page and "| 3 | <span" in page


def test_figures_show_their_interval_and_unstable_ones_are_marked() -> None:
    # 3 server processes of one window: the geometric mean and Student's t interval.
    stable = stats.summarize([[12_100.0], [12_345.0], [12_600.0]])
    text = spread(stable, ",.0f")
    assert text.startswith("12,347 ") and "(11,741–12,983)" in text
    wide = stats.summarize([[7.0, 8.0], [9.5, 10.5], [12.0, 13.0]])
    assert wide.unstable and spread(wide, ".1f").startswith("≈9.8 ")
    assert "(5.2–18.5)" in spread(wide, ".1f")
    assert spread(stats.summarize([[5.0]]), ".1f") == "5.0"  # one process: no interval
    assert spread(None, ".1f") == "—"
    assert spread(stats.summarize([[2e-5], [2e-5]]), ".1f", 1e-6).startswith("20.0 ")


def test_significant_changes_only() -> None:
    def times(k: float) -> list[list[float]]:
        return [[x * k for x in g] for g in STABLE_BY_PROCESS]

    base, faster, same = times(1.0), times(1.2), times(1.01)
    changes = significant_changes(
        [("1.0", base), ("1.1", faster), ("1.2", times(1.21))],
        higher_is_better=True,
    )
    assert [(c.base, c.head, c.percent) for c in changes] == [("1.0", "1.1", "+20 %")]
    # Welch's t test on the logs of the 3 processes' values a side.
    assert changes[0].p_value == "0.00012"
    assert significant_changes([("1.0", base), ("1.1", same)], higher_is_better=True) == ()
    # A failed version (no samples) is skipped: its neighbours are compared.
    skipped = significant_changes(
        [("1.0", faster), ("1.1", []), ("1.2", base)], higher_is_better=True
    )
    assert [(c.base, c.head, c.percent) for c in skipped] == [("1.0", "1.2", "\u221217 %")]
    # Too few server processes (2 a side) to ever be significant: nothing is claimed.
    assert (
        significant_changes([("1", [[1.0], [1.1]]), ("2", [[2.0], [2.1]])], higher_is_better=True)
        == ()
    )


def test_source_line_names_runs_and_settings() -> None:
    results = select(site_runs())
    line = source_line(results.runs, "../environment.md")
    assert f"`{CURRENT}`, `{REFERENCE_RUN}`" in line
    assert "3 processes × 2 windows × 3 s, 1 s warm-up" in line
    assert "(sources abababababab)" in line.replace("\\", "")
    assert settings_text(msgspec.structs.replace(SETTINGS, window_s=0.5)) == (
        "3 processes × 2 windows × 0.5 s, 0.5 s warm-up"
    )


def test_the_waited_retries_are_stated_when_the_run_applied_them() -> None:
    from wsbench.site.sources import waited_text

    assert waited_text(SETTINGS) == ""  # a run from before them
    applied = msgspec.structs.replace(SETTINGS, waited_retries=3, first_wait_s=1.0)
    assert waited_text(applied) == (
        "; a set with no usable window is measured up to 3 more times in its last process, "
        "after waits of 1, 2 and 4 s (7 s in all)"
    )
    once = msgspec.structs.replace(SETTINGS, waited_retries=1, first_wait_s=0.5)
    assert waited_text(once).endswith("once more in its last process, after a wait of 0.5 s")
    budgeted = msgspec.structs.replace(once, wait_budget_s=90.0)
    assert waited_text(budgeted) == (waited_text(once) + ", while the run's 90 s wait budget lasts")


def test_a_malformed_document_is_skipped_with_a_warning_naming_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = run(STABLE)
    store.save(good, tmp_path)
    bad = tmp_path / "m" / "20260101T000000Z-000000" / "broken-env.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{not json")
    loaded = load_results(tmp_path)
    assert [r.env_name for r in loaded.runs] == [good.environment.env_name]
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1
    # Under mkdocs' logger: a strict build fails on it.
    assert warnings[0].name == "mkdocs.plugins.wsbench.site"
    assert str(bad) in warnings[0].getMessage()


def test_an_empty_or_missing_store_shows_nothing(tmp_path: Path) -> None:
    assert load_results(tmp_path / "missing").empty
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
    frameworks = load_frameworks(IMPLS)
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
    starlette = next(f for f in load_frameworks(IMPLS) if f.name == "starlette")
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
    shutil.copytree(IMPLS / "aiohttp", tmp_path / "aiohttp")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "meta.toml").write_text('name = "bad"\nprotocol = "carrier-pigeon"\n')
    assert [f.name for f in load_frameworks(tmp_path)] == ["aiohttp"]
    assert any("'carrier-pigeon' - at `$.protocol`" in r.message for r in caplog.records)


def test_frameworks_read_each_meta_toml_once_and_show_the_versions_notes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []

    def counted(directory: Path, data: bytes) -> impls.MetaToml:
        read.append(directory.name)
        return real_decode_meta(directory, data)

    real_decode_meta = impls._decode_meta
    monkeypatch.setattr(impls, "_decode_meta", counted)
    monkeypatch.setattr(impls, "_LOADED", {})  # none loaded yet in this process
    frameworks = {f.name: f for f in load_frameworks(ROOT / "impls")}
    assert sorted(read) == sorted(frameworks)
    assert frameworks["websockets"].versions[0].notes == ("api: legacy (websockets.serve)",)
    assert frameworks["autobahn"].versions[-1].notes == (
        "speedups: NVX (C UTF-8 validator and XOR masker, in the cp311 wheel)",
    )
    assert frameworks["aiohttp"].versions[-1].notes == ()


def test_relative_inputs_resolve_against_the_mkdocs_folder(tmp_path: Path) -> None:
    inputs = resolve_inputs(tmp_path, None, {})
    assert inputs.store_root == tmp_path / "results"
    assert inputs.impls_dir == tmp_path / "impls"
    assert inputs.repo_url == "https://github.com/wsbench/wsbench"
    env = {"WSBENCH_RESULTS": "/abs/store", "WSBENCH_IMPLS_DIR": "mine"}
    inputs = resolve_inputs(tmp_path, "https://example.org/x", env)
    assert inputs.store_root == Path("/abs/store")
    assert inputs.impls_dir == tmp_path / "mine"
    assert inputs.repo_url == "https://example.org/x"
