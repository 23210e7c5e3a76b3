"""Deployment profiles: the settings a deployment runs, an axis of the scenarios (issue 44).

Every figure is measured in one profile. :data:`TUNED` is the yardstick every earlier
document was measured in (no compression offered, plain TCP); the others change what the
client offers and how the server is started:

- *as shipped*: the client offers permessage-deflate as a browser does, and the server keeps
  its framework's default compression (whatever it agrees to);
- *tls*: TLS terminated in the server's process, compression as tuned;
- *browser*: TLS, and compression offered as shipped.

A profile is part of a parameter set: its parameters (:data:`PROFILE_PARAMS`, 1 when on)
are left out when 0, so a tuned set reads exactly as it did before profiles existed and
stays comparable with every earlier document (:func:`profile_of` reads a set's profile).
A server learns its profile from its command line only (:func:`server_args`): the flags
below, which every implementation's server accepts (impls/PROTOCOL.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFLATE_PARAM = "deflate"
"""The parameter of the profiles in which the client offers permessage-deflate."""
TLS_PARAM = "tls"
"""The parameter of the profiles that run over TLS."""
PROFILE_PARAMS = (DEFLATE_PARAM, TLS_PARAM)
"""The parameters a profile sets (1: on; left out of a parameter set when 0)."""

SHIPPED_COMPRESSION_FLAG = "--shipped-compression"
"""Keep the framework's default compression instead of turning it off (the tuned setting)."""
CERTFILE_FLAG = "--certfile"
"""Serve TLS with this PEM certificate chain (the server's certificate first)."""
KEYFILE_FLAG = "--keyfile"
"""The PEM private key of :data:`CERTFILE_FLAG`'s certificate."""


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
    """

    name: str
    title: str
    offers_deflate: bool
    shipped_compression: bool
    tls: bool

    @property
    def params(self) -> dict[str, int]:
        """Its parameters in a parameter set: ``{}`` for :data:`TUNED`, e.g.
        ``{"deflate": 1, "tls": 1}`` for :data:`BROWSER`."""
        on = {DEFLATE_PARAM: self.offers_deflate, TLS_PARAM: self.tls}
        return {name: 1 for name, value in on.items() if value}


TUNED = Profile("tuned", "Tuned", offers_deflate=False, shipped_compression=False, tls=False)
AS_SHIPPED = Profile(
    "as-shipped", "As shipped", offers_deflate=True, shipped_compression=True, tls=False
)
TLS = Profile("tls", "TLS", offers_deflate=False, shipped_compression=False, tls=True)
BROWSER = Profile("browser", "Browser", offers_deflate=True, shipped_compression=True, tls=True)
PROFILES = (TUNED, AS_SHIPPED, TLS, BROWSER)
"""Every profile, :data:`TUNED` (the default view) first."""
MEASURED_PROFILES = PROFILES
"""The profiles the full grid measures (:attr:`wsbench.scenarios.base.ScenarioSpec.profiled`):
every one."""


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
    return next(p for p in PROFILES if p.params == on)


def without_profile(params: Mapping[str, int]) -> dict[str, int]:
    """``params`` without its profile's parameters: the same set in :data:`TUNED`."""
    return {k: v for k, v in params.items() if k not in PROFILE_PARAMS}


def in_profile(params: Mapping[str, int], profile: Profile) -> dict[str, int]:
    """The set ``params`` measured in ``profile`` instead (profile parameters at 0 left
    out)."""
    return {**without_profile(params), **profile.params}


def server_args(profile: Profile, tls: TlsFiles | None = None) -> list[str]:
    """The flags appended to a server's command line in ``profile``: [] in :data:`TUNED`.

    Raises:
        ValueError: the profile is TLS and no ``tls`` files were given.
    """
    args = [SHIPPED_COMPRESSION_FLAG] if profile.shipped_compression else []
    if profile.tls:
        if tls is None:
            raise ValueError(f"profile {profile.name!r} needs TLS files and was given none")
        args += [CERTFILE_FLAG, str(tls.certfile), KEYFILE_FLAG, str(tls.keyfile)]
    return args
