"""The implementations under ``impls/`` (servers) and ``clients/`` (client libraries): each
folder holds a program and its ``meta.toml``.

The metadata schema is documented in ``impls/PROTOCOL.md`` (clients: ``clients/README.md``).
Adding a framework or a client library means adding one folder; nothing else in the
repository lists them.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from wsbench.paths import IMPLS_DIR
from wsbench.scenarios import SCENARIOS

DEFAULT_COMMAND = ("{python}", "{dir}/server.py", "--host", "{host}", "--port", "{port}")
"""How a Python implementation is started unless its ``meta.toml`` says otherwise."""
ASGI_LAUNCHER = "asgi_serve.py"
"""The program under ``impls/`` that serves an ASGI (or granian RSGI) app on the server a
configuration names, with that server's fairness settings (``impls/PROTOCOL.md``)."""
ASGI_SETTINGS = "asgi_serve.toml"
"""Beside :data:`ASGI_LAUNCHER`: per server, the settings it applies, as ``[deviations]``
entries that every configuration it starts inherits."""
ASGI_COMMAND = (
    "{python}", f"{{dir}}/../{ASGI_LAUNCHER}", "--app-dir", "{dir}", "--app", "{asgi_app}",
    "--server", "{server}", "--host", "{host}", "--port", "{port}",
)  # fmt: skip
"""How an implementation with ``asgi_app`` is started (its configurations' ``args``
follow, e.g. ``--loop uvloop``)."""
DEFAULT_CLIENT_COMMAND = ("{python}", "{dir}/client.py")
"""How a client program is started unless its ``meta.toml`` says otherwise; the load
generator's arguments follow (``clients/README.md``)."""
ROLES = ("server", "client")
"""What an implementation is: a server under test (``impls/``), or a client library under
test (``clients/``) that drives the native reference server."""


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


DEFAULT_CONFIG = "default"
"""The id of the single configuration of an implementation without ``[[configurations]]``."""
_CONFIG_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
PROTOCOLS = ("websocket", "socketio")
"""The protocols a server can speak (``impls/PROTOCOL.md``)."""


@dataclass(frozen=True)
class ImplConfig:
    """One way of running an implementation: event loop, WebSocket backend, async mode...

    Attributes:
        id: unique within the implementation, ``[a-z0-9-]+`` (``WSBENCH_CONFIG``, ``--config``).
        server: the server that runs the app (e.g. ``"uvicorn"``).
        event_loop: ``"asyncio"``, ``"uvloop"``, ``"twisted"``...
        ws_backend: the server's WebSocket implementation, or "" when it has only one.
        api: a client library's API this configuration uses (e.g. ``"sync client"``), ""
            for servers.
        protocol: ``"websocket"`` or ``"socketio"``.
        args: appended to the implementation's command.
        requires: extra pins ``{distribution: version}`` (e.g. ``{"uvloop": "0.23.0"}``).
        versions: the package versions this configuration exists at; None means all.
        command: replaces the implementation's command when set.
        unsupported: scenarios this configuration cannot run, with the reason
            (``{scenario: why}``, meta.toml's ``unsupported`` table, per configuration or at
            the top level for all of them): recorded as failures with that reason, never
            run.
    """

    id: str
    server: str
    event_loop: str
    ws_backend: str = ""
    api: str = ""
    protocol: str = "websocket"
    args: tuple[str, ...] = ()
    requires: dict[str, str] = field(default_factory=dict)
    versions: tuple[str, ...] | None = None
    command: tuple[str, ...] | None = None
    unsupported: dict[str, str] = field(default_factory=dict)

    def supports(self, version: str | None) -> bool:
        """True when this configuration exists at package version ``version``."""
        return self.versions is None or version is None or version in self.versions


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
        protocol: ``"websocket"`` or ``"socketio"`` (default of the configurations).
        homepage: the project's URL.
        command: argv template; placeholders ``{python} {dir} {loadgen} {host} {port}``.
        versions: oldest first; the last one is the default (the latest release).
        deviations: fairness settings as applied, ``{setting: how}``; shown on the site.
        reference: True for the native reference server (the yardstick, not a Python framework).
        configurations: the ways of running it (at least one; ``default`` when the metadata
            lists none).
        slow_subscriber: what its broadcast (``/broadcast``, ``/market``) does with a
            subscriber slower than the messages: waits, buffers or drops, and how
            (impls/PROTOCOL.md); shown beside every fan-out figure. Empty when not stated.
        role: ``"server"`` or ``"client"`` (:data:`ROLES`).
        asgi_app: the app's import string (``"server:app"``) when :data:`ASGI_LAUNCHER`
            serves it on each configuration's server (the command is :data:`ASGI_COMMAND`);
            "" otherwise.
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
    configurations: tuple[ImplConfig, ...] = ()
    slow_subscriber: str = ""
    role: str = "server"
    asgi_app: str = ""

    @property
    def configs(self) -> tuple[ImplConfig, ...]:
        """The configurations, or the implicit ``default`` one built from the top-level keys."""
        if self.configurations:
            return self.configurations
        return (
            ImplConfig(
                id=DEFAULT_CONFIG,
                server=self.server,
                event_loop=self.event_loop,
                protocol=self.protocol,
            ),
        )

    def config(self, config_id: str | None) -> ImplConfig:
        """The configuration ``config_id`` (None: the first one).

        Raises:
            ImplError: no such configuration; the message lists the known ones.
        """
        if config_id is None:
            return self.configs[0]
        for candidate in self.configs:
            if candidate.id == config_id:
                return candidate
        known = ", ".join(c.id for c in self.configs)
        raise ImplError(f"{self.name} has no configuration {config_id!r} (known: {known})")

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

    def argv(
        self,
        *,
        python: str,
        loadgen: Path,
        host: str,
        port: int,
        config: ImplConfig | None = None,
    ) -> list[str]:
        """The command that starts this server in ``config`` (default: the first
        configuration), placeholders filled in (``{python} {dir} {loadgen} {host} {port}``,
        and ``{server}`` and ``{asgi_app}`` from the configuration and the metadata)."""
        config = config or self.configs[0]
        template = (config.command or self.command) + config.args
        values = {
            "python": python,
            "asgi_app": self.asgi_app,
            "server": config.server,
            "dir": str(self.directory),
            "loadgen": str(loadgen),
            "host": host,
            "port": str(port),
        }
        return [part.format(**values) for part in template]

    def row_name(self, config: ImplConfig, version: ImplVersion | None = None) -> str:
        """The name of one (configuration, version) row wherever results are shown.

        ``display_name · server [server version] · ws_backend · api · event_loop``, e.g.
        ``"Starlette · uvicorn 0.54 · websockets-sansio · uvloop"``. The server's version
        (major.minor) appears when the version pins the server's distribution; a part equal
        to an earlier one or to its first word is left out (websockets served by websockets:
        "websockets · asyncio"; Twisted's reactor on Twisted 26.10: "Autobahn · twisted 26.10").
        A configuration speaking another protocol than the implementation's top-level one
        ends with it (the native reference's "… · Socket.IO").
        """
        server = config.server
        if version is not None and server in version.requires:
            server += " " + ".".join(version.requires[server].split(".")[:2])
        parts = [self.display_name]
        protocol = "Socket.IO" if config.protocol == "socketio" else "WebSocket"
        other_protocol = protocol if config.protocol != self.protocol else ""
        parts_after = (server, config.ws_backend, config.api, config.event_loop, other_protocol)
        for part in parts_after:
            seen = {p.lower() for p in parts} | {p.split()[0].lower() for p in parts}
            if part and part.lower() not in seen:
                parts.append(part)
        return " · ".join(parts)


