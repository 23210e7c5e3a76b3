"""Deployment profiles: the settings a deployment runs, an axis of the scenarios (issue 44).

Every figure is measured in one profile. :data:`TUNED` is the yardstick every earlier
document was measured in (no compression offered, plain TCP); the others change what the
client offers and how the server is started:

- *as shipped*: the client offers permessage-deflate as a browser does, and the server keeps
  its framework's default compression (whatever it agrees to);
- *tls*: TLS terminated in the server's process, compression as tuned;
- *browser*: TLS, and compression offered as shipped;
- *2 CPUs*: tuned, the server's one process on two CPUs instead of one;
- *workers*: tuned, the server started with its framework's workers option, one worker
  process per CPU of the runner's multi-CPU server set (:data:`MULTI_SERVER_CPUS_ENV`).

Every other figure is per core: a server on one CPU is the yardstick of cost per core, but
a server whose worker hands each message between threads of its own takes turns on that
CPU, and most deployments run more than one worker. The last two profiles need a runner
whose layout (``./bench system layout``) gives the server at least two CPUs beside the load
generator's; the full grid measures them only there (:func:`measured_profiles`).

A profile is part of a parameter set: its parameters (:data:`PROFILE_PARAMS`, 1 when on)
are left out when 0, so a tuned set reads exactly as it did before profiles existed and
stays comparable with every earlier document (:func:`profile_of` reads a set's profile).
A server learns its profile from its command line only (:func:`server_args`): the flags
below, which every implementation's server accepts (impls/PROTOCOL.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.cpulist import CpuSetError, cpu_numbers

DEFLATE_PARAM = "deflate"
"""The parameter of the profiles in which the client offers permessage-deflate."""
TLS_PARAM = "tls"
"""The parameter of the profiles that run over TLS."""
TWO_CPUS_PARAM = "two_cpus"
"""The parameter of the profile whose server process runs on two CPUs."""
CPU_WORKERS_PARAM = "cpu_workers"
"""The parameter of the profile that starts one worker process per server CPU."""
PROFILE_PARAMS = (DEFLATE_PARAM, TLS_PARAM, TWO_CPUS_PARAM, CPU_WORKERS_PARAM)
"""The parameters a profile sets (1: on; left out of a parameter set when 0)."""

MULTI_SERVER_CPUS_ENV = "WSBENCH_MULTI_SERVER_CPUS"
"""Environment variable with the CPU list of the server in the multi-CPU profiles (at least
two CPUs; the *2 CPUs* profile takes the first two, the *workers* profile all of them, one
worker each): a runner's layout (``./bench system layout``), set once in the environment of
every job (the workflows take it from the repository variable of the same name). Unset or
empty, the full grid leaves the multi-CPU profiles out."""

MIN_MULTI_SERVER_CPUS = 2
"""The fewest CPUs of a multi-CPU server set: the *2 CPUs* profile takes two, and one worker
process per CPU is a single process on fewer."""

SHIPPED_COMPRESSION_FLAG = "--shipped-compression"
"""Keep the framework's default compression instead of turning it off (the tuned setting)."""
CERTFILE_FLAG = "--certfile"
"""Serve TLS with this PEM certificate chain (the server's certificate first)."""
KEYFILE_FLAG = "--keyfile"
"""The PEM private key of :data:`CERTFILE_FLAG`'s certificate."""
WORKER_PROCESSES_FLAG = "--worker-processes"
"""Start this many worker processes (2 or more) with the framework's workers option."""


@dataclass(frozen=True)
class TlsFiles:
    """A run's TLS files, all PEM.

    Attributes:
        certfile: the server's certificate chain (for 127.0.0.1 and localhost).
        keyfile: its private key.
        cafile: the certificate authority that signed it, which the client trusts.
    """

    certfile: Path
    keyfile: Path
    cafile: Path


