"""The implementations under ``impls/``, read from their ``meta.toml`` for the framework pages.

Schema: ``impls/PROTOCOL.md`` ("Implementation folder", "Configurations"). The files are
read once, by the harness's own reader (:func:`wsbench.impls.load_impl`), so the site names
configurations and rows exactly as the harness does; the keys of a ``[[versions]]`` entry
that only describe it (``api``, ``speedups``, ``ws_backend``) are shown as notes. A folder
without ``meta.toml`` is skipped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from wsbench.impls import Impl, ImplError, ImplVersion, load_impl

log = logging.getLogger("mkdocs.plugins.wsbench.site")

SOCKETIO = "socketio"
"""The ``protocol`` value of Socket.IO servers."""


@dataclass(frozen=True)
class VersionEntry:
    """One entry of the version matrix.

    Attributes:
        version: the package version.
        requires: extra pins installed beside it, as text (e.g. ``"uvicorn==0.30.0"``).
        notes: the entry's descriptive keys as ``"key: value"``, in the order ``api``,
            ``speedups``, ``ws_backend`` (e.g. ``"api: legacy"``; those left empty are left
            out).
    """

    version: str
    requires: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConfigEntry:
    """One configuration (a way of running the implementation).

    Attributes:
        id: the configuration id (``WSBENCH_CONFIG``).
        row_name: its rows' name without a server version, e.g.
            ``"Starlette · uvicorn · wsproto · uvloop"``.
        server: the server that runs the app.
        ws_backend: the server's WebSocket implementation, "" when it has only one.
        event_loop: the event loop.
        protocol: ``"websocket"`` or ``"socketio"``.
        requires: the configuration's extra pins as text (``"uvloop==0.23.0"``).
        versions: the package versions it exists at, oldest first (every listed version
            unless the configuration names some).
    """

    id: str
    row_name: str
    server: str
    ws_backend: str
    event_loop: str
    protocol: str
    requires: tuple[str, ...]
    versions: tuple[str, ...]


@dataclass(frozen=True)
class Framework:
    """One implementation folder's metadata.

    Attributes:
        name: folder name (``impls/<name>``).
        display_name: shown in tables.
        package: PyPI distribution whose version is the axis, None for the native reference.
        homepage: project URL, or None.
        server: the server that runs the app (default of the configurations).
        event_loop: the event loop (default of the configurations).
        protocol: ``"websocket"`` or ``"socketio"`` (default of the configurations).
        reference: True for the native reference server.
        versions: the version matrix, oldest first (the last is the default).
        deviations: fairness settings as applied, ``{setting: how}``.
        configs: the configurations, in ``meta.toml`` order (``default`` when none listed).
        impl: the harness's view of the same file (names rows).
    """

    name: str
    display_name: str
    package: str | None
    homepage: str | None
    server: str
    event_loop: str
    protocol: str
    reference: bool
    versions: tuple[VersionEntry, ...]
    deviations: dict[str, str]
    configs: tuple[ConfigEntry, ...]
    impl: Impl

    @property
    def socketio(self) -> bool:
        """True when any configuration speaks Socket.IO."""
        return any(c.protocol == SOCKETIO for c in self.configs)

    def config(self, config_id: str | None) -> ConfigEntry | None:
        """The configuration ``config_id``, or None when unknown (or ``config_id`` is None)."""
        return next((c for c in self.configs if c.id == config_id), None)

    def row_name(self, config_id: str, version: str | None) -> str | None:
        """The harness's row name of (``config_id``, ``version``), None for an unknown
        configuration (an unlisted version names the row without the server's version)."""
        try:
            config = self.impl.config(config_id)
        except ImplError:
            return None
        listed = next((v for v in self.impl.versions if v.version == version), None)
        return self.impl.row_name(config, listed)


def _notes(version: ImplVersion) -> tuple[str, ...]:
    described = (
        ("api", version.api),
        ("speedups", version.speedups),
        ("ws_backend", version.ws_backend),
    )
    return tuple(f"{key}: {value}" for key, value in described if value)


def _framework(impl: Impl) -> Framework:
    versions = tuple(
        VersionEntry(v.version, tuple(f"{k}=={pin}" for k, pin in v.requires.items()), _notes(v))
        for v in impl.versions
    )
    listed = tuple(v.version for v in impl.versions)
    configs = tuple(
        ConfigEntry(
            id=c.id,
            row_name=impl.row_name(c),
            server=c.server,
            ws_backend=c.ws_backend,
            event_loop=c.event_loop,
            protocol=c.protocol,
            requires=tuple(f"{k}=={pin}" for k, pin in c.requires.items()),
            versions=tuple(v for v in listed if c.supports(v)),
        )
        for c in impl.configs
    )
    return Framework(
        name=impl.name,
        display_name=impl.display_name,
        package=impl.package,
        homepage=impl.homepage or None,
        server=impl.server,
        event_loop=impl.event_loop,
        protocol=impl.protocol,
        reference=impl.reference,
        versions=versions,
        deviations=dict(impl.deviations),
        configs=configs,
        impl=impl,
    )


def load_frameworks(impls_dir: Path) -> list[Framework]:
    """Read ``impls_dir/*/meta.toml``.

    Returns:
        The frameworks, the reference first, then by display name. Folders without
        ``meta.toml`` are skipped; a ``meta.toml`` that is unreadable or breaks the schema
        (:class:`wsbench.impls.ImplError`, which names the file and the key) is skipped
        with a warning on the ``mkdocs`` logger (which fails a ``--strict`` build).
    """
    frameworks: list[Framework] = []
    if not impls_dir.is_dir():
        return frameworks
    for meta_path in sorted(impls_dir.glob("*/meta.toml")):
        try:
            impl = load_impl(meta_path.parent)
        except ImplError as exc:
            log.warning("wsbench site: skipping %s: %s", meta_path, exc)
            continue
        frameworks.append(_framework(impl))
    frameworks.sort(key=lambda f: (not f.reference, f.display_name.lower()))
    return frameworks
