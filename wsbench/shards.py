"""Splitting the environments of one run between runners (the nightly's shards).

An implementation's environments stay together in one shard, so that a new release and
the release it is compared with are measured on the same runner in the same session. The
implementations are dealt out largest first to the shard with the fewest environments so
far (ties: the lower shard), which every runner computes alike from the same list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wsbench.asvconf import BenchEnv

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


def split(envs: Sequence[BenchEnv], count: int) -> list[list[BenchEnv]]:
    """``envs`` in ``count`` shards (see the module's docstring); each shard keeps the
    environments' order. A shard may be empty when there are fewer implementations."""
    groups: dict[str, list[BenchEnv]] = {}
    for env in envs:
        groups.setdefault(env.impl.name, []).append(env)
    loads = [0] * count
    owner: dict[str, int] = {}
    for name in sorted(groups, key=lambda n: (-len(groups[n]), n)):
        shard = min(range(count), key=lambda k: (loads[k], k))
        owner[name] = shard
        loads[shard] += len(groups[name])
    return [[e for e in envs if owner[e.impl.name] == k] for k in range(count)]


def select(envs: Sequence[BenchEnv], spec: str) -> list[BenchEnv]:
    """The environments of shard ``spec`` (``"I/N"``).

    Raises:
        ShardError: see the class.
    """
    index, count = parse(spec)
    return split(envs, count)[index - 1]
