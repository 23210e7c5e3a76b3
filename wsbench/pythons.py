"""The Python versions wsbench measures servers on: their names, and the default.

A name is ``MAJOR.MINOR``, with a ``t`` for the free-threaded build (PEP 703): ``"3.12"``,
``"3.14t"``, as ``actions/setup-python`` and uv spell them. Which interpreter answers to a
name on a machine is :mod:`wsbench.instrument.interpreters`' business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_PYTHON = "3.11"
"""The Python of every figure unless another is asked for (``./bench run --python``), and of
every document from before Pythons were an axis."""
PYTHONS = ("3.11", "3.12", "3.13", "3.14", "3.14t")
"""Every Python a configuration's latest release is measured on where the machine has it,
oldest first (``--python all``)."""


@dataclass(frozen=True, order=True)
class PythonName:
    """A Python version as wsbench names it.

    Attributes:
        major: 3.
        minor: e.g. 14.
        free_threaded: the free-threaded build (``t``), whose interpreter may run without
            the GIL.
    """

    major: int
    minor: int
    free_threaded: bool = False

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}{'t' if self.free_threaded else ''}"

    @property
    def executable(self) -> str:
        """The name its interpreter has on PATH and in a ``bin/`` folder: ``python3.14t``."""
        return f"python{self}"


_NAME = re.compile(r"^(\d+)\.(\d+)(t?)$")


def parse_python(text: str) -> PythonName:
    """The :class:`PythonName` of ``"3.12"`` or ``"3.14t"``.

    Raises:
        ValueError: any other text (the message says what is expected).
    """
    found = _NAME.match(text.strip())
    if found is None:
        raise ValueError(f"bad Python version {text!r}: use MAJOR.MINOR, e.g. 3.12 or 3.14t")
    return PythonName(int(found[1]), int(found[2]), found[3] == "t")


def pythons_of(texts: list[str]) -> list[PythonName]:
    """The Pythons asked for by ``--python`` values: each a name, or ``"all"`` for
    :data:`PYTHONS`; in :data:`PYTHONS`' order, without duplicates.

    Raises:
        ValueError: a value that is neither.
    """
    names: set[PythonName] = set()
    for text in texts:
        if text == "all":
            names.update(parse_python(p) for p in PYTHONS)
        else:
            names.add(parse_python(text))
    return sorted(names)
