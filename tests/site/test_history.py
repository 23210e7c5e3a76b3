"""wsbench.site.history and the framework pages' Night by night section: every run of the
store, each headline figure per (configuration, version) night by night, the nights whose
harness, load generator or settings changed marked, untuned runs marked, nothing compared."""

# The pages' typography (en dash, arrows) is asserted as published.
# ruff: noqa: RUF001

from __future__ import annotations

import re
import statistics
from dataclasses import replace

import msgspec
import pytest

from tests.runs import LOADGEN, benchmark, failed, run
from tests.site_runs import (
    ECHO,
    IMPLS,
    MACHINE,
    SETTINGS,
    SPREAD,
    TUNING,
    environment,
    rates,
    site_runs,
)
from wsbench.impls import load_impl
from wsbench.instrument.provenance import impl_info
from wsbench.results import stats
from wsbench.results.runformat import Harness, Run, SystemCheck
from wsbench.site.charts import night_labels, render_history_svg
from wsbench.site.framework_pages import NIGHTS_ONE_RUN, NIGHTS_TABLE_RUNS, render_page
from wsbench.site.frameworks import Framework, load_frameworks
from wsbench.site.headline import HEADLINES
from wsbench.site.history import (
    HARNESS_CHANGED,
    LOADGEN_CHANGED,
    SETTINGS_CHANGED,
    History,
    Night,
    Series,
    change_notes,
    changes_between,
    figure_samples,
    history_chart,
    history_of,
)
from wsbench.site.results import select
from wsbench.site.rows import row_of

N1 = "20261120T020000Z-000001"
N2 = "20261121T020000Z-000002"
"""Same harness as N1; the machine was not tuned."""
N3 = "20261122T020000Z-000003"
"""A new harness (another commit and other sources)."""
N4 = "20261123T020000Z-000004"
"""Same harness as N3."""
OLD_HARNESS = Harness(commit="1" * 40, source_sha256="a" * 64)
NEW_HARNESS = Harness(commit="2" * 40, source_sha256="b" * 64)
TUNED = SystemCheck(items=(), tuned=True)
BY_SLUG = {h.slug: h for h in HEADLINES}
ECHO_16B = BY_SLUG["echo-throughput-16b"]
ECHO_64KIB = BY_SLUG["echo-throughput-64kib"]
LATENCY = BY_SLUG["echo-latency-p50-16b"]
WS_15 = {N1: 25_000.0, N2: 24_000.0, N3: 30_000.0, N4: 30_500.0}
"""websockets 15.0.1's echo messages/s each night (the step at N3 is the new harness)."""
WS_14 = {N1: 20_000.0, N2: 19_000.0, N4: 22_000.0}
"""websockets 14.2's, not measured in N3."""


def _night(run_id: str, doc: Run) -> Run:
    harness = OLD_HARNESS if run_id in (N1, N2) else NEW_HARNESS
    system = TUNING if run_id == N2 else TUNED
    return msgspec.structs.replace(doc, harness=harness, system=system)


def nights_store() -> list[Run]:
    """websockets 15.0.1 in four nights (a disturbed window in N1, echo 64 KiB failed in
    N2), 14.2 in N1, N2 and N4; Starlette's websockets-asyncio 1.10.0 in N1 and N4 and
    wsproto-asyncio 1.10.0 in N4 only; python-socketio in N4 only."""
    docs = []
    for night, rate in WS_15.items():
        special = {}
        if night == N1:
            special[("echo", 16, 64)] = benchmark("echo", ECHO[1], rates(rate), disturbed=[9e3])
        if night == N2:
            special[("echo", 65536, 64)] = failed("echo", ECHO[5], "connection reset")
        doc = environment("websockets", "default", "15.0.1", rate, 4 * rate, run_id=night,
                          special=special)  # fmt: skip
        docs.append(_night(night, doc))
    for night, rate in WS_14.items():
        doc = environment("websockets", "default", "14.2", rate, 4 * rate, run_id=night)
        docs.append(_night(night, doc))
    for night in (N1, N4):
        doc = environment("starlette", "websockets-asyncio", "1.10.0", 25_000, 1e5, run_id=night)
        docs.append(_night(night, doc))
    only = environment("starlette", "wsproto-asyncio", "1.10.0", 16_000, 6e4, run_id=N4)
    sio = environment("python-socketio", "default", "5.14.0", 12_500, 25_000, run_id=N4)
    return [*docs, _night(N4, only), _night(N4, sio)]


@pytest.fixture(scope="module")
def docs() -> list[Run]:
    return nights_store()


@pytest.fixture(scope="module")
def history(docs: list[Run]) -> History:
    return history_of(docs)


@pytest.fixture(scope="module")
def frameworks() -> dict[str, Framework]:
    return {f.name: f for f in load_frameworks(IMPLS)}