@dataclass(frozen=True)
class Profile:
    """One deployment profile.

    Attributes:
        name: its name in documents and on the command line (``[a-z-]+``).
        title: its name on the site.
        offers_deflate: the client offers permessage-deflate as a browser does.
        shipped_compression: the server keeps its framework's default compression.
        tls: the connection is TLS, terminated in the server's process.
        server_cpus: how many CPUs the server runs on: 1, 2 (the first two of the multi-CPU
            server set), or 0 for every CPU of that set (:data:`MULTI_SERVER_CPUS_ENV`).
        worker_processes: the server starts one worker process per CPU with its
            framework's workers option (:data:`WORKER_PROCESSES_FLAG`).
    """

    name: str
    title: str
    offers_deflate: bool
    shipped_compression: bool
    tls: bool
    server_cpus: int = 1
    worker_processes: bool = False

    @property
    def in_text(self) -> str:
        """Its title inside a sentence: the first letter lower case unless its first word is
        an abbreviation or a number ("as shipped", "TLS", "2 CPUs", "workers, one per
        CPU")."""
        first = self.title.split(" ", 1)[0].rstrip(",")
        if first.isupper() or not first.isalpha():
            return self.title
        return self.title[0].lower() + self.title[1:]

    @property
    def multi_cpu(self) -> bool:
        """True when the server runs on more than one CPU (the multi-CPU server set)."""
        return self.server_cpus != 1

    def cpus_of(self, multi_server: Sequence[int]) -> tuple[int, ...]:
        """The server's CPUs in this profile, of the runner's multi-CPU server set
        ``multi_server``: its first two for *2 CPUs*, all of it for *workers*.

        Raises:
            ValueError: a single-CPU profile (its CPU is the placement's), or a set of
                fewer than two CPUs (or fewer than the profile needs).
        """
        if not self.multi_cpu:
            raise ValueError(f"profile {self.name!r} runs the server on one CPU")
        wanted = self.server_cpus or len(multi_server)
        least = max(MIN_MULTI_SERVER_CPUS, wanted)
        if len(multi_server) < least:
            raise ValueError(
                f"profile {self.name!r} needs a multi-CPU server set of at least "
                f"{least} CPUs, not {list(multi_server)} ({MULTI_SERVER_CPUS_ENV}; "
                "./bench system layout sizes it)"
            )
        return tuple(multi_server[:wanted])

    @property
    def params(self) -> dict[str, int]:
        """Its parameters in a parameter set: ``{}`` for :data:`TUNED`, e.g.
        ``{"deflate": 1, "tls": 1}`` for :data:`BROWSER`."""
        on = {
            DEFLATE_PARAM: self.offers_deflate,
            TLS_PARAM: self.tls,
            TWO_CPUS_PARAM: self.server_cpus == 2,
            CPU_WORKERS_PARAM: self.worker_processes,
        }
        return {name: 1 for name, value in on.items() if value}


TUNED = Profile("tuned", "Tuned", offers_deflate=False, shipped_compression=False, tls=False)
AS_SHIPPED = Profile(
    "as-shipped", "As shipped", offers_deflate=True, shipped_compression=True, tls=False
)
TLS = Profile("tls", "TLS", offers_deflate=False, shipped_compression=False, tls=True)
BROWSER = Profile("browser", "Browser", offers_deflate=True, shipped_compression=True, tls=True)
TWO_CPUS = Profile(
    "two-cpus", "2 CPUs", offers_deflate=False, shipped_compression=False, tls=False,
    server_cpus=2,
)  # fmt: skip
WORKERS = Profile(
    "workers", "Workers, one per CPU", offers_deflate=False, shipped_compression=False,
    tls=False, server_cpus=0, worker_processes=True,
)  # fmt: skip
PROFILES = (TUNED, AS_SHIPPED, TLS, BROWSER, TWO_CPUS, WORKERS)
"""Every profile, :data:`TUNED` (the default view) first."""
MULTI_CPU_PROFILES = tuple(p for p in PROFILES if p.multi_cpu)
"""The profiles whose server runs on more than one CPU."""


