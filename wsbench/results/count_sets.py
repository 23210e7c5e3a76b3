"""The parameter sets whose instructions per message are counted under valgrind
(:mod:`wsbench.instrument.instructions` counts them; the results and the site read which
they are)."""

from __future__ import annotations

from dataclasses import dataclass

from wsbench.scenarios import Params, Scenario, params_key


@dataclass(frozen=True)
class CountSet:
    """One parameter set whose instructions per message are counted.

    Attributes:
        scenario: the scenario (:mod:`wsbench.scenarios`).
        params: its parameters, as in the scenario's grid.
        lo: the load generator's ``--count`` of the low run (messages per connection;
            fan-out: messages published).
        hi: the same of the high run.
    """

    scenario: Scenario
    params: Params
    lo: int
    hi: int

    @property
    def key(self) -> str:
        """``scenario/params_key``, e.g. ``"echo/in_flight=64,size_bytes=16"``."""
        return f"{self.scenario}/{params_key(self.params)}"


LAYOUTS = 2
"""How many server processes count every set, each started with its own memory layout
(:data:`wsbench.instrument.instructions.LAYOUT_SHIFT_ENV`): the layout is one of a process's
start-up lucks. A test server that sleeps 5 ms per message counted 130,677, 131,199 and
132,074 instructions per message (a 1.1 % range) in three layouts, deterministically in
each, where its count without the sleep and websockets' echo moved by under 0.1 %; one
process would have called a head 1.7 % slower where its code adds 0.6 % (Mytkowicz et al.,
"Producing wrong data without doing anything obviously wrong!", ASPLOS 2009; Curtsinger and
Berger, "Stabilizer: statistically sound performance evaluation", ASPLOS 2013). The range
between the layouts is part of the set's spread
(:attr:`~wsbench.results.runformat.InstructionSet.spread`), which a verdict must exceed
(:mod:`wsbench.results.instruction_verdicts`)."""
SETS: tuple[CountSet, ...] = (
    CountSet("echo", {"size_bytes": 16, "in_flight": 1}, 500, 2500),
    CountSet("echo", {"size_bytes": 16, "in_flight": 64}, 1000, 5000),
    CountSet("echo", {"size_bytes": 65536, "in_flight": 64}, 100, 500),
    CountSet("text", {"size_bytes": 16, "in_flight": 64}, 1000, 5000),
    CountSet("json", {"in_flight": 64}, 1000, 5000),
    CountSet("stream", {"size_bytes": 16}, 1000, 5000),
    CountSet("broadcast", {"subscribers": 100, "rate": 0, "size_bytes": 16}, 10, 50),
    CountSet("market", {"subscribers": 10, "rate": 1000}, 100, 500),
    CountSet("clients", {"connections": 10, "size_bytes": 16, "in_flight": 1}, 50, 250),
    CountSet("clients", {"connections": 100, "size_bytes": 16, "in_flight": 1}, 10, 50),
)
"""What is counted, in this order, in one server process: echo ping-pong and pipelined
(16 B, 64 KiB), text frames, JSON, server push, broadcast to 100 subscribers, market data to
10 clients, and 10 and 100 concurrent clients. Each high run carries 4,000 messages more
than its low run (broadcast: 4,000 deliveries; 64 KiB echo: 400 messages, 26 MB)."""
