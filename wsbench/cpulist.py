"""CPU lists, as Linux writes them (``"0"``, ``"1-3"``, ``"0,2-3"``): read and written."""

from __future__ import annotations

from collections.abc import Sequence


class CpuSetError(ValueError):
    """A CPU list that cannot be parsed or names CPUs this process may not use."""


def cpu_numbers(text: str) -> tuple[int, ...]:
    """The CPUs of a Linux-style CPU list such as ``"0"``, ``"1-3"`` or ``"0,2-3"`` (as in
    ``/sys/devices/system/cpu/isolated``), sorted, without duplicates; whether they exist
    is not checked.

    Raises:
        CpuSetError: the text is empty or malformed.
    """
    cpus: set[int] = set()
    try:
        for part in text.split(","):
            first, _, last = part.strip().partition("-")
            start = int(first)
            stop = int(last) if last else start
            if stop < start or start < 0:
                raise ValueError(part)
            cpus.update(range(start, stop + 1))
    except ValueError as exc:
        raise CpuSetError(f"bad CPU list {text!r}: use e.g. '0', '1-3' or '0,2'") from exc
    return tuple(sorted(cpus))


def cpu_list(cpus: Sequence[int]) -> str:
    """``cpus`` as a Linux CPU list: ``"2-6"``, ``"0"``, ``"0,2-3"``; ``"-"`` when empty."""
    if not cpus:
        return "-"
    ranges: list[list[int]] = []
    for cpu in sorted(cpus):
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)
