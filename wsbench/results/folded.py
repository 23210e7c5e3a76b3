"""Folded stacks, the run format's CPU profiles (``frame;frame;frame`` -> samples, root
first, as py-spy's ``--format raw`` and Brendan Gregg's ``stackcollapse`` write them): reading
them, and self time per function or line."""

from __future__ import annotations

import re

IDLE = "(idle)"
"""The frame of the samples py-spy took while the server was waiting (``--idle``)."""


class FoldedError(ValueError):
    """Folded stacks that cannot be read (the message names the line)."""


_PROCESS_FRAME = re.compile(r'^process \d+:"([^"]*)"')
_LINE = re.compile(r" \(([^()]*?):\d+\)$")


def process_frame(frame: str) -> str:
    """py-spy's frame of a process (``--subprocesses``: the root, and a worker's within its
    parent's stack), ``process PID:"COMMAND LINE"``, without what changes from run to run
    (its id, ports, paths): ``process (server.py)``, the first ``.py`` of the command line,
    else the module of ``python -m MODULE`` (``process (granian)``), else its program's
    name; any other frame unchanged."""
    found = _PROCESS_FRAME.match(frame)
    if not found:
        return frame
    words = found.group(1).split()
    script = next((w for w in words if w.endswith(".py")), None)
    if script is None and "-m" in words[:-1]:
        script = words[words.index("-m") + 1]  # python -m granian: the module
    script = script or (words[0] if words else "?")
    return f"process ({script.rsplit('/', 1)[-1]})"


_FRAME_FILE = re.compile(r"^(.*) \((/[^()]*?)(:\d+)?\)$")
_SHORTER = (
    (re.compile(r"/site-packages/(.+)$"), r"\1"),  # a package: aiohttp/web.py
    (re.compile(r"/lib/python3\.\d+t?/(.+\.py)$"), r"\1"),  # the standard library
    (re.compile(r"/Python-3[.\d]*/(.+)$"), r"cpython/\1"),  # the interpreter's C sources
    (re.compile(r"/include/python3\.\d+t?/(.+)$"), r"cpython/Include/\1"),  # its headers
    (re.compile(r"^/project/(.+)$"), r"\1"),  # an extension built by cibuildwheel
)
"""Full file names (py-spy's ``--full-filenames``) -> the part that names what they belong
to, the first pattern that matches."""


def short_file(path: str) -> str:
    """A frame's full file name without what depends on the machine: its package path
    under ``site-packages`` (``aiohttp/web.py``, as py-spy shortens Python files itself),
    its path in the standard library (``asyncio/base_events.py``), ``cpython/...`` for the
    interpreter's own C sources and headers, an extension's source path as its wheel was
    built (``uvloop/loop.c``), else its base name (``server.py``, ``libc.so.6``). A name
    that is not absolute is returned as it is."""
    if not path.startswith("/"):
        return path
    for pattern, replacement in _SHORTER:
        found = pattern.search(path)
        if found:
            return found.expand(replacement)
    return path.rsplit("/", 1)[-1]


def short_frame(frame: str) -> str:
    """A frame with its file name shortened (:func:`short_file`), its line kept:
    ``"run (/v/lib/python3.11/site-packages/x/y.py:3)"`` -> ``"run (x/y.py:3)"``."""
    found = _FRAME_FILE.match(frame)
    if not found:
        return frame
    function, path, line = found.groups()
    return f"{function} ({short_file(path)}{line or ''})"


def function_of(frame: str) -> str:
    """A frame without its line: ``"burn (server.py:10)"`` -> ``"burn (server.py)"``."""
    return _LINE.sub(r" (\1)", frame)


def parse_folded(text: str) -> dict[str, int]:
    """Folded stacks (``frame;frame;frame COUNT`` per line, root first, as py-spy's
    ``--format raw`` and Brendan Gregg's ``stackcollapse`` write them) as ``{stack:
    samples}``, the process frames made comparable (:func:`process_frame`) and every file name
    shortened (:func:`short_frame`); a stack seen on several lines is summed.

    Raises:
        FoldedError: a line without a count.
    """
    stacks: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            raise FoldedError(f"folded stacks, line {number}: no sample count: {line[:120]!r}")
        stack = ";".join(short_frame(process_frame(frame)) for frame in stack.split(";"))
        stacks[stack] = stacks.get(stack, 0) + int(count)
    return stacks


def idle_share(stacks: dict[str, int], *, rate_hz: float, duration_s: float) -> float:
    """The share of the window the server's main thread spent waiting: 1 - the samples
    taken / the samples a busy thread gives (``rate_hz`` x ``duration_s``), at least 0
    (several threads can give more samples than one)."""
    expected = rate_hz * duration_s
    taken = sum(stacks.values())
    return max(0.0, 1.0 - taken / expected) if expected > 0 else 0.0


def self_samples(stacks: dict[str, int], *, by_line: bool = False) -> dict[str, int]:
    """Samples per function by self time: each stack's count goes to its leaf frame's
    function (``"hot (server.py)"``; with ``by_line``, its line: ``"hot (server.py:12)"``),
    most first."""
    found: dict[str, int] = {}
    for stack, count in stacks.items():
        leaf = stack.rsplit(";", 1)[-1]
        leaf = leaf if by_line else function_of(leaf)
        found[leaf] = found.get(leaf, 0) + count
    return dict(sorted(found.items(), key=lambda kv: -kv[1]))
