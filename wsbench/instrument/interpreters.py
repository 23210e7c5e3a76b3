"""The interpreter that answers to a Python name on this machine, and what it is.

An interpreter is looked for along three routes, in this order (:func:`find_python`):

1. on ``PATH``, by its executable's name (``python3.12``, ``python3.14t``), as
   ``actions/setup-python`` installs it on a runner;
2. in pyenv (``$PYENV_ROOT/versions/3.12.*/bin/python3.12``, the newest patch release
   first), as on the development machine, where only one version is pyenv's global and the
   others' shims on PATH refuse to run;
3. named by :data:`PYTHONS_ENV`, a list of interpreter paths (for one installed anywhere
   else).

Each candidate is run once (:func:`probe`) and taken only if it is the version and build
asked for: a shim that refuses, or a ``python3.13`` that is really 3.12, is passed over and
said so when nothing matches. The harness never lets uv download an interpreter
(:data:`NO_DOWNLOADS`): a Python the machine does not have is *not found*, with the routes
tried.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from wsbench.pythons import PythonName, parse_python
from wsbench.results.runformat import Interpreter

PYTHONS_ENV = "WSBENCH_PYTHONS"
"""Environment variable with interpreter paths, separated by ``os.pathsep``, for Pythons
that are neither on PATH nor in pyenv."""
NO_DOWNLOADS = {"UV_PYTHON_DOWNLOADS": "never"}
"""The environment that keeps uv from downloading a Python it does not find."""
PROBE_TIMEOUT_S = 20.0
"""Seconds an interpreter has to describe itself (a cold start of a debug build is slow)."""


def describe() -> dict[str, object]:
    """This interpreter's account of itself: :class:`~wsbench.results.runformat.Interpreter`'s
    fields and ``executable``. Self-contained: :data:`PROBE` runs its source in another
    interpreter (any Python 3)."""
    import platform
    import shlex
    import sys
    import sysconfig

    jit = getattr(sys, "_jit", None)
    gil = getattr(sys, "_is_gil_enabled", None)
    options = shlex.split(sysconfig.get_config_var("CONFIG_ARGS") or "")
    pgo = "--enable-optimizations" in options
    lto = any(o == "--with-lto" or (o.startswith("--with-lto=") and o != "--with-lto=no")
              for o in options)  # fmt: skip
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "gil_enabled": gil() if gil is not None else True,
        "jit": ("on" if jit.is_enabled() else "off") if jit and jit.is_available() else "none",
        "compiler": platform.python_compiler(),
        "optimizations": [name for name, on in (("pgo", pgo), ("lto", lto)) if on],
        "executable": sys.executable,
    }


PROBE = (
    "from __future__ import annotations\n"
    f"{inspect.getsource(describe)}\nimport json\nprint(json.dumps(describe()))\n"
)
"""What :func:`probe` runs in an interpreter: :func:`describe`, printed as JSON."""


class InterpreterNotFound(RuntimeError):
    """No interpreter of the Python asked for on this machine; the message names every route
    tried and what each found."""


@dataclass(frozen=True)
class PythonBuild:
    """An interpreter found on this machine.

    Attributes:
        executable: its path (as found: a link is not resolved).
        interpreter: its build, in its own words (:func:`describe`), as run documents
            record it.
    """

    executable: str
    interpreter: Interpreter

    @property
    def version(self) -> str:
        """Its full version, e.g. ``"3.12.1"``."""
        return self.interpreter.version

    @property
    def name(self) -> PythonName:
        """The :class:`~wsbench.pythons.PythonName` it answers to."""
        return parse_python(self.interpreter.python)


def this_interpreter() -> Interpreter:
    """The build of the interpreter running this process (:func:`describe`)."""
    fields = describe()
    fields.pop("executable")
    return msgspec.convert(fields, Interpreter)


def probe(python: str | Path) -> PythonBuild:
    """Run ``python`` once and read its :data:`PROBE`.

    Raises:
        InterpreterNotFound: it does not run, or its answer cannot be read (the message
            says why, with the end of its error output).
    """
    try:
        done = subprocess.run(
            [str(python), "-I", "-c", PROBE], capture_output=True, text=True, check=False,
            timeout=PROBE_TIMEOUT_S,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InterpreterNotFound(f"{python}: does not run: {exc}") from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[0]
        raise InterpreterNotFound(f"{python}: exits {done.returncode}: {last}")
    try:
        fields = json.loads(done.stdout)
        executable = str(fields.pop("executable"))
        return PythonBuild(executable, msgspec.convert(fields, Interpreter))
    except (ValueError, TypeError, KeyError, msgspec.ValidationError) as exc:
        raise InterpreterNotFound(f"{python}: unreadable answer {done.stdout[:200]!r}") from exc


def _patch_key(folder: Path) -> tuple[int, ...]:
    """Sort key of a pyenv version folder by its numbers (``3.12.10`` after ``3.12.9``)."""
    return tuple(int(n) for n in re.findall(r"\d+", folder.name))


def candidates(name: PythonName, environ: Mapping[str, str]) -> list[tuple[str, Path]]:
    """Where an interpreter of ``name`` may be, route by route (see the module): pairs of
    the route's description and a path, in the order they are tried."""
    found: list[tuple[str, Path]] = []
    on_path = shutil.which(name.executable, path=environ.get("PATH", ""))
    if on_path:
        found.append(("on PATH", Path(on_path)))
    root = Path(environ.get("PYENV_ROOT") or Path(environ.get("HOME", "~")) / ".pyenv")
    suffix = "t" if name.free_threaded else ""
    folders = [
        f
        for f in (root / "versions").glob(f"{name.major}.{name.minor}*")
        if re.fullmatch(rf"{name.major}\.{name.minor}(\.\d+)?{suffix}(-dev)?", f.name)
    ]
    for folder in sorted(folders, key=_patch_key, reverse=True):
        found.append(("in pyenv", folder / "bin" / name.executable))
    for entry in environ.get(PYTHONS_ENV, "").split(os.pathsep):
        if entry.strip():
            found.append((f"in {PYTHONS_ENV}", Path(entry.strip())))
    return found


