"""Splitting the environments of one run between runners (the nightly's shards).

An implementation's environments stay together in one shard, so that a new release and
the release it is compared with are measured on the same runner in the same session. The
implementations are dealt out largest first to the shard with the least weight so far
(ties: the lower shard), which every runner computes alike from the same list. An
implementation weighs its number of environments in the version matrix (``meta.toml``,
every version) plus its new releases: the nights that measure the whole matrix are the
long ones (:mod:`wsbench.ci.matrix`), and an implementation keeps its shard whether a night
measures its older versions or not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from wsbench.asv.conf import BenchEnv, bench_envs

_SPEC = re.compile(r"(\d+)/(\d+)")


class ShardError(ValueError):
    """A shard specification that is not ``I/N`` with ``1 <= I <= N``."""


def parse(spec: str) -> tuple[int, int]:
    """``"2/3"`` -> ``(2, 3)``: shard 2 of 3 (1-based).

    Raises:
        ShardError: see the class.
    """
    match = _SPEC.fullmatch(spec.strip())
    if not match:
        raise ShardError(f"shard {spec!r}: expected I/N, e.g. 1/2")
    index, count = int(match[1]), int(match[2])
    if not 1 <= index <= count:
        raise ShardError(f"shard {spec!r}: I must be between 1 and N")
    return index, count


def matrix_weights(envs: Sequence[BenchEnv]) -> dict[str, int]:
    """Each implementation of ``envs``: its environments in the version matrix (every
    listed version) plus those of ``envs`` that the matrix does not list (new releases)."""
    listed = {e.name for e in bench_envs()}
    weights = Counter(e.impl.name for e in bench_envs())
    weights.update(e.impl.name for e in envs if e.name not in listed)
    return {e.impl.name: weights[e.impl.name] for e in envs}


def split(
    envs: Sequence[BenchEnv], count: int, weights: Mapping[str, int] | None = None
) -> list[list[BenchEnv]]:
    """``envs`` in ``count`` shards (see the module's docstring); each shard keeps the
    environments' order. A shard may be empty when there are fewer implementations.

    Args:
        weights: each implementation's weight (default: its environments in ``envs``).
    """
    groups: dict[str, list[BenchEnv]] = {}
    for env in envs:
        groups.setdefault(env.impl.name, []).append(env)
    weight = {n: len(g) for n, g in groups.items()} | dict(weights or {})
    loads = [0] * count
    owner: dict[str, int] = {}
    for name in sorted(groups, key=lambda n: (-weight[n], n)):
        shard = min(range(count), key=lambda k: (loads[k], k))
        owner[name] = shard
        loads[shard] += weight[name]
    return [[e for e in envs if owner[e.impl.name] == k] for k in range(count)]


def select(envs: Sequence[BenchEnv], spec: str) -> list[BenchEnv]:
    """The environments of shard ``spec`` (``"I/N"``), implementations weighed by
    :func:`matrix_weights`.

    Raises:
        ShardError: see the class.
    """
    index, count = parse(spec)
    return split(envs, count, matrix_weights(envs))[index - 1]
