"""wsbench server for Sanic on its own server: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. Five @app.websocket handlers, each `async def handler(request, ws)`
iterating over the connection (`async for msg in ws: await ws.send(msg)`), the idiom of
Sanic's WebSocket guide (https://sanic.dev/en/guide/advanced/websockets.html, "Added in
v22.9"). Sanic's own server runs them (app.run, not ASGI) in single-process mode
(single_process=True: no worker manager, so one process running one event loop, as
PROTOCOL.md asks); the event loop (--loop asyncio|uvloop) is the configuration, set with
app.config.USE_UVLOOP (Sanic's own default is uvloop when installed, and it is a dependency).
Underneath, Sanic drives the websockets library's Sans-I/O ServerProtocol itself; each send
awaits Sanic's protocol send(), which waits while the transport is paused (write buffer
above 64 KiB). Sanic has no broadcast helper: /broadcast and /market keep a set of their
open connections and relay a message by awaiting each subscriber's send in turn.

--worker-processes N: Sanic's worker manager instead, app.run(workers=N) (Sanic's documented
workers option): a main process that manages N worker processes (multiprocessing's spawn),
each importing this module and serving on the socket bound here.
"""

import argparse
import asyncio
import json
import logging
import signal
import socket
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from profile_args import parse_profile_args
from sanic import Sanic
from sanic import log as sanic_log
from sanic.exceptions import RequestCancelled, SanicException


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], required=True)
    return parse_profile_args(
        parser,
        compression="accepted for every server; Sanic never negotiates compression, so "
        "nothing changes",
    )


# Parsed when the module is imported: Sanic's worker processes (--worker-processes) import it
# again (multiprocessing's spawn, with this process's sys.argv), and the app is configured
# here, the same in every process.
ARGS = parse_args()
app = Sanic("wsbench")
app.config.USE_UVLOOP = ARGS.loop == "uvloop"
app.config.WEBSOCKET_MAX_SIZE = 2**24  # 16 MiB (default 1 MiB)
app.config.WEBSOCKET_PING_INTERVAL = None  # no keepalive pings (default every 20 s)
app.config.WEBSOCKET_PING_TIMEOUT = None
# On SIGTERM Sanic sends each WebSocket a close frame and waits for the connections to go,
# at most GRACEFUL_SHUTDOWN_TIMEOUT (default 15 s); a relay blocked on a subscriber that
# stopped reading held the exit for 10 s here. 3 s stays within the harness's 5 s.
app.config.GRACEFUL_SHUTDOWN_TIMEOUT = 3.0
# websockets logs one line per connection at INFO ("connection open" up to websockets 12,
# "connection closed" from 17) through the logger Sanic hands it, which Sanic's default
# logging config sets to INFO: sanic.log.websockets_logger from Sanic 24.6, its main logger
# (sanic.root) before. That logger at WARNING, as uvicorn's log_level='warning' elsewhere.
getattr(sanic_log, "websockets_logger", sanic_log.logger).setLevel(logging.WARNING)


@app.websocket("/echo")
async def echo(request, ws):
    async for msg in ws:  # str for a text frame, bytes for a binary one
        await ws.send(msg)


@app.websocket("/json")
async def json_answer(request, ws):
    async for msg in ws:
        # A message that is not a JSON request closes the connection (PROTOCOL.md)
        if not isinstance(msg, str):
            await ws.close(1003, "text messages only")
            return
        try:
            seq = json.loads(msg)["seq"]
        except (ValueError, KeyError, TypeError):
            await ws.close(1007, "not a JSON request")
            return
        await ws.send(json.dumps({"seq": seq, "ok": True}))


@app.websocket("/push")
async def push(request, ws):
    # If the client leaves mid-push, Sanic cancels this handler (connection lost) or the
    # send raises WebsocketClosed (close frame received); Sanic ends the handler quietly.
    async for msg in ws:
        push_request = json.loads(msg)
        count, size = push_request["count"], push_request["size"]
        filler = bytes(ord("a") + k % 26 for k in range(16, size))
        if push_request.get("binary", True):
            for i in range(count):
                await ws.send(b"%016x" % i + filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages, as in every impl
        else:
            text_filler = filler.decode()
            for i in range(count):
                await ws.send(f"{i:016x}" + text_filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages, as in every impl


# The open connections of /broadcast and of /market (PROTOCOL.md): subscribers from the
# handshake until they leave.
broadcast_subscribers = set()
market_subscribers = set()


async def relay(subscribers, sender, msg):
    """Send a received message to every subscriber but its sender, awaiting each send."""
    for subscriber in list(subscribers):  # a copy: subscribers leave while a send awaits
        if subscriber is sender or subscriber not in subscribers:
            continue  # the sender, or a subscriber that left during an earlier send
        try:
            await subscriber.send(msg)
        except (SanicException, RequestCancelled):
            # That subscriber is leaving (WebsocketClosed once its close frame arrived,
            # RequestCancelled once its transport is closing, ServerError once its handler
            # ended); its own handler removes it.
            continue


@app.websocket("/broadcast")
async def broadcast(request, ws):
    broadcast_subscribers.add(ws)
    try:
        async for msg in ws:
            await relay(broadcast_subscribers, ws, msg)
    finally:
        broadcast_subscribers.discard(ws)


@app.websocket("/market")
async def market(request, ws):
    market_subscribers.add(ws)
    try:
        async for msg in ws:
            # A message that is not a tick or an order closes the connection (PROTOCOL.md)
            if not isinstance(msg, str):
                await ws.close(1003, "text messages only")
                return
            try:
                data = json.loads(msg)
                kind = data["type"]
                if kind == "order":
                    ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
                elif kind != "tick":
                    raise ValueError(kind)
            except (ValueError, KeyError, TypeError):
                await ws.close(1007, "not a tick or an order")
                return
            if kind == "tick":
                await relay(market_subscribers, ws, msg)  # the received text, unchanged
            else:
                await ws.send(ack)
    finally:
        market_subscribers.discard(ws)


if __name__ == "__main__":
    # TLS as Sanic's TLS guide shows: app.run(ssl={"cert": ..., "key": ...}), from which Sanic
    # builds its own SSLContext (sanic.http.tls CertSimple); None: plain TCP
    tls = {"cert": ARGS.certfile, "key": ARGS.keyfile} if ARGS.certfile else None
    # One process (no worker manager), or Sanic's worker manager with N worker processes
    if ARGS.worker_processes:
        processes = {"workers": ARGS.worker_processes}
        # The harness stops a server with SIGTERM to its whole process group, and Sanic's
        # main process then stops its workers, reading their states from multiprocessing's
        # manager process (started by app.run): killed by that SIGTERM first, the manager
        # left the main process failing (BrokenPipeError, exit status 1; seen with 25.12.1).
        # So it starts with SIGTERM ignored (an ignored signal stays ignored in a spawned
        # process); Sanic's worker manager then installs the main process's own handler,
        # and the main process shuts the manager down once its workers have stopped.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        processes = {"single_process": True}
    # The listening socket, bound here as Sanic's bind_socket() binds it (SO_REUSEADDR,
    # backlog 100) but created with proto=IPPROTO_TCP: asyncio's transports set TCP_NODELAY
    # only on sockets whose proto is IPPROTO_TCP, and Sanic's socket.socket(AF_INET) has
    # proto 0, so on asyncio Sanic would leave Nagle's algorithm on (see meta.toml).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((ARGS.host, ARGS.port))
    sock.listen(100)
    app.run(sock=sock, debug=False, auto_reload=False, access_log=False, ssl=tls, **processes)
