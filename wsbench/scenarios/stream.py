"""Server push: the server sends messages as fast as its flow control allows (``/push``)."""

from __future__ import annotations

from wsbench.scenarios.base import (
    CPU_COLUMN,
    MB_COLUMN,
    MESSAGE_FIGURES,
    MESSAGES_COLUMN,
    RSS_COLUMN,
    WINDOW_FIGURES,
    StreamMode,
    param_sets,
)

AXES: dict[str, tuple[int, ...]] = {"size_bytes": (16, 1024, 65536)}

SPEC = StreamMode(
    "stream", "Server push",
    "The server sends messages as fast as its flow control allows.",
    "stream", "/push", AXES, param_sets(AXES), param_sets({"size_bytes": (16,)}),
    position=20,
    figures=(*MESSAGE_FIGURES, *WINDOW_FIGURES),
    columns=(MESSAGES_COLUMN, MB_COLUMN, CPU_COLUMN, RSS_COLUMN),
    intro=(
        "The load generator asks `/push` for an endless stream of messages and checks every "
        "one; the server sends as fast as its flow control allows."
    ),
    site_title="Stream (server push)",
)  # fmt: skip
