"""Shared fixtures: the load generator is built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from wsbench import loadgen
from wsbench.impls import Impl

SERVERS = Path(__file__).parent / "fixtures" / "servers"


@pytest.fixture(scope="session", autouse=True)
def loadgen_binary() -> Path:
    """The release build of the load generator (built if missing or stale)."""
    return loadgen.ensure_built()


def fixture_impl(script: str, *args: str, name: str | None = None) -> Impl:
    """An implementation running ``tests/fixtures/servers/<script>.py ARGS`` (a test server)."""
    return Impl(
        name=name or script,
        display_name=script,
        directory=SERVERS,
        package=None,
        server="test fixture",
        event_loop="asyncio",
        protocol="websocket",
        homepage="",
        command=("{python}", f"{{dir}}/{script}.py", "--host", "{host}", "--port", "{port}", *args),
        versions=(),
        deviations={},
        reference=False,
    )
