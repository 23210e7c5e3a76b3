"""The main job's CPU profile of each configuration, taken inside the benchmark suite: one
more window at :data:`wsbench.mainplan.CPU_PROFILE_SET` in the last server process, right
after that process's sample windows of the set, with py-spy recording
(:func:`wsbench.instrument.profiled.profiled_window`). No server is started for it; the
profiled window is never a sample, and the set's sample window of the same process is kept
beside it as the unprofiled figure. The profile is a document of its own in the profile
store (:func:`wsbench.results.store.profile_store`), under the run's id, as
``./bench profile`` writes them, so that the site's *Where the time goes* reads both alike.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec

from wsbench.instrument import profile
from wsbench.instrument.cpus import CpuPlacement
from wsbench.instrument.measure import MeasureConfig, ServerSession
from wsbench.instrument.profile import ProfileError
from wsbench.instrument.profiled import NATIVE, WINDOW_S, profiled_window
from wsbench.mainplan import CPU_PROFILE_SET
from wsbench.results import store
from wsbench.results.runformat import ProfiledWindow, ProfileSet, Profiling, Run, Sample
from wsbench.scenarios import canonical

PROFILE_ENV = "WSBENCH_PROFILER"
"""The environment variable that turns the main job's profiled window on: py-spy's
executable (the harness's, which the benchmark environments do not install)."""


def profiler_of(environ: Mapping[str, str] | None = None) -> str | None:
    """py-spy's executable as :data:`PROFILE_ENV` names it, or None when it is unset."""
    return (os.environ if environ is None else environ).get(PROFILE_ENV) or None


class ProfiledSetHook:
    """The :data:`wsbench.instrument.sampling.AfterSet` hook that profiles
    :data:`~wsbench.mainplan.CPU_PROFILE_SET` (tuned) once, in the last process; the profile
    is in :attr:`found` afterwards (None when the set was not reached).

    Attributes:
        placement: the server's and load generator's CPUs (py-spy runs on the latter).
        binary: py-spy's executable.
        found: the profile, once taken.
    """

    def __init__(self, placement: CpuPlacement, binary: str) -> None:
        self.placement = placement
        self.binary = binary
        self.found: ProfileSet | None = None

    def __call__(
        self, session: ServerSession, config: MeasureConfig, samples: Sequence[Sample]
    ) -> None:
        scenario, params = CPU_PROFILE_SET
        if config.scenario != scenario or canonical(config.params()) != params:
            return
        unprofiled = [
            ProfiledWindow(s.messages_per_s, s.server_cpu_percent, s.server_kernel_cpu_percent)
            for s in samples
            if s.status == "ok"
        ]
        window = dataclasses.replace(config, duration_s=WINDOW_S)
        self.found = profiled_window(
            session, window, placement=self.placement, native=NATIVE,
            unprofiled=unprofiled, binary=self.binary,
        )  # fmt: skip


def save_profile(run: Run, found: ProfileSet | None, results: Path, binary: str) -> Path | None:
    """Save ``found`` as ``run``'s profile document (its provenance, no benchmarks), taken
    by the py-spy ``binary``, in the profile store of ``results``; nothing when there is no
    profile.

    Returns:
        The document's path, or None.

    Raises:
        wsbench.results.store.StoreError: the document cannot be written.
    """
    if found is None:
        return None
    try:
        profiler = profile.py_spy_version(binary)
    except ProfileError as exc:
        profiler = f"py-spy ({exc})"
    done = msgspec.structs.replace(
        run, benchmarks=[], profiling=Profiling(profiler, NATIVE), profiles=[found],
        finished_at=store.now_iso(),
    )  # fmt: skip
    return store.save(done, store.profile_store(results))
