"""CPU profiles as the site shows them: which profile each configuration and parameter set
shows, its CPU split into shares, its top functions, its flame graph's data, and the
leaderboards' chart of CPU per message split into those shares.

The documents are the profile store's (:func:`wsbench.results.store.profile_store`, written
by ``./bench profile``); of each (machine, implementation, configuration, scenario,
parameter set) the newest profile that has samples (the largest run id): a configuration is
profiled at one version (the one ``./bench profile`` installed), which its title names.
The splitting itself (which frame is which class, how the kernel's share is derived) is
:mod:`wsbench.results.profile_shares`'s and the reading of folded stacks
:mod:`wsbench.results.folded`'s; this module only computes what the pages show from them:

- **shares of the server's CPU time** (user + system, 0-1) in the profiled window, by class
  (:data:`wsbench.results.profile_shares.CLASSES`), the kernel's from the system time of
  the windows without the profiler (:attr:`Profiled.kernel_share`);
- **a function's share**: its self samples (the samples whose leaf frame it is, by line)
  over the profile's busy samples, times what the kernel leaves (``1 - kernel``): the same
  base as the classes', so a function's share and its class's compare;
- **CPU per message** (seconds, shown in µs): the server's CPU seconds per message in the
  profiled process's unprofiled windows (``server_cpu_percent / 100 / messages_per_s``,
  the mean over those windows), split by the profile's shares;
- **the profiler's cost**: the profiled window's messages/s over the unprofiled windows'
  mean (1 = no cost; with native frames py-spy pauses the server for each sample).

Pages: each framework page's "Where the time goes" (:mod:`wsbench.site.profiles_page`) and,
under each leaderboard table of a profiled set, :func:`leaderboard_section`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from wsbench.results.folded import idle_share, process_frame
from wsbench.results.profile_shares import (
    CLASSES,
    INHERIT,
    Shares,
    busy_self_samples,
    frame_class,
    kernel_share,
    shares,
)
from wsbench.results.runformat import ProfiledWindow, ProfileSet, Run
from wsbench.results.store import Store
from wsbench.scenarios import params_words
from wsbench.site.interactive import CHART_CLASS, json_script
from wsbench.site.markup import DASH, anchor, cell, code, heading, safe_name, table, tagged
from wsbench.site.results import EnvRun, OfDocument

log = logging.getLogger("mkdocs.plugins.wsbench.site")
"""Under ``mkdocs.``: a warning here fails ``mkdocs build --strict``."""

TOP_FUNCTIONS = 10
"""A profile's functions listed by self time."""
IDLE = "idle"
""":func:`wsbench.results.profile_shares.frame_class`'s name for py-spy's idle frame and the
process frame's own samples (no class of the CPU)."""
COLOURS: dict[str, str] = {
    "framework": "#1f77b4",
    "event loop": "#2ca02c",
    "Python runtime": "#ff7f0e",
    "C extensions": "#9467bd",
    "kernel": "#7f7f7f",
    IDLE: "#c7c7c7",
}
"""The colour of each class (and of idle frames) on the leaderboards' chart and in the flame
graphs, so that one class has one colour on every page; the data carries it
(:func:`classes_data`), the script types none."""
METHODOLOGY_ANCHOR = "cpu-profiles"
"""The id of the Methodology page's CPU profiles section."""
FLAME_CLASS = "wsbench-flame-data"
"""The class of the link to a flame graph's JSON (wsbench.js draws the flame graph from the
file it links, above the link)."""
_FRAME = re.compile(r"^(.*) \(([^()]*)\)$")


def percent(share: float) -> str:
    """A share (0-1) as whole percent for a sentence: ``"76 %"``; ``"<1 %"`` for a share
    above 0 that rounds to 0."""
    if 0 < share < 0.005:
        return "<1 %"
    return f"{share * 100:.0f} %"


def percent_cell(share: float) -> str:
    """A share (0-1) for a table cell, to a tenth of a percent: ``"76.2 %"``."""
    return f"{share * 100:.1f} %"


def split_frame(frame: str) -> tuple[str, str]:
    """A py-spy frame as (function, where): ``"burn (server.py:10)"`` -> ``("burn",
    "server.py:10")``, ``"deflate (libz.so.1)"`` -> ``("deflate", "libz.so.1")``; a frame
    without a place -> ``(frame, "")``."""
    found = _FRAME.match(frame)
    return (found.group(1), found.group(2)) if found else (frame, "")


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def cpu_per_message_s(windows: Sequence[ProfiledWindow]) -> float | None:
    """The server's CPU seconds per message over ``windows``: the mean of each window's
    ``server_cpu_percent / 100 / messages_per_s`` (windows without both left out); None
    when no window has them."""
    found = [
        w.server_cpu_percent / 100 / w.messages_per_s
        for w in windows
        if w.server_cpu_percent is not None and w.messages_per_s
    ]
    return _mean(found)


