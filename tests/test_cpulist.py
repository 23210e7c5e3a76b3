"""Tests of wsbench.cpulist: CPU lists read and written as Linux writes them."""

from __future__ import annotations

import pytest

from wsbench.cpulist import CpuSetError, cpu_list, cpu_numbers


def test_cpu_lists_parse_as_linux_writes_them() -> None:
    assert cpu_numbers("0") == (0,)
    assert cpu_numbers("3-5") == (3, 4, 5)
    assert cpu_numbers("0,2-3,2") == (0, 2, 3)
    for bad in ("", "a", "3-1", "-1"):
        with pytest.raises(CpuSetError, match="bad CPU list"):
            cpu_numbers(bad)


def test_cpu_lists_are_written_back_in_ranges() -> None:
    assert [cpu_list(c) for c in [(), (0,), (2, 3, 4, 5, 6), (3, 0, 2)]] == [
        "-",
        "0",
        "2-6",
        "0,2-3",
    ]
    assert cpu_numbers(cpu_list((1, 4, 5, 9))) == (1, 4, 5, 9)
