"""The implementations under ``impls/`` (servers) and ``clients/`` (client libraries): each
folder holds a program and its ``meta.toml``.

The metadata schema is documented in ``impls/PROTOCOL.md`` (clients: ``clients/README.md``).
Adding a framework or a client library means adding one folder; nothing else in the
repository lists them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, get_args

import msgspec
from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from wsbench.paths import IMPLS_DIR
from wsbench.pythons import DEFAULT_PYTHON, PYTHONS
from wsbench.scenarios import SCENARIOS, Scenario

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
Role = Literal["server", "client"]
ROLES: tuple[Role, ...] = get_args(Role)
"""What an implementation is: a server under test (``impls/``), or a client library under
test (``clients/``) that drives the native reference server."""


class ImplError(ValueError):
    """An unknown implementation or version, or a ``meta.toml`` that does not follow the schema."""


@dataclass(frozen=True)
class ImplVersion:
    """One released version of an implementation's package, with the pins installed beside it.

    Attributes:
        version: the package's version string as written, e.g. ``"15.0.1"`` (PEP 440).
        requires: extra requirements as ``{distribution: exact version}``, e.g. the uvicorn
            release that serves a starlette version (names and versions as written).
        api: which of the package's APIs the implementation uses at this version, "" when
            not stated (shown on the site).
        speedups: the package's optional accelerations at this version (C extensions), ""
            when not stated (shown on the site).
        ws_backend: the WebSocket backend the implementation's top-level server runs at this
            version in the configurations on that server that name none (a configuration's
            own ``ws_backend`` wins; :meth:`Impl.ws_backend`), e.g. python-socketio's
            ``"websockets-sansio"``, uvicorn's default from 0.50 that its server.py selects;
            "" when not stated (the server's only or default backend, unnamed).
        python: the Python of its time, which it is measured on as an older version
            (:mod:`wsbench.pythons`; default :data:`~wsbench.pythons.DEFAULT_PYTHON`): the
            latest release is measured on every Python the run asks for, an older one on
            this one only.
    """

    version: str
    requires: dict[str, str] = field(default_factory=dict)
    api: str = ""
    speedups: str = ""
    ws_backend: str = ""
    python: str = DEFAULT_PYTHON


DEFAULT_CONFIG = "default"
"""The id of the single configuration of an implementation without ``[[configurations]]``."""
CONFIG_ID = r"^[a-z0-9][a-z0-9-]*$"
"""What a configuration id matches (a regular expression)."""
ProtocolName = Literal["websocket", "socketio"]
PROTOCOLS: tuple[ProtocolName, ...] = get_args(ProtocolName)
"""The protocols a server can speak (``impls/PROTOCOL.md``)."""

SHIPPED_COMPRESSION_KEY = "shipped_compression"
"""The meta.toml key (and :data:`ASGI_SETTINGS` key) stating what a server does with a
browser's offer of permessage-deflate under its defaults
(:attr:`ImplConfig.shipped_compression`)."""
TLS_KEY = "tls"
"""The meta.toml key (and :data:`ASGI_SETTINGS` key) stating whether a server can terminate
TLS itself (:attr:`ImplConfig.tls`)."""
WORKERS_KEY = "workers"
"""The meta.toml key (and :data:`ASGI_SETTINGS` key) stating whether a server can serve in
several worker processes through its framework's own option (:attr:`ImplConfig.workers`)."""
ACCEPTS, DECLINES = "accepts", "declines"
SUPPORTED, NOT_SUPPORTED = "supported", "not supported"
STATEMENT_ANSWERS: dict[str, tuple[str, ...]] = {
    SHIPPED_COMPRESSION_KEY: (ACCEPTS, DECLINES),
    TLS_KEY: (SUPPORTED, NOT_SUPPORTED),
    WORKERS_KEY: (SUPPORTED, NOT_SUPPORTED),
}
"""The deployment profiles' statements (issue 44) and the answers each may start with: the
text is ``"<answer>: <how or why>"``."""
COMPRESSION_OFF = "off:"
"""How a configuration's ``compression`` fairness deviation starts when its server, started
as the tuned profile starts it, declines an offer of permessage-deflate (impls/PROTOCOL.md).
Any other start (e.g. ``not offered:``) says that it has no setting to decline one, so an
offer gets its as-shipped answer (:attr:`ImplConfig.shipped_compression`) in every profile."""


@dataclass(frozen=True)
class ImplConfig:
    """One way of running an implementation: event loop, WebSocket backend, async mode...

    Attributes:
        id: unique within the implementation, ``[a-z0-9-]+`` (``WSBENCH_CONFIG``, ``--config``).
        server: the server that runs the app (e.g. ``"uvicorn"``).
        event_loop: ``"asyncio"``, ``"uvloop"``, ``"twisted"``...
        ws_backend: the server's WebSocket implementation, or "" when it has only one or the
            configuration does not choose (its version may name it:
            :attr:`ImplVersion.ws_backend`).
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
        shared_cpu: "" when the server's worker does its work in one thread; else which of
            its threads are busy while it serves, which take turns on the one CPU the
            harness gives it (meta.toml's ``shared_cpu``, per configuration, at the top
            level, or for every configuration on an ASGI server in
            :data:`ASGI_SETTINGS`). Shown beside every figure of the configuration.
        shipped_compression: what the server does, under its framework's default settings
            (the *as shipped* profile, :mod:`wsbench.deployment`), with a browser's offer of
            permessage-deflate (``permessage-deflate; client_max_window_bits``):
            ``"accepts: <how>"`` or ``"declines: <why>"``, the prefix for the latest
            version the configuration runs (the text says how earlier ones differ).
            meta.toml's ``shipped_compression``, resolved like :attr:`shared_cpu`; "" only
            where it need not be stated (:func:`_states_profiles`).
        tls: whether the server can terminate TLS itself (the *tls* and *browser* profiles):
            ``"supported: <how its documentation configures it>"`` or
            ``"not supported: <why>"``. meta.toml's ``tls``, resolved like
            :attr:`shared_cpu`; "" only where it need not be stated.
        workers: whether the server can serve in N worker processes (the profile *N workers
            on N CPUs*, the server started with ``--worker-processes N``, N >= 2):
            ``"supported: <the framework's documented workers or processes option, and how
            --worker-processes N maps to it>"`` or ``"not supported: <why>"``. meta.toml's
            ``workers``, resolved like :attr:`shared_cpu`; "" only where it need not be
            stated.
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
    shared_cpu: str = ""
    shipped_compression: str = ""
    tls: str = ""
    workers: str = ""

    def supports(self, version: str | None) -> bool:
        """True when this configuration exists at package version ``version``."""
        return self.versions is None or version is None or version in self.versions

    def refuses(self, scenario: str) -> str | None:
        """The error recorded for a parameter set of ``scenario`` (measured or counted) when
        this configuration cannot run it: ``"not supported: <why>"`` from :attr:`unsupported`;
        None when it can."""
        why = self.unsupported.get(scenario)
        return None if why is None else f"{NOT_SUPPORTED}: {why}"

    @property
    def accepts_shipped_deflate(self) -> bool:
        """True when its :attr:`shipped_compression` says the server accepts a browser's
        offer of permessage-deflate under its default settings."""
        return self.shipped_compression.startswith(f"{ACCEPTS}:")

    @property
    def supports_tls(self) -> bool:
        """True when its :attr:`tls` says the server can terminate TLS itself."""
        return self.tls.startswith(f"{SUPPORTED}:")

    @property
    def supports_workers(self) -> bool:
        """True when its :attr:`workers` says the server can serve in several worker
        processes (``--worker-processes N``)."""
        return self.workers.startswith(f"{SUPPORTED}:")


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

    def ws_backend(self, config: ImplConfig, version: str | None) -> str:
        """The WebSocket backend ``config`` runs at ``version``: the configuration's own
        ``ws_backend``, else the version's (:attr:`ImplVersion.ws_backend`) when the
        configuration is on the implementation's top-level server, else "" (unnamed: the
        server's only or default backend)."""
        if config.ws_backend or config.server != self.server:
            return config.ws_backend
        listed = next((v for v in self.versions if v.version == version), None)
        return listed.ws_backend if listed else ""

    def deviation(self, config: ImplConfig, setting: str) -> str:
        """The ``[deviations]`` entry for ``setting`` (e.g. ``"compression"``) that applies to
        ``config``: the implementation's own, else its server's ``<server>_<setting>`` (from
        :data:`ASGI_SETTINGS` for an ``asgi_app``); "" when neither is stated."""
        return self.deviations.get(setting) or self.deviations.get(f"{config.server}_{setting}", "")

    def tuned_declines_deflate(self, config: ImplConfig) -> bool:
        """True when ``config``'s server, started as the tuned profile starts it, declines an
        offer of permessage-deflate: its ``compression`` deviation starts with
        :data:`COMPRESSION_OFF`, or it declines one even as shipped."""
        off = self.deviation(config, "compression").startswith(COMPRESSION_OFF)
        return off or not config.accepts_shipped_deflate

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
        profile_args: Sequence[str] = (),
    ) -> list[str]:
        """The command that starts this server in ``config`` (default: the first
        configuration), placeholders filled in (``{python} {dir} {loadgen} {host} {port}``,
        and ``{server}`` and ``{asgi_app}`` from the configuration and the metadata), then
        ``profile_args``: a deployment profile's flags (:func:`wsbench.deployment.server_args`)."""
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
        return [part.format(**values) for part in template] + list(profile_args)

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