@dataclass(frozen=True)
class TopFunction:
    """One function (by line) of a profile's top functions by self time.

    Attributes:
        function: its name as py-spy gives it, e.g. ``"WebSocketProtocol._unmask"``.
        where: its file and line (``"gunicorn/asgi/websocket.py:88"``) or library.
        klass: its class (:data:`wsbench.results.profile_shares.CLASSES`).
        samples: its self samples.
        share: its share of the server's CPU time, 0-1 (see the module's docstring).
    """

    function: str
    where: str
    klass: str
    samples: int
    share: float


@dataclass(frozen=True)
class Profiled(OfDocument):
    """The profile one configuration shows at one parameter set, and what the pages show of
    it.

    Attributes:
        doc: the profile document (``./bench profile``'s run document).
        profile: its profile of the parameter set.
        split: its CPU shares (:func:`wsbench.results.profile_shares.shares` with
            :attr:`kernel_share`).
        idle: the share of the window the server waited (0-1): py-spy's idle samples when
            the profile has them, else the samples missing from rate x window
            (:func:`wsbench.results.folded.idle_share`).
        top: its functions by self time, most first, at most :data:`TOP_FUNCTIONS`.
        cpu_per_message_s: the server's CPU seconds per message in the unprofiled windows
            (:func:`cpu_per_message_s`), None without them.
        cost: the profiled window's messages/s over the unprofiled windows' mean, None
            without them.
    """

    doc: Run
    profile: ProfileSet
    split: Shares
    idle: float
    top: tuple[TopFunction, ...]
    cpu_per_message_s: float | None
    cost: float | None

    @property
    def native(self) -> bool:
        """Whether native frames were sampled (``./bench profile --native``)."""
        return bool(self.doc.profiling and self.doc.profiling.native)

    @property
    def profiler(self) -> str:
        """The profiler and its version, e.g. ``"py-spy 0.4.3"``."""
        return self.doc.profiling.profiler if self.doc.profiling else "py-spy"

    @property
    def kernel_share(self) -> float | None:
        """The kernel's share of the server's CPU (0-1) from the windows without the profiler
        (:func:`wsbench.results.profile_shares.kernel_share`), None when no window recorded
        it (the kernel's share is then 0 and said unknown)."""
        return kernel_share(self.profile)

    @property
    def params(self) -> dict[str, int]:
        """The parameter set, e.g. ``{"size_bytes": 16, "in_flight": 64}``."""
        return self.profile.params

    @property
    def set_words(self) -> str:
        """The scenario and parameter set, short: ``"echo 16 B x64"``."""
        return " ".join([self.profile.scenario, *params_words(self.params, short=True)])

    def section_id(self, machines: int = 1) -> str:
        """The id of its section on its framework page (the machine's name first when the
        page shows profiles of several machines)."""
        where = f"{self.machine} " if machines > 1 else ""
        return anchor(f"profile {where}{self.impl.config} {self.set_words}")

    def data_file(self, machines: int = 1) -> str:
        """Its flame graph's data, relative to the docs dir:
        ``"frameworks/<name>/profile-<config>-<set>.json"``."""
        return f"frameworks/{self.impl.name}/{self.section_id(machines)}.json"

    def sorted_shares(self) -> list[tuple[str, float]]:
        """(class, share) of every class, largest first (ties in
        :data:`wsbench.results.profile_shares.CLASSES` order)."""
        order = {k: i for i, k in enumerate(CLASSES)}
        return sorted(self.split.shares.items(), key=lambda kv: (-kv[1], order[kv[0]]))

    def answer(self) -> str:
        """The section's first line, as Markdown: its two largest classes and its top
        function, e.g. ``"**76 % framework, 12 % kernel**; top: `WebSocketProtocol._unmask`
        (gunicorn/asgi/websocket.py:88) 61 %"``."""
        largest = [(k, s) for k, s in self.sorted_shares() if s > 0][:2]
        text = "**" + ", ".join(f"{percent(s)} {cell(k)}" for k, s in largest) + "**"
        if self.top:
            text += f"; top: {_function_words(self.top[0])}"
        return text