def multi_server_cpus(environ: Mapping[str, str] | None = None) -> tuple[int, ...]:
    """The multi-CPU server set of :data:`MULTI_SERVER_CPUS_ENV` (``()`` when unset or
    empty), sorted; whether the CPUs exist is checked where the server is placed
    (:func:`wsbench.instrument.cpus.placement_from`).

    Raises:
        wsbench.cpulist.CpuSetError: a malformed CPU list (e.g. ``"3-1"``).
    """
    text = (os.environ if environ is None else environ).get(MULTI_SERVER_CPUS_ENV, "")
    if not text.strip():
        return ()
    try:
        return cpu_numbers(text)
    except CpuSetError as exc:
        raise CpuSetError(f"{MULTI_SERVER_CPUS_ENV}: {exc}") from exc


def measured_profiles(multi_server: Sequence[int] | None = None) -> tuple[Profile, ...]:
    """The profiles the full grid measures (:attr:`wsbench.scenarios.base.ScenarioSpec.
    profiled`): every one where the runner gives the server a multi-CPU set of two CPUs or
    more (``multi_server``; None: :func:`multi_server_cpus`), else all but
    :data:`MULTI_CPU_PROFILES`.

    Raises:
        ValueError: :data:`MULTI_SERVER_CPUS_ENV` is malformed.
    """
    cpus = multi_server_cpus() if multi_server is None else multi_server
    if len(cpus) >= MIN_MULTI_SERVER_CPUS:
        return PROFILES
    return tuple(p for p in PROFILES if not p.multi_cpu)


def get_profile(name: str) -> Profile:
    """The profile called ``name``.

    Raises:
        ValueError: no profile has that name (the message lists them).
    """
    for profile in PROFILES:
        if profile.name == name:
            return profile
    known = ", ".join(p.name for p in PROFILES)
    raise ValueError(f"unknown deployment profile {name!r} (known: {known})")


def profile_of(params: Mapping[str, int]) -> Profile:
    """The profile a parameter set is measured in (:data:`TUNED` when it names none).

    Raises:
        ValueError: a profile parameter other than 0 or 1.
    """
    for name in PROFILE_PARAMS:
        if params.get(name, 0) not in (0, 1):
            raise ValueError(f"parameter {name}={params[name]}: a profile parameter is 0 or 1")
    on = {name: 1 for name in PROFILE_PARAMS if params.get(name)}
    for profile in PROFILES:
        if profile.params == on:
            return profile
    raise ValueError(f"no deployment profile sets {on} together")


def without_profile(params: Mapping[str, int]) -> dict[str, int]:
    """``params`` without its profile's parameters: the same set in :data:`TUNED`."""
    return {k: v for k, v in params.items() if k not in PROFILE_PARAMS}


def in_profile(params: Mapping[str, int], profile: Profile) -> dict[str, int]:
    """The set ``params`` measured in ``profile`` instead (profile parameters at 0 left
    out)."""
    return {**without_profile(params), **profile.params}


def server_args(profile: Profile, tls: TlsFiles | None = None, server_cpus: int = 1) -> list[str]:
    """The flags appended to a server's command line in ``profile``, whose server runs on
    ``server_cpus`` CPUs: [] in :data:`TUNED`, ``["--worker-processes", "4"]`` in
    :data:`WORKERS` on 4 CPUs.

    Raises:
        ValueError: the profile is TLS and no ``tls`` files were given, or starts worker
            processes and ``server_cpus`` is below 2.
    """
    args = [SHIPPED_COMPRESSION_FLAG] if profile.shipped_compression else []
    if profile.tls:
        if tls is None:
            raise ValueError(f"profile {profile.name!r} needs TLS files and was given none")
        args += [CERTFILE_FLAG, str(tls.certfile), KEYFILE_FLAG, str(tls.keyfile)]
    if profile.worker_processes:
        if server_cpus < 2:
            raise ValueError(f"profile {profile.name!r} needs 2 server CPUs or more")
        args += [WORKER_PROCESSES_FLAG, str(server_cpus)]
    return args