if TYPE_CHECKING:
    ScenarioKey = Scenario
else:
    ScenarioKey = Literal[SCENARIOS]
"""A scenario's name as a key of an ``unsupported`` table: msgspec refuses any other
(the registry's names, :data:`wsbench.scenarios.SCENARIOS`)."""


class MetaVersion(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One ``[[versions]]`` entry of ``meta.toml`` (:class:`ImplVersion` once checked).

    Attributes:
        version: the package's version, PEP 440 (``"15.0.1"``).
        requires: pins installed beside it, each ``"name==version"``.
        api: which of the package's APIs the implementation uses at this version, when that
            changed over the matrix (websockets' ``"legacy (websockets.serve)"``).
        speedups: the package's optional accelerations at this version (autobahn's NVX).
        ws_backend: the WebSocket backend of the top-level server at this version, for the
            configurations on it that name none (:attr:`ImplVersion.ws_backend`).
        python: the Python of its time (:attr:`ImplVersion.python`).
    """

    version: str
    requires: tuple[str, ...] = ()
    api: str = ""
    speedups: str = ""
    ws_backend: str = ""
    python: str = DEFAULT_PYTHON


class MetaConfiguration(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One ``[[configurations]]`` table of ``meta.toml`` (:class:`ImplConfig` once checked).

    A key left out (None) takes the value of the file's top-level key of the same name;
    ``ws_backend``, ``args`` and ``requires`` are the configuration's own.
    """

    id: Annotated[str, msgspec.Meta(pattern=CONFIG_ID)]
    server: str | None = None
    event_loop: str | None = None
    ws_backend: str = ""
    api: str | None = None
    protocol: ProtocolName | None = None
    args: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    versions: tuple[str, ...] | None = None
    command: tuple[str, ...] | None = None
    unsupported: dict[ScenarioKey, str] = {}
    shared_cpu: str | None = None
    shipped_compression: str | None = None
    tls: str | None = None
    workers: str | None = None


class MetaToml(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A whole ``meta.toml``: the schema of ``impls/PROTOCOL.md`` (:class:`Impl` once
    checked). Keys left out (None) default to the folder's name (``name``), the name
    (``display_name``), the name or "" for a client (``server``), and
    :data:`DEFAULT_COMMAND` or :data:`DEFAULT_CLIENT_COMMAND` (``command``)."""

    name: str | None = None
    display_name: str | None = None
    package: str | None = None
    homepage: str = ""
    role: Role = "server"
    protocol: ProtocolName = "websocket"
    server: str | None = None
    event_loop: str = "asyncio"
    api: str = ""
    reference: bool = False
    command: tuple[str, ...] | None = None
    asgi_app: str = ""
    slow_subscriber: str = ""
    shared_cpu: str = ""
    shipped_compression: str = ""
    tls: str = ""
    workers: str = ""
    versions: tuple[MetaVersion, ...] = ()
    configurations: tuple[MetaConfiguration, ...] = ()
    deviations: dict[str, str] = {}
    unsupported: dict[ScenarioKey, str] = {}


_CHOICES: dict[str, tuple[str, ...]] = {
    "protocol": PROTOCOLS, "role": ROLES, "unsupported": SCENARIOS
}  # fmt: skip
"""The allowed values of the keys msgspec checks as an enumeration, for its messages."""


def _schema_error(path: Path, exc: msgspec.ValidationError) -> ImplError:
    """``exc`` (msgspec's message ends with where, e.g. ``- at `$.configurations[0]```) as
    an :class:`ImplError` naming ``path``, with a hint where the message alone may puzzle."""
    message = f"{path}: {exc}"
    where = re.search(r"\.([a-z_]+)`$", message)
    if " - at `" not in message:
        message += " (at the top level)"
    elif "unknown field" in message and "$.configurations[" in message:
        message += (
            " (a top-level key written after a [[configurations]] table belongs to it: move "
            "it above the first one)"
        )
    elif "Invalid enum value" in message and where and where[1] in _CHOICES:
        message += f" (known: {', '.join(_CHOICES[where[1]])})"
    return ImplError(message)


def _version(text: str, path: Path) -> str:
    """``text`` once checked to be a PEP 440 version (returned as written, not normalised:
    it names environments and results).

    Raises:
        ImplError: not a version.
    """
    try:
        Version(text)
    except InvalidVersion as exc:
        raise ImplError(f"{path}: version {text!r} is not a PEP 440 version") from exc
    return text


def _python(text: str, path: Path, version: str) -> str:
    """``text`` once checked to be one of :data:`wsbench.pythons.PYTHONS`.

    Raises:
        ImplError: any other.
    """
    if text not in PYTHONS:
        raise ImplError(
            f"{path}: version {version!r}: python {text!r} is not one of {', '.join(PYTHONS)}"
        )
    return text


def _pins(pins: tuple[str, ...], path: Path, owner: str) -> dict[str, str]:
    """The requirements ``pins`` of ``owner`` (``"version '1.0'"``, ``"configuration 'a'"``;
    ``"name==version"`` each) as ``{distribution: version}``, both as written.

    Raises:
        ImplError: a string that is not a requirement, not one exact pin (a range, a
            wildcard, extras, a marker or a URL), or a distribution pinned twice.
    """
    requires: dict[str, str] = {}
    for pin in pins:
        try:
            req = Requirement(pin)
        except InvalidRequirement as exc:
            problem = str(exc).splitlines()[0]
            raise ImplError(
                f"{path}: {owner}: requirement {pin!r} is not a requirement: {problem}"
            ) from exc
        specs = list(req.specifier)
        exact = len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version
        if not exact or req.extras or req.marker or req.url:
            raise ImplError(
                f"{path}: {owner}: requirement {pin!r} must be an exact pin 'name==version'"
            )
        if req.name in requires:
            raise ImplError(f"{path}: {owner}: requirement {pin!r} pins {req.name!r} twice")
        requires[req.name] = _version(specs[0].version, path)
    return requires


def _reasons(unsupported: dict[Scenario, str]) -> dict[str, str]:
    """An ``unsupported`` table as :attr:`ImplConfig.unsupported` holds it."""
    return {scenario: why for scenario, why in unsupported.items()}


def _config(
    entry: MetaConfiguration, path: Path, defaults: ImplConfig, versions: tuple[str, ...]
) -> ImplConfig:
    """The configuration ``entry``, its left-out keys from ``defaults`` (the top level).

    Raises:
        ImplError: it names versions that are not in ``versions`` (the file's), a bad pin,
            or a malformed profile statement (:func:`_statement`).
    """
    where = f"{path}: configuration {entry.id!r}"
    unknown = sorted(set(entry.versions or ()) - set(versions))
    if unknown:
        raise ImplError(f"{where} names unlisted versions {unknown}")
    return ImplConfig(
        id=entry.id,
        server=defaults.server if entry.server is None else entry.server,
        event_loop=defaults.event_loop if entry.event_loop is None else entry.event_loop,
        ws_backend=entry.ws_backend,
        api=defaults.api if entry.api is None else entry.api,
        protocol=entry.protocol or defaults.protocol,
        args=entry.args,
        requires=_pins(entry.requires, path, f"configuration {entry.id!r}"),
        versions=entry.versions,
        command=entry.command,
        unsupported={**defaults.unsupported, **_reasons(entry.unsupported)},
        shared_cpu=defaults.shared_cpu if entry.shared_cpu is None else entry.shared_cpu,
        shipped_compression=(
            defaults.shipped_compression
            if entry.shipped_compression is None
            else _statement(entry.shipped_compression, SHIPPED_COMPRESSION_KEY, where)
        ),
        tls=defaults.tls if entry.tls is None else _statement(entry.tls, TLS_KEY, where),
        workers=(
            defaults.workers
            if entry.workers is None
            else _statement(entry.workers, WORKERS_KEY, where)
        ),
    )


def _statement(text: str, key: str, where: str) -> str:
    """``text``, the value of the profile statement ``key`` (:data:`STATEMENT_ANSWERS`),
    once checked to read ``"<answer>: <how or why>"``; ``where`` names its place in errors.

    Raises:
        ImplError: another answer, no colon after it, or nothing after the colon.
    """
    answers = STATEMENT_ANSWERS[key]
    answer, colon, reason = text.partition(":")
    if answer not in answers or not colon or not reason.strip():
        choices = " or ".join(f"'{a}: '" for a in answers)
        raise ImplError(
            f"{where}: {key} {text!r} must start with {choices} and go on with how or why "
            "(impls/PROTOCOL.md)"
        )
    return text


SHARED_CPU_KEY = "shared_cpu"
"""The key of a server's table in :data:`ASGI_SETTINGS` that is not a deviation: its worker's
busy threads (:attr:`ImplConfig.shared_cpu`) on every configuration it serves."""
SERVER_STATEMENTS = (SHARED_CPU_KEY, SHIPPED_COMPRESSION_KEY, TLS_KEY, WORKERS_KEY)
"""The keys of a server's table in :data:`ASGI_SETTINGS` that are not deviations but
statements of every configuration it serves, the :class:`ImplConfig` attributes of the same
names (unless the configuration or the implementation's top level states its own)."""


@dataclass(frozen=True)
class AsgiSettings:
    """What :data:`ASGI_SETTINGS` says of an implementation's servers.

    Attributes:
        deviations: the ``[deviations]`` entries of its servers, in their order.
        statements: key of :data:`SERVER_STATEMENTS` -> server -> its text, for the servers
            that state one.
    """

    deviations: dict[str, str]
    statements: dict[str, dict[str, str]]


def _asgi_settings(directory: Path, servers: list[str], data: bytes | None) -> AsgiSettings:
    """The settings of ``servers`` from :data:`ASGI_SETTINGS` beside ``directory`` (the
    implementations' folder), whose bytes are ``data`` (None: it could not be read).

    Raises:
        ImplError: the file is missing or is not TOML, has no table for one of the servers,
            or a setting that is not a string.
    """
    path = directory.parent / ASGI_SETTINGS
    try:
        # Read again when it could not be: the error says why.
        tables = msgspec.toml.decode(
            path.read_bytes() if data is None else data, type=dict[str, object]
        )
    except (OSError, msgspec.DecodeError) as exc:
        raise ImplError(f"{path}: cannot read the ASGI servers' settings: {exc}") from exc
    found = AsgiSettings({}, {key: {} for key in SERVER_STATEMENTS})
    for server in servers:
        if server not in tables:
            known = ", ".join(sorted(tables)) or "none"
            raise ImplError(
                f"{path}: no table of settings for the server {server!r} of "
                f"{directory.name} (known: {known})"
            )
        try:
            table = msgspec.convert(tables[server], dict[str, str])
        except msgspec.ValidationError as exc:
            raise ImplError(f"{path}: the settings of the server {server!r}: {exc}") from exc
        for key in SERVER_STATEMENTS:
            if key in table:
                text = table.pop(key)
                if key in STATEMENT_ANSWERS:
                    _statement(text, key, f"{path}: [{server}]")
                found.statements[key][server] = text
        found.deviations.update(table)
    return found


def _server_statements(config: ImplConfig, meta: MetaToml, settings: AsgiSettings) -> ImplConfig:
    """``config`` with its ASGI server's text of each key of :data:`SERVER_STATEMENTS`
    (:data:`ASGI_SETTINGS`) that neither the configuration nor the file's top level states."""
    entry = next((e for e in meta.configurations if e.id == config.id), None)

    def text(key: str) -> str:
        own = entry is not None and getattr(entry, key) is not None
        by_server = settings.statements[key]
        if own or getattr(meta, key) or config.server not in by_server:
            return str(getattr(config, key))
        return by_server[config.server]

    return replace(
        config,
        shared_cpu=text(SHARED_CPU_KEY),
        shipped_compression=text(SHIPPED_COMPRESSION_KEY),
        tls=text(TLS_KEY),
        workers=text(WORKERS_KEY),
    )


def _states_profiles(meta: MetaToml) -> bool:
    """True when every configuration of ``meta``'s implementation must state
    :data:`STATEMENT_ANSWERS`: a server (the native reference too), not a client program
    (``clients/``)."""
    return meta.role == "server"


def _check_stated(configs: tuple[ImplConfig, ...], path: Path) -> None:
    """Raise :class:`ImplError` for the first configuration of ``configs`` (read from
    ``path``) that states no profile statement of :data:`STATEMENT_ANSWERS`."""
    for config in configs:
        for key, answers in STATEMENT_ANSWERS.items():
            if not getattr(config, key):
                raise ImplError(
                    f"{path}: configuration {config.id!r} states no {key} (at the top level, "
                    f"in the configuration, or in its ASGI server's table of {ASGI_SETTINGS}): "
                    f"'{answers[0]}: <how>' or '{answers[1]}: <why>' (impls/PROTOCOL.md)"
                )


def _meta_bytes(directory: Path) -> bytes:
    """The bytes of ``directory/meta.toml``.

    Raises:
        ImplError: the file is missing or unreadable.
    """
    path = directory / "meta.toml"
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise ImplError(f"{directory.name}: no meta.toml in {directory}") from exc
    except OSError as exc:
        raise ImplError(f"{path}: cannot read: {exc}") from exc


def _decode_meta(directory: Path, data: bytes) -> MetaToml:
    """``data``, the bytes of ``directory/meta.toml``, decoded against the schema
    (:class:`MetaToml`), unchecked across keys (:func:`load_impl` does that).

    Raises:
        ImplError: not UTF-8 TOML, or a key of the wrong type, an unknown key or value (the
            message names the file and where, e.g. ``$.configurations[0]``).
    """
    path = directory / "meta.toml"
    try:
        return msgspec.toml.decode(data.decode("utf-8"), type=MetaToml)
    except UnicodeDecodeError as exc:
        raise ImplError(f"{path}: cannot read: {exc}") from exc
    except msgspec.ValidationError as exc:
        raise _schema_error(path, exc) from exc
    except msgspec.DecodeError as exc:
        raise ImplError(f"{path}: not valid TOML: {exc}") from exc


_LOADED: dict[tuple[Path, bytes, bytes | None], Impl] = {}
"""Every implementation this process loaded, by its folder and the bytes it was read from
(its ``meta.toml`` and :data:`ASGI_SETTINGS` beside it): :func:`get_impl` and
:func:`all_impls` run many times in one process (each measured server session, each
command's selection, each test), and decoding and checking the 42 folders took 50-70 ms
each time on a 2-core machine, against about 2 ms to read their bytes. A file that changed
is read again. :class:`Impl` is frozen: the entries are shared."""


def _read_or_none(path: Path) -> bytes | None:
    """The bytes of ``path``, or None when it cannot be read (whoever needs it says why)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def load_impl(directory: Path) -> Impl:
    """Read ``directory/meta.toml`` (:func:`_decode_meta`) and check it across keys, once per
    process for the same bytes of the files it reads (:data:`_LOADED`).

    Raises:
        ImplError: the file is missing, is not TOML, or does not follow the schema (see
            :func:`_meta_bytes` and :func:`_decode_meta`); or a name other than the folder's,
            a requirement or version that is not PEP 440 (:func:`_pins`), a version or
            configuration listed twice, a package without versions, a configuration naming
            an unlisted version, an ``asgi_app`` with a command, a malformed profile
            statement, or a server configuration that states none (:data:`STATEMENT_ANSWERS`,
            :func:`_check_stated`).
    """
    data = _meta_bytes(directory)
    settings_data = _read_or_none(directory.parent / ASGI_SETTINGS)
    key = (directory, data, settings_data)
    if key not in _LOADED:
        _LOADED[key] = _checked_impl(directory, _decode_meta(directory, data), settings_data)
    return _LOADED[key]


def _checked_impl(directory: Path, meta: MetaToml, settings_data: bytes | None) -> Impl:
    """The implementation ``meta`` (``directory``'s ``meta.toml``) describes, checked across
    keys, with :data:`ASGI_SETTINGS` read from ``settings_data`` (None: the file could not be
    read) when it has an ``asgi_app``.

    Raises:
        ImplError: see :func:`load_impl`.
    """
    path = directory / "meta.toml"
    name = directory.name if meta.name is None else meta.name
    if name != directory.name:
        raise ImplError(f"{path}: name {name!r} must equal the folder name {directory.name!r}")
    versions = tuple(
        ImplVersion(
            version=_version(v.version, path),
            requires=_pins(v.requires, path, f"version {v.version!r}"),
            api=v.api,
            speedups=v.speedups,
            ws_backend=v.ws_backend,
            python=_python(v.python, path, v.version),
        )
        for v in meta.versions
    )
    listed = tuple(v.version for v in versions)
    for what, ids in (("version", listed), ("configuration", [c.id for c in meta.configurations])):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ImplError(f"{path}: {what} {twice[0]!r} is listed twice")
    if meta.package and not versions:
        raise ImplError(f"{path}: a package needs at least one [[versions]] entry")
    client = meta.role == "client"
    defaults = ImplConfig(
        id=DEFAULT_CONFIG,
        server=("" if client else name) if meta.server is None else meta.server,
        api=meta.api,
        event_loop=meta.event_loop,
        protocol=meta.protocol,
        unsupported=_reasons(meta.unsupported),
        shared_cpu=meta.shared_cpu,
        shipped_compression=meta.shipped_compression
        and _statement(meta.shipped_compression, SHIPPED_COMPRESSION_KEY, str(path)),
        tls=meta.tls and _statement(meta.tls, TLS_KEY, str(path)),
        workers=meta.workers and _statement(meta.workers, WORKERS_KEY, str(path)),
    )
    configs = tuple(_config(entry, path, defaults, listed) for entry in meta.configurations)
    configs = configs or (defaults,)
    deviations = dict(meta.deviations)
    command = meta.command
    if command is None:
        command = DEFAULT_CLIENT_COMMAND if client else DEFAULT_COMMAND
    if meta.asgi_app:
        if meta.command is not None or any(c.command for c in configs):
            raise ImplError(f"{path}: 'asgi_app' sets the command: give no 'command' too")
        servers = list(dict.fromkeys(c.server for c in configs))
        settings = _asgi_settings(directory, servers, settings_data)
        deviations = {**deviations, **settings.deviations}
        configs = tuple(_server_statements(c, meta, settings) for c in configs)
        command = ASGI_COMMAND
    if _states_profiles(meta):
        _check_stated(configs, path)
    return Impl(
        name=name,
        display_name=name if meta.display_name is None else meta.display_name,
        directory=directory,
        package=meta.package,
        server=defaults.server,
        event_loop=defaults.event_loop,
        protocol=defaults.protocol,
        homepage=meta.homepage,
        command=command,
        versions=versions,
        deviations=deviations,
        reference=meta.reference,
        configurations=configs,
        slow_subscriber=meta.slow_subscriber,
        role=meta.role,
        asgi_app=meta.asgi_app,
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