def _function_words(function: TopFunction) -> str:
    """``"`name` (place) 61 %"``, Markdown."""
    where = f" ({cell(function.where)})" if function.where else ""
    return f"{code(function.function)}{where} {percent(function.share)}"


def top_functions(
    stacks: Mapping[str, int], split: Shares, kernel: float | None, limit: int = TOP_FUNCTIONS
) -> tuple[TopFunction, ...]:
    """The ``limit`` functions (by line) with the most self samples of ``stacks``, idle and
    process frames and system calls (the kernel's time, in its share) left out, each with
    its share of the server's CPU time (self samples over ``split``'s busy samples, times
    ``1 - kernel``); a C library or inline function, which takes its caller's class, is
    listed under *C extensions*."""
    busy = split.samples
    rest = 1 - min(max(kernel or 0.0, 0.0), 1.0)
    found = []
    for frame, samples in busy_self_samples(stacks, by_line=True).items():
        klass = frame_class(frame)
        klass = "C extensions" if klass == INHERIT else klass
        function, where = split_frame(frame)
        share = rest * samples / busy if busy else 0.0
        found.append(TopFunction(function, where, klass, samples, share))
        if len(found) == limit:
            break
    return tuple(found)


def profiled_of(doc: Run, profile: ProfileSet) -> Profiled:
    """What the pages show of ``doc``'s ``profile`` (see :class:`Profiled`)."""
    window = profile.profiled
    kernel = kernel_share(profile)
    split = shares(profile.stacks, kernel_share=kernel)
    idle = split.idle or idle_share(
        profile.stacks, rate_hz=profile.rate_hz, duration_s=profile.duration_s
    )
    rates = [w.messages_per_s for w in profile.unprofiled if w.messages_per_s]
    mean = _mean(rates)
    cost = (
        window.messages_per_s / mean
        if window is not None and window.messages_per_s is not None and mean
        else None
    )
    return Profiled(
        doc=doc,
        profile=profile,
        split=split,
        idle=idle,
        top=top_functions(profile.stacks, split, kernel),
        cpu_per_message_s=cpu_per_message_s(profile.unprofiled),
        cost=cost,
    )


def _key(doc: Run, profile: ProfileSet) -> tuple[str, str, str, str, tuple[tuple[str, int], ...]]:
    return (
        doc.machine.name,
        doc.impl.name,
        doc.impl.config,
        profile.scenario,
        tuple(sorted(profile.params.items())),
    )


@dataclass(frozen=True)
class Profiles:
    """Every profile the site shows.

    Attributes:
        items: of each (machine, implementation, configuration, scenario, parameter set),
            its newest profile with samples, by machine, implementation, configuration,
            scenario and parameter set.
    """

    items: tuple[Profiled, ...]

    @property
    def empty(self) -> bool:
        """True when the store holds no profile with samples."""
        return not self.items

    def of_impl(self, name: str) -> list[Profiled]:
        """Implementation ``name``'s profiles."""
        return [p for p in self.items if p.impl.name == name]

    def machines_of(self, name: str) -> int:
        """How many machines implementation ``name`` has profiles of (its page has a
        section per profile and machine, named by the machine when several:
        :meth:`Profiled.section_id`)."""
        return len({p.machine for p in self.of_impl(name)})

    def of_set(self, machine: str, scenario: str, params: Mapping[str, object]) -> list[Profiled]:
        """The profiles of one parameter set on one machine (one per configuration)."""
        wanted = dict(params)
        return [
            p
            for p in self.items
            if p.machine == machine and p.profile.scenario == scenario and p.params == wanted
        ]


def profiles_from(docs: Iterable[Run]) -> Profiles:
    """The profiles of profile documents ``docs``: of each (machine, implementation,
    configuration, scenario, parameter set), the newest (largest run id) ok profile that has
    samples; documents without profiles are left out."""
    newest: dict[tuple[str, str, str, str, tuple[tuple[str, int], ...]], tuple[Run, ProfileSet]]
    newest = {}
    for doc in docs:
        for profile in doc.profiles:
            if profile.status != "ok" or not sum(profile.stacks.values()):
                continue
            key = _key(doc, profile)
            known = newest.get(key)
            if known is None or doc.run_id > known[0].run_id:
                newest[key] = (doc, profile)
    return Profiles(tuple(profiled_of(*newest[key]) for key in sorted(newest)))


