"""Every new release is compared with the last listed one of its configuration in the same
run; one significantly slower there and in its interleaved confirmation (the same figure)
gives one report per (framework, release), and so does one whose instructions per message
rose by the threshold, without confirmation; one that is not, whose confirmation does not
hold, or whose previous release is missing, gives none."""

from __future__ import annotations

import dataclasses

import msgspec

from tests.runs import ECHO_16_64, counted_set, impl, run, with_counts
from wsbench.impls import get_impl
from wsbench.results.compare import compare_runs
from wsbench.results.env_diff import lines
from wsbench.results.regressions import (
    Regression,
    compare_new_releases,
    confirmation_sides,
    confirmed_lines,
    differentials,
    environments,
    find,
    key,
    title,
)
from wsbench.results.runformat import Interpreter, ProfileSet, Profiling, Run

WEBSOCKETS = get_impl("websockets")
LAST = WEBSOCKETS.versions[-1].version
RUN = "20261124T020000Z-abcdef"
FAST = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
SLOW = [r * 0.8 for r in FAST]


def _doc(version: str, rates: list[float], config: str = "asyncio", run_id: str = RUN) -> Run:
    info = msgspec.structs.replace(
        impl("websockets", version, config), display_name=WEBSOCKETS.display_name
    )
    return run(rates, run_id=run_id, impl_info=info, env_name=f"ws-{version}-{config}")


def _find(docs: list[Run], again: list[float] | None = SLOW) -> list[Regression]:
    """The regressions of ``docs``, each candidate measured again at ``again`` against
    :data:`FAST` (None: no confirmation)."""
    compared = compare_new_releases(docs, RUN, [WEBSOCKETS])
    confirmations = {}
    for c in compared:
        if again is not None and c.slower:
            base = _doc(c.previous, FAST, c.head.impl.config, f"{RUN}-confirm-base")
            head = _doc(c.release, again, c.head.impl.config, f"{RUN}-confirm-head")
            confirmations[key(c)] = compare_runs([base], [head], match="configuration")
    return find(compared, RUN, confirmations)


def test_a_slower_new_release_is_reported_once_with_every_configuration() -> None:
    docs = [
        _doc(LAST, FAST), _doc("99.0", SLOW),
        _doc(LAST, FAST, "uvloop"), _doc("99.0", SLOW, "uvloop"),
    ]  # fmt: skip
    (found,) = _find(docs)
    assert (found.impl, found.release, found.previous) == ("websockets", "99.0", LAST)
    assert found.title == title("websockets", "99.0") == "Benchmark regression: websockets 99.0"
    assert found.body.count("| slower |") >= 4  # each configuration: the run, the confirmation
    for config in ("asyncio", "uvloop"):
        assert f"websockets · {config}: {LAST} → 99.0: the nightly run" in found.body
        assert f"websockets · {config}: {LAST} → 99.0: confirmation (interleaved)" in found.body
    assert RUN in found.body


def test_no_report_for_a_release_that_is_not_slower_or_has_nothing_to_compare_with() -> None:
    assert _find([_doc(LAST, FAST), _doc("99.0", FAST)]) == []
    assert _find([_doc("99.0", SLOW)]) == []
    other_run = _doc(LAST, FAST, run_id="20261123T020000Z-000000")
    assert _find([other_run, _doc("99.0", SLOW)]) == []
    assert _find([_doc(LAST, FAST), _doc(LAST, SLOW, "uvloop")]) == []


def test_every_new_release_is_compared_or_says_why_not() -> None:
    docs = [_doc(LAST, FAST), _doc("99.0", FAST), _doc("99.0", SLOW, "uvloop")]
    same, alone = compare_new_releases(docs, RUN, [WEBSOCKETS])
    assert (same.release, same.previous, same.head.impl.config) == ("99.0", LAST, "asyncio")
    assert same.problem is None and not same.slower
    assert {line.verdict for line in same.lines} == {"no significant change"}
    assert same.heading == f"websockets · asyncio: {LAST} → 99.0"
    assert alone.head.impl.config == "uvloop" and alone.lines == ()
    assert alone.problem == f"{LAST} was not measured in run {RUN}"
    assert compare_new_releases([_doc(LAST, FAST)], RUN, [WEBSOCKETS]) == []


