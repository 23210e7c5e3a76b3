"""Building and running the native load generator (``loadgen/``, binary ``wsbench-loadgen``).

The binary's command line and its JSON report are documented in ``loadgen/README.md``.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from wsbench import loadreport
from wsbench.digest import files_sha256, tree_files
from wsbench.instrument.cpus import start_pinned
from wsbench.loadreport import Report
from wsbench.paths import LOADGEN_DIR, cache_dir

BINARY_ENV = "WSBENCH_LOADGEN_BINARY"
"""Environment variable naming a prebuilt load generator to use instead of building one."""
CRATE = "wsbench-loadgen"
"""The load generator's cargo package (and binary) name."""
SOURCE_PATTERNS = ("Cargo.toml", "Cargo.lock", "src/**/*.rs", "corpus/*.jsonl")
"""The load generator's build inputs, relative to its folder (the JSON corpus is compiled in)."""


class LoadgenError(RuntimeError):
    """The load generator could not be built, could not run, or printed no valid report."""


def source_sha256(root: Path = LOADGEN_DIR) -> str:
    """SHA-256 (hex) of the load generator's build inputs (:data:`SOURCE_PATTERNS`)."""
    return files_sha256(root, tree_files(root, SOURCE_PATTERNS))


def cached_binary(root: Path = LOADGEN_DIR) -> Path:
    """Where the binary built from ``root``'s sources is kept: one per source hash, so that
    every commit with the same load generator sources shares one build."""
    return cache_dir() / "loadgen" / source_sha256(root)[:16] / "wsbench-loadgen"


def ensure_built(*, quiet: bool = False, root: Path = LOADGEN_DIR) -> Path:
    """The load generator built from ``root`` (default: this tree's ``loadgen/``), built
    with ``cargo build --release`` unless the cache already has a build of the same sources
    (:func:`cached_binary`). Builds share one cargo target folder in the cache, so a commit
    that changes the load generator recompiles the crate, not its dependencies. The crate
    itself is cleaned first (``cargo clean -p wsbench-loadgen``): cargo judges freshness by
    file times, so after a build from another tree it could take this tree's sources as up
    to date and hand back the other tree's binary, which would then be cached under this
    tree's source hash. The clean, the build and the copy into the cache hold the target
    folder's lock (:func:`_target_lock`), so that a build from another tree cannot clean or
    replace this one's binary in between.

    When ``WSBENCH_LOADGEN_BINARY`` names a prebuilt binary, that one is used as it is.

    Returns:
        The path of the binary.

    Raises:
        LoadgenError: cargo is not installed, or the build failed (its output is included), or
            ``WSBENCH_LOADGEN_BINARY`` names no file.
    """
    prebuilt = os.environ.get(BINARY_ENV)
    if prebuilt:
        if not Path(prebuilt).is_file():
            raise LoadgenError(f"{BINARY_ENV}={prebuilt} is not a file")
        return Path(prebuilt)
    binary = cached_binary(root)
    if binary.is_file():
        return binary
    cargo = _cargo()
    with _target_lock():
        if binary.is_file():  # built by another process while this one waited
            return binary
        if not quiet:
            print(
                "wsbench: building the load generator (cargo build --release)...", file=sys.stderr
            )
        manifest = ["--manifest-path", str(root / "Cargo.toml")]
        _clean_crate(cargo, manifest)
        proc = subprocess.run(
            [cargo, "build", "--release", "--quiet", *manifest],
            capture_output=True,
            text=True,
            check=False,
            env=_cargo_env(),
        )
        built = _built()
        if proc.returncode != 0 or not built.exists():
            raise LoadgenError(f"building the load generator failed:\n{proc.stderr[-4000:]}")
        _keep(built, binary)
    return binary


TEST_PROFILE = "tests"
"""The cargo profile ``cargo test`` builds with (loadgen/Cargo.toml: the release profile
without its single codegen unit and LTO, which only the benchmarks' binary needs)."""
TEST_PROFILE_CONFIG = ("profile.tests.opt-level=0", 'profile.tests.package."*".opt-level=3')
"""``--config`` overrides of :data:`TEST_PROFILE` for ``cargo test``: the crate unoptimised,
its dependencies optimised (compiled once into the shared target folder). On this 2-core
machine the crate compiled in 8 s against 40 s with the release optimisations, and its
tests ran in 14 s against 12 s. Given here rather than in Cargo.toml, whose bytes are part
of the load generator build's identity (:data:`SOURCE_PATTERNS`), which a test-only setting
must not change."""
TEST_THREADS = 8
"""Threads ``cargo test`` runs the tests in (``--test-threads``; the default is one per
CPU). The integration tests mostly wait, on a server's answer or a timeout, not on a CPU:
on this 2-core machine they took 20.0 s with 2 threads, 11.6 s with 4 and 8.2-8.5 s with 8
(and less CPU: 16.0-16.8 s against 27.2 s)."""


