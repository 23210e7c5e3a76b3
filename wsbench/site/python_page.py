"""The framework pages' *By Python version* section (issue 45): each configuration's latest
release on every Python it was measured on, its figures beside their ratio to the default
Python's (:mod:`wsbench.site.python_costs`)."""

# The page's typography (en dash in intervals) is as published.

from __future__ import annotations

from collections.abc import Sequence

from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results.metrics import Metric
from wsbench.results.stats import COMPARISON_CONFIDENCE
from wsbench.site.counts import REASON_CHARS, count_text
from wsbench.site.deployment_costs import CPU_PER_MESSAGE, FIGURE_WORDS, Ratio
from wsbench.site.markup import (
    DASH,
    TIMES,
    anchor,
    cell,
    first_line,
    heading,
    ratio_text,
    short_reason,
    short_set_title,
    spread,
    table,
)
from wsbench.site.python_costs import COUNTED_SET, OnPython, OnPythons, headline_metric
from wsbench.site.rows import Params

TITLE = "By Python version"
ECHO: Params = (("size_bytes", 16), ("in_flight", 64))
COLUMNS: tuple[tuple[str, Params, Metric], ...] = (
    ("echo", ECHO, headline_metric("echo")),
    ("echo", ECHO, CPU_PER_MESSAGE),
    ("memory", (("connections", 1000),), headline_metric("memory")),
)
"""The figures of the section's table (scenario, set, figure), in column order, before the
instructions per message at :data:`wsbench.site.python_costs.COUNTED_SET`."""


def python_cell(on: OnPython) -> str:
    """The Python as the table names it: ``"3.13"``; a free-threaded build with whether its
    GIL was on (``"3.14t, GIL off"``), and the build's optimizations (``"3.13, PGO and
    LTO"``, ``"3.13, no PGO or LTO"``), when the document records them."""
    interpreter = on.run.doc.environment.interpreter
    if interpreter is None:
        return on.python
    parts = [on.python]
    if interpreter.free_threaded:
        parts.append(f"GIL {'on' if interpreter.gil_enabled else 'off'}")
    if interpreter.optimizations is not None:
        names = [name.upper() for name in interpreter.optimizations]
        parts.append(" and ".join(names) if names else "no PGO or LTO")
    return ", ".join(parts)


def _ratio_cell(found: Ratio | None) -> str:
    if found is None:
        return ""
    if found.comparison is None:
        return f" · {cell(found.problem)}" if found.problem else ""
    text = ratio_text(found.comparison)
    return f" · **{text}**" if found.comparison.significant else f" · {text}"


def figure_cell(o: OnPythons, on: OnPython, scenario: str, params: Params, metric: Metric) -> str:
    """``metric`` on ``on``'s Python (geometric mean over the server processes, with its
    interval), and on another Python than the default its ratio to the default's with the
    99 % interval, bold where significant; the failure where the set failed."""
    row = on.row(scenario, params)
    if row is None:
        return DASH
    if not row.ok:
        return f"{row.status}: {cell(short_reason(first_line(row.error or ''), REASON_CHARS))}"
    words = FIGURE_WORDS.get(metric.name, ("", ",.2f", 1.0))
    return spread(row.summary(metric), words[1], words[2]) + _ratio_cell(
        o.ratio(on, metric, scenario, params)
    )


def count_cell(o: OnPythons, on: OnPython) -> str:
    """The instructions per message at :data:`COUNTED_SET` on ``on``'s Python, and on
    another its ratio to the default's."""
    text = count_text(on.count(*COUNTED_SET))
    ratio = o.count_ratio(on)
    return text if ratio is None else f"{text} · {ratio:.3f}{TIMES}"


def headers() -> list[str]:
    """The table's column headers: the configuration and its Python first, then each
    figure with its set."""
    names = ["Configuration", "Python", "Version"]
    for scenario, params, metric in COLUMNS:
        words = FIGURE_WORDS.get(metric.name, (metric.label.capitalize(), "", 1.0))[0]
        unit = " (µs)" if metric is CPU_PER_MESSAGE else ""
        names.append(f"{words}{unit}, {cell(short_set_title(scenario, dict(params)))}")
    names.append(
        f"Instructions per message, {short_set_title(COUNTED_SET[0], dict(COUNTED_SET[1]))}"
    )
    return names


def section(found: Sequence[OnPythons], name: str, machine: str, level: str) -> str:
    """The section for implementation ``name`` on ``machine`` (``level``: its heading's
    Markdown level); "" when none of its configurations was measured on another Python."""
    mine = [o for o in found if o.machine == machine and o.pythons[0].run.impl.name == name]
    if not mine:
        return ""
    rows = []
    for o in mine:
        for on in o.pythons:
            rows.append(
                [
                    cell(o.label),
                    python_cell(on),
                    cell(on.run.impl.version or DASH),
                    *(figure_cell(o, on, s, p, m) for s, p, m in COLUMNS),
                    count_cell(o, on),
                ]
            )
    confidence = f"{COMPARISON_CONFIDENCE:.0%}".replace("%", " %")
    intro = (
        f"Each configuration's latest release on every Python it was measured on. Beside "
        f"each figure on a Python other than {DEFAULT_PYTHON}: its ratio to the same figure "
        f"on Python {DEFAULT_PYTHON} (higher is more, whether that is better or worse), with "
        f"the {confidence} interval of Welch's t test over the server processes, bold where "
        "the change is significant; instructions per message, which do not vary with the "
        "machine's noise, as a plain ratio. Figures are geometric means over the server "
        "processes with their 95 % interval. Beside each Python, its build's optimizations "
        "when recorded: a build without profile-guided (PGO) and link-time (LTO) "
        "optimization, pyenv's default, is not what CPython calls an optimized build, so "
        "its figures differ from a distribution's of the same version. Every other table "
        "on this page is of Python "
        f"{DEFAULT_PYTHON} unless its row names another Python.\n\n"
    )
    return (
        heading(level, TITLE, anchor(TITLE))
        + intro
        + table(headers(), rows, align="lll" + "r" * (len(COLUMNS) + 1))
        + "\n"
    )
