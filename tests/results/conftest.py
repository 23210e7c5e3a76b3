"""Fixtures of the statistics tests."""

from __future__ import annotations

import importlib
import types

import pytest


@pytest.fixture(scope="session")
def sps() -> types.ModuleType:
    """``scipy.stats``, the reference the statistics are checked against, imported by the
    first test that asks for it: a module-level import cost each pytest-xdist worker 1.4 s of
    its collection (about 4 s of CPU in a ``./bench test``), and only one worker needs it."""
    return importlib.import_module("scipy.stats")
