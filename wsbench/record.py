"""The wsbench record: what one asv result file does not store, written beside it.

asv keeps one number per benchmark and parameter set, and no error text. For every asv
result file ``<results>/<machine>/<commit8>-<env>.json`` the harness writes a record
``<records>/<machine>/<commit8>-<env>.json`` with the environment facts, the implementation's
metadata and every measurement in full (schema version 1)::

    {"schema": 1, "env_name": str, "commit": str, "machine": str,
     "impl": {"name", "display_name", "package", "version", "config", "row_name",
              "server", "ws_backend", "event_loop", "protocol", "reference", "deviations"},
     "environment": {"cpu_model", "cpu_count", "server_cpus", "loadgen_cpus", "kernel",
                     "python", "loadgen_version", "started_at", "finished_at"},
     "measurements": [Measurement.to_record(), ...]}

The site (:mod:`wsbench.site`) reads both.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from wsbench import loadgen, machine
from wsbench.cpus import CpuPlacement
from wsbench.impls import Impl, ImplConfig
from wsbench.measure import Measurement

SCHEMA = 1


def now_iso() -> str:
    """The current time in UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def installed_version(package: str | None) -> str | None:
    """The installed version of distribution ``package``, or None (not installed / no package)."""
    if not package:
        return None
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def new_record(
    impl: Impl,
    config: ImplConfig,
    *,
    env_name: str,
    commit: str,
    machine_name: str,
    placement: CpuPlacement,
    version: str | None = None,
) -> dict[str, Any]:
    """A record with no measurements yet, for ``impl`` in ``config`` in the running
    environment; its version is ``version`` if given (an environment where the package did
    not install), else the one installed here."""
    if version is None:
        version = installed_version(impl.package) if impl.package else loadgen.version()
    listed = next((v for v in impl.versions if v.version == version), None)
    return {
        "schema": SCHEMA,
        "env_name": env_name,
        "commit": commit,
        "machine": machine_name,
        "impl": {
            "name": impl.name,
            "display_name": impl.display_name,
            "package": impl.package,
            "version": version,
            "config": config.id,
            "row_name": impl.row_name(config, listed),
            "server": config.server,
            "ws_backend": config.ws_backend,
            "event_loop": config.event_loop,
            "protocol": config.protocol,
            "reference": impl.reference,
            "deviations": impl.deviations,
        },
        "environment": {
            "cpu_model": machine.cpu_model(),
            "cpu_count": machine.cpu_count(),
            "server_cpus": list(placement.server),
            "loadgen_cpus": list(placement.loadgen),
            "kernel": machine.kernel(),
            "python": machine.python_version(),
            "loadgen_version": loadgen.version(),
            "started_at": now_iso(),
            "finished_at": None,
        },
        "measurements": [],
    }


def add_measurement(record: dict[str, Any], measurement: Measurement) -> None:
    """Append ``measurement`` to ``record`` and stamp the record's finish time."""
    record["measurements"].append(measurement.to_record())
    record["environment"]["finished_at"] = now_iso()


def record_path(records_dir: Path, *, machine_name: str, commit: str, env_name: str) -> Path:
    """Where the record of (machine, commit, environment) lives; same stem as asv's result."""
    return records_dir / machine_name / f"{commit[:8]}-{env_name}.json"


def write_record(record: dict[str, Any], path: Path) -> None:
    """Write ``record`` to ``path`` atomically (a crash never leaves half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(record, indent=1, allow_nan=False), encoding="utf-8")
    tmp.replace(path)
