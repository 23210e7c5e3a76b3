"""The implementations under ``impls/``, read from their ``meta.toml`` for the Frameworks page.

Schema: ``impls/PROTOCOL.md`` ("Implementation folder"). Read here with :mod:`tomllib`
rather than through the harness, so the page shows whatever the files say, also fields the
harness does not need. A folder without ``meta.toml`` is skipped.
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.plugins.wsbench.site")


@dataclass(frozen=True)
class VersionEntry:
    """One entry of the version matrix.

    Attributes:
        version: the package version.
        requires: extra pins installed beside it, as text (e.g. ``"uvicorn==0.30.0"``).
    """

    version: str
    requires: tuple[str, ...]


@dataclass(frozen=True)
class Framework:
    """One implementation folder's metadata.

    Attributes:
        name: folder name (``impls/<name>``).
        display_name: shown in tables.
        package: PyPI distribution whose version is the axis, None for the native reference.
        homepage: project URL, or None.
        server: the server that runs the app.
        event_loop: the event loop.
        protocol: ``"websocket"``.
        reference: True for the native reference server.
        versions: the version matrix, oldest first (the last is the default).
        deviations: fairness settings as applied, ``{setting: how}``.
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


def _requires(value: object) -> tuple[str, ...]:
    if isinstance(value, dict):
        return tuple(f"{k}=={v}" if v else str(k) for k, v in value.items())
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return ()


def _framework(name: str, meta: dict[str, Any]) -> Framework:
    versions = tuple(
        VersionEntry(str(v["version"]), _requires(v.get("requires")))
        for v in meta.get("versions") or []
        if isinstance(v, dict) and "version" in v
    )
    package = meta.get("package")
    homepage = meta.get("homepage")
    return Framework(
        name=name,
        display_name=str(meta.get("display_name") or meta.get("name") or name),
        package=str(package) if package else None,
        homepage=str(homepage) if homepage else None,
        server=str(meta.get("server") or "—"),
        event_loop=str(meta.get("event_loop") or "—"),
        protocol=str(meta.get("protocol") or "websocket"),
        reference=bool(meta.get("reference", False)),
        versions=versions,
        deviations={str(k): str(v) for k, v in (meta.get("deviations") or {}).items()},
    )


def load_frameworks(impls_dir: Path) -> list[Framework]:
    """Read ``impls_dir/*/meta.toml``.

    Returns:
        The frameworks, the reference first, then by display name. Folders without
        ``meta.toml`` are skipped; an unreadable ``meta.toml`` is skipped with a warning on
        the ``mkdocs`` logger (which fails a ``--strict`` build).
    """
    frameworks: list[Framework] = []
    if not impls_dir.is_dir():
        return frameworks
    for meta_path in sorted(impls_dir.glob("*/meta.toml")):
        try:
            meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            log.warning("wsbench site: skipping %s: %s", meta_path, exc)
            continue
        frameworks.append(_framework(meta_path.parent.name, meta))
    frameworks.sort(key=lambda f: (not f.reference, f.display_name.lower()))
    return frameworks
