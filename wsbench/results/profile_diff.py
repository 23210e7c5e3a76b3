"""Differential CPU profiles: the functions whose share of a server's samples grew most
from one profile (the base) to another (the head) at the same parameter set, so that a
wall-clock "slower" verdict comes with where the head spends its extra time.

A function's share is its self samples (each stack's count goes to its leaf frame's
function, :func:`wsbench.results.folded.self_samples`) over the profile's busy samples
(py-spy's idle frame, a process frame's own samples and a system call's left out:
:func:`wsbench.results.profile_shares.busy_self_samples`), a fraction 0-1. Shares
rather than sample counts: the two profiles serve different numbers of messages in their
windows, and a server that got slower because one function got slower shows that
function's share grow while every other's shrinks.

Two profiles are compared only when they were taken the same way (the same profiler, with
or without native frames: :class:`wsbench.results.runformat.Profiling`) and only of the
same configuration (implementation and configuration id) at the same scenario and
parameter set: :func:`differential`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.results.profile_shares import busy_self_samples
from wsbench.results.runformat import ProfileSet, Run
from wsbench.results.store import PROFILES_SUBDIR, run_path
from wsbench.scenarios import params_key

TOP = 3
"""How many growers a verdict shows: the profile of a slowed server is usually dominated by
one or two functions (gunicorn's ``_unmask``: 98 % of the samples), and three lines under a
verdict stay readable in a report of dozens of figures."""


@dataclass(frozen=True)
class Growth:
    """One function's share of the busy samples in both profiles.

    Attributes:
        function: ``"burn (hot_echo.py)"`` (:func:`wsbench.results.folded.function_of`).
        base_share: its share in the base profile, 0-1 (0 when absent).
        head_share: its share in the head profile, 0-1 (0 when absent).
    """

    function: str
    base_share: float
    head_share: float

    @property
    def difference(self) -> float:
        """``head_share - base_share``: the growth, in fractions of the samples (0.55 is
        55 percentage points)."""
        return self.head_share - self.base_share


def shares(stacks: Mapping[str, int]) -> dict[str, float]:
    """Each function's share of the busy samples of ``stacks`` (folded stacks -> samples;
    :func:`wsbench.results.profile_shares.busy_self_samples`: system calls left out, as in
    every top-functions list), by self time, most first; ``{}`` without a busy sample."""
    counts = busy_self_samples(stacks)
    total = sum(counts.values())
    return {f: c / total for f, c in counts.items()} if total else {}


def growers(base: Mapping[str, int], head: Mapping[str, int], n: int | None = TOP) -> list[Growth]:
    """The functions whose share of the busy samples grew from ``base`` to ``head`` (both
    folded stacks -> samples), most growth first (equal growth by name), at most ``n``
    (None: all); a function whose share did not grow is left out."""
    mine, theirs = shares(base), shares(head)
    found = [Growth(f, mine.get(f, 0.0), theirs.get(f, 0.0)) for f in mine.keys() | theirs.keys()]
    grown = sorted(
        (g for g in found if g.difference > 0), key=lambda g: (-g.difference, g.function)
    )
    return grown if n is None else grown[:n]


@dataclass(frozen=True)
class Located:
    """A profile at one parameter set, in its document.

    Attributes:
        doc: the profile document (:attr:`wsbench.results.runformat.Run.profiles`).
        profile: its profile at the set (status ``"ok"``).
    """

    doc: Run
    profile: ProfileSet

    @property
    def path(self) -> str:
        """Where the document is in a results store, relative to its root:
        ``profiles/<machine>/<run id>/<commit8>-<environment>.json``
        (:func:`wsbench.results.store.profile_store`, :func:`wsbench.results.store.run_path`)."""
        return run_path(
            Path(PROFILES_SUBDIR), machine=self.doc.machine.name, run_id=self.doc.run_id,
            commit=self.doc.harness.commit, env_name=self.doc.environment.env_name,
        ).as_posix()  # fmt: skip

    @property
    def name(self) -> str:
        """``"<row name> <version>, run <run id> (<path>)"``."""
        version = f" {self.doc.impl.version}" if self.doc.impl.version else ""
        return f"{self.doc.impl.row_name}{version}, run {self.doc.run_id} ({self.path})"


def find_profile(
    docs: Sequence[Run],
    *,
    impl: str,
    config: str,
    scenario: str,
    params: Mapping[str, int],
    version: str | None = None,
    machine: str | None = None,
) -> Located | None:
    """The newest (largest run id) ok profile of configuration ``impl`` / ``config`` at
    ``scenario`` and ``params`` among the profile documents ``docs``; only of ``version``
    and ``machine`` when given; None when there is none."""
    found = [
        Located(doc, p)
        for doc in docs
        if doc.impl.name == impl and doc.impl.config == config
        and (version is None or doc.impl.version == version)
        and (machine is None or doc.machine.name == machine)
        for p in doc.profiles
        if p.status == "ok" and p.stacks and p.scenario == scenario and p.params == dict(params)
    ]  # fmt: skip
    return max(found, key=lambda f: (f.doc.run_id, f.doc.environment.env_name), default=None)


@dataclass(frozen=True)
class Differential:
    """Two profiles of one configuration at one set and the functions that grew.

    Attributes:
        scenario: e.g. ``"echo"``.
        params: e.g. ``{"size_bytes": 65536, "in_flight": 64}``.
        base: the base's profile (the previous release, or a pull request's merge base).
        head: the head's profile.
        growers: :func:`growers` of their stacks, at most :data:`TOP`.
    """

    scenario: str
    params: dict[str, int]
    base: Located
    head: Located
    growers: tuple[Growth, ...]


def differential(
    base_docs: Sequence[Run],
    head_docs: Sequence[Run],
    *,
    impl: str,
    config: str,
    scenario: str,
    params: Mapping[str, int],
    base_version: str | None = None,
    head_version: str | None = None,
    n: int = TOP,
) -> Differential | None:
    """The differential of configuration ``impl`` / ``config`` at ``scenario`` and
    ``params``: the head's newest profile there among ``head_docs`` (of ``head_version``
    when given) against the base's newest among ``base_docs`` (of ``base_version``) taken
    the same way on the same machine (:class:`wsbench.results.runformat.Profiling`); None
    when either side has none."""
    head = find_profile(head_docs, impl=impl, config=config, scenario=scenario, params=params,
                        version=head_version)  # fmt: skip
    if head is None:
        return None
    same_way = [d for d in base_docs if d.profiling == head.doc.profiling]
    base = find_profile(same_way, impl=impl, config=config, scenario=scenario, params=params,
                        version=base_version, machine=head.doc.machine.name)  # fmt: skip
    if base is None:
        return None
    found = growers(base.profile.stacks, head.profile.stacks, n)
    return Differential(scenario, dict(params), base, head, tuple(found))


def _pct(share: float) -> str:
    return f"{share * 100:.1f} %"


def to_text(d: Differential, indent: str = "  ") -> list[str]:
    """The differential as lines: a heading naming both profiles, then one line per
    grower: its growth in percentage points, its function, its base and head shares."""
    lines = [
        f"{indent}CPU profile at {d.scenario} {params_key(d.params)}: the functions whose "
        "share of the samples grew most, base -> head",
        f"{indent}  base: {d.base.name}",
        f"{indent}  head: {d.head.name}",
    ]
    if not d.growers:
        return [*lines, f"{indent}  no function's share grew"]
    for g in d.growers:
        lines.append(
            f"{indent}  {g.difference * 100:+6.1f} points  {g.function}  "
            f"({_pct(g.base_share)} -> {_pct(g.head_share)})"
        )
    return lines


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(d: Differential) -> str:
    """The differential as a Markdown heading naming both profiles and a table of the
    growers (function, base share, head share, growth in percentage points)."""
    out = [
        f"##### CPU profile at {d.scenario} {params_key(d.params)}: functions whose share "
        "of the samples grew most",
        "",
        f"Base: {_md(d.base.name)}. Head: {_md(d.head.name)}.",
        "",
    ]
    if not d.growers:
        return "\n".join([*out, "No function's share of the samples grew.", ""])
    out += ["| function | base | head | change |", "|---|---:|---:|---:|"]
    out += [
        f"| `{_md(g.function)}` | {_pct(g.base_share)} | {_pct(g.head_share)} | "
        f"{g.difference * 100:+.1f} points |"
        for g in d.growers
    ]
    return "\n".join([*out, ""])
