"""Figures per core: every server process runs on one CPU, so a server whose worker hands
its messages between several busy threads has them take turns there. Which threads, as
each configuration's ``meta.toml`` states them (``shared_cpu``,
:attr:`wsbench.impls.ImplConfig.shared_cpu`), marks its rows and is written under the tables
that show them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from wsbench.deployment import MULTI_CPU_PROFILES
from wsbench.impls import Impl
from wsbench.site.markup import and_list, cell
from wsbench.site.results import EnvRun

MARK = "†"
"""Beside the name of a row whose configuration states busy threads sharing its CPU."""
PER_CORE = (
    "**Per core.** Each server process is pinned to one CPU and the load generator to "
    "another, so every figure is what one core gives; a server with several processes or "
    "threads has them all on that CPU. "
    f"{MARK} marks a configuration whose worker hands each message between several busy "
    "threads: they take turns on that one CPU, and on more CPUs it could serve more (what "
    "each does is listed under this legend). Only the "
    + " and ".join(f"*{p.title}*" for p in MULTI_CPU_PROFILES)
    + " profiles, where a runner measures them, give the server more CPUs, as their names say."
)
"""The legend's sentence of every leaderboard (Markdown)."""

SharedCpu = Mapping[tuple[str, str], tuple[str, str]]
"""``{(implementation name, configuration id): (its row name without versions, its
shared_cpu text)}``, for the configurations that state one."""


def shared_cpu_of(impls: Iterable[Impl]) -> dict[tuple[str, str], tuple[str, str]]:
    """Every configuration of ``impls`` that states busy threads: its row name (without
    versions) and its text."""
    return {
        (i.name, c.id): (i.row_name(c), c.shared_cpu)
        for i in impls for c in i.configs if c.shared_cpu
    }  # fmt: skip


def mark(run: EnvRun, shared: SharedCpu) -> str:
    """``" †"`` when ``run``'s configuration states busy threads sharing its CPU, else ""."""
    return f" {MARK}" if (run.impl.name, run.impl.config) in shared else ""


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _bullets(stated: Iterable[tuple[str, str]], mark: str = "") -> str:
    """One markdown bullet per (row name, text): the name bold after ``mark``, the text as
    a sentence."""
    return "".join(f"- {mark}**{cell(name)}**: {cell(_sentence(text))}\n" for name, text in stated)


def _stated(runs: Iterable[EnvRun], shared: SharedCpu) -> list[tuple[str, str]]:
    """The (row name, text) of each configuration of ``runs`` that states busy threads,
    sorted by name."""
    return sorted(
        {shared[key] for run in runs if (key := (run.impl.name, run.impl.config)) in shared}
    )


def notes(runs: Sequence[EnvRun], shared: SharedCpu) -> str:
    """Markdown: one bullet per configuration of ``runs`` that states busy threads (its row
    name without versions, the text), sorted by name; "" when none does."""
    stated = _stated(runs, shared)
    if not stated:
        return ""
    return "*Threads that share the one CPU*, as each configuration states them:\n\n" + (
        _bullets(stated, f"{MARK} ")
    )


def threads_sentence(runs: Sequence[EnvRun], shared: SharedCpu) -> str:
    """Markdown for the home page: how many of the configurations of ``runs`` do their work
    in one thread, the event loop's (their ``meta.toml`` states no ``shared_cpu``), and
    which hand each message between several busy threads (their row names without
    versions); "" without runs."""
    configs = {(run.impl.name, run.impl.config) for run in runs}
    if not configs:
        return ""
    stated = [name for name, _ in _stated(runs, shared)]
    single = len(configs) - len(stated)
    saturated = (
        "at 100 % CPU such a server is saturated, and its figure is the most that framework "
        "does on one core of this machine"
    )
    if not stated:
        return (
            f"Every configuration shown does its work in one thread, the event loop's: {saturated}."
        )
    return (
        f"{single} of the {len(configs)} configurations shown do their work in one thread, "
        f"the event loop's: {saturated}. The other {len(stated)} hand each message between "
        "several busy threads that take turns on that CPU, as their `meta.toml` states "
        f"({MARK} on the leaderboards, which say what each thread does): "
        f"{cell(and_list(stated))}. On more CPUs they could serve more."
    )


def methodology_list(impls: Iterable[Impl]) -> str:
    """Markdown for the Methodology page: one bullet per configuration of ``impls`` that
    states busy threads (its row name without versions, the text), sorted by name; a
    sentence saying none does when none does."""
    stated = sorted(shared_cpu_of(impls).values())
    if not stated:
        return "None of the configurations states busy threads besides its event loop's.\n"
    return _bullets(stated)


def framework_note(impl: Impl) -> str:
    """Markdown for a framework page: each of ``impl``'s configurations that states busy
    threads, named by its row name, with its text; "" when none does."""
    stated = [(impl.row_name(c), c.shared_cpu) for c in impl.configs if c.shared_cpu]
    if not stated:
        return ""
    return (
        "**One CPU, several threads.** Its figures, like every figure here, are per core: "
        "the server runs pinned to one CPU. In these configurations its worker hands each "
        f"message between several busy threads, which take turns on that CPU ({MARK} on the "
        "leaderboards):\n\n" + _bullets(stated)
    )
