"""Echo with text frames: a UTF-8 validation per message that differs between frameworks."""

from __future__ import annotations

from wsbench.scenarios import echo
from wsbench.scenarios.base import ECHO_COLUMNS, EchoMode, param_sets

SPEC = EchoMode(
    "text", "Echo, text frames",
    "Echo with text frames (a UTF-8 validation per message that differs between "
    "frameworks).",
    "echo", "/echo", echo.AXES, param_sets(echo.AXES), (),
    position=60,
    figures=echo.FIGURES,
    columns=ECHO_COLUMNS,
    text=True,
)  # fmt: skip
