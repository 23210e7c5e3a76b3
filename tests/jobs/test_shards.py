"""Shards: every environment in exactly one shard, an implementation's together, balanced."""

from __future__ import annotations

import pytest

from wsbench.asv.conf import bench_envs
from wsbench.jobs.shards import ShardError, parse, select, split


def test_every_environment_once_and_each_implementation_on_one_shard() -> None:
    envs = bench_envs()
    for count in (1, 2, 3, 5):
        shards = split(envs, count)
        assert sorted(e.name for s in shards for e in s) == sorted(e.name for e in envs)
        owners: dict[str, int] = {}
        for k, shard in enumerate(shards):
            for env in shard:
                assert owners.setdefault(env.impl.name, k) == k
        sizes = [len(s) for s in shards]
        biggest = max(sum(1 for e in envs if e.impl.name == n) for n in owners)
        assert max(sizes) - min(sizes) <= biggest


def test_a_shard_keeps_the_order_and_select_takes_one_based_specs() -> None:
    envs = bench_envs()
    first, second = split(envs, 2)
    assert select(envs, "1/2") == first and select(envs, "2/2") == second
    assert first == [e for e in envs if e in first]


@pytest.mark.parametrize("spec", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_bad_specs_are_named(spec: str) -> None:
    with pytest.raises(ShardError, match="shard"):
        parse(spec)