def profiles_of(store: Store) -> Profiles:
    """The profiles of a loaded profile store (:func:`profiles_from` of its documents); each
    of its :attr:`~wsbench.results.store.Store.problems` is a warning on the ``mkdocs``
    logger (which fails a ``--strict`` build), as for the results store."""
    for problem in store.problems:
        log.warning("wsbench site: skipping a file of the profile store: %s", problem)
    return profiles_from(store.runs)


def classes_data(names: Sequence[str] = CLASSES) -> list[dict[str, str]]:
    """The classes ``names`` as a chart's data: ``[{"name", "color"}, ...]``
    (:data:`COLOURS`)."""
    return [{"name": name, "color": COLOURS[name]} for name in names]


FLAME_CLASSES = (*CLASSES, IDLE)
"""The classes a frame can have (*kernel* only for a C library's system-call wrapper, in
native profiles): a flame graph node's ``"k"`` is an index into this."""


class _Node:
    """A frame of a flame graph while it is built: its samples and its children by name."""

    def __init__(self, name: str, k: int) -> None:
        self.name = name
        self.k = k
        self.value = 0
        self.children: dict[str, _Node] = {}

    def child(self, name: str) -> _Node:
        """The child frame ``name``, made on first use with its class (its caller's, for a
        frame that takes it: :data:`wsbench.results.profile_shares.INHERIT`)."""
        found = self.children.get(name)
        if found is None:
            klass = frame_class(name)
            k = self.k if klass == INHERIT else FLAME_CLASSES.index(klass)
            found = self.children[name] = _Node(name, k)
        return found

    def data(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "value": self.value, "k": self.k}
        if self.children:
            out["children"] = [self.children[n].data() for n in sorted(self.children)]
        return out


def flame_tree(stacks: Mapping[str, int]) -> dict[str, object]:
    """Folded stacks (root first) as d3-flame-graph's tree: ``{"name", "value", "k",
    "children": [...]}`` where a node's value is its samples, its children's included (the
    root's: every sample), and ``"k"`` its frame's class (an index into
    :data:`FLAME_CLASSES`); the root is ``"all"``, over the stacks' own roots (the
    process frames); children in name order, a leaf without ``"children"``. A worker's
    process frame within its parent's stack (``--subprocesses``) is made comparable as the
    root's is (:func:`wsbench.results.folded.process_frame`: no process id, no path)."""
    root = _Node("all", FLAME_CLASSES.index(IDLE))
    for stack, count in stacks.items():
        node = root
        node.value += count
        for frame in stack.split(";"):
            node = node.child(process_frame(frame))
            node.value += count
    return root.data()


def flame_data(item: Profiled) -> dict[str, object]:
    """A flame graph's JSON: ``{"title", "samples", "classes" (:func:`classes_data` of
    :data:`FLAME_CLASSES`), "tree" (:func:`flame_tree`)}``."""
    return {
        "title": f"{item.title}, {item.set_words}",
        "samples": sum(item.profile.stacks.values()),
        "classes": classes_data(FLAME_CLASSES),
        "tree": flame_tree(item.profile.stacks),
    }


def flame_json(item: Profiled) -> bytes:
    """:func:`flame_data` as compact JSON bytes."""
    data = json.dumps(flame_data(item), ensure_ascii=False, separators=(",", ":"))
    return (data + "\n").encode()


def flame_link(data_path: str) -> str:
    """The Markdown paragraph that links a flame graph's data (``data_path``, relative to
    the page) and marks where wsbench.js draws it (:data:`FLAME_CLASS`)."""
    return f"Data of this flame graph: [JSON]({data_path}){{ .{FLAME_CLASS} }}\n"


def _facets(item: Profiled) -> dict[str, object]:
    """What a bar is filtered by (as :func:`wsbench.site.interactive.facets`)."""
    return {
        "label": item.label,
        "socketio": item.socketio,
        "reference": item.impl.reference,
        "server": item.impl.server,
        "event_loop": item.impl.event_loop,
    }


MICRO = 1e6
"""Seconds to µs."""


def split_us(item: Profiled) -> list[float]:
    """``item``'s CPU per message in µs split by class (in
    :data:`wsbench.results.profile_shares.CLASSES` order); empty without a CPU figure."""
    if item.cpu_per_message_s is None:
        return []
    total = item.cpu_per_message_s * MICRO
    return [total * item.split.shares[k] for k in CLASSES]


