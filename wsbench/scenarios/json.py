"""JSON request/reply: each 97-byte JSON object decoded with the standard library's json
and answered with a small encoded reply (``/json``)."""

from __future__ import annotations

from wsbench.scenarios import echo
from wsbench.scenarios.base import ECHO_COLUMNS, EchoMode, param_sets

SPEC = EchoMode(
    "json", "JSON request/reply",
    "Each 97-byte JSON object is decoded with the standard library's json and answered "
    "with a small encoded reply.",
    "echo", "/json", {"in_flight": (1, 64)}, param_sets({"in_flight": (1, 64)}), (),
    position=70,
    figures=echo.FIGURES,
    columns=ECHO_COLUMNS,
    json=True,
)  # fmt: skip
