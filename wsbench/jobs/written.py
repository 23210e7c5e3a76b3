"""What a run was to write to the results store and did not.

A benchmark process that cannot write its document (a full or read-only file system) says
why on its own output and stops; asv then counts a failed benchmark, which is also what a
server that crashes leads to, and exits as it does then. So the main job checks the store
itself after asv: every environment it ran has a document in the run's folder, and every
document of the commit being run holds every parameter set it was to measure, whole: failed
(with its reason), or with samples from each of the run's server processes. A document is
written first with every set and no sample, then again after each window, so a set short of
a process's samples was never finished.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from wsbench.results.runformat import FormatError, load
from wsbench.scenarios import Params, Scenario, params_key


def unwritten(
    run_dir: Path,
    env_names: Sequence[str],
    grids: Mapping[Scenario, Sequence[Params]],
    commit: str,
) -> list[str]:
    """One line per environment whose results are missing from ``run_dir``.

    Args:
        run_dir: the run's folder (``<root>/<machine>/<run_id>``).
        env_names: asv's names of the environments the run measured.
        grids: the parameter sets each document of ``commit`` holds, by scenario
            (:func:`wsbench.scenarios.selection.select`); documents of other commits (a range run
            with ``--commits``) are only required to exist, as their code may know other
            scenarios.
        commit: the commit whose code is running (40 hex digits).

    Returns:
        Lines such as ``"native-websocket: no document"``, ``"x-y: a.json is not a
        valid document: ..."`` or ``"x-y: a.json has 3 of 12 parameter sets unfinished
        (echo in_flight=1,size_bytes=16, ...)"``; empty when everything was written.
    """
    wanted = {(scenario, params_key(p)) for scenario, grid in grids.items() for p in grid}
    lines = []
    for name in env_names:
        paths = sorted(run_dir.glob(f"*-{name}.json"))
        if not paths:
            lines.append(f"{name}: no document")
        for path in paths:
            try:
                doc = load(path)
            except FormatError as exc:
                lines.append(f"{name}: {exc}")
                continue
            if doc.harness.commit != commit:
                continue
            held = {
                (b.scenario, params_key(b.params))
                for b in doc.benchmarks
                if b.finished(doc.settings.processes)
            }
            missing = sorted(wanted - held)
            if missing:
                shown = ", ".join(f"{s} {k}" for s, k in missing[:3])
                more = "..." if len(missing) > 3 else ""
                lines.append(
                    f"{name}: {path.name} has {len(missing)} of {len(wanted)} parameter "
                    f"sets unfinished ({shown}{more})"
                )
    return lines
