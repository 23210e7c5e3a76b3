"""The Studies revisited page: each published study's headline claims, checked against our
figures under the closest conditions.

The claims are data (``[[claims]]`` in ``studies.toml``, :class:`Claim`): the claim as the
study states it, its own figures and conditions, and how we check it (a rule over one or
two of our figures, :class:`Measure`). Everything else is computed from the results at
build time: our figures (over a row's server processes, as every figure of the site,
:func:`wsbench.site.rows.summary_of`; from the newest version of the configuration the claim
names and, at that version, the newest run that measured the row, whichever run of the store
it is in), the verdict and its reason:

- ``ratio_at_least``: confirmed when our a / b is at least ``threshold``;
- ``about``: confirmed when our a is within a factor of ``threshold`` of ``value``;
- ``ratio_about``: confirmed when our a / b is within a factor of ``threshold`` of
  ``value``;
- ``none``: not comparable, for the reason the claim's ``reading`` gives.

A claim whose figure we have not measured (or whose row failed) is *not comparable*, with
that reason; otherwise the rule says *confirmed* or *contradicted*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import msgspec

from wsbench.results.metrics import BY_NAME, Metric
from wsbench.results.runformat import Run
from wsbench.scenarios import params_key
from wsbench.site import templates
from wsbench.site.markup import cell, table
from wsbench.site.results import natural_key
from wsbench.site.rows import row_of

Rule = Literal["ratio_at_least", "about", "ratio_about", "none"]
Verdict = Literal["confirmed", "contradicted", "not comparable"]
STUDIES_REVISITED = "studies.md"
"""The page's path."""


