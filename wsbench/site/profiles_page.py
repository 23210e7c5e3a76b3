"""A framework page's "Where the time goes": per profiled configuration and parameter set,
the answer in one line, its CPU shares, its top functions by self time, an interactive
flame graph and how the profile was taken (:mod:`wsbench.site.profiles` computes them).

The flame graph's data is a JSON file beside the page (:func:`wsbench.site.profiles.flame_json`),
linked from it; the site's script draws it with d3-flame-graph (bundled, loaded only on a
page that has one): click a frame to zoom into it, search frames by name, reset.
"""

from __future__ import annotations

from collections.abc import Sequence

from wsbench.results.profile_shares import CLASSES
from wsbench.site.frameworks import Framework
from wsbench.site.markup import (
    DASH,
    NOWRAP,
    TIMES,
    cell,
    code,
    heading,
    params_title,
    table,
    tagged,
)
from wsbench.site.profiles import (
    METHODOLOGY_ANCHOR,
    MICRO,
    Profiled,
    Profiles,
    flame_json,
    flame_link,
    percent,
    percent_cell,
)
from wsbench.site.render import SCENARIO_TITLES
from wsbench.site.sources import date_text

SECTION_TITLE = "Where the time goes"
SECTION_ANCHOR = "where-the-time-goes"
"""The id of a framework page's Where the time goes section."""
METHODOLOGY = f"../methodology.md#{METHODOLOGY_ANCHOR}"
"""The Methodology page's CPU profiles section, relative to a framework page."""
KERNEL_NOTE = (
    "py-spy reads the server's user space only: the *kernel* share is the system time over "
    "the user + system time of the same server process's windows without the profiler, and "
    "the other classes share the rest as the samples do (the kernel's time is assumed "
    "spread over them like the samples are)"
)
"""How the kernel's share is derived (:mod:`wsbench.results.profile_shares`)."""
NATIVE_NOTE = (
    "Native frames were sampled: a C extension's time is its own (*C extensions*), and the "
    "interpreter's C code is *Python runtime*. A thread inside a system call is sampled in "
    "the C library's wrapper (`send`, `recv`, `epoll_wait`): those samples are the kernel's "
    "time, already in its share, and are left out of the others. py-spy stops the server "
    "for each native sample, and most stops land in system calls: the other classes rest on "
    "fewer samples than the count says"
)
PYTHON_ONLY_NOTE = (
    "Native frames were not sampled: a C extension's time is on the Python line that "
    "called it (*C extensions* is then 0)"
)


def _order(framework: Framework) -> dict[str, int]:
    return {c.id: i for i, c in enumerate(framework.configs)}


def _sorted(framework: Framework, found: Sequence[Profiled]) -> list[Profiled]:
    """By machine, configuration (``meta.toml`` order), scenario and parameter set."""
    order = _order(framework)
    return sorted(
        found,
        key=lambda p: (
            p.machine,
            order.get(p.impl.config, len(order)),
            p.impl.config,
            p.profile.scenario,
            sorted(p.params.items()),
        ),
    )


def set_title(item: Profiled) -> str:
    """The scenario and parameter set in words: ``"Echo, 16 B messages, 64 in flight per
    connection"``."""
    scenario = SCENARIO_TITLES.get(item.profile.scenario, item.profile.scenario)
    return f"{scenario}, {params_title(tuple(item.params.items()))}"


def _rate(value: float | None) -> str:
    return DASH if value is None else f"{value:,.0f}"


def how_taken(item: Profiled) -> str:
    """The profile's facts in one paragraph: the profiler and whether native frames were
    sampled, the window, the rate, the samples and the idle share, the profiled rate, the
    profiler's cost, the run."""
    profile = item.profile
    native = "with native frames" if item.native else "Python frames only"
    samples = sum(profile.stacks.values())
    text = (
        f"Profiled by {cell(item.profiler)}, {native}: {samples:,} samples over a "
        f"{profile.duration_s:g} s window at {profile.rate_hz:,} Hz "
        f"({percent(item.idle)} of the window idle)"
    )
    window = profile.profiled
    rates = [w.messages_per_s for w in profile.unprofiled if w.messages_per_s]
    if window is not None and window.messages_per_s is not None:
        text += f", at {_rate(window.messages_per_s)} messages/s"
        if item.cost is not None and rates:
            text += (
                f": {item.cost:.2f} {TIMES} the {_rate(sum(rates) / len(rates))} messages/s of the "
                f"same server process's {len(rates)} unprofiled "
                f"{'window' if len(rates) == 1 else 'windows'} (the profiler's cost)"
            )
    if item.cpu_per_message_s is not None:
        text += f"; {item.cpu_per_message_s * MICRO:,.1f} µs of server CPU per message unprofiled"
    when = date_text(item.doc.started_at) or DASH
    return text + f". Run {code(item.doc.run_id)}, {cell(when)}.\n"


