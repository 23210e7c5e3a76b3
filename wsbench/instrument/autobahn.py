"""The Autobahn|Testsuite (``wstest``): its own environment, found or made, and its fuzzing
client run against one server's ``/echo``, read back as
:class:`~wsbench.results.runformat.ConformanceCase` verdicts.

The suite (https://github.com/crossbario/autobahn-testsuite) is the WebSocket world's
conformance test: its fuzzing client sends some 500 cases (well-formed and malformed frames,
fragments, invalid UTF-8, close codes) to a server's echo endpoint and grades each answer
against RFC 6455. It runs on Python 2.7 only. Its environment is found in this order
(:func:`find_suite`):

1. A Python 2.7 interpreter: the one named by :data:`PYTHON27_ENV`, else ``python2.7`` on
   PATH, else pyenv's (``$PYENV_ROOT/versions/2.7*``). The harness makes a virtualenv for it
   in the build cache (``virtualenv`` 20.21, the last release that still makes 2.7
   environments, itself in a Python 3 environment made with uv) and installs
   :data:`REQUIREMENTS` there with ``pip --require-hashes``: ``autobahntestsuite`` 25.10.1
   and the exact versions it pins (Twisted 19.10.0, autobahn 0.10.9, ...); ``wsaccel``
   builds with gcc. About 55 s once; the cache is keyed by the requirements and the
   interpreter.
2. Else Docker, when ``docker info`` answers: the suite's image pinned by digest
   (:data:`DOCKER_IMAGE`, the one uWebSockets' CI pins), on the host's network.
3. Else :class:`SuiteError`, naming both routes (``./bench conformance`` exits 2).

Every case goes to 127.0.0.1 only; the client runs in its own process group, bounded by a
timeout (:func:`run_fuzzing_client`), and is stopped with everything it started.

The other way round, :func:`run_fuzzing_server` grades the load generator's own client: the
suite's fuzzing server, and ``wsbench-loadgen autobahn-client`` against it
(``loadgen/CONFORMANCE.md``).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wsbench.instrument.server import ServerError, ServerProcess, free_port
from wsbench.paths import cache_dir
from wsbench.results.runformat import ConformanceCase

SUITE_VERSION = "25.10.1"
"""The ``autobahntestsuite`` release :data:`REQUIREMENTS` pins."""
REQUIREMENTS = Path(__file__).with_name("autobahn-requirements.txt")
"""The suite's environment: every package at its exact version, with its sha256."""
VIRTUALENV = "virtualenv==20.21.1"
"""The tool that makes the 2.7 virtualenv: 20.22 dropped making Python 2 environments."""
PYTHON27_ENV = "WSBENCH_PYTHON27"
"""Environment variable naming a Python 2.7 interpreter for the suite (first choice)."""
DOCKER_IMAGE = (
    "crossbario/autobahn-testsuite"
    "@sha256:519915fb568b04c9383f70a1c405ae3ff44ab9e35835b085239c258b6fac3074"
)
"""The suite's Docker image, pinned by digest (the second route; not reachable on this
project's own machine, which cannot pull images)."""
INSTALL_TIMEOUT_S = 600.0
"""Seconds the suite's environment may take to install (about 55 s here)."""
DOCKER_PROBE_S = 10.0
"""Seconds ``docker info`` may take to say whether a daemon answers."""
WIRELOG_LINES = 60
"""The frames kept of a case that did not pass (its report is regenerated from them)."""
PASSING_BEHAVIOURS = ("OK", "NON-STRICT", "INFORMATIONAL")
"""Cases with these verdicts keep no HTTP response nor wirelog (they are not reported)."""


class SuiteError(RuntimeError):
    """The suite's environment cannot be made, or the suite did not finish."""


class NoSuiteError(SuiteError):
    """Neither route to the suite is there: no Python 2.7 and no Docker
    (:func:`no_suite_message`)."""


@dataclass(frozen=True)
class Suite:
    """A way to run ``wstest``.

    Attributes:
        argv: the command up to ``wstest``'s own options, e.g. ``[".../bin/wstest"]`` or
            ``["docker", "run", ..., IMAGE, "wstest"]``.
        route: how, for the documents: ``"Python 2.7.18 virtualenv"`` or ``"docker IMAGE"``.
        version: ``"autobahntestsuite 25.10.1"`` (what ``wstest -a`` prints).
        docker: True when ``argv`` runs the suite's Docker image (the working folder is
            then mounted at the same path inside the container).
    """

    argv: tuple[str, ...]
    route: str
    version: str
    docker: bool = False