def test_a_slower_figure_not_slower_again_or_not_measured_again_is_not_reported() -> None:
    docs = [_doc(LAST, FAST), _doc("99.0", SLOW)]
    assert _find(docs, again=FAST) == []
    assert _find(docs, again=None) == []
    (candidate,) = compare_new_releases(docs, RUN, [WEBSOCKETS])
    rate_only = [line for line in candidate.lines if line.metric.name == "messages_per_s"]
    candidate = dataclasses.replace(candidate, lines=tuple(rate_only))
    assert candidate.slower
    other_figure = compare_runs(
        [_doc(LAST, FAST, run_id=f"{RUN}-confirm-base")],
        [_doc("99.0", SLOW, run_id=f"{RUN}-confirm-head")],
        match="configuration", metric_names=["latency_p99"],
    )  # fmt: skip
    assert confirmed_lines(candidate, other_figure) == []  # the same figure must be slower


def _counted(doc: Run, per_message: int, again: int | None = None) -> Run:
    """``doc`` with echo 16 B x64 counted at ``per_message`` instructions per message (the
    repeated high run at ``again``, default the same)."""
    return with_counts(doc, counted_set(per_message, again=again))


def test_more_instructions_per_message_is_reported_without_confirmation() -> None:
    # wall-clock figures the same: only the count tells, +2 % instructions per message
    docs = [_counted(_doc(LAST, FAST), 80_000), _counted(_doc("99.0", FAST), 81_600)]
    (candidate,) = compare_new_releases(docs, RUN, [WEBSOCKETS])
    assert not candidate.slower and candidate.more_instructions
    (found,) = _find(docs, again=None)
    assert f"websockets · asyncio: {LAST} → 99.0: instruction counts" in found.body
    assert "| slower |" in found.body and "without a confirmation run" in found.body
    assert "confirmation (interleaved)" not in found.body


def test_no_report_for_counts_within_the_threshold_or_their_spread() -> None:
    same = [_counted(_doc(LAST, FAST), 80_000), _counted(_doc("99.0", FAST), 80_400)]  # +0.5 %
    assert _find(same, again=None) == []
    # +2 %, but the repeated count spread 1 %: a verdict needs 3 %
    wobbly = [_counted(_doc(LAST, FAST), 80_000), _counted(_doc("99.0", FAST), 81_600, 82_400)]
    (candidate,) = compare_new_releases(wobbly, RUN, [WEBSOCKETS])
    assert not candidate.more_instructions
    assert _find(wobbly, again=None) == []
    # one side not counted: nothing to compare
    assert _find([_doc(LAST, FAST), _counted(_doc("99.0", FAST), 90_000)], again=None) == []


def _profiled(doc: Run, burn: int) -> Run:
    """``doc``'s environment profiled at its echo set: ``burn`` % of the samples in burn."""
    stacks = {"p;h (s.py:1);burn (s.py:5)": burn, "p;h (s.py:1);send (s.py:9)": 100 - burn}
    found = ProfileSet("echo", dict(ECHO_16_64), "ok", None, 2.0, 250, stacks=stacks)
    return msgspec.structs.replace(
        doc, benchmarks=[], profiles=[found], profiling=Profiling("py-spy 0.4.3", True)
    )


