"""asv.conf.json, generated from the implementations' metadata: one environment per
(implementation, configuration, version).

The version matrix lives in each ``impls/<name>/meta.toml``; ``asv.conf.json`` is derived
from it (``wsbench asv-conf --write``) and a test checks the two agree. The layout gives
exactly one environment per entry (asv's ``matrix`` would make the cartesian product of every
listed package): an empty ``matrix``, one ``include`` entry per environment, and an
``exclude`` that drops the bare environment (``include`` entries are not filtered by it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wsbench.impls import Impl, ImplConfig, ImplVersion, all_impls
from wsbench.paths import REPO_ROOT
from wsbench.pythons import DEFAULT_PYTHON

ENV_TYPE = "uvpip"
"""The environment type of :mod:`wsbench.asv.uv`."""
CONF_PATH = REPO_ROOT / "asv.conf.json"


@dataclass(frozen=True)
class BenchEnv:
    """One asv environment: an implementation in one configuration at one version.

    Attributes:
        impl: the implementation.
        config: the configuration (event loop, WebSocket backend, async mode...).
        version: the version (None for the native reference, which has no package).
        is_default: True at the newest version the configuration exists at (and for the
            reference): what the quick run measures.
        python: the Python it runs on (:mod:`wsbench.pythons`): in asv.conf.json,
            :data:`DEFAULT_PYTHON` for the latest release and the Python of its time for an
            older version (:attr:`wsbench.impls.ImplVersion.python`, 3.11 for all today);
            another for the latest releases measured on it (:func:`on_python`), whose
            environments a run adds to its own configuration, as it does new releases'.
    """

    impl: Impl
    config: ImplConfig
    version: ImplVersion | None
    is_default: bool = True
    python: str = DEFAULT_PYTHON

    @property
    def requirements(self) -> dict[str, str]:
        """asv's ``req`` mapping: the package at its version, the version's extra pins and
        the configuration's."""
        if self.version is None or self.impl.package is None:
            return dict(self.config.requires)
        return {
            self.impl.package: self.version.version,
            **self.version.requires,
            **self.config.requires,
        }

    @property
    def env_vars(self) -> dict[str, str]:
        """The variables that tell the benchmarks which server to run (a client library's
        environment: ``WSBENCH_CLIENT``, so that its name never equals a server's)."""
        key = "WSBENCH_CLIENT" if self.impl.role == "client" else "WSBENCH_IMPL"
        return {key: self.impl.name, "WSBENCH_CONFIG": self.config.id}

    @property
    def row_name(self) -> str:
        """The row's name on the site, e.g. "Starlette · uvicorn 0.54 · wsproto · uvloop"."""
        return self.impl.row_name(self.config, self.version)

    @property
    def name(self) -> str:
        """asv's name for the environment (asv's own ``get_env_name`` rules)."""
        from asv.environment import get_env_name

        tagged = {("build", k): v for k, v in self.env_vars.items()}
        name: str = get_env_name(ENV_TYPE, self.python, self.requirements, tagged)
        return name

    def include_entry(self) -> dict[str, Any]:
        """The entry of asv.conf.json's ``include`` list."""
        entry: dict[str, Any] = {"python": self.python}
        if self.requirements:
            entry["req"] = self.requirements
        # "env", not "env_nobuild": build variables are part of the environment's folder
        # name, so two configurations with the same requirements (autobahn asyncio and
        # Twisted, the reference's two protocols) get a folder each. With a shared folder asv
        # skips the second one's install step and never gives its benchmarks ASV_COMMIT.
        entry["env"] = self.env_vars
        return entry


def bench_envs(impls: list[Impl] | None = None) -> list[BenchEnv]:
    """Every environment: each implementation in each configuration at each version that
    configuration exists at (the reference once per configuration), the latest on
    :data:`DEFAULT_PYTHON` and every older one on the Python of its time
    (:attr:`wsbench.impls.ImplVersion.python`)."""
    envs: list[BenchEnv] = []
    for impl in impls if impls is not None else all_impls():
        for config in impl.configs:
            if impl.package is None:
                envs.append(BenchEnv(impl, config, None))
            else:
                versions = [v for v in impl.versions if config.supports(v.version)]
                envs.extend(
                    BenchEnv(
                        impl, config, v, is_default=v is versions[-1],
                        python=DEFAULT_PYTHON if v is versions[-1] else v.python,
                    )
                    for v in versions
                )  # fmt: skip
    return envs


def on_python(env: BenchEnv, python: str) -> BenchEnv:
    """``env`` on Python ``python`` (e.g. ``"3.13"``): the same requirements in an
    environment of that interpreter, named ``uvpip-py3.13-...``."""
    return replace(env, python=python)


def listed_env(impl: Impl, config_id: str, version: str) -> BenchEnv | None:
    """The environment of ``impl`` in configuration ``config_id`` at listed ``version``, or
    None when that configuration does not exist at that version (or it is not listed)."""
    for env in bench_envs([impl]):
        if env.config.id == config_id and env.version and env.version.version == version:
            return env
    return None


def asv_conf(impls: list[Impl] | None = None, extra: Sequence[BenchEnv] = ()) -> dict[str, Any]:
    """The content of asv.conf.json, with environments ``extra`` beside those of the
    metadata (the nightly's new releases)."""
    return {
        "version": 1,
        "project": "wsbench",
        "project_url": "https://github.com/wsbench/wsbench",
        "repo": ".",
        "branches": ["main"],
        "dvcs": "git",
        "environment_type": ENV_TYPE,
        "plugins": [".wsbench.asv.uv"],
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
        "include": [env.include_entry() for env in [*bench_envs(impls), *extra]],
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
