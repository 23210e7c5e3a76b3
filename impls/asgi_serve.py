"""Serve an implementation's ASGI app on one ASGI server, with the fairness settings of
impls/PROTOCOL.md applied the same way for every framework that runs on that server.

Usage (the ``command`` of an implementation's meta.toml; its configuration's ``args`` add
``--server``, ``--loop`` and the rest):

    python impls/asgi_serve.py --app-dir DIR --app server:app --host HOST --port PORT \
        --server uvicorn --loop asyncio [--ws auto] [--lifespan off]

One source of truth for how each server is started: every framework served by uvicorn gets
exactly the same uvicorn settings (and so on for the other servers); an implementation's
meta.toml states them under ``[deviations]``. The app is loaded by the server itself from
the import string ``--app`` with ``--app-dir`` first on ``sys.path``, as each server's own
command line does.
"""

from __future__ import annotations

import argparse
import os
import sys

SERVERS = ("uvicorn",)
"""The ASGI servers this launcher knows."""
LOOPS = ("asyncio", "uvloop")
MAX_MESSAGE_BYTES = 2**24
"""16 MiB: the largest message every server must accept (PROTOCOL.md, fairness)."""


def serve_uvicorn(args: argparse.Namespace) -> None:
    """uvicorn.run() in this process: one worker, no reload, the backend ``--ws``."""
    import uvicorn

    uvicorn.run(
        args.app,
        app_dir=args.app_dir,
        host=args.host,
        port=args.port,
        loop=args.loop,
        ws=args.ws,
        ws_max_size=MAX_MESSAGE_BYTES,
        ws_ping_interval=None,  # no keepalive pings
        ws_per_message_deflate=False,  # no permessage-deflate
        lifespan=args.lifespan,
        access_log=False,
        log_level="warning",
    )


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
        "--ws",
        default="auto",
        help="uvicorn's WebSocket backend (default: uvicorn's own choice, 'auto')",
    )
    parser.add_argument(
        "--lifespan",
        choices=["on", "off"],
        default="off",
        help="run the app's startup and shutdown hooks (on) or not (off, the default)",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, args.app_dir)
    os.chdir(args.app_dir)
    {"uvicorn": serve_uvicorn}[args.server](args)


if __name__ == "__main__":
    main()
