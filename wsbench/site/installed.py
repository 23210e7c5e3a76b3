"""The Runs and environment page's *Installed packages* table: per environment shown, every
distribution its documents record as installed, folded under a count (a ``<details>``
element), and where they came from (``environment.resolution``: a committed lock, the
project's ``uv.lock``, or resolved on the day); *not recorded* for documents from before
(:class:`wsbench.results.runformat.Environment`)."""

from __future__ import annotations

from collections.abc import Sequence

from wsbench.results.runformat import Resolution, Run
from wsbench.site.markup import DASH, NOWRAP, cell, code, table
from wsbench.site.render import row_name_cell
from wsbench.site.results import EnvRun, by_environment
from wsbench.site.sources import HEX

NOT_RECORDED = "not recorded"
"""What a cell says for documents from before the packages were recorded."""
HEADERS = ["Framework", "Version", "Installed from", "Packages"]
FOLD_CLASS = "wsbench-packages"
"""The class of the ``<details>`` that folds an environment's packages (styled by the site's
stylesheet, ``assets/wsbench.css``)."""


def resolution_text(resolution: Resolution | None) -> str:
    """Where an environment's packages came from, as a cell: the lock file, its entry's short
    hash and the day it was resolved (``"`impls/aiohttp/lock.toml` (3f3f3f3f3f3f), resolved
    YYYY-MM-DD"``), the project's ``uv.lock`` and its hash, or ``"resolved on the day
    (YYYY-MM-DD): no lock lists it"``, each date in a span that keeps it on one line;
    :data:`NOT_RECORDED` for None."""
    if resolution is None:
        return NOT_RECORDED
    # A date kept on one line: a narrow column broke a date at its hyphens.
    day = NOWRAP.format(cell(resolution.resolved_on)) if resolution.resolved_on else ""
    if resolution.source == "resolved":
        return f"resolved on the day ({day}): no lock lists it" if day else "resolved on the day"
    parts = [code(resolution.lock_file or resolution.source)]
    if resolution.sha256:
        parts.append(f"({resolution.sha256[:HEX]})")
    text = " ".join(parts)
    return f"{text}, resolved {day}" if day else text


def packages_cell(packages: Sequence[str] | None, note: str = "") -> str:
    """``packages`` (``name==version`` lines) folded in a ``<details>`` element whose summary
    counts them (``"42 packages"``, then ``note``), one per line when unfolded;
    :data:`NOT_RECORDED` for None."""
    if packages is None:
        return cell(NOT_RECORDED + note)
    count = f"{len(packages)} package{'' if len(packages) == 1 else 's'}{note}"
    listed = "<br>".join(code(p) for p in packages)
    return (
        f'<details class="{FOLD_CLASS}"><summary>{cell(count)}</summary>{listed or DASH}</details>'
    )


def _distinct(docs: Sequence[Run]) -> list[tuple[Run, list[str]]]:
    """Each distinct (packages, resolution) among ``docs`` (their order): its first document
    and every run that recorded it."""
    found: dict[object, tuple[Run, list[str]]] = {}
    for doc in docs:
        env = doc.environment
        _, runs = found.setdefault((env.packages, env.resolution), (doc, []))
        if doc.run_id not in runs:
            runs.append(doc.run_id)
    return list(found.values())


def _row(env: Sequence[EnvRun]) -> list[str]:
    first = env[0]
    kinds = _distinct([r.doc for r in env])
    sources, folds = [], []
    for doc, runs in kinds:
        # An environment's documents that disagree (installed again between runs) each say so.
        note = f" (run {', '.join(runs)})" if len(kinds) > 1 else ""
        sources.append(
            resolution_text(doc.environment.resolution) + (f" {cell(note)}" if note else "")
        )
        folds.append(packages_cell(doc.environment.packages, note))
    return [
        row_name_cell(first) + (" (reference)" if first.impl.reference else ""),
        cell(first.impl.version or DASH),
        "; ".join(sources),
        " ".join(folds),
    ]


def installed_table(runs: Sequence[EnvRun]) -> str:
    """One row per environment of ``runs`` (one machine's shown documents, in their order):
    framework, version, where its packages came from and the packages, folded."""
    return table(HEADERS, [_row(env) for env in by_environment(runs)])
