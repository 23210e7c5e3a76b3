"""``./bench system check``: is this machine tuned for benchmarking? In the spirit of
``pyperf system show``: each item read from the system, ok or not, with the reason.

Items (Linux; read below ``root``, default ``/``):

- **governor** of each measured CPU (``cpufreq/scaling_governor``): ``performance`` is ok;
  no cpufreq (typical of a virtual machine) cannot be checked and is not ok.
- **turbo** (``intel_pstate/no_turbo`` = 1, or ``cpufreq/boost`` = 0): off is ok.
- **SMT** (``smt/control``): ``off``, ``forceoff`` or ``notsupported`` is ok.
- **isolation**: every measured CPU in ``cpu/isolated`` (``isolcpus=``) or
  ``cpu/nohz_full``, or the benchmark running in a cgroup cpuset that holds exactly the
  measured CPUs (``/proc/self/cpuset`` other than ``/`` and the cgroup's
  ``cpuset.cpus.partition`` = ``isolated``).
- **IRQ affinity** (``/proc/irq/default_smp_affinity``): no measured CPU in the mask.
- **ASLR** (``/proc/sys/kernel/randomize_va_space`` = 2): full randomization is ok (pyperf
  restores it rather than disabling it: a benchmark should not depend on one address layout).
- **load**: the measured CPUs' busy time over one second below :data:`MAX_BUSY_PERCENT`
  (the 1-minute load average is shown, not judged: it still counts the run's own set-up).
- **free memory** at least :data:`MIN_AVAILABLE_BYTES`.
- **CPUs**: the server's and the load generator's CPUs exist, are online and do not overlap.

The run records the check (:class:`wsbench.results.runformat.SystemCheck`); the nightly refuses to
publish from an untuned machine unless told to.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

import msgspec
import psutil

from wsbench.cpulist import CpuSetError, cpu_numbers
from wsbench.instrument.cpus import CpuPlacement
from wsbench.instrument.sampling import SamplingPlan
from wsbench.instrument.usage import cpu_times
from wsbench.results.runformat import CheckItem, SystemCheck

SYSTEM_ENV = "WSBENCH_SYSTEM_CHECK"
"""Environment variable holding the check made when a run started (JSON), so that every
document of the run records that one check, not one made while the run itself loads the
machine (:func:`recorded`)."""
MAX_BUSY_PERCENT = SamplingPlan().max_other_cpu_percent
"""Busy time of the measured CPUs (percent of one core, summed over them) above which
something else is running: the threshold of the disturbance rule."""
LOAD_SAMPLE_S = 1.0
"""Seconds over which the measured CPUs' busy time is sampled."""
MIN_AVAILABLE_BYTES = 2 * 1024**3
"""Available memory below which the check is not ok, bytes (2 GiB)."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _cpus(text: str | None) -> set[int]:
    if not text:
        return set()
    try:
        return set(cpu_numbers(text))
    except CpuSetError:
        return set()


def _mask_cpus(mask: str) -> set[int]:
    """CPUs of a hexadecimal affinity mask such as ``"3"`` or ``"ff,ffffffff"``."""
    value = int(mask.replace(",", ""), 16)
    return {cpu for cpu in range(value.bit_length()) if value >> cpu & 1}


def governor(cpus: Sequence[int], root: Path) -> CheckItem:
    """The frequency governor of each measured CPU."""
    found = {
        cpu: _read(root / f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor")
        for cpu in cpus
    }
    value = ", ".join(f"cpu{c}: {g or 'n/a'}" for c, g in found.items())
    if any(g is None for g in found.values()):
        return CheckItem(
            "governor",
            value,
            False,
            "no cpufreq: the frequency cannot be pinned or checked (a virtual machine?)",
        )
    bad = [c for c, g in found.items() if g != "performance"]
    if bad:
        return CheckItem(
            "governor", value, False, f"not 'performance' on CPU {bad}: the clock follows the load"
        )
    return CheckItem("governor", value, True, "performance")


TURBO_OFF = (("intel_pstate/no_turbo", "1"), ("cpufreq/boost", "0"))
"""Where each cpufreq driver says whether turbo is on, and the value that means off."""


def turbo(root: Path) -> CheckItem:
    """Turbo boost (Intel P-state) or frequency boost (acpi-cpufreq, amd-pstate)."""
    for name, off in TURBO_OFF:
        value = _read(root / "sys/devices/system/cpu" / name)
        if value is not None:
            ok = value == off
            reason = "" if ok else f"{name} = {value}: the clock changes with temperature and load"
            return CheckItem("turbo", "off" if ok else "on", ok, reason)
    return CheckItem(
        "turbo", "n/a", False, "neither intel_pstate/no_turbo nor cpufreq/boost: cannot be checked"
    )


def smt(root: Path) -> CheckItem:
    """Simultaneous multithreading (hyper-threading)."""
    control = _read(root / "sys/devices/system/cpu/smt/control")
    if control is None:
        return CheckItem("SMT", "n/a", False, "no smt/control: cannot be checked")
    ok = control in ("off", "forceoff", "notsupported")
    return CheckItem(
        "SMT", control, ok, "" if ok else "sibling threads share a core's execution units"
    )


def isolation(cpus: Sequence[int], root: Path) -> CheckItem:
    """Whether the measured CPUs are kept free of other tasks."""
    isolated = _cpus(_read(root / "sys/devices/system/cpu/isolated"))
    nohz = _cpus(_read(root / "sys/devices/system/cpu/nohz_full"))
    wanted = set(cpus)
    value = f"isolated: {sorted(isolated) or 'none'}, nohz_full: {sorted(nohz) or 'none'}"
    if wanted <= isolated or wanted <= nohz:
        return CheckItem("isolation", value, True, "")
    cpuset = _read(root / "proc/self/cpuset")
    if cpuset and cpuset != "/":
        group = root / "sys/fs/cgroup" / cpuset.lstrip("/")
        partition = _read(group / "cpuset.cpus.partition")
        cpus_of_group = _cpus(_read(group / "cpuset.cpus.effective"))
        value += f", cpuset {cpuset}: {sorted(cpus_of_group)} ({partition or 'member'})"
        if partition == "isolated" and wanted <= cpus_of_group:
            return CheckItem("isolation", value, True, "")
    missing = sorted(wanted - isolated - nohz)
    return CheckItem(
        "isolation", value, False, f"CPU {missing} not isolated: other tasks may be scheduled there"
    )


def irq_affinity(cpus: Sequence[int], root: Path) -> CheckItem:
    """The default IRQ affinity: interrupts should avoid the measured CPUs."""
    mask = _read(root / "proc/irq/default_smp_affinity")
    if mask is None:
        return CheckItem("IRQ affinity", "n/a", False, "cannot read /proc/irq/default_smp_affinity")
    overlap = sorted(_mask_cpus(mask) & set(cpus))
    if overlap:
        return CheckItem(
            "IRQ affinity", mask, False, f"interrupts may run on measured CPU {overlap}"
        )
    return CheckItem("IRQ affinity", mask, True, "")


def aslr(root: Path) -> CheckItem:
    """Address space layout randomization."""
    value = _read(root / "proc/sys/kernel/randomize_va_space")
    ok = value == "2"
    return CheckItem(
        "ASLR", value or "n/a", ok, "full randomization" if ok else "not full randomization (2)"
    )


def load(cpus: Sequence[int], sample_s: float = LOAD_SAMPLE_S) -> CheckItem:
    """Other work on the measured CPUs now: their busy time over ``sample_s`` seconds
    (psutil's per-CPU times through :func:`wsbench.instrument.usage.cpu_times`, the disturbance
    rule's reader, percent of one core summed over ``cpus``) against
    :data:`MAX_BUSY_PERCENT`. The 1-minute load average is shown beside it, not judged: it
    still counts the run's own set-up (installing, building) for a minute after that
    ended."""
    before = cpu_times(cpus)[0]
    time.sleep(sample_s)
    busy = (cpu_times(cpus)[0] - before) / sample_s * 100
    ok = busy <= MAX_BUSY_PERCENT
    value = f"{busy:.0f} % busy over {sample_s:g} s (load average {psutil.getloadavg()[0]:.2f})"
    reason = "" if ok else f"above {MAX_BUSY_PERCENT:g} % of a core: something else is running"
    return CheckItem("load", value, ok, reason)


def free_memory() -> CheckItem:
    """Available memory against :data:`MIN_AVAILABLE_BYTES`."""
    available = psutil.virtual_memory().available
    ok = available >= MIN_AVAILABLE_BYTES
    reason = "" if ok else f"below {MIN_AVAILABLE_BYTES / 1024**3:.0f} GiB"
    return CheckItem("free memory", f"{available / 1024**3:.1f} GiB", ok, reason)


def placement_item(placement: CpuPlacement) -> CheckItem:
    """The CPUs the run will use: they must exist, be online and not overlap."""
    online = set(psutil.Process().cpu_affinity() or [])
    value = f"server {list(placement.server)}, load generator {list(placement.loadgen)}"
    overlap = sorted(set(placement.server) & set(placement.loadgen))
    offline = sorted((set(placement.server) | set(placement.loadgen)) - online)
    if overlap:
        return CheckItem("CPUs", value, False, f"server and load generator share CPU {overlap}")
    if offline:
        return CheckItem("CPUs", value, False, f"CPU {offline} not available to this process")
    return CheckItem("CPUs", value, True, "")


def check(placement: CpuPlacement, root: Path = Path("/")) -> SystemCheck:
    """Every item for a run on ``placement``'s CPUs (see the module's docstring).

    Never raises: an item that cannot be read is reported as not ok, with why.
    """
    cpus = sorted({*placement.server, *placement.loadgen})
    items = (
        governor(cpus, root),
        turbo(root),
        smt(root),
        isolation(cpus, root),
        irq_affinity(cpus, root),
        aslr(root),
        load(cpus),
        free_memory(),
        placement_item(placement),
    )
    return SystemCheck(items=items, tuned=all(i.ok for i in items))


def to_text(result: SystemCheck) -> str:
    """One line per item, pyperf-style, and a last line with the verdict."""
    width = max(len(i.name) for i in result.items)
    lines = [
        f"{'ok ' if i.ok else 'NOT'} {i.name.ljust(width)}  {i.value}"
        + (f"  ({i.reason})" if i.reason else "")
        for i in result.items
    ]
    lines.append(
        "tuned" if result.tuned else "NOT tuned for benchmarking: figures may drift and be noisier"
    )
    return "\n".join(lines) + "\n"


def encode(result: SystemCheck) -> str:
    """The check as JSON text (the value of :data:`SYSTEM_ENV`)."""
    return msgspec.json.encode(result).decode()


def recorded(placement: CpuPlacement) -> SystemCheck:
    """The check made when this run started (:data:`SYSTEM_ENV`), else one made now.

    Raises:
        ValueError: :data:`SYSTEM_ENV` is set but is not a check.
    """
    text = os.environ.get(SYSTEM_ENV)
    if not text:
        return check(placement)
    try:
        return msgspec.json.decode(text, type=SystemCheck)
    except msgspec.DecodeError as exc:
        raise ValueError(f"{SYSTEM_ENV} is not a system check: {exc}") from exc
