"""Conformance grades from the Autobahn|Testsuite's verdicts (a run document's
``conformance``, :class:`wsbench.results.runformat.Conformance`): counts per case group and
verdict, the failed cases, the grade shown beside a configuration's speed, and the cases a
newer version newly fails.

A case passes when the suite's ``behavior`` is OK, NON-STRICT or INFORMATIONAL, as
uWebSockets counts it in its CI and as the suite's own report colours it: NON-STRICT is a
server that is right but late (e.g. it fails an invalid UTF-8 message only once the whole
message is in, where the suite prefers the first invalid byte), INFORMATIONAL a case with no
right answer (e.g. the close reason it echoes). FAILED breaks RFC 6455; UNIMPLEMENTED is a
feature the server does not offer (permessage-deflate, groups 12-13). The closing
handshake's own verdict (``behavior_close``) is kept and shown with each case, and is not
part of the grade (the suite's summary does the same).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.results.runformat import Conformance, ConformanceCase, Run

GROUPS: dict[str, str] = {
    "1": "framing",
    "2": "ping/pong",
    "3": "reserved bits",
    "4": "opcodes",
    "5": "fragmentation",
    "6": "UTF-8",
    "7": "close",
    "9": "limits",
    "10": "misc",
    "12": "permessage-deflate",
    "13": "permessage-deflate parameters",
}
"""The suite's case groups (the first number of a case id) and what each tests; groups 8
and 11 do not exist."""

VERDICTS = ("OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED", "FAILED")
"""The suite's verdicts on a case (``behavior``), best first."""

PASSING = frozenset({"OK", "NON-STRICT", "INFORMATIONAL"})
"""The verdicts that count as a pass (see the module's docstring)."""

REPORTED = frozenset({"FAILED", "UNIMPLEMENTED", "NON-STRICT"})
"""The verdicts whose case report a reader wants to see: the two that fail the grade, and
NON-STRICT (a pass, but late)."""


def group_of(case_id: str) -> str:
    """The case group of ``case_id``: ``"7.1.5"`` -> ``"7"``."""
    return case_id.split(".", 1)[0]


def counts(conformance: Conformance) -> dict[str, Counter[str]]:
    """The cases' verdicts counted per group, groups in :data:`GROUPS`' order:
    ``{"1": Counter({"OK": 16}), ...}`` (only groups with a case)."""
    found: dict[str, Counter[str]] = {}
    for case in conformance.cases:
        found.setdefault(group_of(case.id), Counter())[case.behavior] += 1
    order = list(GROUPS)
    return dict(sorted(found.items(), key=lambda kv: _group_rank(kv[0], order)))


def _group_rank(group: str, order: list[str]) -> tuple[int, str]:
    return (order.index(group), "") if group in order else (len(order), group)


def failed(conformance: Conformance) -> list[ConformanceCase]:
    """The cases the server FAILED, in the suite's order."""
    return [c for c in conformance.cases if c.behavior == "FAILED"]


def unimplemented(conformance: Conformance) -> list[ConformanceCase]:
    """The cases the suite found UNIMPLEMENTED, outside the groups ``not_offered`` names."""
    return [
        c
        for c in conformance.cases
        if c.behavior == "UNIMPLEMENTED" and group_of(c.id) not in conformance.not_offered
    ]


def reported(conformance: Conformance) -> list[ConformanceCase]:
    """The cases whose verdict is in :data:`REPORTED`, in the suite's order, leaving out the
    UNIMPLEMENTED cases of the groups ``not_offered`` names (a feature the configuration
    does not offer is not a fault to report)."""
    skipped = set(conformance.not_offered)
    return [
        c
        for c in conformance.cases
        if c.behavior in REPORTED
        and not (c.behavior == "UNIMPLEMENTED" and group_of(c.id) in skipped)
    ]


def failed_groups(conformance: Conformance) -> list[str]:
    """The groups with a FAILED case, in :data:`GROUPS`' order (``["6", "7"]``); empty
    when none failed."""
    return [group for group, found in counts(conformance).items() if found["FAILED"]]


@dataclass(frozen=True)
class Grade:
    """A configuration's grade, as shown beside its speed.

    Attributes:
        symbol: ``"✓"`` (every case passed), ``"⚠"`` (a case failed or is unimplemented),
            ``"n/a"`` (not applicable: Socket.IO) or ``"?"`` (the grade itself failed).
        failed: the number of FAILED cases.
        unimplemented: the number of UNIMPLEMENTED cases outside the groups not offered.
        cases: the number of cases run.
        text: one line for a reader, e.g. ``"2 of 247 cases failed"``.
    """

    symbol: str
    failed: int
    unimplemented: int
    cases: int
    text: str

    @property
    def conformant(self) -> bool:
        """True when every case run passed."""
        return self.symbol == "✓"


def grade(conformance: Conformance) -> Grade:
    """The grade of one configuration (:class:`Grade`)."""
    n = len(conformance.cases)
    if conformance.outcome == "not applicable":
        return Grade("n/a", 0, 0, 0, f"not applicable: {conformance.error}")
    if conformance.outcome == "failed":
        return Grade("?", 0, 0, n, f"not graded: {conformance.error}")
    bad, missing = len(failed(conformance)), len(unimplemented(conformance))
    if not bad and not missing:
        return Grade("✓", 0, 0, n, f"all {n} cases passed")
    parts = [f"{bad} failed"] if bad else []
    parts += [f"{missing} unimplemented"] if missing else []
    return Grade("⚠", bad, missing, n, f"{' and '.join(parts)} of {n} cases")


def newly_failed(base: Conformance, head: Conformance) -> list[ConformanceCase]:
    """The cases ``head`` FAILED that ``base`` ran and passed (a release that newly breaks a
    rule; a case only one of them ran is left out). Both must be graded, else empty."""
    if base.outcome != "graded" or head.outcome != "graded":
        return []
    passed = {c.id for c in base.cases if c.behavior in PASSING}
    return [c for c in failed(head) if c.id in passed]


def latest_by_env(runs: Sequence[Run]) -> dict[str, Run]:
    """The newest graded document of each environment (by run id), from ``runs`` of a
    conformance store: ``{env_name: run}``; documents without a grade are left out."""
    found: dict[str, Run] = {}
    for run in sorted(runs, key=lambda r: r.run_id):
        if run.conformance is not None:
            found[run.environment.env_name] = run
    return found