def _series(history: History, slug: str, impl: str, config: str, version: str) -> Series:
    (found,) = [
        s
        for s in history.series
        if (s.headline.slug, s.impl, s.config, s.version) == (slug, impl, config, version)
    ]
    return found


def test_the_nights_in_run_id_order_with_what_changed_and_the_tuning_verdict(
    history: History,
) -> None:
    assert [n.run_id for n in history.nights] == [N1, N2, N3, N4]
    assert [n.changes for n in history.nights] == [(), (), (HARNESS_CHANGED,), ()]
    assert [n.tuned for n in history.nights] == [True, False, True, True]
    assert [n.date for n in history.nights] == [
        "2026-11-20",
        "2026-11-21",
        "2026-11-22",
        "2026-11-23",
    ]
    assert [n.commit for n in history.nights] == ["1" * 12, "1" * 12, "2" * 12, "2" * 12]
    assert {n.machine for n in history.nights} == {MACHINE.name}


def test_one_series_per_version_with_the_figure_and_interval_of_each_night(
    history: History,
) -> None:
    ws15 = _series(history, ECHO_16B.slug, "websockets", "default", "15.0.1")
    assert [p.run_id for p in ws15.points] == [N1, N2, N3, N4]
    for point, rate in zip(ws15.points, WS_15.values(), strict=True):
        windows = rates(rate)
        summary = stats.summarize([windows[0:2], windows[2:4], windows[4:6]])
        # The geometric mean over the 3 server processes (of 2 windows each).
        assert point.value == summary.value == pytest.approx(statistics.geometric_mean(windows))
        assert point.interval == summary.interval
        # N1's disturbed window (9,000 msg/s, a 4th process) is left out, as everywhere on
        # the site.
        assert point.n == len(SPREAD) // 2
    assert [p.changes for p in ws15.points] == [(), (), (HARNESS_CHANGED,), ()]
    assert ws15.runs == 4
    assert [p.night.tuned for p in ws15.points] == [True, False, True, True]
    assert ws15.points[2].night.harness == NEW_HARNESS
    assert ws15.points[0].night.loadgen == ws15.points[3].night.loadgen
    # 14.2 was not measured in N3: its point in N4 follows N2's, across the new harness.
    ws14 = _series(history, ECHO_16B.slug, "websockets", "default", "14.2")
    assert [p.run_id for p in ws14.points] == [N1, N2, N4]
    assert [p.changes for p in ws14.points] == [(), (), (HARNESS_CHANGED,)]
    since = ws14.points[2].since
    assert since is not None and since.run_id == N2
    geomean = statistics.geometric_mean(SPREAD)
    assert [p.value for p in ws14.points] == pytest.approx([r * geomean for r in WS_14.values()])


def test_units_failed_benchmarks_and_series_order(history: History) -> None:
    # Latency in µs: p50 = 1 / rate in every window of tests.runs.sample.
    latency = _series(history, LATENCY.slug, "websockets", "default", "15.0.1")
    p50 = statistics.geometric_mean([1 / w for w in rates(25_000)])
    assert latency.points[0].value == pytest.approx(p50 / 1e-6)
    # The 64 KiB benchmark failed in N2: no point that night.
    big = _series(history, ECHO_64KIB.slug, "websockets", "default", "15.0.1")
    assert [p.run_id for p in big.points] == [N1, N3, N4]
    geomean = statistics.geometric_mean(SPREAD)
    assert big.points[0].value == pytest.approx(65_536 * 25_000 * geomean / 1e6)  # MB/s
    first = [(s.impl, s.config, s.version) for s in history.series if s.headline == HEADLINES[0]]
    assert first == [
        ("python-socketio", "default", "5.14.0"),
        ("starlette", "websockets-asyncio", "1.10.0"),
        ("starlette", "wsproto-asyncio", "1.10.0"),
        ("websockets", "default", "14.2"),
        ("websockets", "default", "15.0.1"),
    ]
    assert history.machines("websockets") == [MACHINE.name]
    assert history.runs("starlette", "websockets-asyncio", MACHINE.name) == 2
    assert history.runs("starlette", "wsproto-asyncio", MACHINE.name) == 1


def test_figure_samples_are_the_rows_samples() -> None:
    for doc in site_runs():
        for bench in doc.benchmarks:
            assert figure_samples(bench) == row_of(bench).samples


