"""Significant changes of a figure between consecutive releases of one configuration.

Consecutive measured versions (the failed ones skipped) are compared with
:func:`wsbench.results.stats.compare` on the usable samples of the figure, grouped by server
process: a change is significant when Welch's t test over the processes gives p <
:data:`wsbench.results.stats.ALPHA` and the figures differ by at least
:data:`wsbench.results.stats.MIN_EFFECT`. Only significant changes are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from wsbench.results.stats import Comparison, FrozenGroups, Groups, compare, frozen

MINUS = "\u2212"
"""The minus sign of a negative change (U+2212, not a hyphen)."""


@dataclass(frozen=True)
class Change:
    """A significant change between two consecutive measured versions.

    Attributes:
        base: the older version.
        head: the newer version.
        comparison: :func:`wsbench.results.stats.compare`'s result (``head_over_base`` is the
            ratio of the figures, ``p_value`` the test's).
    """

    base: str
    head: str
    comparison: Comparison

    @property
    def percent(self) -> str:
        """The change of the figure (the geometric mean over the server processes) in
        percent, signed, e.g. ``"+12 %"``, or ``"-9 %"`` with a true minus sign
        (:data:`MINUS`)."""
        value = (self.comparison.head_over_base - 1) * 100
        return f"{value:+.0f} %".replace("-", MINUS)

    @property
    def p_value(self) -> str:
        """The test's p-value, two significant digits, e.g. ``"0.0022"``."""
        return f"{self.comparison.p_value:.2g}"


@lru_cache(maxsize=8192)
def _compare(base: FrozenGroups, head: FrozenGroups, higher: bool) -> Comparison:
    return compare(base, head, higher_is_better=higher)


def compare_samples(base: Groups, head: Groups, *, higher_is_better: bool) -> Comparison:
    """:func:`wsbench.results.stats.compare` of ``base`` and ``head`` (windows grouped by
    server process, two independent sets: Welch's test) with its defaults, cached: the site
    compares the same samples on several pages (the framework charts and the Findings page)
    and computes each comparison once.

    Raises:
        ValueError: as :func:`wsbench.results.stats.compare` (a side empty, or a value not finite
            or not > 0).
    """
    return _compare(frozen(base), frozen(head), higher_is_better)


def significant_changes(
    versions: Sequence[tuple[str, Groups]], *, higher_is_better: bool
) -> tuple[Change, ...]:
    """The significant changes along one configuration's versions.

    Args:
        versions: ``(version, samples by server process)`` in version order, oldest first;
            a version with no sample (it failed) is skipped, so its neighbours are compared.
        higher_is_better: the figure's direction (see :func:`wsbench.results.stats.compare`).

    Returns:
        The significant changes, oldest first; empty when none is. Samples that are not
        all positive (which :func:`~wsbench.results.stats.compare` refuses) are never compared.
    """
    measured = [(v, s) for v, s in versions if any(s) and all(x > 0 for g in s for x in g)]
    changes = []
    for (base, before), (head, after) in pairwise(measured):
        result = compare_samples(before, after, higher_is_better=higher_is_better)
        if result.significant:
            changes.append(Change(base, head, result))
    return tuple(changes)
