"""Every difference between the environments of a comparison's two sides, named one by one.

A comparison (:mod:`wsbench.results.compare`) pairs the base's documents with the head's by
:func:`~wsbench.results.compare.pair_key`; one *side* of a pair is every document of one arm
with that key (one or several: several runs, e.g. the nightly's and its interleaved
confirmation's). For each pair, what the documents record of where they ran is compared
between the sides, facet by facet (:data:`FACETS`):

- packages (``environment.packages``): each distribution added, removed or at another
  version, by name (``anyio 4.15.0 → 4.16.0``), in the order of the names;
- the interpreter: its version (``environment.python`` where the build is not recorded) and
  its build (``environment.interpreter``: implementation, compiler, optimizations,
  free-threaded, GIL, JIT);
- the load generator's build: version, the hash of its sources, rustc;
- the machine's kernel and CPU model.

A side none of whose documents records its packages (or its interpreter's build: documents
from before they were recorded) says *not recorded* for that facet, never *identical*; a side
whose own documents disagree says so, naming each document's run. In a comparison of two
versions of a framework its own distribution differs by design: that difference is *the
compared package*, named apart, so that what else changed with a verdict (a transitive
release, another interpreter build) stands out.

:func:`to_text` and :func:`to_markdown` put a comparison's differences in a few lines, e.g.
``environments: identical but for aiohttp 3.13.2 → 3.14.5`` or::

    environments (base → head), besides aiohttp 3.13.2 → 3.14.5 (the compared package):
      - packages: multidict 6.1.0 → 6.2.0; propcache 0.3.1 added
      - interpreter: compiler GCC 12.2.0 → GCC 14.2.0
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from wsbench.results.compare import SIDE_LABELS, Match, pair_key
from wsbench.results.runformat import Interpreter, Run

Facet = Literal["packages", "interpreter", "load generator", "kernel", "CPU model"]
FACETS: tuple[Facet, ...] = ("packages", "interpreter", "load generator", "kernel", "CPU model")
"""What is compared, in the order the differences are listed."""

Kind = Literal["differs", "disagrees", "not recorded", "compared"]
"""A difference's kind: the two sides differ; one side's own documents disagree; a side
does not record the facet; the framework's own distribution at the two versions compared."""
KINDS: tuple[Kind, ...] = ("differs", "disagrees", "not recorded", "compared")
"""The kinds in the order they are listed within a facet."""

ABSENT = "absent"
"""A distribution's "version" on a side whose document records packages without it."""
HASH_CHARS = 12
"""The load generator's source hash is shown by its first 12 hex digits, as elsewhere."""
_ORDER = {(facet, kind): i for i, (facet, kind) in
          enumerate((f, k) for f in FACETS for k in KINDS)}  # fmt: skip


@dataclass(frozen=True)
class Difference:
    """One difference between the two sides of a pair.

    Attributes:
        facet: what differs (:data:`FACETS`).
        kind: how (:data:`Kind`).
        text: the difference in words, base → head, e.g. ``"anyio 4.15.0 → 4.16.0"``,
            ``"sniffio 1.3.1 added"``, ``"compiler GCC 12.2.0 → GCC 14.2.0"``,
            ``"not recorded on the base side"``, ``"the head side's documents disagree:
            anyio 4.15.0 (run A) or 4.16.0 (run B)"``.
    """

    facet: Facet
    kind: Kind
    text: str


@dataclass(frozen=True)
class PairDiff:
    """The differences of one pair of sides (one configuration).

    Attributes:
        label: the pair's configuration, its row name (with the version when environments
            are paired by version, :data:`wsbench.results.compare.Match`).
        differences: every difference, by facet (:data:`FACETS`), kind (:data:`KINDS`) and
            then as found (packages by name); empty when the environments are identical.
    """

    label: str
    differences: tuple[Difference, ...]


