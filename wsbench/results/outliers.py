"""Outliers: a configuration whose throughput at a parameter set is far below its peers',
which says that something in that configuration, not the framework, is the bottleneck.

**Peers.** The other configurations of the same implementation at the same version,
speaking the same protocol, measured at the same scenario and parameter set on the same
machine: the same app on the other servers (Starlette on uvicorn, Hypercorn, Daphne,
Granian, Gunicorn's ASGI worker), and the same server or framework on its other WebSocket
backends and event loops (uvicorn's websockets, websockets-sansio and wsproto; asyncio and
uvloop). They run the same application code, so what differs is the layer under it. The
native reference is nobody's peer.

**Far.** The upper end of the configuration's 95 % confidence interval of messages/s
(:func:`wsbench.results.stats.summarize`, over its server processes) is below
:data:`FAR_BELOW` times its peers' median figure. Using the upper end means that a
configuration is an outlier only when even the most favourable reading of its own
measurement is that far below: noise cannot make one. A figure without an interval (fewer
than 2 server processes) is not judged. The peers' median, not their best, so that one
fast peer does not make every other an outlier.

The rule finds a pathology, not a ranking: the servers of one app and the backends and
loops of one server differ by factors of a few (the cost of a layer, which the Findings
page's lineups rank), while the known case is two orders of magnitude: Starlette on
Gunicorn's ASGI worker echoes 64 KiB x 64 at about 100 messages/s against about 6,000 on
uvicorn (README "CPU profiles"), 98 % of its samples in a per-byte generator expression
(``WebSocketProtocol._unmask``, ``gunicorn/asgi/websocket.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.results.stats import CONFIDENCE, Summary, median

FAR_BELOW = 0.1
"""A configuration is an outlier when the upper end of its interval is below this fraction
of its peers' median: an order of magnitude. The configurations of one app differ by less
(a faster loop or backend is worth a factor of a few), and the known outlier sits at under
2 % of its peers (100 against 6,000 messages/s)."""


@dataclass(frozen=True)
class Figure:
    """One configuration's throughput at one scenario and parameter set.

    Attributes:
        machine: the machine's name.
        impl: the implementation's name.
        version: its version (None: the reference, which has none).
        config: the configuration's id.
        protocol: ``"websocket"`` or ``"socketio"``.
        reference: the native reference server (never a peer, never an outlier).
        scenario: e.g. ``"echo"``.
        params: e.g. ``(("in_flight", 64), ("size_bytes", 65536))``.
        messages_per_s: the figure over the server processes (its value and 95 % interval).
    """

    machine: str
    impl: str
    version: str | None
    config: str
    protocol: str
    reference: bool
    scenario: str
    params: tuple[tuple[str, int], ...]
    messages_per_s: Summary

    @property
    def high(self) -> float | None:
        """The upper end of the figure's interval, messages/s; None without one."""
        return self.messages_per_s.interval[1] if self.messages_per_s.interval else None


@dataclass(frozen=True)
class Outlier:
    """A figure far below its peers' (see the module's docstring).

    Attributes:
        figure: the outlier's figure.
        peers: its peers' figures at the same set, in the order given.
        peers_median: the median of their values, messages/s.
    """

    figure: Figure
    peers: tuple[Figure, ...]
    peers_median: float

    @property
    def ratio(self) -> float:
        """The outlier's figure over its peers' median (0.017: 1.7 % of it)."""
        return self.figure.messages_per_s.value / self.peers_median


def _group(f: Figure) -> tuple[object, ...]:
    return (f.machine, f.impl, f.version, f.protocol, f.scenario, f.params)


def outliers(figures: Sequence[Figure], *, far_below: float = FAR_BELOW) -> list[Outlier]:
    """The outliers among ``figures`` (see the module's docstring), in ``figures``' order.

    Args:
        figures: every configuration's figure at every set (one per configuration and set).
        far_below: the fraction of the peers' median under which the upper end of an
            interval must lie (:data:`FAR_BELOW`).
    """
    groups: dict[tuple[object, ...], list[Figure]] = {}
    for f in figures:
        if not f.reference:
            groups.setdefault(_group(f), []).append(f)
    out = []
    for f in figures:
        if f.reference or f.high is None:
            continue
        peers = tuple(p for p in groups[_group(f)] if p.config != f.config)
        if not peers:
            continue
        middle = median([p.messages_per_s.value for p in peers])
        if f.high < far_below * middle:
            out.append(Outlier(f, peers, middle))
    return out


def rule_text(far_below: float = FAR_BELOW) -> str:
    """The rule in one sentence, for a page: ``"the upper end of its 95 % interval below
    10 % of the median of its peers ..."``."""
    return (
        f"the upper end of its {CONFIDENCE * 100:.0f} % confidence interval is below "
        f"{far_below * 100:.0f} % of its peers' median, its peers being the other "
        "configurations of the same implementation at the same version (the same app on "
        "the other servers, the same server on its other WebSocket backends and event "
        "loops) at the same parameter set"
    )
