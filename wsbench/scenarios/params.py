"""The scenarios' parameters: unit and meaning of each, how a parameter set reads (short in
tables and the CLI, in words in headings), and its stable key."""

from __future__ import annotations

from wsbench.deployment import CPU_WORKERS_PARAM, DEFLATE_PARAM, TLS_PARAM, TWO_CPUS_PARAM
from wsbench.scenarios.base import CORPUS_PARAM, Params

PARAM_DOCS: dict[str, tuple[str, str]] = {
    "size_bytes": ("bytes", "message size (payload bytes of one message or event)"),
    "in_flight": ("messages", "messages each connection keeps in flight"),
    "connections": ("connections", "concurrent WebSocket connections"),
    "workers": ("workers", "concurrent connect-exchange-close workers"),
    "seconds": ("s", "length of the soak run's measurement window"),
    "subscribers": ("subscribers", "connections receiving every published message"),
    "rate": ("messages/s", "messages published or sent per second (0: as fast as delivered)"),
    "load_percent": ("%", "offered load as a percentage of the capacity measured first"),
    CORPUS_PARAM: ("", "1: the messages are the JSON corpus's, as text frames (impls/PROTOCOL.md)"),
    DEFLATE_PARAM: (
        "",
        "1: the client offers permessage-deflate as a browser does and the "
        "server keeps its default compression (wsbench/deployment.py)",
    ),
    TLS_PARAM: ("", "1: over TLS, terminated in the server's process (wsbench/deployment.py)"),
    TWO_CPUS_PARAM: ("", "1: the server's one process on two CPUs (wsbench/deployment.py)"),
    CPU_WORKERS_PARAM: (
        "",
        "1: one worker process per CPU of the runner's multi-CPU server set, with the "
        "framework's workers option (wsbench/deployment.py)",
    ),
}
"""Unit and meaning of every parameter of the scenarios (a new parameter is added here)."""


def params_key(params: Params) -> str:
    """A stable key for a parameter set, e.g. ``"in_flight=64,size_bytes=16"``."""
    return ",".join(f"{k}={v}" for k, v in sorted(params.items()))


PARAM_WORDS: dict[str, tuple[str, str]] = {
    "connections": ("{} conns", "{:,} connections"),
    "workers": ("{} workers", "{:,} workers"),
    "size_bytes": ("{} B", "{:,} B messages"),
    CORPUS_PARAM: ("JSON", "the JSON corpus"),
    "in_flight": ("x{}", "{} in flight per connection"),
    "seconds": ("{} s", "{:,} s window"),
    "subscribers": ("{} subs", "{:,} subscribers"),
    "rate": ("{}/s", "{:,} messages/s"),
    "load_percent": ("{}% load", "{}% of capacity"),
    DEFLATE_PARAM: ("deflate", "permessage-deflate offered"),
    TLS_PARAM: ("TLS", "over TLS"),
    TWO_CPUS_PARAM: ("2 CPUs", "the server on 2 CPUs"),
    CPU_WORKERS_PARAM: ("1 proc/CPU", "a worker process per CPU"),
}
"""How a parameter reads, short (tables, the CLI) and in words (headings), in the order a
label puts them."""
ONE_WORDS: dict[str, str] = {
    "connections": "1 connection",
    "workers": "1 worker",
    "subscribers": "1 subscriber",
}
"""How a counted parameter reads in words at 1 (singular), e.g. ``"1 connection"``."""
ZERO_WORDS: dict[str, tuple[str, str] | None] = {
    "rate": ("max", "as fast as delivered"),
    "load_percent": None,
    CORPUS_PARAM: None,
    DEFLATE_PARAM: None,
    TLS_PARAM: None,
    TWO_CPUS_PARAM: None,
    CPU_WORKERS_PARAM: None,
}
"""How a parameter whose value 0 means "not used" reads then (None: left out)."""


def params_words(params: Params, *, short: bool) -> list[str]:
    """The parameters of :data:`PARAM_WORDS` in ``params``, worded, in that order (others
    are left out): e.g. ``["1000 conns", "16 B", "x1"]`` or ``["1,000 connections",
    "16 B messages", "1 in flight per connection"]``."""
    worded = []
    for name, words in PARAM_WORDS.items():
        if name not in params:
            continue
        if params[name] == 0 and name in ZERO_WORDS:
            zero = ZERO_WORDS[name]
            if zero is not None and not (name == "rate" and params.get("load_percent")):
                worded.append(zero[0 if short else 1])
            continue
        if not short and params[name] == 1 and name in ONE_WORDS:
            worded.append(ONE_WORDS[name])
            continue
        worded.append(words[0 if short else 1].format(params[name]))
    return worded


def params_label(params: Params) -> str:
    """A short label for tables, e.g. ``"16 B x64"``, ``"1000 conns 16 B x1"``,
    ``"16 workers"``, ``"10 s"``."""
    return " ".join(params_words(params, short=True))