def distribution_name(name: str) -> str:
    """A distribution's name normalized (PEP 503: lower case, runs of ``-``, ``_`` and
    ``.`` as one ``-``), e.g. ``"Flask_SocketIO"`` -> ``"flask-socketio"``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_package(line: str) -> tuple[str, str]:
    """``(normalized name, version)`` of one line of ``environment.packages``: ``"name==version"``
    as ``uv pip freeze`` prints it; a direct reference ``"name @ url"`` gives ``"@ url"`` as its
    version; any other line (an editable install's ``"-e url"``) is its own name, as it is,
    with the version ``""``."""
    for separator, keep in (("==", ""), (" @ ", "@ ")):
        name, found, version = line.partition(separator)
        if found:
            return distribution_name(name.strip()), keep + version.strip()
    return line.strip(), ""


def _optimizations(value: tuple[str, ...] | None) -> str:
    if value is None:
        return "not recorded"
    return ", ".join(value) or "none"


Getter = Callable[[Run], str | None]


def _build(read: Callable[[Interpreter], str]) -> Getter:
    """A getter of the interpreter's build: None where the document does not record it."""
    return lambda r: read(r.environment.interpreter) if r.environment.interpreter else None


FIELDS: tuple[tuple[Facet, str, Getter], ...] = (
    ("interpreter", "Python",
     lambda r: r.environment.interpreter.version if r.environment.interpreter
     else r.environment.python),
    ("interpreter", "implementation", _build(lambda i: i.implementation)),
    ("interpreter", "compiler", _build(lambda i: i.compiler)),
    ("interpreter", "optimizations", _build(lambda i: _optimizations(i.optimizations))),
    ("interpreter", "free-threaded", _build(lambda i: "yes" if i.free_threaded else "no")),
    ("interpreter", "GIL", _build(lambda i: "on" if i.gil_enabled else "off")),
    ("interpreter", "JIT", _build(lambda i: i.jit)),
    ("load generator", "version", lambda r: r.loadgen.version),
    ("load generator", "sources", lambda r: r.loadgen.source_sha256[:HASH_CHARS]),
    ("load generator", "compiler", lambda r: r.loadgen.rustc),
    ("kernel", "", lambda r: r.machine.kernel),
    ("CPU model", "", lambda r: r.machine.cpu_model),
)  # fmt: skip
"""Each compared value but the packages: its facet, its name in a difference's text ("" for
a facet of one value), and how a document gives it (None: the document does not record it).
The interpreter's version is known from every document: ``environment.python``."""


def _recorded(facet: Facet, doc: Run) -> bool:
    """Whether ``doc`` records ``facet`` at all (only the packages and the interpreter's
    build are missing from documents, those from before they were recorded)."""
    if facet == "packages":
        return doc.environment.packages is not None
    if facet == "interpreter":
        return doc.environment.interpreter is not None
    return True


def _either(values: Sequence[str]) -> str:
    return " or ".join(values)


def _not_recorded(facet: Facet, base: Sequence[Run], head: Sequence[Run]) -> list[Difference]:
    sides = list(zip(SIDE_LABELS, (base, head), strict=True))
    missing = {label: [d for d in docs if not _recorded(facet, d)] for label, docs in sides}
    if all(len(missing[label]) == len(docs) for label, docs in sides):
        return [Difference(facet, "not recorded", "not recorded on either side")]
    out = []
    for label, docs in sides:
        gone = missing[label]
        if len(gone) == len(docs):
            out.append(Difference(facet, "not recorded", f"not recorded on the {label} side"))
        elif gone:
            text = f"not recorded in {len(gone)} of the {label} side's {len(docs)} documents"
            text += f" ({_runs([d.run_id for d in gone])})"
            out.append(Difference(facet, "not recorded", text))
    return out


def _values(docs: Sequence[Run], value: Getter) -> dict[str, list[str]]:
    """Each distinct value among ``docs`` (in their order; a document without one is left
    out) and the runs that gave it."""
    found: dict[str, list[str]] = {}
    for doc in docs:
        given = value(doc)
        if given is None:
            continue
        runs = found.setdefault(given, [])
        if doc.run_id not in runs:
            runs.append(doc.run_id)
    return found


def _runs(run_ids: Sequence[str]) -> str:
    return f"run{'s' if len(run_ids) > 1 else ''} {', '.join(run_ids)}"


def _disagreement(label: str, name: str, found: dict[str, list[str]]) -> str:
    each = _either([f"{v} ({_runs(runs)})" for v, runs in found.items()])
    return f"the {label} side's documents disagree: {name + ' ' if name else ''}{each}"


def _fields(base: Sequence[Run], head: Sequence[Run]) -> list[Difference]:
    out = []
    for facet, name, getter in FIELDS:
        sides = [[d for d in docs if getter(d) is not None] for docs in (base, head)]
        if not all(sides):
            continue  # not recorded: said once for the facet
        found = [_values(docs, getter) for docs in sides]
        for label, values in zip(SIDE_LABELS, found, strict=True):
            if len(values) > 1:
                out.append(Difference(facet, "disagrees", _disagreement(label, name, values)))
        if set(found[0]) != set(found[1]):
            text = f"{_either(list(found[0]))} → {_either(list(found[1]))}"
            out.append(Difference(facet, "differs", f"{name} {text}" if name else text))
    return out


def _versions(doc: Run, name: str) -> str:
    packages = dict(parse_package(p) for p in doc.environment.packages or ())
    return packages.get(name, ABSENT)


def _package_text(name: str, base: list[str], head: list[str]) -> str:
    if base == [ABSENT]:
        return " ".join(filter(None, [name, _either(head), "added"]))
    if head == [ABSENT]:
        return " ".join(filter(None, [name, _either(base), "removed"]))
    return f"{name} {_either(base)} → {_either(head)}"


def compared_package(base: Sequence[Run], head: Sequence[Run]) -> str | None:
    """The distribution the two sides compare (normalized), or None: the framework's own,
    when the sides ran different versions of it (a version comparison); in any other
    comparison a change of it is a difference like any other."""
    versions = [{d.impl.version for d in docs} for docs in (base, head)]
    packages = {d.impl.package for d in [*base, *head]}
    if versions[0] == versions[1] or len(packages) != 1:
        return None
    (package,) = packages
    return distribution_name(package) if package else None


def _packages(base: Sequence[Run], head: Sequence[Run]) -> list[Difference]:
    sides = [[d for d in docs if _recorded("packages", d)] for docs in (base, head)]
    compared = compared_package(base, head)
    if not all(sides):
        if compared is None:
            return []
        # The framework's versions are known without the packages: from its own record.
        found = [_values(docs, lambda d: d.impl.version) for docs in (base, head)]
        return [Difference("packages", "compared", _package_text(compared, *map(list, found)))]
    names = sorted({parse_package(p)[0] for docs in sides for d in docs
                    for p in d.environment.packages or ()})  # fmt: skip
    disagree: list[Difference] = []
    differ: list[Difference] = []
    for name in names:
        found = [_values(docs, functools.partial(_versions, name=name)) for docs in sides]
        for label, values in zip(SIDE_LABELS, found, strict=True):
            if len(values) > 1:
                disagree.append(Difference("packages", "disagrees",
                                           _disagreement(label, name, values)))  # fmt: skip
        if set(found[0]) != set(found[1]):
            kind: Kind = "compared" if name == compared else "differs"
            differ.append(Difference("packages", kind, _package_text(name, *map(list, found))))
    return differ + disagree


def diff_sides(base: Sequence[Run], head: Sequence[Run]) -> tuple[Difference, ...]:
    """Every difference between the environments of two sides of one pair (the documents
    of each arm: at least one each), in the order :class:`PairDiff` gives them.

    Raises:
        ValueError: a side without a document.
    """
    if not base or not head:
        raise ValueError("each side of a pair needs at least one document")
    found = [*_packages(base, head), *_fields(base, head)]
    for facet in ("packages", "interpreter"):
        found += _not_recorded(facet, base, head)
    return tuple(sorted(found, key=lambda d: _ORDER[(d.facet, d.kind)]))


def _label(doc: Run, match: Match) -> str:
    version = f" {doc.impl.version}" if match == "environment" and doc.impl.version else ""
    return doc.impl.row_name + version


def diff_pairs(base: Sequence[Run], head: Sequence[Run], *, match: Match) -> list[PairDiff]:
    """The differences of every pair of sides a comparison of ``base`` with ``head`` makes:
    documents grouped by :func:`wsbench.results.compare.pair_key` under ``match``, the pairs
    in the base's order; a group on one side only is not a pair (the comparison says what it
    did not compare)."""
    groups: list[dict[tuple[str, ...], list[Run]]] = [{}, {}]
    for docs, group in zip((base, head), groups, strict=True):
        for doc in docs:
            group.setdefault(pair_key(doc, match), []).append(doc)
    return [
        PairDiff(_label(docs[0], match), diff_sides(docs, groups[1][key]))
        for key, docs in groups[0].items()
        if key in groups[1]
    ]


@dataclass(frozen=True)
class _Item:
    facet: Facet
    kind: Kind
    where: tuple[str, ...]  # the pairs it holds in; () for every pair
    texts: tuple[str, ...]


def _items(pairs: Sequence[PairDiff]) -> list[_Item]:
    """The differences of ``pairs``, those that hold in the same pairs grouped by facet and
    kind, in the order of :data:`FACETS` and :data:`KINDS`."""
    where: dict[Difference, list[str]] = {}
    for pair in pairs:
        for d in pair.differences:
            where.setdefault(d, []).append(pair.label)
    grouped: dict[tuple[Facet, Kind, tuple[str, ...]], list[str]] = {}
    for d, labels in where.items():
        scope = () if len(labels) == len(pairs) else tuple(labels)
        grouped.setdefault((d.facet, d.kind, scope), []).append(d.text)
    items = [_Item(f, k, scope, tuple(texts)) for (f, k, scope), texts in grouped.items()]
    return sorted(items, key=lambda i: _ORDER[(i.facet, i.kind)])


def _scoped(item: _Item) -> str:
    texts = "; ".join(item.texts)
    return f"{texts} (in {', '.join(item.where)})" if item.where else texts


def lines(pairs: Sequence[PairDiff]) -> tuple[str, list[str]]:
    """``pairs``' differences in words: a leading line, then one line per facet and kind
    (``"packages: anyio 4.15.0 → 4.16.0; sniffio 1.3.1 added"``, ``"interpreter: not
    recorded on the base side"``), with the configurations it holds in when not in every
    pair. With nothing but the compared package, or nothing at all, the leading line says
    it all and there is no other: ``"environments: identical but for aiohttp 3.13.2 →
    3.14.5"``, ``"environments: identical (packages, interpreter, load generator, kernel,
    CPU model)"``. No pair: ``("", [])``."""
    if not pairs:
        return "", []
    items = _items(pairs)
    compared = "; ".join(_scoped(i) for i in items if i.kind == "compared")
    others = [f"{i.facet}: {_scoped(i)}" for i in items if i.kind != "compared"]
    if not others:
        if compared:
            return f"environments: identical but for {compared}", []
        return f"environments: identical ({', '.join(FACETS)})", []
    sides = " → ".join(SIDE_LABELS)
    besides = f", besides {compared} (the compared package)" if compared else ""
    return f"environments ({sides}){besides}:", others


def to_text(pairs: Sequence[PairDiff]) -> list[str]:
    """:func:`lines` as terminal lines, the differences indented under the leading line."""
    lead, items = lines(pairs)
    return [lead, *(f"  - {item}" for item in items)] if lead else []


def to_markdown(pairs: Sequence[PairDiff]) -> str:
    """:func:`lines` as Markdown: a paragraph, then a list of the differences (``""`` for no
    pair)."""
    lead, items = lines(pairs)
    if not lead:
        return ""
    return "\n".join([lead, *([""] if items else []), *(f"- {item}" for item in items)]) + "\n"
