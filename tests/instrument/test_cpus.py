"""Tests of wsbench.instrument.cpus: CPU lists and where the server and load generator go."""

from __future__ import annotations

import pytest

from wsbench.cpulist import CpuSetError
from wsbench.deployment import MULTI_SERVER_CPUS_ENV, TLS, TWO_CPUS, WORKERS
from wsbench.instrument.cpus import (
    LOADGEN_CPUS_ENV,
    SERVER_CPUS_ENV,
    CpuPlacement,
    available_cpus,
    default_placement,
    placement_from,
)


def test_the_options_then_the_runners_variables_then_the_default_place_the_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, last = available_cpus()[0], available_cpus()[-1]
    monkeypatch.delenv(SERVER_CPUS_ENV, raising=False)
    monkeypatch.delenv(LOADGEN_CPUS_ENV, raising=False)
    assert placement_from(None, None) == default_placement()
    monkeypatch.setenv(SERVER_CPUS_ENV, str(last))
    monkeypatch.setenv(LOADGEN_CPUS_ENV, f"{first}")
    assert placement_from(None, None).server == (last,)
    assert placement_from(None, None).loadgen == (first,)
    assert placement_from(str(first), None).server == (first,)  # an option wins
    monkeypatch.setenv(LOADGEN_CPUS_ENV, "")  # empty: not set
    assert placement_from(None, None).loadgen == default_placement().loadgen
    monkeypatch.setenv(LOADGEN_CPUS_ENV, "4096")
    with pytest.raises(CpuSetError, match="not available here"):
        placement_from(None, None)


def test_the_multi_cpu_server_set_places_the_multi_cpu_profiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTI_SERVER_CPUS_ENV, raising=False)
    assert placement_from(None, None).multi_server == ()
    usable = available_cpus()
    both = f"{usable[0]}-{usable[1]}" if len(usable) > 1 else None
    if both:
        monkeypatch.setenv(MULTI_SERVER_CPUS_ENV, both)
        assert placement_from(None, None).multi_server == usable[:2]
    monkeypatch.setenv(MULTI_SERVER_CPUS_ENV, str(usable[0]))
    with pytest.raises(CpuSetError, match="a multi-CPU server set has at least 2 CPUs"):
        placement_from(None, None)
    placement = CpuPlacement(server=(2,), loadgen=(5, 6), multi_server=(2, 3, 4))
    assert placement.for_profile(TLS) is placement
    assert placement.for_profile(TWO_CPUS) == CpuPlacement((2, 3), (5, 6), (2, 3, 4))
    assert placement.for_profile(WORKERS).server == (2, 3, 4)
    with pytest.raises(ValueError, match="needs a multi-CPU server set"):
        CpuPlacement(server=(0,), loadgen=(1,)).for_profile(WORKERS)