def board_order(found: Sequence[Profiled], rows: Sequence[EnvRun]) -> list[Profiled]:
    """``found`` in the order of a leaderboard table's ``rows``: each at its own environment's
    row, else at its configuration's first row; those the table lacks after, by name."""
    where: dict[tuple[str, ...], int] = {}
    for i, run in enumerate(rows):
        where.setdefault(("env", run.env_name), i)
        where.setdefault(("config", run.impl.name, run.impl.config), i)

    def key(item: Profiled) -> tuple[int, str]:
        at = where.get(("env", item.doc.environment.env_name))
        if at is None:
            at = where.get(("config", item.impl.name, item.impl.config), len(rows))
        return at, item.title

    return sorted(found, key=key)


def shares_chart_data(title: str, ordered: Sequence[Profiled]) -> dict[str, object]:
    """The leaderboards' chart of CPU per message split by class, for wsbench.js:
    ``{"kind": "shares", "title", "unit": "µs", "classes" (:func:`classes_data`), "series":
    [{"label", "version", "values" (µs per class), "total" (µs), "run_id", and the facets of
    :func:`wsbench.site.interactive.facets`}, ...]}``, one series per configuration of
    ``ordered`` with a CPU figure, in that order."""
    series = []
    for item in ordered:
        values = split_us(item)
        if not values:
            continue
        series.append(
            {
                **_facets(item),
                "label": item.title,
                "version": item.version,
                "values": values,
                "total": sum(values),
                "run_id": item.doc.run_id,
            }
        )
    return {
        "kind": "shares",
        "title": title,
        "unit": "µs",
        "classes": classes_data(),
        "series": series,
    }


def leaderboard_file(scenario: str, machine: str | None, params: Mapping[str, object]) -> str:
    """The chart data of a leaderboard table's profiles, relative to the docs dir, e.g.
    ``"leaderboards/echo/cpu-per-message-size-bytes-16-in-flight-64.json"`` (the machine's
    name first when the results hold several machines)."""
    parts = [f"{k.replace('_', '-')}-{v}" for k, v in sorted(params.items())]
    stem = safe_name("-".join(["cpu-per-message", *parts]))
    prefix = f"{safe_name(machine)}-" if machine else ""
    return f"leaderboards/{scenario}/{prefix}{stem}.json"


def leaderboard_section(
    profiles: Profiles,
    found: Sequence[Profiled],
    rows: Sequence[EnvRun],
    level: str,
    anchor_id: str,
    data_file: str,
    framework_pages: Mapping[str, str],
) -> tuple[str, dict[str, bytes]]:
    """Under a leaderboard table whose parameter set has profiles (``found``, of
    ``profiles``): a heading
    (``level``, id ``anchor_id``), a sentence, the chart of CPU per message split by class
    (its data in the page for wsbench.js, and in ``data_file``, relative to the docs dir and
    linked from the page) and, for readers without the script, the same figures as a table
    (each name linked to its profile on its framework page, ``framework_pages``:
    ``{implementation name: its page relative to the leaderboard page}``), in the order of
    the table's ``rows`` (:func:`board_order`); ("", {}) when no profile has a CPU figure."""
    ordered = [p for p in board_order(found, rows) if split_us(p)]
    if not ordered:
        return "", {}
    title = "CPU per message, where it goes (µs)"
    data = shares_chart_data(title, ordered)
    cells = []
    for item in ordered:
        page = framework_pages.get(item.impl.name)
        link = f"{page}#{item.section_id(profiles.machines_of(item.impl.name))}" if page else None
        values = split_us(item)
        cells.append(
            [
                tagged(item.label, item.socketio, link),
                cell(item.version or DASH),
                f"{sum(values):,.1f}",
                *(f"{v:,.1f}" for v in values),
            ]
        )
    headers = ["Configuration", "Version", "CPU / message (µs)", *(cell(k) for k in CLASSES)]
    rel = data_file.split("/", 1)[1]
    text = "\n".join(
        [
            heading(level, title, anchor_id),
            "Each profiled configuration's server CPU time per message (µs: its CPU seconds "
            "per message in the profiled server process's unprofiled windows), split as its "
            "CPU profile splits it: "
            + ", ".join(cell(k) for k in CLASSES)
            + " ([how](../methodology.md#"
            + METHODOLOGY_ANCHOR
            + ")). In the table's order; each name leads to its profile, top functions and "
            "flame graph on its framework page.\n",
            table(headers, cells, align="ll" + "r" * (1 + len(CLASSES))),
            json_script(CHART_CLASS, data) + f"Data of this chart: [JSON]({rel}).\n",
        ]
    )
    payload = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    return text, {data_file: payload}
