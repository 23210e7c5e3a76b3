"""Markdown building blocks shared by the generated pages: escaped cells, tables, links.

Python-Markdown's ``tables`` syntax; material renders ``<mark>`` as a highlighted tag.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence

from wsbench.deployment import TUNED, Profile, profile_of, without_profile
from wsbench.results.stats import (
    ALPHA,
    COMPARISON_CONFIDENCE,
    CONFIDENCE,
    MIN_EFFECT,
    MIN_PROCESSES,
    TOO_FEW,
    UNSTABLE_CV,
    Comparison,
    Summary,
)
from wsbench.scenarios import PARAM_WORDS, params_words

DASH = "—"
"""Shown where there is no value."""
EN_DASH = "\u2013"
"""Joins the ends of an interval (U+2013)."""
TIMES = "\u00d7"
"""The multiplication sign (U+00D7), as in "3 processes x 2 windows"."""
CONFIDENCE_PERCENT = f"{CONFIDENCE * 100:.0f}"
"""The confidence level of a figure's interval in percent, for prose: ``"95"``
(:data:`wsbench.results.stats.CONFIDENCE`)."""
COMPARISON_CONFIDENCE_PERCENT = f"{COMPARISON_CONFIDENCE * 100:.0f}"
"""The confidence level of a comparison's interval of the ratio in percent: ``"99"``
(:data:`wsbench.results.stats.COMPARISON_CONFIDENCE`)."""
UNSTABLE_PERCENT = f"{UNSTABLE_CV * 100:.0f}"
"""The coefficient of variation above which a figure is unstable, in percent: ``"10"``
(:data:`wsbench.results.stats.UNSTABLE_CV`)."""
STATISTICS: dict[str, str] = {
    "alpha": f"{ALPHA:g}",
    "min_effect_percent": f"{MIN_EFFECT * 100:.0f}",
    "min_processes": str(MIN_PROCESSES),
    "confidence_percent": CONFIDENCE_PERCENT,
    "comparison_confidence_percent": COMPARISON_CONFIDENCE_PERCENT,
    "unstable_percent": UNSTABLE_PERCENT,
    "too_few": TOO_FEW,
}
"""The numbers and words of :mod:`wsbench.results.stats` the pages' prose quotes, by the
name every template sees them under (:func:`wsbench.site.templates.environment`): the
significance level (``"0.01"``), the minimum change in percent (``"5"``), the fewest server
processes a side of a verdict (``"3"``), the confidence levels of a figure's and of a
comparison's interval in percent (``"95"``, ``"99"``), the unstable threshold in percent
(``"10"``) and the verdict without enough processes (``"too few server processes"``). One
source: no page types them."""
UNSTABLE = "≈"
"""Marks an unstable figure (its server processes' values have a coefficient of variation
above :data:`wsbench.results.stats.UNSTABLE_CV`)."""
UNSTABLE_LEGEND = (
    f"{UNSTABLE} marks an unstable figure: the coefficient of variation of its server "
    f"processes' values is above {UNSTABLE_PERCENT} %"
)
"""The sentence that explains :data:`UNSTABLE` wherever it can appear."""
SOCKETIO_TAG = "<mark>Socket.IO</mark>"
"""Marks a Socket.IO server's name wherever results are shown."""
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|])")


def cell(text: str) -> str:
    """``text`` made safe for one table cell: on one line, HTML-escaped, markdown syntax
    backslash-escaped, ``|`` as an HTML entity."""
    one_line = " ".join(text.split())
    escaped = _MD_SPECIAL.sub(r"\\\1", html.escape(one_line, quote=False))
    return escaped.replace("\\|", "&#124;")


NOWRAP = '<span style="white-space: nowrap">{}</span>'


def row_name(name: str) -> str:
    """A row's name for a cell: escaped, on at most two lines (framework · server, then
    the rest: ``"Starlette · uvicorn 0.54 ·"`` / ``"websockets · uvloop"``), so a narrow
    table column does not break it word by word."""
    parts = [cell(part) for part in " ".join(name.split()).split(" · ")]
    groups = [parts[:2], parts[2:]] if len(parts) > 2 else [parts]
    # A line break may follow a "·", never precede one.
    return "&nbsp;· ".join(NOWRAP.format(" · ".join(group)) for group in groups)