TESTED_COPY = "loadgen-tested"
"""The folder in the build cache that ``cargo test`` runs on (:func:`synced_copy`)."""


def cargo_test(root: Path = LOADGEN_DIR) -> int:
    """``cargo test --profile tests`` of the load generator in ``root`` (``./bench test``'s
    step; with :data:`TEST_PROFILE_CONFIG`, in :data:`TEST_THREADS` threads), in the same
    shared cargo target folder as :func:`ensure_built`, so that the dependencies are compiled
    once per profile for every tree.

    It runs on :func:`synced_copy` of ``root``, where a file keeps its time until its bytes
    change: cargo judges the crate's freshness by file times, and every file of a fresh
    clone is new, so each clone compiled the unchanged crate again (14.5 s of the step's
    27 s on a 2-core machine). Only this function builds the tests profile, always from
    that copy, so its freshness is the copy's (no ``cargo clean``, which :func:`ensure_built`
    needs across trees). The target folder's lock is held from the copy until the tests are
    done (they run the binary from the target folder).

    Returns:
        cargo's exit code.

    Raises:
        LoadgenError: cargo is not installed.
        OSError: ``root`` cannot be read or the copy written.
    """
    overrides = [arg for setting in TEST_PROFILE_CONFIG for arg in ("--config", setting)]
    cargo = _cargo()
    with _target_lock():
        tested = synced_copy(root, cache_dir() / TESTED_COPY)
        print(f"cargo test of {root}, copied to {tested}", flush=True)
        argv = [cargo, "test", "--profile", TEST_PROFILE, *overrides,
                "--manifest-path", str(tested / "Cargo.toml"),
                "--", "--test-threads", str(TEST_THREADS)]  # fmt: skip
        return subprocess.run(argv, check=False, env=_cargo_env()).returncode


def synced_copy(root: Path, dest: Path) -> Path:
    """``dest`` made a copy of ``root``'s files (its ``target`` folder left out) in which a
    file is written only when its bytes differ, so that an unchanged file keeps its time; a
    file that ``root`` no longer has is removed.

    Returns:
        ``dest``.

    Raises:
        OSError: a file cannot be read or written.
    """
    files = {path.relative_to(root) for path in crate_files(root)}
    for rel in sorted(files):
        data = (root / rel).read_bytes()
        copy = dest / rel
        if copy.is_file() and copy.read_bytes() == data:
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        tmp = copy.with_name(f".tmp{os.getpid()}-{copy.name}")
        tmp.write_bytes(data)
        tmp.replace(copy)
    for path in sorted(dest.rglob("*"), reverse=True):
        if path.is_file() and path.relative_to(dest) not in files:
            path.unlink()
    return dest


def cargo_fmt_check(root: Path = LOADGEN_DIR) -> int:
    """``cargo fmt --check`` of the load generator in ``root`` (``./bench test``'s step):
    non-zero, with the diff printed, when a file is not formatted as rustfmt would.

    Returns:
        cargo's exit code.

    Raises:
        LoadgenError: cargo is not installed.
    """
    manifest = ["--manifest-path", str(root / "Cargo.toml")]
    return subprocess.run([_cargo(), "fmt", "--check", *manifest], check=False).returncode


CLIPPY_ARGS = (["clippy", "--all-targets", "--quiet"], ["--", "-D", "warnings"])
"""``cargo clippy``'s arguments before and after the manifest: every target, any lint an
error."""
PASSED_LINTS = "clippy-passed"
"""The folder in the build cache holding an empty file per :func:`lint_key` that clippy
passed."""
LINT_ENV = ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CLIPPY_CONF_DIR")
"""Environment variables that change clippy's verdict, part of :func:`lint_key`."""