def shares_table(item: Profiled) -> str:
    """The shares of the server's CPU time by class, then the idle share of the window."""
    rows = [[cell(k), percent_cell(item.split.shares[k])] for k in CLASSES]
    kernel = "kernel" if item.kernel_share is not None else "kernel (not recorded: 0)"
    rows[CLASSES.index("kernel")][0] = cell(kernel)
    rows.append(["*idle* (share of the window, not of the CPU)", percent_cell(item.idle)])
    return table(["Where", "Share of the server's CPU"], rows, align="lr")


def top_table(item: Profiled) -> str:
    """The top functions by self time: rank, function, file and line (or library), class,
    share of the server's CPU (a function and its place each on one line: on a phone the
    table scrolls sideways rather than break them letter by letter)."""
    rows = [
        [
            str(i),
            NOWRAP.format(code(f.function)),
            NOWRAP.format(code(f.where)) if f.where else DASH,
            cell(f.klass),
            percent_cell(f.share),
        ]
        for i, f in enumerate(item.top, 1)
    ]
    return table(["#", "Function", "Where", "Class", "Self (share of CPU)"], rows, align="rlllr")


def summary_table(found: Sequence[Profiled], machines: int) -> str:
    """One row per profile of the page: its name (linked to its section), version, set,
    CPU per message, the shares and the top function."""
    rows = []
    for item in found:
        top = item.top[0] if item.top else None
        cpu = item.cpu_per_message_s
        rows.append(
            [
                tagged(item.label, item.socketio, f"#{item.section_id(machines)}"),
                cell(item.version or DASH),
                NOWRAP.format(cell(item.set_words)),
                DASH if cpu is None else f"{cpu * MICRO:,.1f}",
                *(percent(item.split.shares[k]) for k in CLASSES),
                f"{code(top.function)} {percent(top.share)}" if top else DASH,
            ]
        )
    headers = ["Configuration", "Version", "Set", "CPU / message (µs)", *CLASSES, "Top function"]
    return table(headers, rows, align="lll" + "r" * (1 + len(CLASSES)) + "l")


def profile_block(item: Profiled, machines: int) -> tuple[str, bytes]:
    """One profile's part of the section (Markdown) and its flame graph's JSON."""
    where = f" on `{item.machine}`" if machines > 1 else ""
    title = f"{cell(item.title)}{where}: {cell(set_title(item))}"
    data_file = item.data_file(machines)
    note = NATIVE_NOTE if item.native else PYTHON_ONLY_NOTE
    parts = [
        heading("###", title, item.section_id(machines)),
        item.answer() + ".\n",
        how_taken(item),
        shares_table(item),
        f"{KERNEL_NOTE}. {note}.\n",
        f"The top {len(item.top)} functions by self time (the samples they were running, "
        "by line), as shares of the server's CPU:\n",
        top_table(item),
        "Flame graph: each frame's width is its samples, the functions it called above it; "
        "click a frame to zoom into it, search by name, reset to see them all. Colours are "
        "the classes of the table above.\n",
        flame_link(data_file.removeprefix("frameworks/")),
    ]
    return "\n".join(parts), flame_json(item)


def profiles_fact(framework: Framework, profiles: Profiles) -> str:
    """The framework page's facts row that leads to its Where the time goes (the section is
    far down a long page without a table of contents): with one profile, its two largest
    shares and its set, linked; with several, how many, linked; "" without a profile."""
    found = _sorted(framework, profiles.of_impl(framework.name))
    if not found:
        return ""
    if len(found) == 1:
        item = found[0]
        largest = [(k, s) for k, s in item.sorted_shares() if s > 0][:2]
        words = ", ".join(f"{percent(s)} {cell(k)}" for k, s in largest)
        return f"[{words}](#{SECTION_ANCHOR}) ({cell(item.set_words)})"
    sets = len({(p.profile.scenario, p.set_words) for p in found})
    configs = len({(p.machine, p.impl.config) for p in found})
    what = f"{configs} configuration{'s' if configs != 1 else ''}"
    return f"[CPU profiles of {what}](#{SECTION_ANCHOR}), {sets} set{'s' if sets != 1 else ''}"


def render_section(framework: Framework, profiles: Profiles) -> tuple[str, dict[str, bytes]]:
    """The Where the time goes section of ``framework``'s page and its flame graphs' JSON
    files (``{path relative to the docs dir: bytes}``); ("", {}) when the framework has no
    profile (the section is left out, and nothing links to it)."""
    found = _sorted(framework, profiles.of_impl(framework.name))
    if not found:
        return "", {}
    machines = profiles.machines_of(framework.name)
    out = [
        heading("##", SECTION_TITLE, SECTION_ANCHOR),
        "Where the server spends its CPU time, from a CPU profile of one server process "
        "(`./bench profile`, py-spy) at each profiled parameter set: the share of the "
        "server's CPU time (user + system) by class ("
        + ", ".join(cell(k) for k in CLASSES)
        + "), the functions with the most self time, and a flame graph. How the shares are "
        f"derived and what the profiler misses: [Methodology]({METHODOLOGY}).\n",
    ]
    if len(found) > 1:
        out.append(summary_table(found, machines))
    files: dict[str, bytes] = {}
    for item in found:
        text, data = profile_block(item, machines)
        out.append(text)
        files[item.data_file(machines)] = data
    return "\n".join(out), files