def tagged(name: str, socketio: bool, url: str | None = None, *, breaks: bool = False) -> str:
    """A row's name for a cell (see :func:`row_name`, or with ``breaks`` escaped only, free
    to break at any space; linked to ``url`` when given), tagged when it is a Socket.IO
    server; a trailing " · Socket.IO" in the name gives way to the tag."""
    plain = name.removesuffix(" · Socket.IO") if socketio else name
    text = cell(plain) if breaks else row_name(plain)
    linked = f"[{text}]({url})" if url else text
    return f"{linked} {SOCKETIO_TAG}" if socketio else linked


def anchor(text: str) -> str:
    """The id Python-Markdown's ``toc`` extension would give a heading ``text`` (its
    default ``slugify``: ASCII, lower case, punctuation dropped, spaces as hyphens), e.g.
    ``"1,024 B messages"`` -> ``"1024-b-messages"``. Headings that other pages link to get
    their id explicitly (:func:`heading`), so a link and its target agree."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", ascii_text).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def heading(level: str, text: str, anchor_id: str) -> str:
    """A markdown heading (``level`` is ``"##"``, ``"###"``...) with the explicit id
    ``anchor_id`` (attr_list syntax), ending with a newline."""
    return f"{level} {text} {{ #{anchor_id} }}\n"


def params_title(params: Sequence[tuple[str, object]]) -> str:
    """A parameter set in words, in a fixed order whatever the order of ``params``: e.g.
    ``"16 B messages, 64 in flight per connection"``, ``"1,000 connections, 16 B messages,
    1 in flight per connection"``, ``"16 workers"``, ``"10 s window"``; any other parameter
    as ``"name = value"``; ``"No parameters"`` for none."""
    named = {k: v for k, v in params if isinstance(v, int) and k in PARAM_WORDS}
    parts = params_words(named, short=False)
    parts += [f"{k} = {v}" for k, v in params if k not in named]
    return ", ".join(parts) or "No parameters"


PROFILE_SEPARATOR = " \u00b7 "
"""Between a parameter set in words and its deployment profile's title (a middle dot)."""


def profile_title(params: Sequence[tuple[str, object]]) -> str:
    """A parameter set in words with its deployment profile (:mod:`wsbench.deployment`):
    :func:`params_title` of the set without the profile's parameters, a middle dot and the
    profile's title, e.g. ``"1,024 B messages, the JSON corpus, 64 in flight per connection
    · As shipped"`` or ``"16 B messages, 1 in flight per connection · Tuned"``; the
    profile's title alone for a set of no other parameter (``"As shipped"``).

    Raises:
        ValueError: a profile parameter other than 0 or 1.
    """
    found = {k: v for k, v in params if isinstance(v, int)}
    profile = profile_of(found)
    rest = tuple((k, v) for k, v in params if k in without_profile(found) or k not in found)
    return f"{params_title(rest)}{PROFILE_SEPARATOR}{profile.title}" if rest else profile.title


def profile_changes(profile: Profile) -> str:
    """What ``profile`` runs, in words from its settings (:class:`wsbench.deployment.Profile`),
    e.g. ``"no compression offered, plain TCP"`` (tuned) or ``"the client offers
    permessage-deflate as a browser does and the server keeps its framework's default
    compression, plain TCP"`` (as shipped); the multi-CPU profiles add where the server runs
    (``", the server's one process on 2 CPUs"``)."""
    if profile.offers_deflate:
        words = "the client offers permessage-deflate as a browser does"
    else:
        words = "no compression offered"
    if profile.shipped_compression:
        words += " and the server keeps its framework's default compression"
    tls = "TLS, terminated in the server's process" if profile.tls else "plain TCP"
    if profile.worker_processes:
        cpus = ", one worker process per CPU of the server's (its framework's workers option)"
    elif profile.multi_cpu:
        cpus = f", the server's one process on {profile.server_cpus} CPUs"
    else:
        cpus = ""
    return f"{words}, {tls}{cpus}"


