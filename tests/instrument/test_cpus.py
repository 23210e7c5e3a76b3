"""Tests of wsbench.instrument.cpus: CPU lists and where the server and load generator go."""

from __future__ import annotations

import pytest

from wsbench.instrument.cpus import (
    LOADGEN_CPUS_ENV,
    SERVER_CPUS_ENV,
    CpuSetError,
    available_cpus,
    cpu_numbers,
    default_placement,
    placement_from,
)


def test_cpu_lists_parse_as_linux_writes_them() -> None:
    assert cpu_numbers("0") == (0,)
    assert cpu_numbers("3-5") == (3, 4, 5)
    assert cpu_numbers("0,2-3,2") == (0, 2, 3)
    for bad in ("", "a", "3-1", "-1"):
        with pytest.raises(CpuSetError, match="bad CPU list"):
            cpu_numbers(bad)


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