def test_a_report_shows_the_differential_profile_of_a_slowed_set_profiled_on_both_sides() -> None:
    docs = [_doc(LAST, FAST), _doc("99.0", SLOW)]
    (c,) = compare_new_releases(docs, RUN, [WEBSOCKETS])
    profiles = [_profiled(docs[0], 5), _profiled(docs[1], 60)]
    (d,) = differentials(c, profiles)
    assert (d.base.doc.impl.version, d.head.doc.impl.version) == (LAST, "99.0")
    assert [(g.function, g.base_share, g.head_share) for g in d.growers] == [
        ("burn (s.py)", 0.05, 0.6)
    ]
    assert differentials(c, profiles[1:]) == []  # the previous release was not profiled
    confirmation = compare_runs([_doc(LAST, FAST)], [_doc("99.0", SLOW)], match="configuration")
    (found,) = find([c], RUN, {key(c): confirmation}, {key(c): [d]})
    assert "| `burn (s.py)` | 5.0 % | 60.0 % | +55.0 points |" in found.body
    assert f"Base: websockets · asyncio {LAST}, run {RUN} (profiles/m/{RUN}/" in found.body


def _installed(doc: Run, *packages: str) -> Run:
    """``doc`` recording ``packages`` as installed (with its own version's package) and
    its interpreter's build."""
    own = f"websockets=={doc.impl.version}"
    build = Interpreter("3.11.7", "CPython", False, True, "none", "GCC 12.2.0", ())
    env = msgspec.structs.replace(
        doc.environment, packages=tuple(sorted([own, *packages])), interpreter=build
    )
    return msgspec.structs.replace(doc, environment=env)


def test_a_report_names_what_else_differs_between_the_releases_environments() -> None:
    previous, new = _installed(_doc(LAST, FAST), "anyio==4.15.0"), _doc("99.0", SLOW)
    head_run, base_run = f"{RUN}-confirm-head", f"{RUN}-confirm-base"
    again = [_installed(_doc(LAST, FAST, run_id=base_run), "anyio==4.15.0"),
             _installed(_doc("99.0", SLOW, run_id=head_run), "anyio==4.16.0")]  # fmt: skip
    night = [previous, _installed(new, "anyio==4.16.0")]
    (c,) = compare_new_releases(night, RUN, [WEBSOCKETS])
    confirmation = compare_runs(again[:1], again[1:], match="configuration")
    (found,) = find([c], RUN, {key(c): confirmation}, confirmation_docs=again)
    heading = f"websockets · asyncio: {LAST} → 99.0"
    assert (
        f"### {heading}: environments\n\n"
        f"environments (base → head), besides websockets {LAST} → 99.0 (the compared package):"
        "\n\n- packages: anyio 4.15.0 → 4.16.0\n\n### "
    ) in found.body
    # Before the verdicts: the reader sees what coincides with them first.
    assert found.body.index(f"{heading}: environments") < found.body.index("| slower |")
    # The same release installed again for its confirmation, with another transitive
    # release: the side says its documents disagree.
    moved = [again[0], _installed(_doc("99.0", SLOW, run_id=head_run), "anyio==4.17.0")]
    assert confirmation_sides(c, moved) == ([moved[0]], [moved[1]])
    (found,) = find([c], RUN, {key(c): confirmation}, confirmation_docs=moved)
    assert (
        "- packages: anyio 4.15.0 → 4.16.0 or 4.17.0\n"
        f"- packages: the head side's documents disagree: anyio 4.16.0 (run {RUN}) "
        f"or 4.17.0 (run {head_run})\n"
    ) in found.body
    # Without the confirmation's documents, and with the night's alone identical besides it.
    assert lines(environments(c)) == (
        f"environments (base → head), besides websockets {LAST} → 99.0 (the compared package):",
        ["packages: anyio 4.15.0 → 4.16.0"],
    )
    same = [previous, _installed(new, "anyio==4.15.0")]
    (c,) = compare_new_releases(same, RUN, [WEBSOCKETS])
    assert lines(environments(c)) == (
        f"environments: identical but for websockets {LAST} → 99.0",
        [],
    )


def test_a_report_of_documents_from_before_says_their_packages_were_not_recorded() -> None:
    docs = [_doc(LAST, FAST), _doc("99.0", SLOW)]
    (found,) = _find(docs)
    assert (
        f"environments (base → head), besides websockets {LAST} → 99.0 (the compared package):"
        "\n\n- packages: not recorded on either side\n- interpreter: not recorded on either side\n"
    ) in found.body