def test_what_counts_as_a_change() -> None:
    night = Night(MACHINE.name, N1, "2026-11-20T02:00:00+00:00", OLD_HARNESS, LOADGEN,
                  SETTINGS, None)  # fmt: skip
    # Another commit with the same harness sources: no change (only README moved on).
    same_code = msgspec.structs.replace(OLD_HARNESS, commit="3" * 40)
    assert changes_between(night, replace(night, harness=same_code)) == ()
    # No source hash recorded: the commits decide.
    old = msgspec.structs.replace(OLD_HARNESS, source_sha256="")
    assert changes_between(replace(night, harness=old), replace(night, harness=same_code)) == (
        HARNESS_CHANGED,
    )
    dirty = msgspec.structs.replace(OLD_HARNESS, source_sha256="c" * 64)
    assert change_notes(night, replace(night, harness=dirty)) == (
        f"harness sources {'a' * 12} → {'c' * 12} (same commit)",
    )
    rustc = msgspec.structs.replace(night.loadgen, rustc="rustc 1.96.0")
    five = msgspec.structs.replace(night.settings, window_s=5.0, processes=4)
    later = replace(night, harness=NEW_HARNESS, loadgen=rustc, settings=five)
    assert changes_between(night, later) == (HARNESS_CHANGED, LOADGEN_CHANGED, SETTINGS_CHANGED)
    assert change_notes(night, later) == (
        f"harness {'1' * 12} → {'2' * 12}",
        "load generator rustc 1.95.0 → rustc 1.96.0",
        "settings: window_s 3.0 → 5.0, processes 3 → 4",
    )


def test_the_chart_of_one_framework(history: History, frameworks: dict[str, Framework]) -> None:
    chart = history_chart(frameworks["websockets"], history, MACHINE.name, ECHO_16B)
    assert [n.run_id for n in chart.nights] == [N1, N2, N3, N4]
    assert chart.changes == ((), (), (HARNESS_CHANGED,), ())
    assert [line.label for line in chart.lines] == ["14.2", "15.0.1"]  # meta.toml order
    assert [line.version_index for line in chart.lines] == [0, 1]
    assert [n.run_id for n in chart.untuned] == [N2]
    starlette = history_chart(frameworks["starlette"], history, MACHINE.name, ECHO_16B)
    assert [line.label for line in starlette.lines] == [
        "websockets-asyncio 1.10.0",
        "wsproto-asyncio 1.10.0",
    ]
    assert [line.config_index for line in starlette.lines] == [0, 1]
    assert [n.run_id for n in starlette.nights] == [N1, N4]
    # Between its two nights the harness changed (in N3, which did not measure it).
    assert starlette.changes == ((), (HARNESS_CHANGED,))


def _texts(svg: bytes) -> list[str]:
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg.decode())]