def in_tuned(params: Sequence[tuple[str, object]]) -> bool:
    """Whether a parameter set is measured in the tuned profile (no profile parameter on)."""
    return profile_of({k: v for k, v in params if isinstance(v, int)}) is TUNED


def set_words(params: Sequence[tuple[str, object]]) -> str:
    """A set of a grid in words: :func:`params_title` for a tuned set, :func:`profile_title`
    for a set of another deployment profile (``"16 workers · As shipped"``)."""
    return params_title(params) if in_tuned(params) else profile_title(params)


def safe_name(text: str) -> str:
    """``text`` usable as a file or folder name in the built site: letters, digits, ``-``,
    ``_`` and ``.`` kept, anything else a ``-``; never ``..`` or hidden (leading dots become
    ``-``)."""
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in text)
    return re.sub(r"^\.+", lambda dots: "-" * len(dots.group()), name) or "-"


def and_list(items: Sequence[str]) -> str:
    """``["a", "b", "c"]`` as ``"a, b and c"`` ("" for none)."""
    return " and ".join(filter(None, (", ".join(items[:-1]), items[-1]))) if items else ""


def code(text: str) -> str:
    """``text`` as an inline code span (no escaping applies inside one)."""
    return "`" + " ".join(text.split()).replace("`", "'") + "`"


def link(text: str, url: str | None) -> str:
    """``text`` (escaped) linked to ``url``; plain escaped text when ``url`` is None."""
    return f"[{cell(text)}]({url})" if url else cell(text)


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> str:
    """A markdown table. ``align`` has one letter per column, ``l`` or ``r`` (default ``l``);
    cells are used as given (escape text with :func:`cell`)."""
    aligns = [(align[i] if i < len(align) else "l") for i in range(len(headers))]
    rule = ["---:" if a == "r" else "---" for a in aligns]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def short_number(value: float) -> str:
    """A figure in a sentence or on a chart's axis: a whole number with thousands separators
    from 100 up, three significant digits below (``"12,345"``, ``"0.0615"``, ``"0"``)."""
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:,.3g}"


def num(value: float | None, fmt: str, scale: float = 1.0) -> str:
    """``value / scale`` formatted with ``fmt`` (e.g. ``",.1f"``), or a dash for None."""
    return DASH if value is None else format(value / scale, fmt)


def spread(summary: Summary | None, fmt: str, scale: float = 1.0) -> str:
    """A summarized figure for a cell: its value (:attr:`wsbench.results.stats.Summary.value`,
    the geometric mean over the server processes) and, in brackets, its confidence interval
    (kept on one line), each divided by ``scale`` and formatted with ``fmt``; prefixed with
    :data:`UNSTABLE` when unstable; a dash for None. E.g. ``"12,345 (12,100 to 12,600)"``
    with an en dash (:data:`EN_DASH`) between the ends."""
    if summary is None:
        return DASH
    text = ("" if not summary.unstable else UNSTABLE) + num(summary.value, fmt, scale)
    if summary.interval is not None:
        low, high = (num(v, fmt, scale) for v in summary.interval)
        text += " " + NOWRAP.format(f"({low}{EN_DASH}{high})")
    return text


def _clip(text: str, limit: int, keep_end: bool = False) -> str:
    """At most ``limit`` characters of ``text`` (its start, or its end), cut between words."""
    if len(text) <= limit:
        return text
    if keep_end:
        tail = text[-limit:]
        space = tail.find(" ")
        return tail[space + 1 :] if 0 <= space < limit // 2 else tail
    head = text[:limit]
    space = head.rfind(" ")
    return head[:space] if space > limit // 2 else head


