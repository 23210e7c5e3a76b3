"""The uv that ``./bench`` installs everything with: the exact wheel ``uv.lock`` pins, fetched
and checked against the lock's SHA-256 before anything else is installed.

``./bench`` runs this with the machine's ``python3`` before ``.venv`` exists, so it uses the
standard library only (``python3 -m wsbench.bootstrap uv.lock DEST``). The lock is the one
source of the version: a refresh of ``uv.lock`` that moves uv moves the bootstrap with it.
"""

from __future__ import annotations

import hashlib
import io
import platform
import stat
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "uv"
FETCH_TIMEOUT_S = 120.0
"""How long one download may take before it is given up (seconds)."""


class BootstrapError(RuntimeError):
    """uv cannot be installed from the lock: the lock has no uv wheel for this machine, the
    download failed, or its bytes do not match the lock's hash (the message says which)."""


@dataclass(frozen=True)
class Wheel:
    """One wheel of a package as ``uv.lock`` lists it.

    Attributes:
        version: the package's locked version, e.g. ``"0.13.10"``.
        url: where the registry serves the file.
        sha256: the file's SHA-256 (hex), as the lock records it.
    """

    version: str
    url: str
    sha256: str


def locked_wheel(lock: Path, package: str = PACKAGE, libc: str | None = None) -> Wheel:
    """The wheel of ``package`` that ``lock`` pins for this machine (x86-64 Linux: the
    ``manylinux`` wheel on glibc, the ``musllinux`` one otherwise; ``libc`` overrides the
    machine's, ``"glibc"`` or ``"musl"``).

    Raises:
        BootstrapError: the lock cannot be read, pins no ``package``, or has no wheel of it
            for this machine.
    """
    try:
        text = lock.read_text(encoding="utf-8")
        # Only the package's own [[package]] table is parsed: the whole lock takes tomllib
        # ten times longer than ./bench's every other step before it.
        start = text.find(f'\n[[package]]\nname = "{package}"\n')
        end = text.find("\n[[package]]\n", start + 1) if start >= 0 else -1
        data = tomllib.loads(text[start:end] if start >= 0 and end >= 0 else text[start:])
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BootstrapError(f"cannot read {lock}: {exc}") from exc
    entries = [p for p in data.get("package", []) if p.get("name") == package] if start >= 0 else []
    if not entries:
        raise BootstrapError(f"{lock} pins no {package}: add it to pyproject.toml and relock")
    entry = entries[0]
    libc = libc or ("glibc" if platform.libc_ver()[0] == "glibc" else "musl")
    tag = "manylinux" if libc == "glibc" else "musllinux"
    for wheel in entry.get("wheels", []):
        name = wheel["url"].rsplit("/", 1)[-1]
        if tag in name and name.endswith("x86_64.whl"):
            algorithm, _, digest = wheel["hash"].partition(":")
            if algorithm != "sha256":
                raise BootstrapError(f"{lock}: {name} has a {algorithm} hash, not sha256")
            return Wheel(entry["version"], wheel["url"], digest)
    raise BootstrapError(
        f"{lock} has no {tag} x86_64 wheel of {package} {entry['version']} (wsbench needs "
        "x86-64 Linux)"
    )


def fetch(wheel: Wheel, timeout_s: float = FETCH_TIMEOUT_S) -> bytes:
    """The wheel's bytes, checked against its locked SHA-256.

    Raises:
        BootstrapError: the download failed, or the bytes do not match the hash.
    """
    import urllib.request  # here: the version lookup, run by every ./bench, needs no network

    try:
        with urllib.request.urlopen(wheel.url, timeout=timeout_s) as response:
            data: bytes = response.read()
    except OSError as exc:
        raise BootstrapError(f"cannot download {wheel.url}: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != wheel.sha256:
        raise BootstrapError(
            f"{wheel.url} has SHA-256 {digest}, but uv.lock records {wheel.sha256}: not installed"
        )
    return data


def install_binary(data: bytes, dest: Path, name: str = PACKAGE) -> None:
    """Write the executable ``name`` from the wheel ``data`` (its ``*.data/scripts/`` entry) to
    ``dest``, atomically (a partly written file never takes ``dest``'s name).

    Raises:
        BootstrapError: the wheel holds no such script.
    """
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [m for m in archive.namelist() if m.endswith(f".data/scripts/{name}")]
        if not members:
            raise BootstrapError(f"the wheel holds no scripts/{name}")
        binary = archive.read(members[0])
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=dest.parent, delete=False) as tmp:
        tmp.write(binary)
    path = Path(tmp.name)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    path.replace(dest)


def main(argv: list[str]) -> int:
    """``python3 -m wsbench.bootstrap LOCK DEST``: install the locked uv at ``DEST``;
    ``python3 -m wsbench.bootstrap LOCK --version``: print its locked version. Exit status
    2 with the reason on stderr when it cannot."""
    if len(argv) != 2:
        print("usage: python3 -m wsbench.bootstrap LOCK (DEST | --version)", file=sys.stderr)
        return 2
    try:
        wheel = locked_wheel(Path(argv[0]))
        if argv[1] == "--version":
            print(wheel.version)
        else:
            install_binary(fetch(wheel), Path(argv[1]))
    except BootstrapError as exc:
        print(f"wsbench: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