def _str(meta: dict[str, object], key: str, path: Path, default: str | None = None) -> str:
    value = meta.get(key, default)
    if not isinstance(value, str):
        raise ImplError(f"{path}: '{key}' must be a string")
    return value


def _pins(entry: dict[str, object], path: Path) -> dict[str, str]:
    pins = entry.get("requires", [])
    if not isinstance(pins, list):
        raise ImplError(f"{path}: 'requires' must be a list of 'name==version' strings")
    requires = {}
    for pin in pins:
        dist, sep, ver = str(pin).partition("==")
        if not sep or not dist or not ver:
            raise ImplError(f"{path}: requirement {pin!r} must be an exact pin 'name==version'")
        requires[dist.strip()] = ver.strip()
    return requires


def _strings(entry: dict[str, object], key: str, path: Path) -> tuple[str, ...] | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ImplError(f"{path}: '{key}' must be a list of strings")
    return tuple(value)


_CONFIG_KEYS = frozenset(
    ("id", "server", "event_loop", "ws_backend", "api", "protocol", "args", "requires",
     "versions", "command", "unsupported")
)  # fmt: skip
"""The keys a ``[[configurations]]`` table may have."""


def _unsupported(table: dict[str, object], path: Path) -> dict[str, str]:
    """The ``unsupported`` table of ``table``: ``{scenario: why}``.

    Raises:
        ImplError: not a table of strings, or an unknown scenario.
    """
    found = table.get("unsupported", {})
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        raise ImplError(f"{path}: 'unsupported' must be a table of scenario = \"why\"")
    unknown = sorted(set(found) - set(SCENARIOS))
    if unknown:
        raise ImplError(f"{path}: 'unsupported' names unknown scenarios {unknown}")
    return {str(k): str(v) for k, v in found.items()}