def short_reason(text: str, limit: int = 300) -> str:
    """A failure reason short enough for a table cell: whole when at most ``limit``
    characters, else the start of its first line and the end of its last (where an
    installer's cause is), cut between words and joined by an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    half = limit // 2
    if len(lines) == 1:
        return f"{_clip(flat, half)} … {_clip(flat, half, keep_end=True)}"
    return f"{_clip(lines[0], half)} … {_clip(lines[-1], half, keep_end=True)}"


def first_line(text: str, limit: int = 160) -> str:
    """The first line of ``text``, cut between words to at most ``limit`` characters (an
    ellipsis marks a cut)."""
    line = " ".join((text.strip().splitlines() or [""])[0].split())
    clipped = _clip(line, limit)
    return clipped if clipped == line and "\n" not in text.strip() else clipped + " …"


GIST_CHARS = 40
"""A statement longer than this many characters folds behind its gist (:func:`folded`), which
is at most this long: about one line of a column of a four-column table at 1,400 px."""
FOLD_CLASS = "wsbench-fold"
"""The class of the ``<details>`` that folds a long statement behind its gist (styled by the
site's stylesheet, ``assets/wsbench.css``, as a line of text with a disclosure marker)."""
_CLAUSE_END = re.compile(r", |; | \(| — ")


def gist(text: str, limit: int = GIST_CHARS) -> str:
    """The gist of a statement, for the one line it folds behind: its first clause (up to
    the first ``", "``, ``"; "``, ``" ("`` or ``" — "`` outside brackets, e.g.
    ``"accepts: WebSocketResponse(compress=True)"``), its first words up to ``limit``
    characters, never cut inside a word or brackets (``"supported: uvicorn.run"``), with an
    ellipsis when it is not the whole text."""
    flat = " ".join(text.split())
    depth, end = 0, len(flat)
    for i, char in enumerate(flat):
        depth += (char in "([{") - (char in ")]}")
        if depth <= 0 and _CLAUSE_END.match(flat, i):
            end = i
            break
    clause = ""
    for word in flat[:end].split(" "):
        if clause and len(clause) + 1 + len(word) > limit:
            # A call too long to fit keeps its name: "accepts: WebSocketResponse …".
            name = re.split(r"[([{]", word, maxsplit=1)[0]
            if name != word and len(clause) + 1 + len(name) <= limit:
                clause = f"{clause} {name}"
            break
        clause = f"{clause} {word}" if clause else word
    opened: list[int] = []
    for i, char in enumerate(clause):
        if char in "([{":
            opened.append(i)
        elif char in ")]}" and opened:
            opened.pop()
    # A cut inside brackets ends before them: "uvicorn.run …", not "uvicorn.run(ssl=a …".
    clause = clause[: opened[0]] if opened else clause
    return clause if clause == flat else clause.rstrip(",;: ") + " …"


def fold(summary: str, full: str) -> str:
    """``full`` (markdown of one table cell) folded behind the one line ``summary`` (markdown):
    a ``<details>`` of class :data:`FOLD_CLASS`, open on a click."""
    return f'<details class="{FOLD_CLASS}"><summary>{summary}</summary>{full}</details>'


def folded(text: str, limit: int = GIST_CHARS) -> str:
    """A statement for a table cell: escaped (:func:`cell`), and when it is longer than
    ``limit`` characters folded (:func:`fold`) behind its :func:`gist`."""
    if len(" ".join(text.split())) <= limit:
        return cell(text)
    return fold(cell(gist(text, limit)), cell(text))


def ratio_text(comparison: Comparison) -> str:
    """The ratio of the two figures (geometric means over the server processes) with the
    comparison's 99 % interval (:data:`wsbench.results.stats.COMPARISON_CONFIDENCE`), e.g.
    ``"1.25x (1.23-1.28)"`` with a multiplication sign and an en dash: two decimals, three
    when a value is below 0.1 (no interval with a single server process on a side)."""
    interval = comparison.head_over_base_interval
    values = [comparison.head_over_base, *(interval or ())]
    fmt = ".2f" if min(values) >= 0.1 else ".3f"
    text = f"{comparison.head_over_base:{fmt}}{TIMES}"
    if interval is not None:
        low, high = (format(v, fmt) for v in interval)
        text += " " + NOWRAP.format(f"({low}{EN_DASH}{high})")
    return text


def short_set_title(scenario: str, params: dict[str, int]) -> str:
    """A parameter set in a column header, short: ``"echo 16 B x64"`` (a counted set, a
    figure of *By Python version*)."""
    return " ".join([scenario, *params_words(params, short=True)])
