"""Serve an implementation's ASGI app on one ASGI server, with the fairness settings of
impls/PROTOCOL.md applied the same way for every framework that runs on that server.

Usage (the ``command`` of an implementation's meta.toml; its configuration's ``args`` add
``--server``, ``--loop`` and the rest):

    python impls/asgi_serve.py --app-dir DIR --app server:app --host HOST --port PORT \
        --server uvicorn|hypercorn|daphne|granian|gunicorn --loop asyncio|uvloop \
        [--ws auto] [--lifespan off] [--interface asgi|rsgi] \
        [--shipped-compression] [--certfile PEM --keyfile PEM] [--worker-processes N]

One source of truth for how each server is started: every framework served by uvicorn gets
exactly the same uvicorn settings (and so on for the other servers); an implementation's
meta.toml states them under ``[deviations]``. The app is loaded by the server itself from
the import string ``--app``, with ``--app-dir`` the working directory and first on
``sys.path``, as each server's own command line does.

uvicorn runs in this process (``uvicorn.run``). The other servers are started the way their
own docs deploy them, through their command line: this process is replaced (``os.execv``)
by ``python -m <server> ...`` with the flags below, so the harness's SIGTERM reaches the
server itself. Common settings: one worker (N with ``--worker-processes N``), one event-loop
thread per worker, WebSocket messages up to 16 MiB, no keepalive pings, no permessage-deflate
(no server here offers it unless the client asks, and the load generator never asks), no
access log, log level warning, and a graceful stop bounded by :data:`STOP_TIMEOUT_S` (the
harness kills a server 5 s after SIGTERM). What each server runs (processes, threads) is in
its function's docstring.

The deployment profiles (wsbench/deployment.py, impls/PROTOCOL.md) add three flags, parsed
by impls/profile_args.py as in every server: ``--shipped-compression`` leaves the server's
compression at its default, dropping only the setting that turns it off (uvicorn's
``ws_per_message_deflate=False``: the other servers have no such setting, and their defaults
are what they ship); every other setting stays. ``--certfile``/``--keyfile`` serve TLS,
configured the way each server's documentation does. ``--worker-processes N`` serves in N
worker processes through the server's own workers option (uvicorn's ``workers``, the
``--workers`` of hypercorn, granian and gunicorn) in place of its one worker, every other
setting per worker unchanged; daphne has none and refuses it (:data:`NO_WORKERS`). What each
server does with them is in impls/asgi_serve.toml.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from importlib.metadata import version

from profile_args import add_profile_flags, check_profile_flags

SERVERS = ("uvicorn", "hypercorn", "daphne", "granian", "gunicorn")
"""The ASGI servers this launcher knows."""
LOOPS = ("asyncio", "uvloop")
MAX_MESSAGE_BYTES = 2**24
"""16 MiB: the largest message every server must accept (PROTOCOL.md, fairness)."""
STOP_TIMEOUT_S = 3
"""Seconds a server may spend closing open connections after SIGTERM (the harness sends
SIGKILL after 5 s)."""
DAPHNE_PING_INTERVAL_S = 86400
"""daphne cannot switch its keepalive pings off: one day, as long as daphne's own
websocket_timeout (default 86400 s), which closes every WebSocket after a day anyway."""
NO_WORKERS = {
    "daphne": "daphne has no workers or processes option (Channels' deployment docs run "
    "several daphne processes under a process manager instead)",
}
"""Why a server cannot serve in several worker processes (``--worker-processes``)."""


def release(distribution: str) -> tuple[int, ...]:
    """The installed release of ``distribution`` as numbers, e.g. (2, 8, 7): some flags
    exist only from a given release."""
    return tuple(int(part) for part in version(distribution).split(".")[:3] if part.isdigit())


def serve_uvicorn(args: argparse.Namespace) -> None:
    """uvicorn.run() in this process: one worker, no reload, the backend ``--ws``.

    ``ws_per_message_deflate=False`` unless ``--shipped-compression`` (uvicorn's default is
    True, on every backend); TLS with ``ssl_certfile`` and ``ssl_keyfile`` (uvicorn's
    ``--ssl-certfile``/``--ssl-keyfile``). One process, one thread running the event loop.
    ``--worker-processes N``: ``workers=N`` (uvicorn's ``--workers``; the app is an import
    string already, as it requires): a supervisor process that binds the socket and N
    worker processes (multiprocessing's spawn), each with one event-loop thread.
    """
    import uvicorn

    options: dict[str, object] = {}
    if not args.shipped_compression:
        options["ws_per_message_deflate"] = False  # no permessage-deflate
    if args.certfile:
        options.update(ssl_certfile=args.certfile, ssl_keyfile=args.keyfile)
    if args.worker_processes:
        options["workers"] = args.worker_processes
    uvicorn.run(
        args.app,
        app_dir=args.app_dir,
        host=args.host,
        port=args.port,
        loop=args.loop,
        ws=args.ws or "auto",
        http="h11",  # the same HTTP parser whatever the app's dependencies ('auto': httptools)
        ws_max_size=MAX_MESSAGE_BYTES,
        ws_ping_interval=None,  # no keepalive pings
        lifespan=args.lifespan,
        access_log=False,
        log_level="warning",
        **options,
    )


def workers(args: argparse.Namespace) -> str:
    """The value of a server's ``--workers`` flag: ``--worker-processes``'s N, else 1."""
    return str(args.worker_processes or 1)


def hypercorn_argv(args: argparse.Namespace) -> list[str]:
    """``hypercorn --workers 1 --worker-class asyncio|uvloop``, otherwise its defaults.

    hypercorn's defaults are the fairness settings already: websocket_max_message_size
    16 MiB and websocket_ping_interval None (neither has another command-line flag than the
    ping interval's), no access log (accesslog None), graceful_timeout 3 s (set here
    explicitly). Its ws stream accepts permessage-deflate only when the client offers it.
    hypercorn has no lifespan switch: it always runs the lifespan protocol, and goes on
    without it when the app does not support it. ``--workers 1`` is hypercorn's default
    deployment: a parent process that binds the socket and waits, and one worker process
    (multiprocessing "spawn") running the event loop: 2 processes, one event-loop thread.
    ``--shipped-compression`` changes nothing (it has no compression setting); TLS with
    ``--certfile`` and ``--keyfile``, as hypercorn's docs configure it.
    ``--worker-processes N``: ``--workers N``, N worker processes under the one parent.
    """
    tls = ["--certfile", args.certfile, "--keyfile", args.keyfile] if args.certfile else []
    return [
        "hypercorn", "--bind", f"{args.host}:{args.port}", "--workers", workers(args),
        "--worker-class", args.loop, "--graceful-timeout", str(STOP_TIMEOUT_S),
        "--log-level", "warning", *tls, args.app,
    ]  # fmt: skip


def daphne_argv(args: argparse.Namespace) -> list[str]:
    """``daphne -b HOST -p PORT -v 0`` with the message limits raised and pings pushed out.

    daphne (Twisted with autobahn's WebSocket protocol) runs Twisted's asyncio reactor on a
    plain asyncio loop that it creates itself: no uvloop. ``-v 0``: log level warning and no
    access log (verbosity 1, the default, logs every request to stdout). From daphne 4.2.2
    its limits default to 1 MiB: ``--websocket-max-message-size`` and
    ``--websocket-max-frame-size`` 16 MiB (before 4.2.2: no limit, and no such flags).
    Its pings cannot be switched off: ``--ping-interval`` :data:`DAPHNE_PING_INTERVAL_S`.
    Autobahn negotiates permessage-deflate only when configured to (daphne does not, and has
    no setting for it): ``--shipped-compression`` changes nothing. TLS: the endpoint
    :func:`daphne_tls_endpoint` (``-e ssl:...``, as daphne's README shows) in place of
    ``-b``/``-p``. daphne has no lifespan support. One process, one thread running the
    reactor and the app.
    """
    if args.loop != "asyncio":
        raise SystemExit("asgi_serve.py: daphne runs its own asyncio loop: --loop asyncio only")
    if args.lifespan == "on":
        raise SystemExit("asgi_serve.py: daphne does not run the ASGI lifespan protocol")
    if args.certfile:
        argv = ["daphne", "-e", daphne_tls_endpoint(args), "-v", "0"]
    else:
        argv = ["daphne", "-b", args.host, "-p", str(args.port), "-v", "0"]
    if release("daphne") >= (4, 2, 2):
        argv += ["--websocket-max-message-size", str(MAX_MESSAGE_BYTES)]
        argv += ["--websocket-max-frame-size", str(MAX_MESSAGE_BYTES)]
    return [*argv, "--ping-interval", str(DAPHNE_PING_INTERVAL_S), args.app]


def twisted_escape(value: str) -> str:
    """``value`` as one value of a Twisted endpoint string (``\\``, ``:`` and ``=`` escaped)."""
    return "".join("\\" + char if char in "\\:=" else char for char in value)


def daphne_tls_endpoint(args: argparse.Namespace) -> str:
    """daphne's TLS endpoint, a Twisted endpoint string: daphne's README serves TLS with
    ``daphne -e ssl:443:privateKey=key.pem:certKey=crt.pem``, here bound to ``--host``
    only, as ``-b`` binds it (Twisted's ssl endpoint needs pyOpenSSL: daphne requires
    ``twisted[tls]``)."""
    return (
        f"ssl:port={args.port}:privateKey={twisted_escape(args.keyfile)}"
        f":certKey={twisted_escape(args.certfile)}:interface={twisted_escape(args.host)}"
    )


def granian_argv(args: argparse.Namespace) -> list[str]:
    """``granian --interface asgi|asginl|rsgi --workers 1`` with one Rust runtime thread.

    ``--interface rsgi`` serves an RSGI app (granian's native interface); for an ASGI app
    ``--lifespan off`` is granian's "asginl" interface (ASGI without lifespan, from 1.2),
    ``on`` its "asgi". granian's WebSocket (tokio-tungstenite) has no ping, no
    permessage-deflate and tungstenite's limits (64 MiB messages, 16 MiB frames); its access
    log is off by default. Some flags depend on the installed release: one runtime thread
    (``--threads 1`` before 2.0, ``--runtime-threads 1`` from 2.0; the default), one
    blocking thread, the one that hands calls to Python (``--blocking-threads 1`` in 1.x,
    whose default is min(2, CPUs) from 1.3; fixed at 1 for ASGI and RSGI from 2.0) and
    ``--workers-kill-timeout`` :data:`STOP_TIMEOUT_S` (from 1.7; granian 1.7 to 2.5 leave
    their worker hanging after SIGTERM in some stops, seen here in 2 to 4 of 10, and this
    kills it). ``--backpressure`` stays at its default (backlog/workers = 1024): it bounds
    the connections being served at once, and an upgraded WebSocket no longer counts (2,500
    open WebSockets were served here by 1.7.6, 2.5.7 and 2.8.7, RSGI and ASGI). granian
    always runs its workers in child processes (multiprocessing): a parent (main thread and
    a worker watcher) and one worker process with the Python event-loop thread, the Rust
    runtime thread and the blocking thread(s). granian has no permessage-deflate:
    ``--shipped-compression`` changes nothing. TLS: ``--ssl-certificate`` and
    ``--ssl-keyfile`` (granian's CLI; the key in PKCS#8), in every release listed here.
    ``--worker-processes N``: ``--workers N``, N worker processes under the one parent, each
    with the threads above.
    """
    granian = release("granian")
    interface = args.interface
    if interface == "asgi" and args.lifespan == "off" and granian >= (1, 2):
        interface = "asginl"
    argv = [
        "granian", "--interface", interface, "--host", args.host, "--port", str(args.port),
        "--workers", workers(args), "--loop", args.loop, "--log-level", "warning",
    ]  # fmt: skip
    if granian >= (2, 0):
        argv += ["--runtime-threads", "1"]
    else:
        argv += ["--threads", "1"]
        if granian >= (1, 0):
            argv += ["--blocking-threads", "1"]
    if granian >= (1, 7):
        argv += ["--workers-kill-timeout", str(STOP_TIMEOUT_S)]
    if args.certfile:
        argv += ["--ssl-certificate", args.certfile, "--ssl-keyfile", args.keyfile]
    return [*argv, args.app]


def gunicorn_argv(args: argparse.Namespace) -> list[str]:
    """``gunicorn --worker-class asgi --workers 1`` (gunicorn's own asyncio ASGI worker).

    ``--asgi-loop asyncio|uvloop``; ``--asgi-lifespan`` from ``--lifespan``; the message
    limit set explicitly (its default is 16 MiB too); ``--graceful-timeout``
    :data:`STOP_TIMEOUT_S` (default 30 s: gunicorn would wait for open WebSockets longer
    than the harness does). The worker sends no pings and accepts no extensions (RSV bits
    must be 0); access log off by default. ``--no-control-socket``: the arbiter's control
    interface (for gunicornc, from 25.1) would otherwise listen on one Unix socket shared by
    every gunicorn of the user ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl),
    in a thread of its own. gunicorn's arbiter is a process of its own: the arbiter and one
    worker process running the event loop, one thread each. The worker has no
    permessage-deflate: ``--shipped-compression`` changes nothing. TLS: ``--certfile`` and
    ``--keyfile``, as gunicorn's settings document them. ``--worker-processes N``:
    ``--workers N``, N worker processes under the one arbiter.
    """
    tls = ["--certfile", args.certfile, "--keyfile", args.keyfile] if args.certfile else []
    return [
        "gunicorn", "--worker-class", "asgi", "--workers", workers(args),
        "--bind", f"{args.host}:{args.port}", "--asgi-loop", args.loop,
        "--asgi-lifespan", args.lifespan,
        "--websocket-max-message-size", str(MAX_MESSAGE_BYTES),
        "--graceful-timeout", str(STOP_TIMEOUT_S), "--no-control-socket",
        "--log-level", "warning", *tls, args.app,
    ]  # fmt: skip


COMMAND_LINES = {
    "hypercorn": hypercorn_argv,
    "daphne": daphne_argv,
    "granian": granian_argv,
    "gunicorn": gunicorn_argv,
}
"""How each server other than uvicorn is started: its command line after ``python -m``."""


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app-dir", required=True, help="the folder holding the app module")
    parser.add_argument("--app", required=True, help="the app's import string, module:attribute")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--server", choices=SERVERS, required=True)
    parser.add_argument("--loop", choices=LOOPS, default="asyncio")
    parser.add_argument(
        "--ws", help="uvicorn's WebSocket backend (default: uvicorn's own choice, 'auto')"
    )
    parser.add_argument(
        "--lifespan",
        choices=["on", "off"],
        default="off",
        help="run the app's startup and shutdown hooks (on) or not (off, the default)",
    )
    parser.add_argument(
        "--interface",
        choices=["asgi", "rsgi"],
        default="asgi",
        help="granian only: the app's interface (rsgi: granian's native one)",
    )
    add_profile_flags(
        parser,
        compression="keep the server's default compression (the tuned setting turns it off)",
    )
    args = parser.parse_args(argv)
    check_profile_flags(parser, args, no_workers=NO_WORKERS.get(args.server, ""))
    if args.certfile:  # absolute: the servers start in the app's folder
        args.certfile, args.keyfile = map(os.path.abspath, (args.certfile, args.keyfile))
    if args.ws is not None and args.server != "uvicorn":
        parser.error(f"--ws is uvicorn's; {args.server} has one WebSocket implementation")
    if args.interface != "asgi" and args.server != "granian":
        parser.error(f"--interface {args.interface} is granian's; {args.server} serves ASGI")
    args.app_dir = os.path.abspath(args.app_dir)
    sys.path.insert(0, args.app_dir)
    os.chdir(args.app_dir)
    if args.server == "uvicorn":
        serve_uvicorn(args)
        return
    if args.server == "hypercorn" and args.worker_processes:
        # The harness stops a server with SIGTERM to its whole process group. hypercorn's
        # workers install no handler of their own (hypercorn/asyncio/run.py: they stop on
        # the parent's shutdown event), so that SIGTERM killed them at once, ungracefully;
        # the parent (hypercorn/run.py) exits 0 when it reaps both dead workers at once and
        # sys.exit(-15), status 241, when it reaps them one after the other (seen once with
        # 0.18.0). An ignored signal stays ignored through exec and in spawned processes:
        # the workers keep serving until the parent, which installs its own SIGTERM handler
        # after starting them, sets the shutdown event, and they stop gracefully.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # ``python -m`` puts the working directory (the app's folder) first on sys.path.
    command = [sys.executable, "-m", *COMMAND_LINES[args.server](args)]
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main()