def find_python(name: PythonName, environ: Mapping[str, str] | None = None) -> PythonBuild:
    """The first interpreter along the routes (see the module) that is ``name``: its
    version's major and minor, and the free-threaded build for a ``t`` name.

    Args:
        name: the Python asked for.
        environ: where ``PATH``, ``PYENV_ROOT``, ``HOME`` and :data:`PYTHONS_ENV` are read
            (default: this process's environment).

    Raises:
        InterpreterNotFound: none is; the message names each route and what it found.
    """
    environ = os.environ if environ is None else environ
    tried: list[str] = []
    for route, path in candidates(name, environ):
        try:
            build = probe(path)
        except InterpreterNotFound as exc:
            tried.append(f"{route}: {exc}")
            continue
        if build.name == name:
            return build
        tried.append(f"{route}: {path} is Python {build.name} ({build.version})")
    detail = "".join(f"\n  {line}" for line in tried) or " (no candidate on any route)"
    raise InterpreterNotFound(
        f"no Python {name} on this machine: looked for {routes(name)}{detail}"
    )


def routes(name: PythonName) -> str:
    """The routes :func:`find_python` takes for ``name``, in words."""
    return (
        f"{name.executable} on PATH, $PYENV_ROOT/versions/{name.major}.{name.minor}.*"
        f"{'t' if name.free_threaded else ''}/bin/{name.executable} (pyenv), or its path in "
        f"{PYTHONS_ENV}"
    )


def executable_of(python: str) -> str:
    """The path of this machine's interpreter of Python ``python`` (``"3.13"``,
    ``"3.14t"``; :func:`find_python`), for ``uv venv --python``.

    Raises:
        InterpreterNotFound: none, or ``python`` is not a Python name.
    """
    try:
        name = parse_python(python)
    except ValueError as exc:
        raise InterpreterNotFound(str(exc)) from exc
    return find_python(name).executable
