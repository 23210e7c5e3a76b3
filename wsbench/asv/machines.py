"""asv's record of this machine (``~/.asv-machine.json``), written with asv's own API.

``asv run --machine NAME`` reads the machine's description from that file and copies it
into the results (``.asv/results/NAME/machine.json``). The main job once wrote it by running
``asv machine --yes`` in a process of its own, which cost about 1 s a run on a 2-core
machine, nearly all of it importing asv and its plugins again; the job's own process has
already imported asv (:attr:`wsbench.asv.conf.BenchEnv.name`), so :func:`register` writes
it in process, with :class:`asv.machine.MachineCollection`, as ``asv machine`` does.
"""

from __future__ import annotations

from collections.abc import Mapping

FIELDS = ("machine", "os", "arch", "cpu", "num_cpu", "ram")
"""asv's fields of a machine (``asv.machine.Machine.fields``), in its order."""


class MachineFileError(RuntimeError):
    """asv's machine file cannot be read or written; the message names it and why."""


def register(info: Mapping[str, str]) -> bool:
    """Record ``info`` (every one of :data:`FIELDS`, ``info["machine"]`` its name) in asv's
    machine file, unless the file already holds exactly that description.

    Returns:
        True when the file was written, False when it already held ``info``.

    Raises:
        ValueError: ``info`` lacks a field of :data:`FIELDS` or has another.
        MachineFileError: the file is malformed, or cannot be read or written.
    """
    from asv import util
    from asv.machine import MachineCollection

    if sorted(info) != sorted(FIELDS):
        raise ValueError(f"a machine's description has the fields {FIELDS}, not {sorted(info)}")
    path = MachineCollection.get_machine_file_path()
    try:
        if MachineCollection.load(info["machine"]) == dict(info):
            return False
    except util.UserError:
        pass  # not there yet (or the file is older than asv's format: rewritten below)
    except (OSError, ValueError) as exc:
        raise MachineFileError(f"asv's machine file {path}: {exc}") from exc
    try:
        MachineCollection.save(info["machine"], dict(info))
    except (OSError, ValueError, util.UserError) as exc:
        raise MachineFileError(f"asv's machine file {path}: {exc}") from exc
    return True
