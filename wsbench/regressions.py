"""New releases that are significantly slower than the previous release (the nightly).

In one run, each new release's document (a version its implementation's ``meta.toml``
does not list yet, :mod:`wsbench.releases`) is compared with the document of the last
listed version of the same configuration (:func:`wsbench.compare.compare_runs`). A release
with a *slower* verdict on any figure gives one report per (framework, release): a title
that stays the same from night to night (the GitHub issue is found again by it) and a
Markdown body with the comparison tables of every configuration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench import compare
from wsbench.impls import Impl
from wsbench.runformat import Run

TITLE_PREFIX = "Benchmark regression:"


@dataclass(frozen=True)
class Regression:
    """One new release with at least one significantly slower figure.

    Attributes:
        impl: the implementation's name.
        release: the new release.
        previous: the release it was compared with (the last listed one).
        title: the issue's title (see :func:`title`).
        body: the issue's Markdown: the run, then one comparison table per configuration.
    """

    impl: str
    release: str
    previous: str
    title: str
    body: str


def title(display_name: str, release: str) -> str:
    """The issue title for ``release`` of a framework, e.g. ``"Benchmark regression:
    websockets 17.5"``."""
    return f"{TITLE_PREFIX} {display_name} {release}"


def find(runs: Sequence[Run], run_id: str, impls: Sequence[Impl]) -> list[Regression]:
    """The regressions among the new releases of run ``run_id`` in ``runs``.

    A new release whose previous release was not measured in the same run, or failed, is
    not compared (its failure is on the site).
    """
    by_name = {i.name: i for i in impls}
    docs = [r for r in runs if r.run_id == run_id]
    found: dict[tuple[str, str], list[tuple[Run, Run, list[compare.Line]]]] = {}
    for new in docs:
        impl = by_name.get(new.impl.name)
        if impl is None or not impl.versions or new.impl.version is None:
            continue
        listed = {v.version for v in impl.versions}
        if new.impl.version in listed:
            continue
        last = impl.versions[-1].version
        previous = next(
            (d for d in docs if d.impl.name == new.impl.name and d.impl.config == new.impl.config
             and d.impl.version == last),
            None,
        )  # fmt: skip
        if previous is None:
            continue
        try:
            lines = compare.compare_runs([previous], [new], match="configuration")
        except compare.CompareError:
            continue
        if any(line.verdict == "slower" for line in lines):
            found.setdefault((impl.name, new.impl.version), []).append((previous, new, lines))
    out = []
    for (name, release), parts in sorted(found.items()):
        impl = by_name[name]
        previous_version = parts[0][0].impl.version or ""
        sections = [
            f"The nightly run `{run_id}` on `{parts[0][1].machine.name}` measured "
            f"**{impl.display_name} {release}**, a release newer than the last one listed in "
            f"`impls/{name}/meta.toml` ({previous_version}), installed with that version's "
            f"pins, beside {previous_version} in the same session. It is significantly "
            "slower on at least one figure:",
            "",
        ]
        for previous, new, lines in parts:
            head = f"{new.impl.row_name}: {previous.impl.version} → {new.impl.version}"
            sections.append(compare.to_markdown(lines, head))
        out.append(
            Regression(
                impl=name,
                release=release,
                previous=previous_version,
                title=title(impl.display_name, release),
                body="\n".join(sections),
            )
        )
    return out
