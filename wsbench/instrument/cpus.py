"""CPU placement: which CPUs the server and the load generator are pinned to.

The default follows the studies wsbench replaces and TechEmpower's practice of keeping the
load generator off the server's cores: the server on CPU 0, the load generator on CPU 1
when the machine has two or more CPUs (otherwise both share CPU 0, which the site shows).
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import os
import resource
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wsbench.cpulist import CpuSetError, cpu_numbers
from wsbench.deployment import MIN_MULTI_SERVER_CPUS, MULTI_SERVER_CPUS_ENV, Profile
from wsbench.instrument.lifetime import set_parent_death_signal
from wsbench.policy import OPEN_FILES_CAP


def parse_cpu_list(text: str) -> tuple[int, ...]:
    """Parse a CPU list given by the user (see :func:`cpu_numbers`).

    Returns:
        The CPU numbers, sorted, without duplicates.

    Raises:
        CpuSetError: the text is empty or malformed, or names a CPU this process cannot use.
    """
    cpus = set(cpu_numbers(text))
    usable = available_cpus()
    missing = sorted(cpus - set(usable))
    if missing:
        raise CpuSetError(f"CPU(s) {missing} not available here (usable: {list(usable)})")
    return tuple(sorted(cpus))


def available_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on (its affinity mask), sorted."""
    return tuple(sorted(os.sched_getaffinity(0)))


@dataclass(frozen=True)
class CpuPlacement:
    """The CPUs of the server and of the load generator.

    Attributes:
        server: CPU numbers the server process is pinned to.
        loadgen: CPU numbers the load generator is pinned to.
        multi_server: the server's CPUs in the multi-CPU deployment profiles (at least two;
            ``()``: none, the full grid leaves those profiles out; see
            :data:`wsbench.deployment.MULTI_SERVER_CPUS_ENV`).
    """

    server: tuple[int, ...]
    loadgen: tuple[int, ...]
    multi_server: tuple[int, ...] = ()

    def for_profile(self, profile: Profile) -> CpuPlacement:
        """The placement of a server in ``profile``: this one, or for a multi-CPU profile
        the server on its CPUs of :attr:`multi_server`
        (:meth:`wsbench.deployment.Profile.cpus_of`).

        Raises:
            ValueError: a multi-CPU profile and :attr:`multi_server` too small for it.
        """
        if not profile.multi_cpu:
            return self
        return dataclasses.replace(self, server=profile.cpus_of(self.multi_server))

    @property
    def shared(self) -> bool:
        """True when server and load generator compete for a CPU (results are then weaker)."""
        return bool(set(self.server) & set(self.loadgen))


def default_placement() -> CpuPlacement:
    """Server on the first usable CPU, load generator on the second (or the same if only one)."""
    usable = available_cpus()
    server = usable[:1]
    loadgen = usable[1:2] if len(usable) >= 2 else usable[:1]
    return CpuPlacement(server=server, loadgen=loadgen)


SERVER_CPUS_ENV = "WSBENCH_SERVER_CPUS"
"""Environment variable with the server's CPU list where no ``--server-cpus`` is given: a
benchmark runner's layout (``./bench system layout``), set once for every job (the
workflows take it from the repository variable of the same name)."""
LOADGEN_CPUS_ENV = "WSBENCH_LOADGEN_CPUS"
"""Environment variable with the load generator's CPU list where no ``--loadgen-cpus`` is
given (see :data:`SERVER_CPUS_ENV`)."""


def placement_from(server: str | None, loadgen: str | None) -> CpuPlacement:
    """The default placement, overridden by CPU lists (see :func:`parse_cpu_list`) where given,
    else by :data:`SERVER_CPUS_ENV`, :data:`LOADGEN_CPUS_ENV` and
    :data:`~wsbench.deployment.MULTI_SERVER_CPUS_ENV` where set (and not empty). The
    multi-CPU server set is the environment's only (a runner's layout), by default none.

    Raises:
        CpuSetError: a list is malformed or names unusable CPUs, or the multi-CPU server
            set has a single CPU.
    """
    server = server or os.environ.get(SERVER_CPUS_ENV) or None
    loadgen = loadgen or os.environ.get(LOADGEN_CPUS_ENV) or None
    multi_server = os.environ.get(MULTI_SERVER_CPUS_ENV) or None
    default = default_placement()
    multi = parse_cpu_list(multi_server) if multi_server else ()
    if 0 < len(multi) < MIN_MULTI_SERVER_CPUS:
        raise CpuSetError(
            f"a multi-CPU server set has at least {MIN_MULTI_SERVER_CPUS} CPUs, "
            f"not {multi_server!r} ({MULTI_SERVER_CPUS_ENV})"
        )
    return CpuPlacement(
        server=parse_cpu_list(server) if server else default.server,
        loadgen=parse_cpu_list(loadgen) if loadgen else default.loadgen,
        multi_server=multi,
    )