class Measure(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One of our figures: which results store (``"servers"`` or ``"clients"``), which
    implementation or client library in which configuration, which scenario at which
    parameters, which metric (:data:`wsbench.results.metrics.BY_NAME`)."""

    store: Literal["servers", "clients"]
    impl: str
    config: str
    scenario: str
    metric: str
    size_bytes: int | None = None
    in_flight: int | None = None
    connections: int | None = None
    subscribers: int | None = None
    rate: int | None = None

    @property
    def params(self) -> dict[str, int]:
        """The parameter set (the parameters given)."""
        values = {
            "size_bytes": self.size_bytes, "in_flight": self.in_flight,
            "connections": self.connections, "subscribers": self.subscribers,
            "rate": self.rate,
        }  # fmt: skip
        return {k: v for k, v in values.items() if v is not None}


class Claim(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A study's claim and how we check it (see the module docstring for the rules).

    Attributes:
        study: the study's title.
        source: where the claim is published.
        claim: the claim, as the study states it.
        their_figures: the study's own figures behind it.
        conditions: the study's conditions, as it states them.
        rule: how our figures decide the verdict.
        reading: how the claim's words were read as the rule (or, for ``none``, why it is
            not comparable).
        threshold: the rule's ratio or tolerance factor.
        value: the claimed figure (``about``: in the metric's unit; ``ratio_about``: a / b).
        a, b: our figures (``b``: the rules on a ratio).
    """

    study: str
    source: str
    claim: str
    their_figures: str
    conditions: str
    rule: Rule
    reading: str
    threshold: float = 1.0
    value: float | None = None
    a: Measure | None = None
    b: Measure | None = None


class ClaimsError(ValueError):
    """A claim that cannot be checked as written (the message names it)."""


class _File(msgspec.Struct):
    claims: tuple[Claim, ...] = ()


def load_claims(path: Path) -> tuple[Claim, ...]:
    """The claims of the studies file ``path``.

    Raises:
        ClaimsError: the file does not match :class:`Claim`, a rule lacks its figures, or a
            metric is unknown.
    """
    try:
        claims = msgspec.toml.decode(path.read_bytes(), type=_File).claims
    except (OSError, msgspec.ValidationError, msgspec.DecodeError) as e:
        raise ClaimsError(f"{path}: {e}") from e
    for claim in claims:
        needs = {"none": (), "about": ("a",), "ratio_at_least": ("a", "b")}.get(
            claim.rule, ("a", "b")
        )
        missing = [n for n in needs if getattr(claim, n) is None]
        if claim.rule in ("about", "ratio_about") and claim.value is None:
            missing.append("value")
        if missing:
            raise ClaimsError(f"{path}: claim {claim.claim[:60]!r} needs {', '.join(missing)}")
        for measure in (claim.a, claim.b):
            if measure is not None and measure.metric not in BY_NAME:
                raise ClaimsError(f"{path}: unknown metric {measure.metric!r}")
    return claims


@dataclass(frozen=True)
class Figure:
    """One of our figures: its value (in the metric's unit), where it comes from, or why
    there is none (``value`` None)."""

    value: float | None
    label: str
    why_not: str = ""


def figure_of(measure: Measure, docs: Sequence[Run]) -> Figure:
    """``measure``'s figure over the server processes
    (:attr:`wsbench.results.stats.Summary.value`) from the run documents ``docs``: the newest
    version of the configuration that has the row, and at that version the newest run (any
    machine)."""
    metric = BY_NAME[measure.metric]
    runs = [d for d in docs if d.impl.name == measure.impl and d.impl.config == measure.config]
    runs.sort(key=lambda r: (natural_key(r.impl.version or ""), r.run_id), reverse=True)
    key = params_key(measure.params)
    failed = ""
    for run in runs:
        for benchmark in run.benchmarks:
            if benchmark.scenario != measure.scenario or params_key(benchmark.params) != key:
                continue
            row = row_of(benchmark, loadgen_cpus=len(run.settings.loadgen_cpus))
            label = f"{run.impl.row_name} {run.impl.version or ''}".strip()
            if not row.ok:
                failed = failed or f"{label} failed: {(row.error or row.status).splitlines()[0]}"
                continue
            summary = row.summary(metric)
            if summary is not None:
                return Figure(summary.value, label)
    where = f"{measure.impl} ({measure.config}) {measure.scenario} {key}"
    return Figure(None, where, failed or f"not measured: {where}")


def shown(value: float, metric: Metric) -> str:
    """A figure in words with its unit, e.g. ``"12,345 messages/s"``, ``"0.081 ms"``."""
    if metric.unit == "s":
        return f"{value * 1e3:,.3g} ms" if value < 1 else f"{value:,.2f} s"
    return f"{value:,.0f} {metric.unit}"


@dataclass(frozen=True)
class Checked:
    """A claim with our figures and the verdict."""

    claim: Claim
    ours: str
    verdict: Verdict
    reason: str


def ratio_text(x: float) -> str:
    """A ratio for a sentence: three significant digits, whole numbers from 100 (``"0.481"``,
    ``"2.9"``, ``"3,308"``)."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _within(x: float, target: float, factor: float) -> bool:
    return target / factor <= x <= target * factor


def check(claim: Claim, servers: Sequence[Run], clients: Sequence[Run]) -> Checked:
    """Our figures for ``claim`` and its verdict, from the servers' and the client
    libraries' run documents."""
    if claim.rule == "none" or claim.a is None:
        return Checked(claim, "—", "not comparable", claim.reading)
    stores = {"servers": servers, "clients": clients}
    a = figure_of(claim.a, stores[claim.a.store])
    metric = BY_NAME[claim.a.metric]
    if a.value is None:
        return Checked(claim, "—", "not comparable", a.why_not)
    ours = f"{a.label}: {shown(a.value, metric)}"
    if claim.rule == "about":
        assert claim.value is not None
        ok = _within(a.value, claim.value, claim.threshold)
        ratio = a.value / claim.value
        reason = (
            f"ours is {ratio_text(ratio)}× the claimed {shown(claim.value, metric)} "  # noqa: RUF001
            f"({'within' if ok else 'outside'} a factor of {claim.threshold:g})"
        )
        return Checked(claim, ours, "confirmed" if ok else "contradicted", reason)
    assert claim.b is not None
    b = figure_of(claim.b, stores[claim.b.store])
    if b.value is None or not b.value:
        return Checked(claim, ours, "not comparable", b.why_not or "b is zero")
    ours += f"; {b.label}: {shown(b.value, BY_NAME[claim.b.metric])}"
    ratio = a.value / b.value
    if claim.rule == "ratio_at_least":
        ok = ratio >= claim.threshold
        reason = (
            f"a / b = {ratio_text(ratio)} ({'at least' if ok else 'below'} {claim.threshold:g})"
        )
    else:
        assert claim.value is not None
        ok = _within(ratio, claim.value, claim.threshold)
        reason = (
            f"a / b = {ratio_text(ratio)} against the claimed {claim.value:g} "
            f"({'within' if ok else 'outside'} a factor of {claim.threshold:g})"
        )
    return Checked(claim, ours, "confirmed" if ok else "contradicted", reason)


def render_studies(
    claims: Sequence[Claim], servers: Sequence[Run], clients: Sequence[Run], repo_url: str
) -> str:
    """The Studies revisited page (``templates/studies.md.j2``): one table row per claim,
    then each claim's conditions and reading."""
    checked = [check(c, servers, clients) for c in claims]
    counts = {v: sum(1 for c in checked if c.verdict == v) for v in ("confirmed",
              "contradicted", "not comparable")}  # fmt: skip
    rows = [
        [
            str(i),
            f"*{cell(c.claim.study)}*: “{cell(c.claim.claim)}”",
            cell(c.claim.their_figures),
            cell(c.ours),
            f"**{c.verdict}**",
            cell(c.reason),
        ]
        for i, c in enumerate(checked, 1)
    ]
    return templates.render(
        "studies.md.j2",
        repo=repo_url,
        counts=", ".join(f"{n} {v}" for v, n in counts.items()),
        total=len(checked),
        table=table(["#", "Claim", "Their figures", "Ours", "Verdict", "Why"], rows),
        conditions=[
            {
                "study": cell(c.claim.study),
                "source": cell(c.claim.source),
                "conditions": cell(c.claim.conditions),
                "reading": cell(c.claim.reading),
            }
            for c in checked
        ],
    )