def cargo_clippy(root: Path = LOADGEN_DIR) -> int:
    """``cargo clippy --all-targets -- -D warnings`` of the load generator in ``root``
    (``./bench test``'s step): any lint is an error. In the shared target folder, the crate
    cleaned first (:func:`ensure_built` gives the reason), so that the lints are of this tree.

    A pass is recorded under :func:`lint_key` (in the build cache's :data:`PASSED_LINTS`), and
    clippy is not run again for the same key: the same files, toolchain and arguments give the
    same verdict, as cargo itself replays a fresh crate's diagnostics. Only a pass is kept, so
    a lint always fails the step. Each clone ran it anew, because the clean (needed across
    trees) threw cargo's record away: 8.7 s of a warm ``./bench test``. The key is taken again
    after the run, and a pass is recorded only if the files did not change meanwhile.

    Returns:
        cargo's exit code, or 0 when these files passed before.

    Raises:
        LoadgenError: cargo is not installed.
        OSError: a file of ``root`` cannot be read.
    """
    cargo = _cargo()
    key = lint_key(root, cargo)
    passed = cache_dir() / PASSED_LINTS / key
    if passed.is_file():
        print(f"cargo clippy: these files passed before (lint key {key[:16]}), not run again",
              flush=True)  # fmt: skip
        return 0
    before, after = CLIPPY_ARGS
    code = _cargo_on_clean_crate(root, "dev", before, after=after)
    if code == 0 and lint_key(root, cargo) == key:
        passed.parent.mkdir(parents=True, exist_ok=True)
        passed.touch()
    return code


def lint_key(root: Path, cargo: str) -> str:
    """SHA-256 (hex) of what clippy's verdict on ``root`` depends on: the crate's files
    (:func:`crate_files`, the integration tests and clippy's configuration included),
    ``cargo clippy --version``, :func:`rustc_version`, :data:`CLIPPY_ARGS` and the
    variables of :data:`LINT_ENV`.

    Raises:
        OSError: a file cannot be read.
    """
    clippy = subprocess.run([cargo, "clippy", "--version"], capture_output=True, text=True,
                            check=False, env=_cargo_env())  # fmt: skip
    context = {
        "files": files_sha256(root, crate_files(root)),
        "clippy": clippy.stdout.strip(),
        "rustc": rustc_version(),
        "args": CLIPPY_ARGS,
        "env": {name: os.environ.get(name) for name in LINT_ENV},
    }
    return hashlib.sha256(json.dumps(context, sort_keys=True).encode()).hexdigest()


def crate_files(root: Path) -> list[Path]:
    """Every file below ``root`` except its ``target`` folder."""
    return [
        path for path in root.rglob("*")
        if path.is_file() and path.relative_to(root).parts[0] != "target"
    ]  # fmt: skip


def _cargo_on_clean_crate(
    root: Path, profile: str, command: list[str], *, after: Sequence[str] = ()
) -> int:
    """``cargo COMMAND --manifest-path ROOT/Cargo.toml AFTER`` in the shared target folder,
    under its lock, the crate's ``profile`` artifacts cleaned first; cargo's exit code.

    Raises:
        LoadgenError: cargo is not installed.
    """
    cargo = _cargo()
    manifest = ["--manifest-path", str(root / "Cargo.toml")]
    with _target_lock():
        _clean_crate(cargo, manifest, profile=profile)
        return subprocess.run(
            [cargo, *command, *manifest, *after], check=False, env=_cargo_env()
        ).returncode


def _cargo() -> str:
    """The cargo command.

    Raises:
        LoadgenError: cargo is not installed.
    """
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not Path(cargo).exists():
        raise LoadgenError("cargo not found: install a Rust toolchain (https://rustup.rs)")
    return cargo


def _target() -> Path:
    """The cargo target folder shared by every build and test of the load generator."""
    return cache_dir() / "cargo-target"


def _built() -> Path:
    """Where cargo puts the release binary in :func:`_target`."""
    return _target() / "release" / CRATE


def _cargo_env() -> dict[str, str]:
    """The environment of cargo's commands: this one, with the shared target folder."""
    return {**os.environ, "CARGO_TARGET_DIR": str(_target())}


@contextlib.contextmanager
def _target_lock() -> Iterator[None]:
    """Hold the shared target folder's lock (``cargo-target.lock`` beside it) against
    other processes that build or test the load generator: cargo locks the folder during a
    build only, not between ``cargo clean -p`` and the build, nor while tests run the
    binary it built."""
    lock = cache_dir() / "cargo-target.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _clean_crate(cargo: str, manifest: list[str], profile: str = "release") -> None:
    """``cargo clean -p wsbench-loadgen`` of ``profile`` in the shared target folder: the
    crate only, not its dependencies (see :func:`ensure_built` for why)."""
    subprocess.run(
        [cargo, "clean", "--profile", profile, "--quiet", "-p", CRATE, *manifest],
        capture_output=True,
        text=True,
        check=False,
        env=_cargo_env(),
    )


def _keep(built: Path, binary: Path) -> None:
    """Copy the binary cargo built to its place in the cache, atomically."""
    binary.parent.mkdir(parents=True, exist_ok=True)
    tmp = binary.with_name(f".tmp{os.getpid()}")
    shutil.copy2(built, tmp)
    tmp.replace(binary)


