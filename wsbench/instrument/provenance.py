"""The facts a run document records about what ran and where: the machine, the harness
commit, the load generator build, the implementation as installed. Read from the system,
never typed by hand."""

from __future__ import annotations

import os
import subprocess
from importlib import metadata
from pathlib import Path

import msgspec
import psutil

from wsbench.digest import files_sha256, tree_files
from wsbench.impls import Impl, ImplConfig
from wsbench.instrument import installed, loadgen, machine, system
from wsbench.instrument.cpus import CpuPlacement
from wsbench.instrument.interpreters import this_interpreter
from wsbench.paths import REPO_ROOT
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results.runformat import (
    Benchmark,
    Environment,
    Harness,
    ImplInfo,
    Interpreter,
    LoadgenBuild,
    Machine,
    Run,
    Settings,
    SystemCheck,
)
from wsbench.results.store import now_iso


def machine_info(name: str) -> Machine:
    """This machine, under asv's machine name ``name``."""
    return Machine(
        name=name,
        cpu_model=machine.cpu_model(),
        cpu_count=machine.cpu_count(),
        kernel=machine.kernel(),
        ram_bytes=psutil.virtual_memory().total,
    )


def harness_commit() -> str:
    """The commit being measured: asv's ``ASV_COMMIT`` inside a benchmark, else the
    repository's ``HEAD``, else ``"unknown"``."""
    commit = os.environ.get("ASV_COMMIT")
    if commit:
        return commit
    proc = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


HARNESS_PATTERNS = ("wsbench/**/*.py", "impls/**/*", "benchmarks/**/*.py", "pyproject.toml")
"""What the harness's source identity covers: its code, the implementations, the benchmarks."""


def harness_sha256(root: Path = REPO_ROOT) -> str:
    """SHA-256 (hex) of the harness as imported (:data:`HARNESS_PATTERNS` below ``root``,
    the tree this module was imported from): it tells which code measured, also for a
    commit measured from asv's copy."""
    return files_sha256(root, tree_files(root, HARNESS_PATTERNS))


def harness_info() -> Harness:
    """The harness's identity (see :func:`harness_commit` and :func:`harness_sha256`)."""
    return Harness(commit=harness_commit(), source_sha256=harness_sha256())


def loadgen_build() -> LoadgenBuild:
    """The load generator's build identity (version, source hash, compiler)."""
    return LoadgenBuild(
        version=loadgen.version(),
        source_sha256=loadgen.source_sha256(),
        rustc=loadgen.rustc_version(),
    )


def installed_version(package: str | None) -> str | None:
    """The installed version of distribution ``package``, or None (not installed / no package)."""
    if not package:
        return None
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def installed_version_in(python: str, package: str | None) -> str | None:
    """The version of distribution ``package`` installed for interpreter ``python`` (another
    environment's), or None."""
    if not package:
        return None
    code = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"
    proc = subprocess.run(
        [python, "-c", code, package], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def new_run(
    *,
    run_id: str,
    machine_name: str,
    settings: Settings,
    impl: Impl,
    config: ImplConfig,
    env_name: str,
    version: str | None = None,
    install_error: str | None = None,
    benchmarks: list[Benchmark] | None = None,
    system_check: SystemCheck | None = None,
    interpreter: Interpreter | None = None,
    python: str | None = None,
) -> Run:
    """A run document for ``impl`` in ``config`` measured here now, with this machine's,
    harness's and load generator's facts (``version``: see :func:`impl_info`), the
    machine's tuning check (default: the run's, :func:`wsbench.instrument.system.recorded`)
    and the server's interpreter (default: this process's, as in an asv environment; a
    comparison gives its arm's, :func:`wsbench.instrument.interpreters.probe`), and what
    the environment of interpreter ``python`` holds (default: this process's;
    :func:`environment_of`). On a Python
    other than :data:`~wsbench.pythons.DEFAULT_PYTHON` its row is named with it
    (``"websockets · asyncio 17.4 · Python 3.13"``): another row wherever results are
    shown."""
    placement = CpuPlacement(server=settings.server_cpus, loadgen=settings.loadgen_cpus)
    interpreter = interpreter or this_interpreter()
    info = impl_info(impl, config, version)
    if interpreter.python != DEFAULT_PYTHON:  # another row than the default Python's
        row_name = f"{info.row_name} · Python {interpreter.python}"
        info = msgspec.structs.replace(info, row_name=row_name)
    return Run(
        run_id=run_id,
        started_at=now_iso(),
        finished_at=None,
        machine=machine_info(machine_name),
        harness=harness_info(),
        loadgen=loadgen_build(),
        settings=settings,
        impl=info,
        environment=environment_of(
            env_name, interpreter, install_error=install_error, python=python
        ),
        benchmarks=benchmarks or [],
        system=system_check or system.recorded(placement),
    )


def environment_of(
    env_name: str,
    interpreter: Interpreter,
    *,
    install_error: str | None = None,
    python: str | None = None,
) -> Environment:
    """The environment ``env_name`` of interpreter ``python`` (default: this process's) as a
    document records it: its interpreter's build, every distribution installed in it and
    where they came from (:mod:`wsbench.instrument.installed`). Neither is recorded (None,
    as in documents from before) for an environment that did not install
    (``install_error``), nor packages that cannot be read."""
    packages: tuple[str, ...] | None = None
    resolution = None
    if install_error is None:
        try:
            packages = installed.packages(python)
        except installed.InstalledError:
            packages = None
        resolution = installed.resolution(python)
    return Environment(
        env_name=env_name,
        python=interpreter.version,
        install_error=install_error,
        interpreter=interpreter,
        packages=packages,
        resolution=resolution,
    )


def impl_info(impl: Impl, config: ImplConfig, version: str | None = None) -> ImplInfo:
    """``impl`` in ``config`` at ``version`` (default: the version installed here; for the
    native reference, the load generator's)."""
    if version is None:
        version = installed_version(impl.package) if impl.package else loadgen.version()
    listed = next((v for v in impl.versions if v.version == version), None)
    return ImplInfo(
        name=impl.name,
        display_name=impl.display_name,
        package=impl.package,
        version=version,
        config=config.id,
        row_name=impl.row_name(config, listed),
        server=config.server,
        ws_backend=impl.ws_backend(config, version),
        event_loop=config.event_loop,
        protocol=config.protocol,
        reference=impl.reference,
        deviations=dict(impl.deviations),
        slow_subscriber=impl.slow_subscriber,
        role=impl.role,
        api=config.api,
        shipped_compression=config.shipped_compression,
        tls=config.tls,
        workers=config.workers,
    )
