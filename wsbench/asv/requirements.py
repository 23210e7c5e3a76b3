"""Requirements and install errors as uv takes and prints them, without asv: what the
environment plugin (:mod:`wsbench.asv.uv`) and the harness's own environments
(:mod:`wsbench.asv.venvs`) share. Importing asv takes a quarter of a second; the command
line does not need it to name a failed install."""

from __future__ import annotations

import re


def requirement_spec(name: str, version: str) -> str:
    """A pip requirement for asv's ``{name: version}`` form: ``""`` means the latest release."""
    if not version:
        return name
    if re.match(r"^[<>=!~]", version):
        return f"{name}{version}"
    return f"{name}=={version}"


def install_failure_summary(output: str) -> str:
    """The one line of uv's error output that says why an install failed: its last
    ``cause``/``Caused by``/``Because`` line, else its last ``error:``/``Failed ...`` line,
    else its last line.
    """
    lines = [line.strip().lstrip("│├╰─▶\u00d7 ").strip() for line in output.splitlines()]
    lines = [line for line in lines if line]
    for prefixes in (("cause", "because"), ("error", "failed")):
        found = [line for line in lines if line.lower().startswith(prefixes)]
        if found:
            return found[-1]
    return lines[-1] if lines else "uv failed without output"
