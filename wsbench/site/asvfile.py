"""Read asv 0.6 result files (result format version 2), following asv's own ``asv/results.py``.

Layout under the results directory::

    benchmarks.json                         benchmark name -> {"param_names", "params", "unit", ...}
    <machine>/machine.json                  {"machine", "cpu", "num_cpu", "os", "arch", "ram", ...}
    <machine>/<commit8>-<env_name>.json     one file per (commit, environment)

In a result file, ``results[name]`` is a row of values matching ``result_columns``
(``result``, ``params``, ``version``, ``started_at``, ...), with trailing ``None`` columns
dropped. ``result`` is None (nothing measured) or a list over the cartesian product of
``params`` (a list of lists of ``repr`` strings such as ``'16'``), first parameter varying
slowest. A value is a float, ``None`` (the benchmark failed) or NaN (it was skipped).
asv writes bare ``NaN``/``Infinity``, which Python's :mod:`json` accepts.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

API_VERSION = 2
"""The asv result file format this module reads (asv 0.6)."""

NOT_RESULT_FILES = frozenset({"machine.json", "benchmarks.json"})

ParamValue = int | float | str
"""One parameter value, as the benchmark received it (``'16'`` in the file -> ``16``)."""


class AsvFormatError(ValueError):
    """A file is not an asv 0.6 result, machine or benchmarks file."""


@dataclass(frozen=True)
class AsvValue:
    """One stored figure of one benchmark for one parameter combination.

    Attributes:
        value: the figure in the benchmark's unit; None when failed or skipped.
        state: ``"ok"``, ``"failed"`` (asv stored null) or ``"skipped"`` (asv stored NaN).
    """

    value: float | None
    state: str


@dataclass(frozen=True)
class AsvResultFile:
    """One asv result file: the figures of one environment at one commit on one machine.

    Attributes:
        path: the file.
        machine: the machine name (the parent folder).
        stem: ``<commit8>-<env_name>``, shared with the wsbench record of the same run.
        commit: the full commit hash.
        env_name: asv's environment name, e.g.
            ``uvpip-py3.11-websockets15.0.1-WSBENCH_IMPLwebsockets``.
        date_ms: the commit's date, JavaScript timestamp (milliseconds since the epoch).
        python: the environment's Python version as asv recorded it.
        requirements: the environment's pinned requirements ``{package: version}``.
        env_vars: the environment's matrix variables (wsbench sets ``WSBENCH_IMPL``).
        started_at_ms: the earliest benchmark start time (ms since the epoch), or None.
        values: ``{benchmark name: {parameter combination: AsvValue}}``; a combination is a
            tuple of parameter values in the benchmark's ``params`` order.
    """

    path: Path
    machine: str
    stem: str
    commit: str
    env_name: str
    date_ms: int
    python: str
    requirements: dict[str, str]
    env_vars: dict[str, str]
    started_at_ms: int | None
    values: dict[str, dict[tuple[ParamValue, ...], AsvValue]]


def parse_param(text: str) -> ParamValue:
    """One asv parameter string (a ``repr``, e.g. ``'16'`` or ``"'abc'"``) as its value.

    Raises:
        AsvFormatError: the text is not the repr of an int, float or str.
    """
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise AsvFormatError(f"unsupported parameter value {text!r}") from exc
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise AsvFormatError(f"unsupported parameter value {text!r}")
    return value


def _figure(raw: object) -> AsvValue:
    if raw is None:
        return AsvValue(None, "failed")
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise AsvFormatError(f"unexpected result value {raw!r}")
    if math.isnan(raw):
        return AsvValue(None, "skipped")
    return AsvValue(float(raw), "ok")


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AsvFormatError(f"{path}: {exc}") from exc
    if not isinstance(data, dict):
        raise AsvFormatError(f"{path}: not a JSON object")
    return data


def load_result_file(path: Path) -> AsvResultFile:
    """Read one asv result file ``<machine>/<commit8>-<env_name>.json``.

    Raises:
        AsvFormatError: unreadable, not format version 2, or a required key is missing.
    """
    data = _load_json(path)
    if data.get("version") != API_VERSION:
        raise AsvFormatError(f"{path}: asv result format {data.get('version')!r}, expected 2")
    try:
        columns: list[str] = data["result_columns"]
        values: dict[str, dict[tuple[ParamValue, ...], AsvValue]] = {}
        starts: list[int] = []
        for name, row in data["results"].items():
            cells = dict(zip(columns, row, strict=False))
            params = [[parse_param(p) for p in axis] for axis in cells.get("params") or []]
            combos = list(itertools.product(*params))
            result = cells.get("result")
            raw = [None] * len(combos) if result is None else list(result)
            if len(raw) != len(combos):
                raise AsvFormatError(f"{path}: {name}: {len(raw)} results, {len(combos)} params")
            values[name] = {c: _figure(v) for c, v in zip(combos, raw, strict=True)}
            if isinstance(cells.get("started_at"), int):
                starts.append(cells["started_at"])
        return AsvResultFile(
            path=path,
            machine=path.parent.name,
            stem=path.stem,
            commit=str(data["commit_hash"]),
            env_name=str(data["env_name"]),
            date_ms=int(data["date"]),
            python=str(data["python"]),
            requirements={str(k): str(v) for k, v in (data.get("requirements") or {}).items()},
            env_vars={str(k): str(v) for k, v in (data.get("env_vars") or {}).items()},
            started_at_ms=min(starts) if starts else None,
            values=values,
        )
    except (KeyError, TypeError) as exc:
        raise AsvFormatError(f"{path}: missing or malformed {exc}") from exc


def load_machine(path: Path) -> dict[str, str]:
    """Read ``<machine>/machine.json`` as ``{key: value}`` (all values as strings).

    Raises:
        AsvFormatError: unreadable or without a ``machine`` name.
    """
    data = _load_json(path)
    if not isinstance(data.get("machine"), str):
        raise AsvFormatError(f"{path}: no machine name")
    return {str(k): str(v) for k, v in data.items() if k != "version"}


def load_param_names(path: Path) -> dict[str, list[str]]:
    """Read ``benchmarks.json`` as ``{benchmark name: parameter names}``; {} if it is missing.

    Raises:
        AsvFormatError: the file exists but is unreadable.
    """
    if not path.is_file():
        return {}
    data = _load_json(path)
    return {
        name: [str(n) for n in bench.get("param_names", [])]
        for name, bench in data.items()
        if isinstance(bench, dict)
    }
