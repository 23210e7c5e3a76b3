"""The tuning check reads each item right, from a fake /sys and /proc."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from wsbench.instrument import system
from wsbench.instrument import usage as sampler
from wsbench.instrument.cpus import CpuPlacement
from wsbench.results.runformat import CheckItem, SystemCheck


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")
    return root


CPU = "sys/devices/system/cpu"
TUNED = {
    f"{CPU}/cpu0/cpufreq/scaling_governor": "performance",
    f"{CPU}/cpu1/cpufreq/scaling_governor": "performance",
    f"{CPU}/intel_pstate/no_turbo": "1",
    f"{CPU}/smt/control": "off",
    f"{CPU}/isolated": "0-1",
    "proc/irq/default_smp_affinity": "c",
    "proc/sys/kernel/randomize_va_space": "2",
}


def test_a_tuned_machine_is_ok_on_every_item_read_from_the_system(tmp_path: Path) -> None:
    root = _tree(tmp_path, TUNED)
    assert system.governor([0, 1], root).ok
    assert system.turbo(root) == CheckItem("turbo", "off", True, "")
    assert system.smt(root).ok
    assert system.isolation([0, 1], root).ok
    assert system.irq_affinity([0, 1], root) == CheckItem("IRQ affinity", "c", True, "")
    assert system.aslr(root).ok


def test_an_untuned_machine_says_why_for_each_item(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            f"{CPU}/cpu0/cpufreq/scaling_governor": "performance",
            f"{CPU}/cpu1/cpufreq/scaling_governor": "powersave",
            f"{CPU}/cpufreq/boost": "1",
            f"{CPU}/smt/control": "on",
            f"{CPU}/isolated": "1",
            "proc/irq/default_smp_affinity": "3",
            "proc/sys/kernel/randomize_va_space": "0",
        },
    )
    governor = system.governor([0, 1], root)
    assert not governor.ok and "CPU [1]" in governor.reason
    assert governor.value == "cpu0: performance, cpu1: powersave"
    assert system.turbo(root).value == "on" and not system.turbo(root).ok
    assert not system.smt(root).ok
    isolation = system.isolation([0, 1], root)
    assert not isolation.ok and "CPU [0]" in isolation.reason
    irq = system.irq_affinity([0, 1], root)
    assert not irq.ok and "[0, 1]" in irq.reason
    assert not system.aslr(root).ok


def test_what_cannot_be_read_is_not_ok_with_the_reason(tmp_path: Path) -> None:
    result = system.check(CpuPlacement(server=(0,), loadgen=(1,)), root=tmp_path)
    by_name = {item.name: item for item in result.items}
    assert not result.tuned
    assert "no cpufreq" in by_name["governor"].reason
    assert "cannot be checked" in by_name["turbo"].reason
    assert by_name["ASLR"].value == "n/a"
    assert list(by_name) == [
        "governor", "turbo", "SMT", "isolation", "IRQ affinity", "ASLR", "load",
        "free memory", "CPUs",
    ]  # fmt: skip


def test_nohz_full_or_an_isolated_cpuset_partition_counts_as_isolation(tmp_path: Path) -> None:
    assert system.isolation([0, 1], _tree(tmp_path / "a", {f"{CPU}/nohz_full": "0-3"})).ok
    cpuset = _tree(
        tmp_path / "b",
        {
            "proc/self/cpuset": "/bench",
            "sys/fs/cgroup/bench/cpuset.cpus.partition": "isolated",
            "sys/fs/cgroup/bench/cpuset.cpus.effective": "0-1",
        },
    )
    assert system.isolation([0, 1], cpuset).ok
    (cpuset / "sys/fs/cgroup/bench/cpuset.cpus.partition").write_text("member\n")
    assert not system.isolation([0, 1], cpuset).ok


def test_overlapping_cpus_are_not_ok() -> None:
    item = system.placement_item(CpuPlacement(server=(0,), loadgen=(0,)))
    assert not item.ok and "share CPU [0]" in item.reason


@pytest.mark.parametrize(
    ("after", "busy", "ok"),
    [
        # user time on CPU 0 and softirq time on CPU 1: 1/32 s over 1/16 s
        ({0: {"user": 1 / 64}, 1: {"softirq": 1 / 64}, 2: {"user": 1.0}}, 50, False),
        # idle, iowait and steal are not busy; CPU 2 is not measured
        ({0: {"idle": 1 / 16, "steal": 1 / 16}, 1: {"iowait": 1 / 16}, 2: {"user": 1.0}}, 0, True),
    ],
)
def test_the_load_is_the_measured_cpus_busy_time_as_the_sampler_reads_it(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    after: dict[int, dict[str, float]],
    busy: int,
    ok: bool,
) -> None:
    cpu_times = type(psutil.cpu_times())
    zero = dict.fromkeys(cpu_times._fields, 0.0)
    reads = [
        [cpu_times(**zero) for _ in range(3)],
        [cpu_times(**{**zero, **after[cpu]}) for cpu in range(3)],
    ]
    monkeypatch.setattr(psutil, "cpu_times", lambda percpu=False: reads.pop(0))
    monkeypatch.setattr(sampler, "ONLINE_CPUS", _tree(tmp_path, {"online": "0-2"}) / "online")
    item = system.load((0, 1), sample_s=1 / 16)
    assert item.value.startswith(f"{busy} % busy over 0.0625 s") and item.ok is ok
    assert not reads


def test_the_runs_check_travels_to_its_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    made = SystemCheck(items=(CheckItem("ASLR", "2", True),), tuned=True)
    monkeypatch.setenv(system.SYSTEM_ENV, system.encode(made))
    assert system.recorded(CpuPlacement(server=(0,), loadgen=(1,))) == made
    monkeypatch.setenv(system.SYSTEM_ENV, "{not json")
    with pytest.raises(ValueError, match=system.SYSTEM_ENV):
        system.recorded(CpuPlacement(server=(0,), loadgen=(1,)))


def test_the_text_marks_each_item_and_ends_with_the_verdict() -> None:
    result = SystemCheck(
        items=(CheckItem("SMT", "on", False, "siblings"), CheckItem("ASLR", "2", True)),
        tuned=False,
    )
    assert system.to_text(result).splitlines() == [
        "NOT SMT   on  (siblings)",
        "ok  ASLR  2",
        "NOT tuned for benchmarking: figures may drift and be noisier",
    ]
