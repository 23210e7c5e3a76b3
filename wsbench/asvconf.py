"""asv.conf.json, generated from the implementations' metadata: one environment per
(implementation, version).

The version matrix lives in each ``impls/<name>/meta.toml``; ``asv.conf.json`` is derived
from it (``wsbench asv-conf --write``) and a test checks the two agree. The layout follows
``shared/notes/asv.md``: an empty ``matrix``, one ``include`` entry per environment, and an
``exclude`` that drops the bare environment.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wsbench.impls import Impl, ImplVersion, all_impls
from wsbench.paths import REPO_ROOT

PYTHON = "3.11"
"""The Python version of every benchmark environment."""
ENV_TYPE = "uvpip"
"""The environment type of :mod:`wsbench.asv_uv`."""
CONF_PATH = REPO_ROOT / "asv.conf.json"


@dataclass(frozen=True)
class BenchEnv:
    """One asv environment: an implementation at one version.

    Attributes:
        impl: the implementation.
        version: the version (None for the native reference, which has no package).
    """

    impl: Impl
    version: ImplVersion | None

    @property
    def requirements(self) -> dict[str, str]:
        """asv's ``req`` mapping: the package at its version plus the extra pins."""
        if self.version is None or self.impl.package is None:
            return {}
        return {self.impl.package: self.version.version, **self.version.requires}

    @property
    def is_default(self) -> bool:
        """True for the latest listed version (and the reference): what the quick run measures."""
        return self.version is None or self.version == self.impl.latest

    @property
    def name(self) -> str:
        """asv's name for the environment (asv's own ``get_env_name`` rules)."""
        from asv.environment import get_env_name

        tagged = {("nobuild", "WSBENCH_IMPL"): self.impl.name}
        name: str = get_env_name(ENV_TYPE, PYTHON, self.requirements, tagged)
        return name

    def include_entry(self) -> dict[str, Any]:
        """The entry of asv.conf.json's ``include`` list."""
        entry: dict[str, Any] = {"python": PYTHON}
        if self.requirements:
            entry["req"] = self.requirements
        entry["env_nobuild"] = {"WSBENCH_IMPL": self.impl.name}
        return entry


def bench_envs(impls: list[Impl] | None = None) -> list[BenchEnv]:
    """Every environment: each implementation at each listed version (the reference once)."""
    envs: list[BenchEnv] = []
    for impl in impls if impls is not None else all_impls():
        if impl.package is None:
            envs.append(BenchEnv(impl, None))
        else:
            envs.extend(BenchEnv(impl, v) for v in impl.versions)
    return envs


def asv_conf(impls: list[Impl] | None = None) -> dict[str, Any]:
    """The content of asv.conf.json."""
    return {
        "version": 1,
        "project": "wsbench",
        "project_url": "https://github.com/wsbench/wsbench",
        "repo": ".",
        "branches": ["main"],
        "dvcs": "git",
        "environment_type": ENV_TYPE,
        "plugins": [".wsbench.asv_uv"],
        "build_command": [],
        "install_command": [],
        "uninstall_command": [],
        "benchmark_dir": "benchmarks",
        "env_dir": ".asv/env",
        "results_dir": ".asv/results",
        "html_dir": ".asv/html",
        "install_timeout": 900,
        "matrix": {},
        "exclude": [{"python": ".*"}],
        "include": [env.include_entry() for env in bench_envs(impls)],
    }


def render(conf: dict[str, Any]) -> str:
    """asv.conf.json's text: strict JSON, two-space indent, trailing newline."""
    return json.dumps(conf, indent=2) + "\n"


def write(path: Path = CONF_PATH) -> None:
    """Write asv.conf.json from the metadata."""
    path.write_text(render(asv_conf()), encoding="utf-8")


def is_in_sync(path: Path = CONF_PATH) -> bool:
    """True when asv.conf.json equals what the metadata generates."""
    return path.exists() and path.read_text(encoding="utf-8") == render(asv_conf())