def version(binary: Path | None = None) -> str:
    """The load generator's version, from ``wsbench-loadgen --version`` (e.g. ``"0.1.0"``).

    Args:
        binary: the binary to ask (default: :func:`ensure_built`'s).
    """
    binary = binary or ensure_built(quiet=True)
    proc = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False)
    words = proc.stdout.split()
    return words[-1] if proc.returncode == 0 and words else "unknown"


@functools.cache
def rustc_version() -> str:
    """``rustc --version`` (e.g. ``"rustc 1.91.0 (f8297e351 2025-10-28)"``), or ``"unknown"``."""
    rustc = shutil.which("rustc") or str(Path.home() / ".cargo" / "bin" / "rustc")
    try:
        proc = subprocess.run([rustc, "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


PROBE_SLACK_S = 5.0
"""Seconds a probe may run beyond its own ``--timeout`` before the harness kills it."""


def probe(url: str, *, timeout_s: float, binary: Path, tls_ca: Path | None = None) -> str | None:
    """Try one WebSocket handshake at ``url``, within ``timeout_s`` seconds (the probe is
    killed :data:`PROBE_SLACK_S` seconds after that if it has not exited); ``tls_ca``: the
    CA a ``wss://`` URL's certificate must chain to.

    Returns:
        None when the handshake completed, otherwise the reason in one line: the load
        generator's (``... connection refused``); for a timeout, whether the server accepted
        the TCP connection and left the WebSocket upgrade unanswered (:func:`_accepts_tcp`).
    """
    try:
        proc = subprocess.run(
            [
                str(binary),
                "probe",
                "--url",
                url,
                "--timeout",
                str(timeout_s),
                *(["--tls-ca", str(tls_ca)] if tls_ca else []),
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout_s + PROBE_SLACK_S,
        )
    except subprocess.TimeoutExpired:
        return f"the probe of {url} did not finish within {timeout_s + PROBE_SLACK_S:g} s (killed)"
    if proc.returncode == 0:
        return None
    reason = proc.stderr.strip() or f"probe exited with code {proc.returncode}"
    if reason.endswith(": timeout") and _accepts_tcp(url, timeout_s):
        return (
            f"{url}: the server accepted the TCP connection but did not answer the "
            f"WebSocket upgrade (HTTP 101) within {timeout_s:g} s"
        )
    return reason


def _accepts_tcp(url: str, timeout_s: float) -> bool:
    """True when a TCP connection to ``url``'s host and port opens within ``timeout_s``
    seconds (it is closed at once)."""
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "", parts.port or 80), timeout_s):
            return True
    except OSError:
        return False


TRAFFIC_STARTS = "wsbench-loadgen: traffic starts"
"""The line the load generator prints on stderr when its traffic phase starts, after every
connection attempt has ended (``loadgen/src/modes/run.rs``): the measurement window
opens ``--warmup`` seconds later."""


def _ended(who: str, code: int, stderr: str = "") -> str:
    """How a run of ``who`` (``"load generator"``, ``"client program"``) that exited with
    ``code`` ended, for a failure's reason: ``"load generator killed by signal 9 (SIGKILL)"``
    for a negative code (:mod:`subprocess`'s), else ``"... exited with code 1"``; then
    ``": "`` and ``stderr`` when it printed something."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown signal"
        how = f"killed by signal {-code} ({name})"
    else:
        how = f"exited with code {code}"
    return f"{who} {how}: {stderr}" if stderr else f"{who} {how}"


class _Pipes:
    """A running load generator whose stdout lines and stderr are read by threads (so that
    neither pipe fills up), with a callback on :data:`TRAFFIC_STARTS`; ``who`` names it in
    errors (``"load generator"``)."""

    def __init__(
        self,
        argv: list[str],
        cpus: Sequence[int],
        on_traffic: Callable[[], None] | None,
        stdin: bool = False,
        who: str = "load generator",
    ) -> None:
        self.who = who
        self.proc = start_pinned(
            argv,
            cpus,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        self._on_traffic = on_traffic
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)
            if self._on_traffic is not None and line.startswith(TRAFFIC_STARTS):
                self._on_traffic()

    def wait(self, timeout_s: float) -> tuple[int, str]:
        """Wait for the exit (killing it after ``timeout_s``); the exit code and the rest of
        stdout.

        Raises:
            LoadgenError: it did not finish in time.
        """
        try:
            code = self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            self.kill()
            raise LoadgenError(
                f"{self.who} did not finish within {timeout_s:g} s: killed (SIGKILL)"
            ) from exc
        for thread in self._threads:
            thread.join()
        rest = []
        while (line := self.lines.get()) is not None:
            rest.append(line)
        return code, "".join(rest)

    def kill(self) -> None:
        """Kill it (if still running) and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def error_text(self) -> str:
        """The tail of what it printed on stderr (progress lines left out)."""
        text = "".join(line for line in self.stderr if not line.startswith(TRAFFIC_STARTS))
        return text.strip()[-2000:]


def _report(text: str) -> Report:
    """The load generator's printed report (:mod:`wsbench.loadreport`).

    Raises:
        LoadgenError: no report, or one that does not follow the contract.
    """
    try:
        return loadreport.decode(text)
    except loadreport.ReportError as exc:
        raise LoadgenError(f"load generator printed no valid report: {exc}") from exc


def run_report(
    args: Sequence[str],
    *,
    cpus: Sequence[int],
    timeout_s: float,
    binary: Path,
    on_traffic: Callable[[], None] | None = None,
    command: Sequence[str] | None = None,
) -> Report:
    """Run ``wsbench-loadgen ARGS`` pinned to ``cpus`` and return its report.

    Args:
        args: the subcommand and its options, e.g. ``["echo", "--url", ...]``.
        command: a program that takes the load generator's place with the same arguments
            and report (a client library's program, ``clients/README.md``); default the
            load generator ``binary``.
        cpus: CPU numbers the load generator is pinned to.
        timeout_s: seconds after which the run is killed with SIGKILL (a bound, never
            reached normally).
        on_traffic: called (from a reader thread) when the traffic phase starts
            (:data:`TRAFFIC_STARTS`), i.e. after the connect phase.

    Raises:
        LoadgenError: it exited non-zero or was killed by a signal (the reason names it:
            :func:`_ended`), did not finish within ``timeout_s``, or printed no JSON object.
    """
    program = list(command) if command else [str(binary)]
    who = "client program" if command else "load generator"
    run = _Pipes([*program, *args], cpus, on_traffic, who=who)
    code, out = run.wait(timeout_s)
    if code != 0:
        raise LoadgenError(_ended(who, code, run.error_text()))
    return _report(out)


class Hold:
    """``wsbench-loadgen hold``: open connections and keep them idle until :meth:`release`.

    Use it as a context manager: entering waits for the first report line (every connection
    attempt has ended; :attr:`opened`), leaving kills the load generator if it still runs.

    Args:
        args: ``["hold", "--url", ..., "--connections", N, ...]``.
        cpus: CPU numbers the load generator is pinned to.
        timeout_s: seconds to wait for the connections to open, and again for the close
            (then it is killed with SIGKILL).
        binary: the load generator.

    Raises:
        LoadgenError: it exited (or was killed: :func:`_ended`) before the first line, took
            longer than ``timeout_s``, or printed something other than a JSON object.
    """

    def __init__(
        self, args: Sequence[str], *, cpus: Sequence[int], timeout_s: float, binary: Path
    ) -> None:
        self.argv = [str(binary), *args]
        self.cpus = tuple(cpus)
        self.timeout_s = timeout_s
        self.opened: Report | None = None
        self._run: _Pipes | None = None

    def __enter__(self) -> Hold:
        self._run = _Pipes(self.argv, self.cpus, None, stdin=True, who="load generator hold")
        try:
            line = self._run.lines.get(timeout=self.timeout_s)
        except queue.Empty:
            self._run.kill()
            raise LoadgenError(
                f"load generator hold: connections not open within {self.timeout_s:g} s: "
                "killed (SIGKILL)"
            ) from None
        if line is None:
            code = self._run.proc.wait()
            raise LoadgenError(_ended("load generator hold", code, self._run.error_text()))
        self.opened = _report(line)
        return self

    def release(self) -> loadreport.Closed:
        """Close stdin, so that it closes every connection, and return its second line
        (:class:`wsbench.loadreport.Closed`).

        Raises:
            LoadgenError: it did not finish within ``timeout_s``, exited non-zero or was
                killed (:func:`_ended`), or printed no JSON object.
        """
        assert self._run is not None and self._run.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self._run.proc.stdin.close()
        code, rest = self._run.wait(self.timeout_s)
        if code != 0:
            raise LoadgenError(_ended("load generator hold", code, self._run.error_text()))
        try:
            return loadreport.decode_closed(rest.strip().splitlines()[-1] if rest.strip() else "")
        except loadreport.ReportError as exc:
            raise LoadgenError(f"load generator hold printed no valid last line: {exc}") from exc

    def __exit__(self, *exc_info: object) -> None:
        if self._run is not None:
            self._run.kill()
