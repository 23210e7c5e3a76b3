"""Deployment profiles: the settings a deployment runs, an axis of the scenarios (issue 44).

Every figure is measured in one profile. :data:`TUNED` is the yardstick every earlier
document was measured in (no compression offered, plain TCP); the others change what the
client offers and how the server is started:

- *as shipped*: the client offers permessage-deflate as a browser does, and the server keeps
  its framework's default compression (whatever it agrees to);
- *tls*: TLS terminated in the server's process, compression as tuned;
- *browser*: TLS, and compression offered as shipped.

A server learns its profile from its command line only (:func:`server_args`): the flags
below, which every implementation's server accepts (impls/PROTOCOL.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


TUNED = Profile("tuned", "Tuned", offers_deflate=False, shipped_compression=False, tls=False)
AS_SHIPPED = Profile(
    "as-shipped", "As shipped", offers_deflate=True, shipped_compression=True, tls=False
)
TLS = Profile("tls", "TLS", offers_deflate=False, shipped_compression=False, tls=True)
BROWSER = Profile("browser", "Browser", offers_deflate=True, shipped_compression=True, tls=True)
PROFILES = (TUNED, AS_SHIPPED, TLS, BROWSER)
"""Every profile, :data:`TUNED` (the default view) first."""


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
