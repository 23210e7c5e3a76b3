"""Every new release is compared with the last listed one of its configuration in the same
run; one significantly slower gives one report per (framework, release); one that is not,
or whose previous release is missing, gives none."""

from __future__ import annotations

import msgspec

from tests.runs import impl, run
from wsbench.impls import get_impl
from wsbench.regressions import Regression, compare_new_releases, find, title
from wsbench.runformat import Run

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


def _find(docs: list[Run]) -> list[Regression]:
    return find(compare_new_releases(docs, RUN, [WEBSOCKETS]), RUN)


def test_a_slower_new_release_is_reported_once_with_every_configuration() -> None:
    docs = [
        _doc(LAST, FAST), _doc("99.0", SLOW),
        _doc(LAST, FAST, "uvloop"), _doc("99.0", SLOW, "uvloop"),
    ]  # fmt: skip
    (found,) = _find(docs)
    assert (found.impl, found.release, found.previous) == ("websockets", "99.0", LAST)
    assert found.title == title("websockets", "99.0") == "Benchmark regression: websockets 99.0"
    assert found.body.count("| slower |") >= 2
    assert f"websockets · asyncio: {LAST} → 99.0" in found.body
    assert f"websockets · uvloop: {LAST} → 99.0" in found.body
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