def _python27_candidates() -> Iterator[str]:
    named = os.environ.get(PYTHON27_ENV)
    if named:
        yield named
        return
    on_path = shutil.which("python2.7")
    if on_path:
        yield on_path
    pyenv_root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    for folder in sorted((pyenv_root / "versions").glob("2.7*"), reverse=True):
        yield str(folder / "bin" / "python")


def python27_version(python: str) -> str | None:
    """``python``'s version (e.g. ``"2.7.18"``) when it runs and is a Python 2.7, else None."""
    try:
        proc = subprocess.run(
            [python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = proc.stdout.strip()
    return version if proc.returncode == 0 and version.startswith("2.7.") else None


def find_python27() -> str | None:
    """A working Python 2.7 interpreter (see the module's docstring for the order), or None.

    Raises:
        NoSuiteError: :data:`PYTHON27_ENV` names something that is not a Python 2.7.
    """
    for python in _python27_candidates():
        if python27_version(python):
            return python
        if os.environ.get(PYTHON27_ENV):
            raise NoSuiteError(f"{PYTHON27_ENV}={python!r} is not a working Python 2.7 interpreter")
    return None


def _suite_dir(python: str) -> Path:
    key = hashlib.sha256(REQUIREMENTS.read_bytes() + os.path.realpath(python).encode())
    return cache_dir() / "autobahn" / key.hexdigest()[:16]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _install(argv: Sequence[str], what: str, env: dict[str, str] | None = None) -> None:
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False,
            env={**os.environ, **(env or {})},
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SuiteError(f"{what}: {exc}") from exc
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise SuiteError(f"{what} failed (exit {proc.returncode}):\n{tail}")


def ensure_virtualenv(python: str, log: Any = None) -> Path:
    """The suite's virtualenv for ``python`` (a Python 2.7), made once in the build cache
    and reused: its ``wstest``.

    Raises:
        SuiteError: the virtualenv or the requirements did not install (with the tool's
            output).
    """
    root = _suite_dir(python)
    wstest = root / "venv" / "bin" / "wstest"
    done = root / "installed"
    with _locked(root / ".lock"):
        if done.exists() and wstest.exists():
            return wstest
        if log:
            log(f"making the Autobahn|Testsuite's environment in {root} (about a minute, once)")
        shutil.rmtree(root / "venv", ignore_errors=True)
        shutil.rmtree(root / "tools", ignore_errors=True)
        uv = shutil.which("uv")
        if uv is None:
            raise SuiteError("uv is not on PATH (./bench installs it into .venv)")
        _install([uv, "venv", "--quiet", "--python", sys.executable, str(root / "tools")],
                 "uv venv (the virtualenv tool's environment)")  # fmt: skip
        _install([uv, "pip", "install", "--quiet", VIRTUALENV], f"uv pip install {VIRTUALENV}",
                 env={"VIRTUAL_ENV": str(root / "tools")})  # fmt: skip
        _install([str(root / "tools" / "bin" / "virtualenv"), "--quiet", "--no-periodic-update",
                  "-p", python, str(root / "venv")], f"virtualenv -p {python}")  # fmt: skip
        _install([str(root / "venv" / "bin" / "pip"), "install", "--quiet",
                  "--disable-pip-version-check", "--no-python-version-warning",
                  "--require-hashes", "-r", str(REQUIREMENTS)],
                 f"pip install -r {REQUIREMENTS.name} (Python 2.7)")  # fmt: skip
        done.write_text(SUITE_VERSION + "\n")
        return wstest


def docker_available() -> bool:
    """True when ``docker`` is on PATH and its daemon answers ``docker info``."""
    docker = shutil.which("docker")
    if docker is None:
        return False
    try:
        proc = subprocess.run([docker, "info"], capture_output=True, timeout=DOCKER_PROBE_S)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def suite_version(argv: Sequence[str]) -> str:
    """``"autobahntestsuite X"`` as ``wstest -a`` prints it.

    Raises:
        SuiteError: ``wstest -a`` failed.
    """
    try:
        proc = subprocess.run([*argv, "-a"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SuiteError(f"{' '.join(argv)} -a: {exc}") from exc
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith("AutobahnTestSuite "):
            return "autobahntestsuite " + line.split()[1]
    raise SuiteError(f"{' '.join(argv)} -a printed no AutobahnTestSuite version")


def no_suite_message() -> str:
    """What to do when neither route works (the error of :func:`find_suite`)."""
    return (
        "the Autobahn|Testsuite needs Python 2.7 or Docker, and neither was found: install "
        f"Python 2.7 (e.g. `pyenv install 2.7.18`, or name one with {PYTHON27_ENV}=/path/to/"
        "python2.7) and the harness makes the suite's environment itself; or run a Docker "
        f"daemon that can pull {DOCKER_IMAGE}"
    )


def find_suite(log: Any = None) -> Suite:
    """The suite, by the first route that works (the module's docstring).

    Raises:
        NoSuiteError: no route works (:func:`no_suite_message`).
        SuiteError: making the virtualenv failed (with the installer's output).
    """
    python = find_python27()
    if python is not None:
        wstest = ensure_virtualenv(python, log)
        argv: tuple[str, ...] = (str(wstest),)
        route = f"Python {python27_version(python)} virtualenv"
        return Suite(argv, route, suite_version(argv))
    if docker_available():
        argv = ("docker", "run", "--rm", "--network", "host", DOCKER_IMAGE, "wstest")
        return Suite(argv, f"docker {DOCKER_IMAGE}", suite_version(argv), docker=True)
    raise NoSuiteError(no_suite_message())


def spec(
    url: str, agent: str, cases: Sequence[str], reports: Path, exclude: Sequence[str] = ()
) -> dict[str, Any]:
    """The fuzzing client's specification: one server, its cases, its reports in the
    folder ``reports`` (an absolute path)."""
    return {
        "outdir": str(reports),
        "servers": [{"agent": agent, "url": url}],
        "cases": list(cases),
        "exclude-cases": list(exclude),
        "exclude-agent-cases": {},
    }


def _argv(suite: Suite, workdir: Path, options: Sequence[str] = ()) -> list[str]:
    """``wstest`` with ``options`` (default: the fuzzing client on ``workdir/spec.json``),
    by the suite's route."""
    options = list(options or ["-m", "fuzzingclient", "-s", str(workdir / "spec.json")])
    if not suite.docker:
        return [*suite.argv, *options]
    image_at = suite.argv.index(DOCKER_IMAGE)  # the folder at the same path in the container
    mount = ["-v", f"{workdir}:{workdir}"]
    return [*suite.argv[:image_at], *mount, *suite.argv[image_at:], *options]


def _finish(process: ServerProcess, what: str, cases: Sequence[str], timeout_s: float) -> None:
    """Wait up to ``timeout_s`` seconds for the started ``process`` (``what`` runs the
    suite's ``cases``) to exit with 0.

    Raises:
        SuiteError: it ran longer, or exited with an error (with its output's tail).
    """
    assert process.proc is not None
    try:
        code = process.proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise SuiteError(
            f"{what} did not finish within {timeout_s:g} s (cases {', '.join(cases)}); "
            f"its output:\n{process.log_tail(10)}"
        ) from None
    if code != 0:
        raise SuiteError(f"{what} exited with {code}:\n{process.log_tail(15)}")


def run_fuzzing_client(
    suite: Suite,
    url: str,
    cases: Sequence[str],
    workdir: Path,
    *,
    timeout_s: float,
    cpus: Sequence[int],
    agent: str = "server",
) -> list[ConformanceCase]:
    """Run the fuzzing client against ``url`` (a ``ws://127.0.0.1:PORT/echo``) over the
    case patterns ``cases`` (e.g. ``["1.*", "7.1.5"]``), in ``workdir`` (its reports go to
    ``workdir/reports``), pinned to ``cpus``, for at most ``timeout_s`` seconds.

    Returns:
        Every case's verdicts, in the suite's order (:func:`read_reports`).

    Raises:
        SuiteError: the client did not finish within ``timeout_s``, exited with an error,
            or wrote no report (with its output's tail).
    """
    if not url.startswith("ws://127.0.0.1:"):
        raise SuiteError(f"the suite runs against 127.0.0.1 only, not {url}")
    workdir.mkdir(parents=True, exist_ok=True)
    workdir = workdir.resolve()
    reports = workdir / "reports"
    (workdir / "spec.json").write_text(json.dumps(spec(url, agent, cases, reports)))
    client = ServerProcess(_argv(suite, workdir), cpus=cpus, name="wstest fuzzingclient")
    try:
        client.start()
        _finish(client, "the fuzzing client", cases, timeout_s)
        return read_reports(reports, agent)
    except ServerError as exc:
        raise SuiteError(str(exc)) from exc
    finally:
        client.__exit__(None, None, None)


CASE_LIST = (
    "from autobahntestsuite.case import Cases\n"
    "for c in Cases: print('.'.join(c.__name__[len('Case'):].split('_')))\n"
)
"""A Python 2 program that prints every case id the suite has, one a line (``Case6_4_1`` is
case ``6.4.1``, as the suite's ``CaseSet.caseClasstoId`` names it)."""


@functools.cache
def case_ids(suite: Suite) -> tuple[str, ...] | None:
    """Every case id of ``suite``, in its order, read from its own case list; None for the
    Docker route (its interpreter is inside the image) or when the list cannot be read.
    """
    if suite.docker:
        return None
    python = Path(suite.argv[0]).with_name("python")
    try:
        proc = subprocess.run([str(python), "-c", CASE_LIST], capture_output=True, text=True,
                              timeout=60, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    ids = tuple(proc.stdout.split())
    return ids if proc.returncode == 0 and ids else None


def resolve_cases(patterns: Sequence[str], ids: Sequence[str]) -> list[str]:
    """The case ids ``patterns`` select of ``ids``, in id order, by the suite's own rule
    (``CaseSet.resolveCasePatternList``: ``*`` matches anything from there on, ``.`` only
    itself; a pattern without ``*`` is taken as it is)."""
    chosen: set[str] = set()
    for pattern in patterns:
        if "*" not in pattern:
            chosen.add(pattern)
            continue
        rule = re.compile(pattern.replace(".", r"\.").replace("*", ".*"))
        chosen.update(i for i in ids if rule.match(i))
    return sorted(chosen, key=_id_key)


def _id_key(case_id: str) -> tuple[int, ...]:
    return tuple(int(n) for n in case_id.split("."))


def run_fuzzing_clients(
    suite: Suite,
    url: str,
    cases: Sequence[str],
    workdir: Path,
    *,
    timeout_s: float,
    cpus: Sequence[int],
    clients: int,
) -> list[ConformanceCase]:
    """:func:`run_fuzzing_client` split over up to ``clients`` fuzzing clients at the same
    time against the one server, each with every ``clients``-th case of those ``cases``
    select (most of a slow server's grading is the suite waiting for it, case after case),
    each in its own folder of ``workdir`` (``client-<i>/reports``); one client when the
    suite's case list cannot be read (:func:`case_ids`).

    Returns:
        Every case's verdicts, in case-id order.

    Raises:
        SuiteError: as :func:`run_fuzzing_client`, for any of the clients.
    """
    ids = case_ids(suite)
    chosen = resolve_cases(cases, ids) if ids else []
    chunks = [chosen[i::clients] for i in range(clients) if chosen[i::clients]]
    if len(chunks) < 2:
        return run_fuzzing_client(suite, url, cases, workdir / "client-0", timeout_s=timeout_s,
                                  cpus=cpus)  # fmt: skip

    def one(i: int) -> list[ConformanceCase]:
        return run_fuzzing_client(suite, url, chunks[i], workdir / f"client-{i}",
                                  timeout_s=timeout_s, cpus=cpus)  # fmt: skip

    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        found = [c for part in pool.map(one, range(len(chunks))) for c in part]
    return sorted(found, key=lambda c: _id_key(c.id))


SERVER_READY_S = 30.0
"""Seconds the fuzzing server may take to listen (a few here: Python 2.7 and Twisted)."""
LOADGEN_AGENT = "wsbench-loadgen"
"""The agent name the load generator's client reports under (:func:`run_fuzzing_server`)."""


def server_spec(url: str, cases: Sequence[str], reports: Path) -> dict[str, Any]:
    """The fuzzing server's specification: it listens at ``url`` (``ws://127.0.0.1:PORT``),
    offers ``cases`` to every client and writes its reports in the folder ``reports`` (an
    absolute path)."""
    return {
        "url": url,
        "outdir": str(reports),
        "cases": list(cases),
        "exclude-cases": [],
        "exclude-agent-cases": {},
    }


def run_fuzzing_server(
    suite: Suite,
    loadgen: Path,
    cases: Sequence[str],
    workdir: Path,
    *,
    timeout_s: float,
    cpus: Sequence[int],
) -> list[ConformanceCase]:
    """Grade the load generator's own WebSocket client: the suite's fuzzing server on a free
    127.0.0.1 port over the case patterns ``cases`` (e.g. ``["1.1.*", "6.3.*"]``), and the
    binary ``loadgen``'s ``autobahn-client`` against it (``loadgen/README.md``: it echoes
    every message back, then asks the server to write its reports), both pinned to ``cpus``,
    in ``workdir`` (reports in ``workdir/reports``), the client bounded by ``timeout_s``
    seconds. Both processes are stopped when it returns.

    Returns:
        Every case's verdicts for the agent :data:`LOADGEN_AGENT`, in the suite's order
        (:func:`read_reports`).

    Raises:
        SuiteError: the server did not start listening, the client did not finish within
            ``timeout_s`` or exited with an error, or no report was written (with the
            output's tail).
    """
    workdir.mkdir(parents=True, exist_ok=True)
    workdir = workdir.resolve()
    reports = workdir / "reports"
    url = f"ws://127.0.0.1:{free_port()}"
    (workdir / "spec.json").write_text(json.dumps(server_spec(url, cases, reports)))
    options = ["-m", "fuzzingserver", "-s", str(workdir / "spec.json"), "-u", "0"]
    server = ServerProcess(_argv(suite, workdir, options), cpus=cpus, name="wstest fuzzingserver")
    argv = [str(loadgen), "autobahn-client", "--url", url, "--agent", LOADGEN_AGENT]
    client = ServerProcess(argv, cpus=cpus, name="wsbench-loadgen autobahn-client")
    try:
        with server:
            server.wait_ready(lambda t: _listening(url, t), timeout_s=SERVER_READY_S)
            with client:
                _finish(client, "the load generator's client", cases, timeout_s)
    except ServerError as exc:
        raise SuiteError(str(exc)) from exc
    return read_reports(reports, LOADGEN_AGENT)


def _listening(url: str, timeout_s: float) -> str | None:
    """None when a TCP connection to ``url``'s port opens within ``timeout_s`` seconds (the
    fuzzing server listens; the connection is closed at once), else why not."""
    port = int(url.rsplit(":", 1)[1])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout_s):
            return None
    except OSError as exc:
        return f"{url}: {exc}"


def read_reports(reports: Path, agent: str) -> list[ConformanceCase]:
    """The cases of ``agent`` in the suite's reports folder (``index.json`` and one JSON
    report per case), in case-id order (``1.1.1`` < ``1.1.2`` < ``10.1.1``).

    Raises:
        SuiteError: the index or a case's report is missing or malformed.
    """
    try:
        index = json.loads((reports / "index.json").read_text())[agent]
    except (OSError, ValueError, KeyError) as exc:
        raise SuiteError(
            f"the suite wrote no readable index for {agent!r} in {reports}: {exc}"
        ) from exc
    cases = []
    for case_id in sorted(index, key=_id_key):
        entry = index[case_id]
        try:
            report = json.loads((reports / entry["reportfile"]).read_text())
        except (OSError, ValueError, KeyError) as exc:
            raise SuiteError(f"case {case_id}: no readable report: {exc}") from exc
        cases.append(_case(case_id, entry, report))
    return cases


def _case(case_id: str, entry: dict[str, Any], report: dict[str, Any]) -> ConformanceCase:
    passed = entry["behavior"] in PASSING_BEHAVIOURS
    return ConformanceCase(
        id=case_id,
        behavior=entry["behavior"],
        behavior_close=entry["behaviorClose"],
        duration_ms=int(entry.get("duration") or 0),
        remote_close_code=entry.get("remoteCloseCode"),
        description=report.get("description") or "",
        expectation=report.get("expectation") or "",
        result=report.get("result") or "",
        result_close=report.get("resultClose") or "",
        remote_close_reason=report.get("remoteCloseReason"),
        http_response="" if passed else report.get("httpResponse") or "",
        wirelog=[] if passed else _wirelog(report.get("wirelog") or []),
    )


def _wirelog(items: list[Any]) -> list[str]:
    """The frames and events of a case's wirelog, one line each, up to
    :data:`WIRELOG_LINES`; the raw octets (``TO``, ``RO``) are left out (the frames say the
    same, and the handshake is ``http_response``)."""
    lines = [
        _wire_line(i) for i in items if not (isinstance(i, list) and i[:1] in (["TO"], ["RO"]))
    ]
    return lines[:WIRELOG_LINES]


def _wire_line(item: Any) -> str:
    """One entry of the suite's wirelog as a line: ``TF`` (a frame sent: opcode, fin, rsv,
    length, payload's start), ``RF`` (one received), other events (``KL``: a timer to
    close, ...) as the suite writes them."""
    if not isinstance(item, list) or not item:
        return str(item)
    kind = item[0]
    if kind in ("RF", "TF"):
        # [kind, [length, payload], opcode, fin, rsv, mask, ...]
        length, payload = (item[1] + [0, ""])[:2] if isinstance(item[1], list) else (0, "")
        text = payload if len(str(payload)) <= 80 else str(payload)[:80] + "..."
        sent = "sent" if kind == "TF" else "received"
        return f"{sent} frame: opcode {item[2]}, fin {item[3]}, rsv {item[4]}, {length} B {text!r}"
    return " ".join(str(x) for x in item)[:160]
