"""``./bench lock``: the project's lock (``uv.lock``) and the environment locks
(``impls/*/lock.toml``, ``clients/*/lock.toml``, :mod:`wsbench.envlock`).

The environments locked are every environment a run can make from the metadata: each
implementation in each configuration at each listed version on the Python of its time
(:func:`wsbench.asv.conf.bench_envs`), the latest releases on every other Python wsbench
names (:data:`wsbench.pythons.PYTHONS`, resolved for that Python whether or not this machine
has it), and every client library's environment (:func:`wsbench.jobs.clients.client_envs`).

Each is resolved by ``uv pip compile`` for x86-64 Linux (:data:`PLATFORM`) from the
registry's releases of the day. By default only what no entry answers yet is resolved, so a
new version or a changed pin adds its entries and leaves the others as they were;
``upgrade`` resolves every selected entry again. Requirements that do not resolve are
locked too, with the resolver's reason, and install as a failure with that reason. A
failure of the resolver itself (the registry out of reach) writes nothing.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from wsbench import envlock
from wsbench.asv.conf import BenchEnv, bench_envs, on_python
from wsbench.asv.install import install_specs
from wsbench.impls import Impl, ImplError, all_impls
from wsbench.instrument.interpreters import NO_DOWNLOADS
from wsbench.jobs.clients import client_envs
from wsbench.paths import CLIENTS_DIR, REPO_ROOT, repo_relative
from wsbench.pythons import DEFAULT_PYTHON, PYTHONS, parse_python

PLATFORM = "x86_64-manylinux_2_28"
"""The platform the environments are resolved for (``uv pip compile --python-platform``):
x86-64 Linux with a glibc of 2.28 or newer, which every machine wsbench measures on has."""
RESOLVERS = 4
"""Resolutions run at once: each mostly waits on the registry."""
UNRESOLVABLE = ("No solution found", "Failed to build", "Failed to download and build")
"""The resolver's words for requirements that do not resolve on any day (locked with the
reason); any other failure (the registry out of reach) stops the command instead."""


class LockJobError(RuntimeError):
    """A lock cannot be written: uv is missing, or the resolver failed for a reason other
    than the requirements (the message has uv's output)."""


@dataclass(frozen=True)
class Wanted:
    """An environment lock entry that the metadata asks for.

    Attributes:
        owner: the implementation (or client library) whose ``lock.toml`` holds it.
        python: the Python it is resolved for (``"3.11"``, ``"3.14t"``).
        requires: what the environment installs (:func:`wsbench.asv.install.install_specs`).
    """

    owner: Impl
    python: str
    requires: tuple[str, ...]

    @property
    def lock_file(self) -> Path:
        """The ``lock.toml`` that holds it."""
        return envlock.lock_path(self.owner.directory)


@dataclass(frozen=True)
class LockOptions:
    """``./bench lock``'s options (:mod:`wsbench.commands.lock`).

    Attributes:
        upgrade: resolve every selected entry again from today's releases (and
            ``uv lock --upgrade``), not only what no entry answers.
        check: write nothing; report what is missing or stale.
        project: the project's ``uv.lock``.
        environments: the environment locks.
        impls: only these implementations' and client libraries' locks (empty: all).
    """

    upgrade: bool = False
    check: bool = False
    project: bool = True
    environments: bool = True
    impls: Sequence[str] = ()


Resolve = Callable[[str, str, tuple[str, ...], str], envlock.LockEntry]
"""``(uv, python, requires, today) -> entry``: :func:`resolve`'s signature."""


def environments(impls: Iterable[Impl] | None = None) -> list[BenchEnv]:
    """Every environment a run can make from the metadata of ``impls`` (default: every
    implementation and client library), as the module docstring lists them."""
    chosen = [*all_impls(), *all_impls(CLIENTS_DIR)] if impls is None else list(impls)
    envs = bench_envs([i for i in chosen if i.role == "server"])
    envs += [on_python(e, p) for e in envs if e.is_default for p in PYTHONS if p != DEFAULT_PYTHON]
    clients = [i.name for i in chosen if i.role == "client"]
    if clients:
        envs += client_envs(clients, versions="all")
    return envs


def wanted(impls: Iterable[Impl] | None = None) -> list[Wanted]:
    """The lock entries :func:`environments` need, without duplicates (two configurations
    with the same requirements share one)."""
    seen: dict[tuple[str, str, tuple[str, ...]], Wanted] = {}
    for env in environments(impls):
        want = Wanted(env.impl, env.python, install_specs(env))
        seen.setdefault((str(want.lock_file), want.python, want.requires), want)
    return list(seen.values())


def select(names: Sequence[str]) -> list[Impl] | None:
    """The implementations and client libraries named (both, where a server and a client
    library share the name; None for none named: all).

    Raises:
        wsbench.impls.ImplError: an unknown name (the message lists the known ones).
    """
    if not names:
        return None
    every = [*all_impls(), *all_impls(CLIENTS_DIR)]
    known = {i.name for i in every}
    unknown = [n for n in names if n not in known]
    if unknown:
        listed = ", ".join(sorted(known))
        raise ImplError(f"unknown implementation {unknown[0]!r} (known: {listed})")
    return [i for i in every if i.name in names]


def resolve(uv: str, python: str, requires: tuple[str, ...], today: str) -> envlock.LockEntry:
    """The entry for ``requires`` on ``python``, resolved by ``uv pip compile`` now
    (``today``: its ``resolved_on``).

    Raises:
        LockJobError: the resolver failed for a reason other than the requirements.
    """
    version = str(parse_python(python)).rstrip("t")  # the resolver has no free-threaded marker
    argv = [uv, "pip", "compile", "-", "--quiet", "--no-header", "--no-annotate",
            "--python-version", version, "--python-platform", PLATFORM]  # fmt: skip
    proc = subprocess.run(
        argv, input="".join(f"{r}\n" for r in requires), capture_output=True, text=True,
        check=False, env={**os.environ, **NO_DOWNLOADS},
    )  # fmt: skip
    if proc.returncode == 0:
        packages = tuple(line.strip() for line in proc.stdout.splitlines() if line.strip())
        return envlock.LockEntry(python, requires, today, packages=packages)
    output = proc.stderr.strip()
    if any(words in output for words in UNRESOLVABLE):
        return envlock.LockEntry(python, requires, today, error=output)
    raise LockJobError(f"uv pip compile for {' '.join(requires)} on {python} failed:\n{output}")


@dataclass(frozen=True)
class Outcome:
    """What :func:`lock_environments` found or did for one lock file.

    Attributes:
        lock_file: the file.
        resolved: entries resolved now (written unless checking).
        kept: entries that answered already.
        dropped: entries no environment needs any more (removed unless checking).
        unresolvable: of ``resolved``, those that do not resolve.
    """

    lock_file: Path
    resolved: int
    kept: int
    dropped: int
    unresolvable: int

    @property
    def in_sync(self) -> bool:
        """True when the file answers every environment and holds nothing else."""
        return self.resolved == 0 and self.dropped == 0


def lock_environments(
    options: LockOptions, uv: str, today: str, resolve: Resolve = resolve
) -> list[Outcome]:
    """Bring the selected environment locks in line with the metadata (with ``check``, only
    say how far they are): each wanted entry kept from the file unless ``upgrade``, the
    missing ones resolved (at most :data:`RESOLVERS` at a time), the unneeded ones dropped.
    One :class:`Outcome` per lock file, in the implementations' order.

    Raises:
        LockJobError: a resolution failed (nothing is written then).
        wsbench.envlock.LockError: a lock file cannot be read.
        wsbench.impls.ImplError: an unknown name in ``options.impls``.
    """
    chosen = select(options.impls)
    by_file: dict[Path, list[Wanted]] = {}
    for want in wanted(chosen):
        by_file.setdefault(want.lock_file, []).append(want)
    existing = {path: envlock.load(path) for path in by_file}
    todo: list[Wanted] = []
    kept: dict[Path, list[envlock.LockEntry]] = {}
    for path, wants in by_file.items():
        for want in wants:
            entry = envlock.find(existing[path], want.python, want.requires)
            if entry is None or options.upgrade:
                todo.append(want)
            else:
                kept.setdefault(path, []).append(entry)
    fresh: dict[Path, list[envlock.LockEntry]] = {}
    if not options.check:
        with ThreadPoolExecutor(RESOLVERS) as pool:
            entries = list(pool.map(lambda w: resolve(uv, w.python, w.requires, today), todo))
        for want, entry in zip(todo, entries, strict=True):
            fresh.setdefault(want.lock_file, []).append(entry)
    outcomes = []
    for path, wants in by_file.items():
        keep, new = kept.get(path, []), fresh.get(path, [])
        used = {e.key for e in keep} | {envlock.key_of(w.python, w.requires) for w in wants}
        dropped = sum(1 for e in existing[path] if e.key not in used)
        resolved = sum(1 for w in todo if w.lock_file == path)
        if not options.check and (new or dropped or not path.exists()):
            path.write_text(envlock.render(wants[0].owner.name, [*keep, *new]), encoding="utf-8")
        unresolvable = sum(1 for e in new if e.error is not None)
        outcomes.append(Outcome(path, resolved, len(keep), dropped, unresolvable))
    return outcomes


def lock_project(uv: str, *, upgrade: bool, check: bool) -> bool:
    """``uv lock`` of the project (``--upgrade``: from today's releases; ``--check``: only
    whether ``uv.lock`` matches ``pyproject.toml``). True when it succeeded (or matches);
    uv's own messages go to stderr."""
    argv = [uv, "lock", *(["--check"] if check else []), *(["--upgrade"] if upgrade else [])]
    proc = subprocess.run(argv, cwd=REPO_ROOT, check=False, env={**os.environ, **NO_DOWNLOADS})
    return proc.returncode == 0


def run(options: LockOptions, uv: str, log: Callable[[str], object] = print) -> int:
    """``./bench lock``: 0 when everything asked for is written (or, with ``check``, in
    sync), 1 when a check finds something stale (each named, with the command that fixes
    it) or ``uv lock`` fails.

    Raises:
        LockJobError, wsbench.envlock.LockError, wsbench.impls.ImplError: see
            :func:`lock_environments`.
    """
    ok = True
    if options.project:
        if lock_project(uv, upgrade=options.upgrade, check=options.check):
            log("uv.lock: in sync with pyproject.toml" if options.check else "uv.lock: written")
        else:
            ok = False
            log("uv.lock: " + ("stale: run ./bench lock" if options.check else "uv lock failed"))
    if options.environments:
        today = datetime.now(UTC).date().isoformat()
        for outcome in lock_environments(options, uv, today):
            name = repo_relative(outcome.lock_file)
            if options.check:
                if not outcome.in_sync:
                    ok = False
                    log(f"{name}: {outcome.resolved} environment(s) not locked, "
                        f"{outcome.dropped} entry(ies) unused: run ./bench lock")  # fmt: skip
            elif outcome.resolved or outcome.dropped:
                bad = outcome.unresolvable
                failing = f" ({bad} do not resolve)" if bad else ""
                log(f"{name}: {outcome.resolved} resolved{failing}, {outcome.kept} kept, "
                    f"{outcome.dropped} dropped")  # fmt: skip
        if options.check and ok:
            log("environment locks: every environment is locked")
    return 0 if ok else 1