def _load_configs(
    meta: dict[str, object], path: Path, defaults: ImplConfig, versions: list[str]
) -> tuple[ImplConfig, ...]:
    entries = meta.get("configurations", [])
    if not isinstance(entries, list):
        raise ImplError(f"{path}: 'configurations' must be an array of tables")
    configs: list[ImplConfig] = []
    for entry in entries:
        config_id = entry.get("id")
        unknown_keys = sorted(set(entry) - _CONFIG_KEYS)
        if unknown_keys:
            raise ImplError(
                f"{path}: configuration {config_id!r} has unknown keys {unknown_keys} (a "
                "top-level key written after a [[configurations]] table belongs to it: move "
                "it above the first one)"
            )
        if not isinstance(config_id, str) or not _CONFIG_ID.fullmatch(config_id):
            raise ImplError(f"{path}: configuration id {config_id!r} must match [a-z0-9-]+")
        if any(c.id == config_id for c in configs):
            raise ImplError(f"{path}: configuration {config_id!r} is listed twice")
        only = _strings(entry, "versions", path)
        unknown = sorted(set(only or ()) - set(versions))
        if unknown:
            raise ImplError(
                f"{path}: configuration {config_id!r} names unlisted versions {unknown}"
            )
        configs.append(
            ImplConfig(
                id=config_id,
                server=_str(entry, "server", path, defaults.server),
                event_loop=_str(entry, "event_loop", path, defaults.event_loop),
                ws_backend=_str(entry, "ws_backend", path, ""),
                api=_str(entry, "api", path, defaults.api),
                protocol=_str(entry, "protocol", path, defaults.protocol),
                args=_strings(entry, "args", path) or (),
                requires=_pins(entry, path),
                versions=only,
                command=_strings(entry, "command", path),
                unsupported={**defaults.unsupported, **_unsupported(entry, path)},
            )
        )
    for config in [*configs, defaults]:
        if config.protocol not in PROTOCOLS:
            raise ImplError(
                f"{path}: unknown protocol {config.protocol!r} (known: {', '.join(PROTOCOLS)})"
            )
    return tuple(configs)


def _asgi_settings(directory: Path, servers: list[str]) -> dict[str, str]:
    """The ``[deviations]`` entries of ``servers`` from :data:`ASGI_SETTINGS` beside
    ``directory`` (the implementations' folder), in that order.

    Raises:
        ImplError: the file is missing or malformed, or names none of the servers.
    """
    path = directory.parent / ASGI_SETTINGS
    try:
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ImplError(f"{path}: cannot read the ASGI servers' settings: {exc}") from exc
    merged: dict[str, str] = {}
    for server in servers:
        table = tables.get(server)
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            known = ", ".join(sorted(tables)) or "none"
            raise ImplError(
                f"{path}: no table of settings for the server {server!r} of "
                f"{directory.name} (known: {known})"
            )
        merged.update(table)
    return merged


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
    versions = [
        ImplVersion(version=str(entry["version"]), requires=_pins(entry, path))
        for entry in meta.get("versions", [])
    ]
    package = meta.get("package")
    if package is not None and not isinstance(package, str):
        raise ImplError(f"{path}: 'package' must be a string")
    if package and not versions:
        raise ImplError(f"{path}: a package needs at least one [[versions]] entry")
    name = _str(meta, "name", path, directory.name)
    if name != directory.name:
        raise ImplError(f"{path}: name {name!r} must equal the folder name {directory.name!r}")
    role = _str(meta, "role", path, "server")
    if role not in ROLES:
        raise ImplError(f"{path}: unknown role {role!r} (known: {', '.join(ROLES)})")
    client = role == "client"
    defaults = ImplConfig(
        id=DEFAULT_CONFIG,
        server=_str(meta, "server", path, "" if client else name),
        api=_str(meta, "api", path, ""),
        event_loop=_str(meta, "event_loop", path, "asyncio"),
        protocol=_str(meta, "protocol", path, "websocket"),
        unsupported=_unsupported(meta, path),
    )
    configs = _load_configs(meta, path, defaults, [v.version for v in versions])
    asgi_app = _str(meta, "asgi_app", path, "")
    deviations = {str(k): str(v) for k, v in meta.get("deviations", {}).items()}
    command = meta.get("command", DEFAULT_CLIENT_COMMAND if client else DEFAULT_COMMAND)
    if asgi_app:
        if "command" in meta or any(c.command for c in configs):
            raise ImplError(f"{path}: 'asgi_app' sets the command: give no 'command' too")
        servers = list(dict.fromkeys(c.server for c in configs or (defaults,)))
        deviations = {**deviations, **_asgi_settings(directory, servers)}
        command = ASGI_COMMAND
    return Impl(
        name=name,
        display_name=_str(meta, "display_name", path, name),
        directory=directory,
        package=package,
        server=defaults.server,
        event_loop=defaults.event_loop,
        protocol=defaults.protocol,
        homepage=_str(meta, "homepage", path, ""),
        command=tuple(command),
        versions=tuple(versions),
        deviations=deviations,
        reference=bool(meta.get("reference", False)),
        configurations=configs,
        slow_subscriber=_str(meta, "slow_subscriber", path, ""),
        role=role,
        asgi_app=asgi_app,
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
