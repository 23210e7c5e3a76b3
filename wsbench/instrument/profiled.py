"""One profiled window against a running server (:class:`wsbench.instrument.measure.
ServerSession`): py-spy records the server (:class:`wsbench.instrument.profile.Recording`)
while the load generator runs one window, and the window's figures are kept beside the
unprofiled ones, from which the profiler's own cost on the figure is stated. Used by the
profile job (three windows in a fresh process, :mod:`wsbench.jobs.profile`) and by the main
job's suite (one more window in a process that has just been sampled,
:mod:`wsbench.asv.suite`)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from wsbench.instrument import profile
from wsbench.instrument.cpus import CpuPlacement
from wsbench.instrument.measure import MeasureConfig, Measurement, ServerSession
from wsbench.instrument.profile import ProfileError
from wsbench.results.runformat import ProfiledWindow, ProfileSet

WARMUP_S = 1.0
"""Seconds of warm-up before each window of the profile job (the load generator's own, not
profiled)."""
WINDOW_S = 2.0
"""Seconds of a profiled window: py-spy's 250 samples/s give 500 samples of a busy server."""
NATIVE = False
"""The frames of every profile the site compares (the nightly's, the main job's, a pull
request's): Python frames only (py-spy ``--nonblocking``), whose cost could not be told
from zero (README "CPU profiles"). Native frames (``--native``) would split out the C
extensions' time, but py-spy must stop the server for each sample, at a cost of up to most
of the rate (README "CPU profiles"): they stay a choice of ``./bench profile``."""


def figures(measured: Measurement) -> ProfiledWindow:
    """The figures of one window kept beside a profile."""
    usage = measured.server
    return ProfiledWindow(
        messages_per_s=measured.messages_per_s,
        server_cpu_percent=usage.cpu_percent if usage else None,
        server_kernel_cpu_percent=usage.kernel_cpu_percent if usage else None,
    )


def profiled_window(
    session: ServerSession,
    config: MeasureConfig,
    *,
    placement: CpuPlacement,
    native: bool,
    unprofiled: Sequence[ProfiledWindow],
    rate_hz: int = profile.RATE_HZ,
    binary: str | None = None,
) -> ProfileSet:
    """One window of ``config`` against ``session``'s server with py-spy recording it (on
    the load generator's CPUs, after the window's warm-up), kept with the figures of the
    ``unprofiled`` windows of the same process; ``binary`` is py-spy's executable (None:
    :func:`wsbench.instrument.profile.py_spy`).

    Returns:
        The profile; ``"failed"`` with the reason when the window or the profiler failed.

    Raises:
        wsbench.instrument.profile.NoProfilerError: no ``binary`` given and py-spy not found.
    """
    blank = ProfileSet(config.scenario, config.params(), "failed", None, config.duration_s,
                       rate_hz)  # fmt: skip
    recording = profile.Recording(
        session.pid, delay_s=config.warmup_s, duration_s=config.duration_s,
        cpus=placement.loadgen, native=native, rate_hz=rate_hz,
        binary=binary or profile.py_spy(),
    )  # fmt: skip
    recording.start()
    profiled = session.run(config)
    try:
        stacks = recording.result()
    except ProfileError as exc:
        return msgspec.structs.replace(blank, error=f"the profiler failed: {exc}")
    if profiled.status != "ok":
        return msgspec.structs.replace(blank, error=profiled.error)
    return msgspec.structs.replace(
        blank, status="ok", stacks=stacks, profiled=figures(profiled), unprofiled=list(unprofiled)
    )
