"""Server push: the server sends messages of ``size_bytes`` as fast as its flow control allows.

Every figure is lower-is-better, as asv assumes: seconds per message received (the inverse
of throughput in messages/s), CPU in percent of one core, RSS in bytes.
"""

from typing import ClassVar

from wsbench.asv.suite import MessagingSuite as _MessagingSuite
from wsbench.asv.suite import asv_params


class Stream(_MessagingSuite):
    """Server push from ``/push`` (see impls/PROTOCOL.md)."""

    scenario = "stream"
    params: ClassVar[list[list[int]]]
    param_names: ClassVar[list[str]]
    params, param_names = asv_params(scenario)
