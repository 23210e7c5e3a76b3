"""Which environments a run measures (``./bench run``'s selection, shared by the jobs that
take the same options: conformance, profiles, the nightly): the implementations,
configurations and versions chosen, new releases, other Pythons and shards."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from wsbench.asv import conf as asvconf
from wsbench.asv.conf import BenchEnv
from wsbench.impls import ImplError, get_impl
from wsbench.instrument.interpreters import InterpreterNotFound, find_python, routes
from wsbench.jobs import releases, shards
from wsbench.pythons import DEFAULT_PYTHON, PYTHONS, parse_python, pythons_of


class MainJobError(RuntimeError):
    """Bad options of a run (an unknown name, a malformed shard, a Python this machine does
    not have) or a step of the main job that failed; the message names it."""


def select_envs(
    impls: Sequence[str] | None,
    versions: str,
    configs: Sequence[str] | None = None,
    names: Sequence[str] | None = None,
) -> list[BenchEnv]:
    """The environments to run: the given implementations (default all) in the given
    configurations (default all), at the latest or all versions; or, when ``names`` are
    given, exactly the environments of those asv names (the nightly's older versions,
    :mod:`wsbench.ci.matrix`, and latest releases on other Pythons, :func:`other_python_envs`).

    Raises:
        MainJobError: an implementation name or an environment name is unknown, a
            configuration id belongs to none of the selected implementations, or
            ``names`` come with implementations or configurations.
    """
    if names:
        if impls or configs:
            raise MainJobError("--environment selects environments by itself: no --impl/--config")
        by_name = {e.name: e for e in [*asvconf.bench_envs(), *other_python_envs()]}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise MainJobError(f"unknown environment(s) {missing} (see asv.conf.json)")
        return [by_name[n] for n in dict.fromkeys(names)]
    try:
        wanted = {get_impl(name).name for name in impls} if impls else None
    except ImplError as exc:
        raise MainJobError(str(exc)) from exc
    envs = [e for e in asvconf.bench_envs() if wanted is None or e.impl.name in wanted]
    if configs:
        unknown = set(configs) - {e.config.id for e in envs}
        if unknown:
            known = ", ".join(sorted({e.config.id for e in envs}))
            raise MainJobError(f"unknown configuration(s) {sorted(unknown)} (known: {known})")
        envs = [e for e in envs if e.config.id in configs]
    return envs if versions == "all" else [e for e in envs if e.is_default]


def run_pythons(texts: Sequence[str], log: Callable[[str], None] | None = None) -> list[str]:
    """The Pythons a run measures on, of ``--python`` values (:func:`wsbench.pythons.
    pythons_of`): each one named must be on this machine; of ``"all"``, those that are not
    are skipped and said so (``log``, default stderr).

    Raises:
        MainJobError: a malformed value, or a Python named that this machine does not have
            (the message names the routes looked along).
    """
    say = log or (lambda line: print(f"wsbench: {line}", file=sys.stderr))
    try:
        names = pythons_of(list(texts))
    except ValueError as exc:
        raise MainJobError(str(exc)) from exc
    named = {parse_python(t) for t in texts if t != "all"}
    found: list[str] = []
    for name in names:
        try:
            find_python(name)
        except InterpreterNotFound as exc:
            if name in named:
                raise MainJobError(str(exc)) from exc
            say(f"Python {name} is not on this machine: not measured (looked for {routes(name)})")
            continue
        found.append(str(name))
    return found


def other_python_envs() -> list[BenchEnv]:
    """The latest release of every configuration on every Python of
    :data:`wsbench.pythons.PYTHONS` but the default: the environments ``--environment`` can
    name beside those of asv.conf.json (the nightly's, :mod:`wsbench.ci.nightly`)."""
    return on_pythons(asvconf.bench_envs(), [p for p in PYTHONS if p != DEFAULT_PYTHON])


def on_pythons(envs: Sequence[BenchEnv], pythons: Sequence[str]) -> list[BenchEnv]:
    """``envs`` on each of ``pythons``: on the default Python as they are, on every other
    the latest releases' (``is_default``) only; older versions stay on the Python of their
    time, the default."""
    out: list[BenchEnv] = []
    for python in pythons:
        if python == DEFAULT_PYTHON:
            out += envs
        else:
            out += [asvconf.on_python(e, python) for e in envs if e.is_default]
    return out


def run_envs(
    impls: Sequence[str] | None,
    versions: str,
    configs: Sequence[str] | None = None,
    names: Sequence[str] | None = None,
    *,
    new_releases: bool = False,
    shard: str | None = None,
    fetch: releases.Fetch = releases.fetch_project,
    pythons: Sequence[str] = (DEFAULT_PYTHON,),
) -> list[BenchEnv]:
    """The environments of a run (``./bench run``'s, and ``./bench conformance``'s with the
    same options): :func:`select_envs`, then with ``new_releases`` every release newer than
    the last listed in the configurations selected (:func:`wsbench.jobs.releases.
    new_release_envs`; an index that cannot be read is named on stderr and skipped), then
    on each of ``pythons`` (:func:`on_pythons`; not with ``names``, which are exact), then
    with ``shard`` (``"I/N"``) only that shard's (:func:`wsbench.jobs.shards.select`; it may
    be empty).

    Raises:
        MainJobError: as :func:`select_envs`, or a malformed ``shard``.
    """
    envs = select_envs(impls, versions, configs, names)
    if new_releases:
        chosen = list({e.impl.name: e.impl for e in envs}.values())
        found = releases.new_release_envs(chosen, fetch)
        for problem in found.problems:
            print(f"wsbench: new releases not looked up: {problem}", file=sys.stderr)
        wanted = {(e.impl.name, e.config.id) for e in envs}
        envs += [e for e in found.envs if (e.impl.name, e.config.id) in wanted]
    if not names:
        envs = on_pythons(envs, pythons)
    if shard:
        try:
            envs = shards.select(envs, shard)
        except shards.ShardError as exc:
            raise MainJobError(str(exc)) from exc
    return envs
