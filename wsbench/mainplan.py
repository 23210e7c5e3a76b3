"""What the main job (``./bench run``) measures beside the default grid, so that the site it
builds answers every question: one source for the job (:mod:`wsbench.jobs.main`), the
benchmark suite that measures (:mod:`wsbench.asv.suite`) and the pages that say what was
measured.

- Every selected configuration is graded for conformance and CPU-profiled at
  :data:`CPU_PROFILE_SET`, one more window in the last server process the job starts anyway.
- The axis configurations (:data:`AXIS_CONFIGS` without a selection; with ``--impl`` or
  ``--config``, every selected one) are also measured at :data:`DEPLOYMENT_SET`, tuned and
  in each of :data:`DEPLOYMENT_PROFILES`, and on a second Python (:func:`second_python`) in
  :data:`SECOND_PYTHON_SCENARIOS`.
"""

from __future__ import annotations

from collections.abc import Sequence

from wsbench.deployment import AS_SHIPPED, TLS, Profile, in_profile
from wsbench.pythons import DEFAULT_PYTHON, PYTHONS
from wsbench.scenarios import Params, Scenario
from wsbench.scenarios.base import CORPUS_PARAM, CORPUS_SIZE

CPU_PROFILE_SET: tuple[Scenario, Params] = ("echo", {"size_bytes": 16, "in_flight": 64})
"""The parameter set every configuration is CPU-profiled at: small messages, many in flight,
where a server's own code is most of its work."""

DEPLOYMENT_SET: tuple[Scenario, Params] = (
    "echo", {"size_bytes": CORPUS_SIZE, "in_flight": 64, CORPUS_PARAM: 1}
)  # fmt: skip
"""The parameter set the axis configurations are measured at in every deployment profile:
one of the sets the full grid measures in every profile
(:attr:`wsbench.scenarios.base.ScenarioSpec.profiled`), the JSON corpus's 1 KiB messages,
which compress like real traffic, 64 in flight."""

AXIS_CONFIGS: tuple[tuple[str, str], ...] = (
    ("websockets", "asyncio"),
    ("tornado", "asyncio"),
    ("aiohttp", "asyncio"),
    ("autobahn", "asyncio"),
    ("socketify", "default"),
    ("flask-socketio", "threading"),
    ("python-socketio", "asyncio"),
    ("starlette", "websockets-asyncio"),
)
"""``(implementation, configuration)`` of the configurations measured on every axis when a
run selects none: the eight servers the benchmark began with, WebSocket and Socket.IO, one
configuration each."""

DEPLOYMENT_PROFILES: tuple[Profile, ...] = (AS_SHIPPED, TLS)
"""The deployment profiles the axis configurations are measured in beside the tuned one
(:mod:`wsbench.deployment`): what a default install costs, and what encryption costs."""


SECOND_PYTHON_SCENARIOS: tuple[Scenario, ...] = ("echo",)
"""The scenarios the axis configurations are measured in on the second Python: the round
trips, the per-message cost a new interpreter changes most, at the default grid's sets."""


def axis_config_ids(selected: Sequence[tuple[str, str]], narrowed: bool) -> list[tuple[str, str]]:
    """The axis configurations of a run that selected ``selected`` (``(implementation,
    configuration)``, in order): every one of them when the run was ``narrowed`` by
    ``--impl``/``--config``, else those of :data:`AXIS_CONFIGS` among them."""
    if narrowed:
        return list(dict.fromkeys(selected))
    return [c for c in AXIS_CONFIGS if c in set(selected)]


def deployment_sets() -> list[Params]:
    """:data:`DEPLOYMENT_SET`'s parameters tuned and in each of :data:`DEPLOYMENT_PROFILES`,
    e.g. ``[{"size_bytes": 1024, "in_flight": 64, "corpus": 1}, {..., "deflate": 1},
    {..., "tls": 1}]``."""
    tuned = DEPLOYMENT_SET[1]
    return [dict(tuned), *(in_profile(tuned, p) for p in DEPLOYMENT_PROFILES)]


def second_python(found: Sequence[str]) -> str | None:
    """The Python the axis configurations are also measured on: the newest of
    :data:`wsbench.pythons.PYTHONS` other than the default and its free-threaded builds
    among ``found`` (the Pythons this machine has), or None when there is none."""
    others = [p for p in PYTHONS if p != DEFAULT_PYTHON and not p.endswith("t") and p in found]
    return others[-1] if others else None
