"""The implementations under ``impls/``: each folder holds a server and its ``meta.toml``.

The metadata schema is documented in ``impls/PROTOCOL.md``. Adding a framework means adding
one folder; nothing else in the repository lists frameworks.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from wsbench.paths import IMPLS_DIR

DEFAULT_COMMAND = ("{python}", "{dir}/server.py", "--host", "{host}", "--port", "{port}")
"""How a Python implementation is started unless its ``meta.toml`` says otherwise."""


class ImplError(ValueError):
    """An unknown implementation or version, or a ``meta.toml`` that does not follow the schema."""


@dataclass(frozen=True)
class ImplVersion:
    """One released version of an implementation's package, with the pins installed beside it.

    Attributes:
        version: the package's version string, e.g. ``"15.0.1"``.
        requires: extra requirements as ``{distribution: exact version}``, e.g. the uvicorn
            release that serves a starlette version.
    """

    version: str
    requires: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Impl:
    """One server implementation and its metadata.

    Attributes:
        name: the folder name, used on the command line and in ``WSBENCH_IMPL``.
        display_name: the name shown in tables.
        directory: the implementation's folder.
        package: the PyPI distribution whose version is the axis; None for the native reference.
        server: the server that runs the app (e.g. ``"uvicorn"``), or the framework itself.
        event_loop: ``"asyncio"``, ``"uvloop"``, ``"tokio"``...
        protocol: ``"websocket"`` (Socket.IO comes later).
        homepage: the project's URL.
        command: argv template; placeholders ``{python} {dir} {loadgen} {host} {port}``.
        versions: oldest first; the last one is the default (the latest release).
        deviations: fairness settings as applied, ``{setting: how}``; shown on the site.
        reference: True for the native reference server (the ceiling, not a Python framework).
    """

    name: str
    display_name: str
    directory: Path
    package: str | None
    server: str
    event_loop: str
    protocol: str
    homepage: str
    command: tuple[str, ...]
    versions: tuple[ImplVersion, ...]
    deviations: dict[str, str]
    reference: bool

    @property
    def latest(self) -> ImplVersion | None:
        """The default version (the last listed), or None for an implementation without one."""
        return self.versions[-1] if self.versions else None

    def version(self, version: str) -> ImplVersion:
        """The listed version ``version``.

        Raises:
            ImplError: the version is not in this implementation's ``meta.toml``.
        """
        for candidate in self.versions:
            if candidate.version == version:
                return candidate
        listed = ", ".join(v.version for v in self.versions) or "none"
        raise ImplError(
            f"{self.name} has no version {version!r} in its meta.toml (listed: {listed})"
        )

    def argv(self, *, python: str, loadgen: Path, host: str, port: int) -> list[str]:
        """The command that starts this server, placeholders filled in."""
        values = {
            "python": python,
            "dir": str(self.directory),
            "loadgen": str(loadgen),
            "host": host,
            "port": str(port),
        }
        return [part.format(**values) for part in self.command]


def _str(meta: dict[str, object], key: str, path: Path, default: str | None = None) -> str:
    value = meta.get(key, default)
    if not isinstance(value, str):
        raise ImplError(f"{path}: '{key}' must be a string")
    return value


def load_impl(directory: Path) -> Impl:
    """Read ``directory/meta.toml``.

    Raises:
        ImplError: the file is missing, is not TOML, or does not follow the schema.
    """
    path = directory / "meta.toml"
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ImplError(f"{directory.name}: no meta.toml in {directory}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ImplError(f"{path}: not valid TOML: {exc}") from exc
    versions = []
    for entry in meta.get("versions", []):
        requires = {}
        for pin in entry.get("requires", []):
            dist, sep, ver = pin.partition("==")
            if not sep or not dist or not ver:
                raise ImplError(f"{path}: requirement {pin!r} must be an exact pin 'name==version'")
            requires[dist.strip()] = ver.strip()
        versions.append(ImplVersion(version=str(entry["version"]), requires=requires))
    package = meta.get("package")
    if package is not None and not isinstance(package, str):
        raise ImplError(f"{path}: 'package' must be a string")
    if package and not versions:
        raise ImplError(f"{path}: a package needs at least one [[versions]] entry")
    name = _str(meta, "name", path, directory.name)
    if name != directory.name:
        raise ImplError(f"{path}: name {name!r} must equal the folder name {directory.name!r}")
    return Impl(
        name=name,
        display_name=_str(meta, "display_name", path, name),
        directory=directory,
        package=package,
        server=_str(meta, "server", path, name),
        event_loop=_str(meta, "event_loop", path, "asyncio"),
        protocol=_str(meta, "protocol", path, "websocket"),
        homepage=_str(meta, "homepage", path, ""),
        command=tuple(meta.get("command", DEFAULT_COMMAND)),
        versions=tuple(versions),
        deviations={str(k): str(v) for k, v in meta.get("deviations", {}).items()},
        reference=bool(meta.get("reference", False)),
    )


def all_impls(root: Path = IMPLS_DIR) -> list[Impl]:
    """Every implementation under ``root``, by name; folders without ``meta.toml`` are skipped."""
    return [load_impl(d) for d in sorted(root.iterdir()) if (d / "meta.toml").is_file()]


def get_impl(name: str, root: Path = IMPLS_DIR) -> Impl:
    """The implementation called ``name``.

    Raises:
        ImplError: no such implementation; the message lists the known ones.
    """
    impls = {impl.name: impl for impl in all_impls(root)}
    if name not in impls:
        known = ", ".join(sorted(impls)) or "none"
        raise ImplError(f"unknown implementation {name!r} (known: {known})")
    return impls[name]