def test_the_svg_labels_dates_lines_the_harness_change_and_the_untuned_run(
    history: History, frameworks: dict[str, Framework]
) -> None:
    chart = history_chart(frameworks["websockets"], history, MACHINE.name, ECHO_16B)
    svg = render_history_svg(chart)
    texts = _texts(svg)
    for label in ("2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "14.2", "15.0.1"):
        assert label in texts, (label, texts)
    assert texts.count("harness") == 1  # one dashed line, named
    assert "machine not tuned" in texts
    assert "whiskers: 95 % interval" in texts
    assert any("higher is better" in t for t in texts)
    assert svg == render_history_svg(chart)  # deterministic


def test_labels_of_nights_on_the_same_day() -> None:
    base = Night(MACHINE.name, N1, "2026-11-20T02:00:00+00:00", OLD_HARNESS, LOADGEN,
                 SETTINGS, None)  # fmt: skip
    later = replace(base, run_id="20261120T140000Z-000005", started_at="2026-11-20T14:00:00")
    commit = replace(later, harness=NEW_HARNESS)
    assert night_labels([base, later, commit]) == [
        "2026-11-20 02:00",
        "2026-11-20 14:00 1111111",
        "2026-11-20 14:00 2222222",
    ]


def _rows(markdown: str, heading: str) -> list[list[str]]:
    """The rows (header included) of the first table after ``heading``, HTML tags out."""
    lines = markdown[markdown.index(heading) :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for i, line in enumerate(lines[start:]):
        if not line.startswith("| "):
            break
        if i != 1:  # the alignment row
            cells = [re.sub("<[^>]+>", "", c).strip() for c in line.strip("|").split(" | ")]
            rows.append(cells)
    return rows


def test_the_framework_page_charts_and_lists_every_night(
    docs: list[Run], history: History, frameworks: dict[str, Framework]
) -> None:
    page = render_page(frameworks["websockets"], select(docs), "https://x", history)
    md = page.markdown
    assert "## Night by night { #night-by-night }" in md
    assert "a step at a dashed line is the harness's doing, not the framework's" in md
    assert (
        f"- Dashed line before `{N3}` (2026-11-22 02:00 UTC): harness "
        f"{'1' * 12} → {'2' * 12}." in md
    )
    assert f"- Grey band, the machine was **not tuned**: `{N2}` (2026-11-21 02:00 UTC)." in md
    for h in HEADLINES:
        assert f"frameworks/websockets/night-{h.slug}.svg" in page.charts
        assert f"(websockets/night-{h.slug}.svg)" in md
        assert f"{{ #night-{h.slug} }}" in md
    header, *rows = _rows(md, "{ #night-echo-throughput-16b }")
    assert header == [
        "Run",
        "Date",
        "Harness",
        "Version",
        "Echo messages/s, 16 B, 64 in flight",
        "Tuned",
        "Changed since its previous run",
    ]
    harness_note = f"harness {'1' * 12} → {'2' * 12}"
    assert [(r[0], r[3], r[5], r[6]) for r in rows] == [
        (f"`{N1}`", "14.2", "yes", "—"),
        (f"`{N1}`", "15.0.1", "yes", "—"),
        (f"`{N2}`", "14.2", "**no**", "—"),
        (f"`{N2}`", "15.0.1", "**no**", "—"),
        (f"`{N3}`", "15.0.1", "yes", harness_note),
        (f"`{N4}`", "14.2", "yes", harness_note),
        (f"`{N4}`", "15.0.1", "yes", "—"),
    ]
    assert rows[0][1:3] == ["2026-11-20 02:00 UTC", "1" * 12]
    assert rows[4][2] == "2" * 12
    assert rows[1][4] == "24,998 (24,083–25,947)"
    assert rows[4][4] == "29,997 (28,900–31,136)"
    assert NIGHTS_ONE_RUN not in md


def test_a_configuration_with_one_run_says_so(
    docs: list[Run], history: History, frameworks: dict[str, Framework]
) -> None:
    results = select(docs)
    starlette = render_page(frameworks["starlette"], results, "https://x", history)
    assert "Figures from only one run so far: `wsproto-asyncio`." in starlette.markdown
    header, *rows = _rows(starlette.markdown, "{ #night-echo-throughput-16b }")
    assert header[3] == "Configuration"
    assert [(r[0], r[3]) for r in rows] == [
        (f"`{N1}`", "`websockets-asyncio`"),
        (f"`{N4}`", "`websockets-asyncio`"),
        (f"`{N4}`", "`wsproto-asyncio`"),
    ]
    sio = render_page(frameworks["python-socketio"], results, "https://x", history)
    section = sio.markdown[sio.markdown.index("## Night by night") :]
    assert section.splitlines()[2] == NIGHTS_ONE_RUN.strip()
    assert not [path for path in sio.charts if "night-" in path]


def test_the_table_lists_the_latest_runs_and_the_chart_every_run(
    frameworks: dict[str, Framework],
) -> None:
    impl = load_impl(IMPLS / "websockets")
    info = impl_info(impl, impl.config("default"), "15.0.1")
    ids = [f"202612{day:02d}T020000Z-{day:06x}" for day in range(1, 21)]
    docs = [run(rates(1_000 + i), run_id=run_id, impl_info=info) for i, run_id in enumerate(ids)]
    history = history_of(docs)
    page = render_page(frameworks["websockets"], select(docs), "https://x", history)
    _, *rows = _rows(page.markdown, "{ #night-echo-throughput-16b }")
    assert [r[0] for r in rows] == [f"`{i}`" for i in ids[-NIGHTS_TABLE_RUNS:]]
    chart = history_chart(frameworks["websockets"], history, "m", ECHO_16B)
    assert len(chart.nights) == 20
    # 20 nights: every second one labelled, the newest always.
    texts = _texts(render_history_svg(chart))
    assert "2026-12-20" in texts and "2026-12-18" in texts and "2026-12-19" not in texts
    # Tuning not recorded: no band, and the table says so.
    assert "machine not tuned" not in texts
    assert rows[0][5] == "not recorded"


def test_each_machine_has_its_own_history(
    docs: list[Run], frameworks: dict[str, Framework]
) -> None:
    impl = load_impl(IMPLS / "websockets")
    info = impl_info(impl, impl.config("default"), "15.0.1")
    other = run(rates(9_000), run_id=N4, impl_info=info, machine="other")
    history = history_of([*docs, other])
    assert history.machines("websockets") == ["other", MACHINE.name]
    assert [n.run_id for n in history.nights if n.machine == "other"] == [N4]
    page = render_page(frameworks["websockets"], select([*docs, other]), "https://x", history)
    md = page.markdown
    section = md[md.index("## Night by night") :]
    # One section per machine: "other" has one run, wsbench-ci its charts.
    assert "### Machine `other` { #night-other }" in section
    assert NIGHTS_ONE_RUN in section[: section.index("### Machine `wsbench-ci`")]
    assert "{ #wsbench-ci-night-echo-throughput-16b }" in section
    assert "frameworks/websockets/wsbench-ci-night-echo-throughput-16b.svg" in page.charts
    assert not [p for p in page.charts if p.startswith("frameworks/websockets/other-night-")]
