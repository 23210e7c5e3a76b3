"""The Installed packages table of the Runs and environment page: where each environment's
packages came from (a lock with its short hash and day, the project's ``uv.lock``, resolved
on the day, or not recorded) and the packages folded under their count."""

from __future__ import annotations

import msgspec

from tests.runs import impl, run
from wsbench.results.runformat import Resolution, Run
from wsbench.site.installed import installed_table, packages_cell, resolution_text
from wsbench.site.results import EnvRun

LOCK = Resolution("lock", "3f" * 32, "2026-11-20", "impls/aiohttp/lock.toml")
DAY = '<span style="white-space: nowrap">{}</span>'
FIRST, SECOND = "20261122T031000Z-c0ffee", "20261123T031000Z-c0ffee"


def test_where_the_packages_came_from() -> None:
    assert resolution_text(LOCK) == (
        f"`impls/aiohttp/lock.toml` (3f3f3f3f3f3f), resolved {DAY.format('2026-11-20')}"
    )
    project = Resolution("project", "5e" * 32, None, "uv.lock")
    assert resolution_text(project) == "`uv.lock` (5e5e5e5e5e5e)"
    resolved = Resolution("resolved", None, "2026-11-22", None)
    assert resolution_text(resolved) == (
        f"resolved on the day ({DAY.format('2026-11-22')}): no lock lists it"
    )
    assert resolution_text(None) == "not recorded"


def test_the_packages_are_folded_under_their_count() -> None:
    assert packages_cell(("aiohttp==3.13.2", "yarl==1.18.3")) == (
        '<details class="wsbench-packages"><summary>2 packages</summary>'
        "`aiohttp==3.13.2`<br>`yarl==1.18.3`</details>"
    )
    assert packages_cell(("aiohttp==3.13.2",)).startswith(
        '<details class="wsbench-packages"><summary>1 package</summary>'
    )
    assert packages_cell(None) == "not recorded"


def _shown(packages: tuple[str, ...] | None, run_id: str) -> EnvRun:
    doc: Run = run([1000.0] * 6, run_id=run_id, impl_info=impl("aiohttp", "3.13.2", "asyncio"))
    env = msgspec.structs.replace(
        doc.environment, packages=packages, resolution=LOCK if packages else None
    )
    return EnvRun(msgspec.structs.replace(doc, environment=env), ())


def test_an_environment_whose_runs_disagree_shows_each_with_its_run() -> None:
    both = installed_table([_shown(("aiohttp==3.13.2",), SECOND), _shown(None, FIRST)])
    header, _, row = both.splitlines()
    assert header == "| Framework | Version | Installed from | Packages |"
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:3] == [
        "3.13.2",
        f"{resolution_text(LOCK)} \\(run {SECOND}\\); not recorded \\(run {FIRST}\\)",
    ]
    assert cells[3] == (
        f'<details class="wsbench-packages"><summary>1 package \\(run {SECOND}\\)</summary>'
        f"`aiohttp==3.13.2`</details> not recorded \\(run {FIRST}\\)"
    )
    # Runs that agree: one cell each, no run named.
    same = installed_table(
        [_shown(("aiohttp==3.13.2",), SECOND), _shown(("aiohttp==3.13.2",), FIRST)]
    )
    assert "(run" not in same and same.count("<details") == 1
