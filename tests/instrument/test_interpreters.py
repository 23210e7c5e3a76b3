"""wsbench/instrument/interpreters.py: an interpreter found on PATH, in pyenv or by the
environment variable, checked by running it, and a clear error naming the routes when none
is the Python asked for."""

from __future__ import annotations

import os
import platform
import shlex
import sys
import sysconfig
from pathlib import Path

import pytest

from wsbench.instrument.interpreters import (
    PYTHONS_ENV,
    InterpreterNotFound,
    find_python,
    probe,
    this_interpreter,
)
from wsbench.pythons import PythonName

THIS = probe(sys.executable)
"""This interpreter's own account: the one every route below leads to."""


def _link(folder: Path, name: str, target: str = sys.executable) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).symlink_to(target)
    return folder / name


def _environ(tmp_path: Path, **more: str) -> dict[str, str]:
    """An environment with an empty PATH folder and an empty pyenv root of its own."""
    (tmp_path / "path").mkdir(parents=True, exist_ok=True)
    return {"PATH": str(tmp_path / "path"), "PYENV_ROOT": str(tmp_path / "pyenv"), **more}


def test_this_interpreter_describes_itself_the_same_in_process_and_out() -> None:
    build = THIS.interpreter
    assert build.version == platform.python_version()
    assert build.implementation == "CPython"
    assert THIS.name == PythonName(sys.version_info.major, sys.version_info.minor)
    assert build.python == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert build.compiler and Path(THIS.executable).exists()
    assert build.jit in ("on", "off", "none")
    assert build.gil_enabled or build.free_threaded
    assert this_interpreter() == build
    # The optimizations, read from the configure options the build records.
    configured = shlex.split(sysconfig.get_config_var("CONFIG_ARGS") or "")
    assert build.optimizations == tuple(
        name
        for name, option in (("pgo", "--enable-optimizations"), ("lto", "--with-lto"))
        if any(o.split("=")[0] == option and o != "--with-lto=no" for o in configured)
    )


def test_each_route_finds_it_in_order(tmp_path: Path) -> None:
    name = THIS.name
    environ = _environ(tmp_path)
    pyenv = _link(tmp_path / "pyenv" / "versions" / f"{THIS.version}" / "bin", name.executable)
    _link(tmp_path / "pyenv" / "versions" / f"{name}.0" / "bin", name.executable, "/bin/false")
    found = find_python(name, environ)  # pyenv's newest patch release first
    assert (found.executable, found.interpreter) == (str(pyenv), THIS.interpreter)
    on_path = _link(tmp_path / "path", name.executable)
    assert find_python(name, environ).executable == str(on_path)  # PATH before pyenv
    pyenv.unlink()
    on_path.unlink()
    environ[PYTHONS_ENV] = os.pathsep.join(["/nowhere/python", sys.executable])
    assert find_python(name, environ) == THIS


def test_a_python_not_there_names_every_route_and_what_it_found(tmp_path: Path) -> None:
    wanted = PythonName(3, 99)
    environ = _environ(tmp_path, **{PYTHONS_ENV: sys.executable})
    _link(tmp_path / "path", wanted.executable)  # a python3.99 that is really this one
    _link(tmp_path / "pyenv" / "versions" / "3.99.1" / "bin", wanted.executable, "/bin/false")
    with pytest.raises(InterpreterNotFound) as caught:
        find_python(wanted, environ)
    message = str(caught.value)
    assert message.startswith(
        f"no Python 3.99 on this machine: looked for python3.99 on PATH, "
        f"$PYENV_ROOT/versions/3.99.*/bin/python3.99 (pyenv), or its path in {PYTHONS_ENV}"
    )
    assert f"on PATH: {tmp_path}/path/python3.99 is Python {THIS.name} ({THIS.version})" in message
    assert "in pyenv: " in message and "exits 1" in message
    assert f"in {PYTHONS_ENV}: {sys.executable} is Python {THIS.name}" in message
    with pytest.raises(InterpreterNotFound, match=r"\(no candidate on any route\)"):
        find_python(wanted, _environ(tmp_path / "empty"))


def test_the_free_threaded_build_is_a_python_of_its_own(tmp_path: Path) -> None:
    name = THIS.name
    other = PythonName(name.major, name.minor, not name.free_threaded)
    environ = _environ(tmp_path, **{PYTHONS_ENV: sys.executable})
    _link(tmp_path / "path", other.executable)
    with pytest.raises(InterpreterNotFound, match=f"is Python {name} "):
        find_python(other, environ)
