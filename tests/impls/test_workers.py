"""The deployment profile *N workers on N CPUs*: every configuration that states
``workers = "supported: ..."`` serves in N worker processes when started with
``--worker-processes N``, and every other refuses the flag (impls/PROTOCOL.md, "Deployment
profiles").

Each supported configuration starts one server with ``--worker-processes 2`` on two CPUs
(where the machine has them), as tests/impls/test_servers.py starts its servers
(:class:`~wsbench.instrument.measure.ServerSession`): connections opened one after the other
until two worker processes of its tree have accepted some (so that every worker is serving),
an exact echo over several connections, and a clean stop on SIGTERM.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections import Counter
from dataclasses import replace

import psutil
import pytest
from websockets.sync.client import connect

from wsbench.impls import Impl, all_impls, get_impl
from wsbench.instrument import loadgen
from wsbench.instrument.cpus import CpuPlacement, available_cpus, default_placement
from wsbench.instrument.measure import HOST, SOCKETIO_PATH, MeasureConfig, ServerSession
from wsbench.instrument.server import STOP_GRACE_S
from wsbench.loadreport import Report

WORKER_PROCESSES_FLAG = "--worker-processes"
"""The flag of the profile N workers on N CPUs (impls/PROTOCOL.md)."""
WORKERS = 2
"""Worker processes each supported configuration is started with."""
CONNECTIONS = 8
COUNT = 50
"""Messages echoed per connection."""
SIZE = 1024
STOP_WAIT_S = 2 * STOP_GRACE_S
"""Seconds every process of the server's tree has to exit by itself after SIGTERM: twice the
harness's grace, so that the slow exits of a loaded machine pass (python-socketio's two
uvicorn workers: 0.5 s on the idle 2-CPU machine, 2.5-3.4 s with another test suite beside
it, load average 8) while a server that does not stop still fails."""
SPREAD_CONNECTIONS = 64
SPREAD_TIMEOUT_S = 30.0
"""At most this many connections, opened one after the other and held, or this many seconds,
until :data:`WORKERS` processes have accepted some. The server is ready once one worker
answers, and another may still be starting (uvicorn's supervisor even replaces a worker that
has not answered its health check within 5 s, which a loaded machine can make a starting
worker miss; Sanic's main process, stopped before every worker has started, hangs)."""
REFUSAL_TIMEOUT_S = 30.0
"""Seconds a server given the flag it refuses has to exit (it imports its framework
first)."""

SUPPORTED = [
    pytest.param((impl.name, config.id), id=f"{impl.name}:{config.id}")
    for impl in all_impls()
    for config in impl.configs
    if config.supports_workers
]
NOT_SUPPORTED = [
    pytest.param((impl.name, config.id), id=f"{impl.name}:{config.id}")
    for impl in all_impls()
    for config in impl.configs
    if not config.supports_workers
]


def with_workers(impl: Impl, config_id: str, workers: int) -> Impl:
    """``impl`` whose configuration ``config_id`` appends ``--worker-processes workers`` to
    its command, as the harness's profile does."""
    flag = (WORKER_PROCESSES_FLAG, str(workers))
    configs = tuple(
        replace(c, args=c.args + flag) if c.id == config_id else c for c in impl.configs
    )
    return replace(impl, configurations=configs)


def listening_sockets(proc: psutil.Process, port: int) -> set[int]:
    """The inodes of the sockets listening on ``port`` that ``proc`` holds (empty when it
    is gone or cannot be read)."""
    inodes: set[int] = set()
    try:
        for conn in proc.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                link = os.readlink(f"/proc/{proc.pid}/fd/{conn.fd}")  # "socket:[INODE]"
                inodes.add(int(link.removeprefix("socket:[").removesuffix("]")))
    except (psutil.Error, OSError):
        return set()
    return inodes


def worker_processes(root: psutil.Process, port: int) -> list[psutil.Process]:
    """The processes of ``root``'s tree that serve ``port``: each one that holds a socket
    listening on it, but one whose every such socket a descendant holds too (a parent that
    bound the socket and handed it to its workers: uvicorn's supervisor, gunicorn's arbiter,
    tornado's fork_processes parent...). Workers that listen on sockets of their own
    (SO_REUSEPORT, socketify) each count, the first process too."""
    tree = [root, *root.children(recursive=True)]
    held = {proc.pid: listening_sockets(proc, port) for proc in tree}
    workers = []
    for proc in tree:
        try:
            below = proc.children(recursive=True)
        except psutil.Error:
            continue
        handed_down = set().union(*(held.get(child.pid, set()) for child in below))
        if held[proc.pid] and not held[proc.pid] <= handed_down:
            workers.append(proc)
    return workers


def accepting_processes(root: psutil.Process, port: int) -> Counter[int]:
    """The processes of ``root``'s tree that hold accepted connections on ``port``, with how
    many each."""
    found: Counter[int] = Counter()
    for proc in [root, *root.children(recursive=True)]:
        try:
            for conn in proc.net_connections(kind="tcp"):
                if conn.status == psutil.CONN_ESTABLISHED and conn.laddr.port == port:
                    found[proc.pid] += 1
        except psutil.Error:
            continue
    return found


def spread_over_workers(url: str, root: psutil.Process, port: int) -> Counter[int]:
    """Open connections to ``url`` one after the other, holding them, until :data:`WORKERS`
    processes of ``root``'s tree have accepted some (or :data:`SPREAD_CONNECTIONS`, or
    :data:`SPREAD_TIMEOUT_S`); then close them. Returns the accepting processes (pid:
    connections)."""
    deadline = time.monotonic() + SPREAD_TIMEOUT_S
    found: Counter[int] = Counter()
    with contextlib.ExitStack() as held:
        for _ in range(SPREAD_CONNECTIONS):
            held.enter_context(connect(url, proxy=None, compression=None, open_timeout=10))
            found = accepting_processes(root, port)
            if len(found) >= WORKERS or time.monotonic() > deadline:
                break
            time.sleep(0.02)
    return found


def running(proc: psutil.Process) -> bool:
    """True while ``proc`` runs (not gone, not a zombie)."""
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def described(procs: list[psutil.Process]) -> str:
    """``procs`` as ``PID command`` (the command's first words), those still running."""
    shown = []
    for proc in procs:
        try:
            shown.append(f"{proc.pid} {' '.join(proc.cmdline()[:3])}")
        except psutil.Error:
            continue
    return ", ".join(shown)


def check_exact(report: Report, what: str) -> None:
    """Every message of the echo came back exactly: counts, bytes, no error."""
    assert report.messages_sent == CONNECTIONS * COUNT, what
    assert report.messages_received == CONNECTIONS * COUNT, what
    assert report.bytes_received == CONNECTIONS * COUNT * SIZE, what
    assert report.connections_ok == CONNECTIONS, what
    assert not any(report.integrity.values()), f"{what}: {report.integrity}"
    assert not any(report.errors.values()), f"{what}: {report.errors}"


@pytest.mark.parametrize("impl_config", SUPPORTED)
def test_a_server_stating_workers_serves_in_that_many_processes(
    impl_config: tuple[str, str], request: pytest.FixtureRequest
) -> None:
    """``--worker-processes 2`` on two CPUs: connections accepted by 2 processes of the
    server's tree, an exact echo over several connections, at least 2 worker processes in
    the tree (:func:`worker_processes`) while it serves, and on SIGTERM to its
    process group (as the harness stops a server) every process of the tree exits by itself
    (within :data:`STOP_WAIT_S`), the first with status 0 or -15."""
    name, config_id = impl_config
    label = f"{name}:{config_id} ({WORKER_PROCESSES_FLAG} {WORKERS})"
    impl = with_workers(get_impl(name), config_id, WORKERS)
    placement = CpuPlacement(server=available_cpus()[:WORKERS], loadgen=default_placement().loadgen)
    session = ServerSession(
        impl, config_id, python=request.config.getoption("--server-python"),
        placement=placement, label=label,
    )  # fmt: skip
    with session:
        assert session.alive(), f"{label}: {session.start_error}"
        root = psutil.Process(session.pid)
        port = int(session.base_url.rsplit(":", 1)[1])
        path = SOCKETIO_PATH if impl.config(config_id).protocol == "socketio" else "/echo"
        spread = spread_over_workers(session.base_url + path, root, port)
        tree = [root, *root.children(recursive=True)]
        assert len(spread) >= WORKERS, (
            f"{label}: connections accepted by {dict(spread)} (pid: connections) in "
            f"{described(tree)}"
        )
        m = session.run(
            MeasureConfig(
                impl=name, config=config_id, scenario="echo", size_bytes=SIZE, in_flight=4,
                connections=CONNECTIONS, count=COUNT,
            )
        )  # fmt: skip
        assert m.status == "ok" and m.report is not None, f"{label}: {m.error}"
        check_exact(m.report, label)
        tree = [root, *root.children(recursive=True)]
        workers = worker_processes(root, port)
        found = [p.pid for p in workers]
        assert len(workers) >= WORKERS, f"{label}: worker processes {found} in {described(tree)}"
        os.killpg(session.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT_S
        while any(running(p) for p in tree) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [p.pid for p in tree if running(p)]
        assert not left, f"{label}: {left} still running {STOP_WAIT_S:g} s after SIGTERM"
    code = session.exit_code
    tail = session.server.log_tail()
    assert code in (0, -signal.SIGTERM), f"{label}: exit code {code}\n{tail}"


@pytest.mark.parametrize("impl_config", NOT_SUPPORTED)
def test_a_server_stating_no_workers_refuses_the_flag(
    impl_config: tuple[str, str], request: pytest.FixtureRequest
) -> None:
    """``--worker-processes 2`` where the configuration states ``not supported``: the server
    exits at once with status 2 and an error naming the flag."""
    name, config_id = impl_config
    impl = get_impl(name)
    argv = impl.argv(
        python=request.config.getoption("--server-python"), loadgen=loadgen.ensure_built(),
        host=HOST, port=1, config=impl.config(config_id),
        profile_args=[WORKER_PROCESSES_FLAG, str(WORKERS)],
    )  # fmt: skip
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=REFUSAL_TIMEOUT_S, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    what = f"{name}:{config_id}: exit status {done.returncode}\n{done.stderr}"
    assert done.returncode == 2, what
    assert "error" in done.stderr and WORKER_PROCESSES_FLAG in done.stderr, what
