"""What an environment holds: every distribution installed in it, as ``uv pip freeze``
prints them, and where they came from (the file :mod:`wsbench.asv.install` leaves at its
root). Run documents record both (:func:`wsbench.instrument.provenance.new_run`).

The list is read by the environment's own interpreter from its install folders only
(``sysconfig``'s ``purelib`` and ``platlib``), as uv lists an environment: never from the
working folder or ``PYTHONPATH``, where a source tree's ``*.egg-info`` would count too.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import subprocess
import sys
from pathlib import Path

import msgspec

from wsbench.paths import REPO_ROOT, RESOLUTION_FILE
from wsbench.results.runformat import Resolution

PROJECT_LOCK = "uv.lock"
"""The project's lock, from which ``./bench`` installs ``.venv`` exactly."""
PROJECT_ENV = REPO_ROOT / ".venv"
FREEZE_TIMEOUT_S = 60.0
"""Seconds another interpreter has to list its distributions."""


class InstalledError(RuntimeError):
    """An interpreter could not list its distributions (the message says why)."""


def freeze() -> list[str]:
    """This interpreter's distributions in ``uv pip freeze``'s form, sorted by name:
    ``name==version`` with the name normalized (PEP 503), ``-e URL`` for an editable
    install, ``name @ URL`` for one from a URL. Read, as uv reads them, from the names of
    the ``*.dist-info`` folders (``NAME-VERSION.dist-info``), without parsing each
    distribution's metadata, which takes a large environment a third of a second.
    Self-contained: :data:`FREEZE` runs its source in another interpreter."""
    import json
    import os
    import re
    import sysconfig

    folders = list(dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib")))
    found: dict[str, str] = {}
    for folder in folders:
        try:
            entries = sorted(os.listdir(folder))
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith(".dist-info") or "-" not in entry:
                continue
            raw, version = entry[: -len(".dist-info")].split("-", 1)
            name = re.sub(r"[-_.]+", "-", raw).lower()
            line = f"{name}=={version}"
            try:
                with open(os.path.join(folder, entry, "direct_url.json"), encoding="utf-8") as f:
                    url = json.load(f)
            except (OSError, ValueError):
                url = None
            if isinstance(url, dict) and "url" in url:
                editable = url.get("dir_info", {}).get("editable")
                line = f"-e {url['url']}" if editable else f"{name} @ {url['url']}"
            found.setdefault(name, line)
    return [found[name] for name in sorted(found)]


FREEZE = (
    "from __future__ import annotations\n"
    f"{inspect.getsource(freeze)}\nimport json\nprint(json.dumps(freeze()))\n"
)
"""What :func:`packages` runs in another interpreter: :func:`freeze`, printed as JSON."""


def _same_interpreter(python: str) -> bool:
    return Path(python).absolute() == Path(sys.executable).absolute()


def packages(python: str | None = None) -> tuple[str, ...]:
    """Every distribution installed for interpreter ``python`` (default: this process's),
    in ``uv pip freeze``'s form (:func:`freeze`).

    Raises:
        InstalledError: ``python`` does not run or its answer cannot be read.
    """
    if python is None or _same_interpreter(python):
        return tuple(freeze())
    try:
        done = subprocess.run(
            [python, "-I", "-c", FREEZE], capture_output=True, text=True, check=False,
            timeout=FREEZE_TIMEOUT_S,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstalledError(f"{python}: does not run: {exc}") from exc
    try:
        listed = json.loads(done.stdout) if done.returncode == 0 else None
    except ValueError:
        listed = None
    if not isinstance(listed, list):
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise InstalledError(f"{python}: cannot list its distributions: {last}")
    return tuple(str(line) for line in listed)


def prefix_of(python: str | None = None) -> Path:
    """The environment root of interpreter ``python`` (default: this process's): the folder
    above its ``bin/`` (a virtual environment's interpreter is a link there)."""
    if python is None or _same_interpreter(python):
        return Path(sys.prefix)
    return Path(python).absolute().parent.parent


def resolution(python: str | None = None) -> Resolution | None:
    """Where the packages of ``python``'s environment (default: this process's) came from:
    the record its installer left (:data:`wsbench.paths.RESOLUTION_FILE`), the project's
    ``uv.lock`` for the project's ``.venv``, else None (not known: an interpreter outside
    any environment wsbench made)."""
    prefix = prefix_of(python)
    try:
        return msgspec.json.decode((prefix / RESOLUTION_FILE).read_bytes(), type=Resolution)
    except FileNotFoundError:
        pass
    except (OSError, msgspec.DecodeError):
        return None
    if prefix.resolve() == PROJECT_ENV.resolve():
        digest = hashlib.sha256((REPO_ROOT / PROJECT_LOCK).read_bytes()).hexdigest()
        return Resolution(source="project", sha256=digest, lock_file=PROJECT_LOCK)
    return None