def open_files_limit() -> int:
    """The open-file limit servers and the load generator run with: this process's hard
    ``RLIMIT_NOFILE`` (an unprivileged process may raise its soft limit up to it), capped at
    :data:`OPEN_FILES_CAP`. Recorded in every run's settings (``open_files``)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return OPEN_FILES_CAP if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES_CAP)


PARENT_DEATH_TOOL = "setpriv"
"""util-linux's ``setpriv``: ``setpriv --pdeathsig KILL -- ARGV`` sets its parent-death
signal, then executes ``ARGV`` (:func:`start_pinned`)."""


def start_pinned(argv: Sequence[str], cpus: Sequence[int], **popen: Any) -> subprocess.Popen[Any]:
    """Start ``argv`` as the harness starts a server or the load generator (``popen``:
    :class:`subprocess.Popen`'s other arguments): pinned to ``cpus``, its open-file limit at
    :func:`open_files_limit`, and SIGKILLed when the thread that started it exits, so that
    not even a killed harness leaves a server behind (what :func:`child_setup` does).

    Without a ``preexec_fn``, which makes CPython ``fork()`` this whole process where it
    otherwise uses ``vfork()``: from a process of 300 MB (a test worker), a start took
    32.3 ms of CPU with it and 2.6 ms this way (setpriv's exec included) on a 2-core
    machine, and the tests start about 4,000.
    So the child inherits the calling thread's CPU affinity (set for the start, then
    restored) and this process's soft open-file limit (raised once, :func:`_raise_open_files`),
    and :data:`PARENT_DEATH_TOOL` sets its parent-death signal before it executes ``argv``
    (one more exec, about 1 ms). setpriv does not check that the parent is still there when
    it sets the signal: a harness killed in that millisecond leaves the child (the
    ``preexec_fn`` checks). Where setpriv is not installed, :func:`child_setup` sets the
    child up, as before.

    Raises:
        OSError: ``argv[0]`` cannot be executed (FileNotFoundError or PermissionError, as
            Popen raises them), or ``cpus`` are not available to this process.
    """
    tool = _parent_death_tool()
    if tool is None:
        return subprocess.Popen(argv, preexec_fn=child_setup(cpus), **popen)
    _check_executable(argv[0], popen.get("env"), popen.get("cwd"))
    _raise_open_files()
    before = os.sched_getaffinity(0)  # the calling thread's (Linux: pid 0)
    os.sched_setaffinity(0, tuple(cpus))
    try:
        return subprocess.Popen([tool, "--pdeathsig", "KILL", "--", *argv], **popen)
    finally:
        os.sched_setaffinity(0, before)


@functools.cache
def _parent_death_tool() -> str | None:
    return shutil.which(PARENT_DEATH_TOOL)


@functools.cache
def _raise_open_files() -> None:
    """This process's soft ``RLIMIT_NOFILE`` raised to :func:`open_files_limit` (never
    above its hard limit), once: the children :func:`start_pinned` starts inherit it."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_files_limit(), hard))


def _check_executable(program: str, env: Mapping[str, str] | None, cwd: object) -> None:
    """Raise what :class:`subprocess.Popen` raises when ``program`` cannot be executed (the
    child that :func:`start_pinned` starts is setpriv, which would only exit with 127).

    Raises:
        FileNotFoundError: no such program (on ``env``'s ``PATH`` when it has no ``/``).
        PermissionError: it is there but not executable.
    """
    if os.sep in program:
        path = Path(str(cwd or "."), program)
        if path.is_file() and os.access(path, os.X_OK):
            return
        if path.exists():
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
    elif shutil.which(program, path=os.pathsep.join(os.get_exec_path(env))) is not None:
        return
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)


def child_setup(cpus: Sequence[int]) -> Callable[[], None]:
    """A ``preexec_fn`` for subprocesses the harness starts (servers, the load generator),
    where :func:`start_pinned` cannot do without one.

    In the child, before it executes: pin it to ``cpus``, raise its open-file limit to
    :func:`open_files_limit` (a server with 10,000 connections needs 10,000 descriptors;
    the default soft limit is often 1,024), and ask Linux to SIGKILL it if the harness dies
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so that not even a killed harness leaves a
    server behind.
    """
    targets = tuple(cpus)
    limit = open_files_limit()

    def setup() -> None:
        os.sched_setaffinity(0, targets)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
        set_parent_death_signal(signal.SIGKILL)

    return setup
