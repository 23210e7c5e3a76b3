"""wsbench server for Robyn: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. Robyn runs its HTTP and WebSocket layer in Rust (actix-web, with
actix-web-actors for WebSockets) and calls the Python handlers on an asyncio event loop of
its own: uvloop, which Robyn installs itself on Linux (robyn/processpool.py,
initialize_event_loop). The server is started as Robyn's docs deploy it: ``app.start(host,
port)``, with Robyn's own command-line flags ``--processes 1 --workers 1 --log-level WARN``
(meta.toml's command), one process. With --worker-processes N, Robyn's --processes N
instead: Robyn binds the socket and forks N server processes (multiprocess.Process), each
with its own event loop and one actix worker thread, and the first process waits for them.

Two WebSocket APIs, one per Robyn generation (see meta.toml's configurations):

- ``@app.websocket(path)`` (Robyn >= 0.78; the only one from 0.80), as its docs show
  (docs "WebSockets": ``while True: msg = await websocket.receive_text(); await
  websocket.send_text(...)``; ``send_bytes()`` for binary frames from 0.88.0). One handler
  coroutine per connection reads the messages from a Rust channel. The public receive_text()
  and receive_bytes() convert a frame to the type asked for, so the handlers call the
  adapter's ``_receive()``, which returns ``str`` for a text frame and ``bytes`` for a binary
  frame (0.88.0), to answer with the same frame type.
- ``WebSocket(app, path)`` with ``@websocket.on("message")`` handlers whose return value is
  the reply (Robyn < 0.80; docs "WebSockets" of those versions), plain functions, as the
  docs' first example: Robyn calls them in the actix worker thread. Async handlers answered
  out of order (Robyn spawns each call's future on the connection's actor and writes each
  reply when it completes) and must return a string, which Robyn always sends. Only text
  frames reach Python (actix echoes binary frames itself, in Rust) and replies are text
  frames: /echo (text) and /json are served, the other endpoints are not registered
  (meta.toml lists them as unsupported).

The handlers are registered by calling the decorators (``app.websocket(path)(handler)``,
``websocket.on("message")(handler)``) so that one file serves both generations.

/broadcast and /market relay a message to every other open connection of the endpoint by
awaiting each one's send in turn: Robyn's ``websocket.broadcast()`` sends to every
connection of the endpoint including the sender, which the protocol forbids.
"""

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from profile_args import parse_profile_args


def parse_args():
    """This server's flags; the others (--processes, --workers, --log-level) are Robyn's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    return parse_profile_args(
        parser,
        compression="accepted for every server; Robyn has no WebSocket compression, so "
        "nothing changes",
        no_tls="Robyn's app.start() and command line have no TLS option and its actix-web "
        "server is built without a TLS library",
        known=True,
    )


if __name__ == "__main__":
    ARGS = parse_args()
    # Robyn reads its own flags from sys.argv when it is imported (robyn/argument_parser.py,
    # Config): --worker-processes N becomes its --processes N, after the command's
    # --processes 1, which it overrides (argparse keeps the last)
    if ARGS.worker_processes:
        sys.argv += ["--processes", str(ARGS.worker_processes)]

from robyn import Robyn  # noqa: E402
from robyn import ws as robyn_ws  # noqa: E402

app = Robyn(__file__)


# -- Robyn >= 0.78: @app.websocket, a handler coroutine per connection ------------------


async def echo(websocket):
    while True:
        message = await websocket._receive()  # str: a text frame, bytes: a binary frame
        if isinstance(message, str):
            await websocket.send_text(message)
        else:
            await websocket.send_bytes(message)


async def json_answer(websocket):
    while True:
        message = await websocket._receive()
        # A message that is not a JSON request closes the connection (PROTOCOL.md); Robyn's
        # close() takes no close code
        if not isinstance(message, str):
            await websocket.close()
            return
        try:
            seq = json.loads(message)["seq"]
        except (ValueError, KeyError, TypeError):
            await websocket.close()
            return
        await websocket.send_text(json.dumps({"seq": seq, "ok": True}))


async def push(websocket):
    while True:
        request = json.loads(await websocket.receive_text())
        count, size = request["count"], request["size"]
        filler = bytes(ord("a") + k % 26 for k in range(16, size))
        if request.get("binary", True):
            for i in range(count):
                await websocket.send_bytes(b"%016x" % i + filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
                    if not connected(websocket):
                        return  # the client left
        else:
            text_filler = filler.decode()
            for i in range(count):
                await websocket.send_text(f"{i:016x}" + text_filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
                    if not connected(websocket):
                        return


def connected(websocket):
    """False once Robyn has seen the connection close.

    Robyn drops a send to a closed connection without an error, and a handler's receive
    does not end when its client leaves (the connector object Python holds keeps a sender
    of the receive channel open), so nothing public tells the push that its client left:
    Robyn's close handler only cancels the handler task 5 s later. It first removes the
    task from robyn.ws's table of the running handlers, which this reads.
    """
    return websocket.id in robyn_ws._connection_tasks


# The open connections of /broadcast and of /market (PROTOCOL.md): subscribers from the
# start of their handler (right after the handshake) until it ends.
broadcast_subscribers = set()
market_subscribers = set()


async def relay(subscribers, sender, message):
    """Send a received message to every subscriber but its sender, awaiting each send."""
    for subscriber in list(subscribers):  # a copy: subscribers leave while a send awaits
        if subscriber is sender:
            continue
        if isinstance(message, str):
            await subscriber.send_text(message)
        else:
            await subscriber.send_bytes(message)


async def broadcast(websocket):
    broadcast_subscribers.add(websocket)
    try:
        while True:
            await relay(broadcast_subscribers, websocket, await websocket._receive())
    finally:
        broadcast_subscribers.discard(websocket)


async def market(websocket):
    market_subscribers.add(websocket)
    try:
        while True:
            message = await websocket._receive()
            # A message that is not a tick or an order closes the connection (PROTOCOL.md)
            if not isinstance(message, str):
                await websocket.close()
                return
            try:
                data = json.loads(message)
                kind = data["type"]
                if kind == "order":
                    ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
                elif kind != "tick":
                    raise ValueError(kind)
            except (ValueError, KeyError, TypeError):
                await websocket.close()
                return
            if kind == "tick":
                await relay(market_subscribers, websocket, message)  # the text unchanged
            else:
                await websocket.send_text(ack)
    finally:
        market_subscribers.discard(websocket)


# -- Robyn < 0.80: WebSocket(app, path), the message handler returns the reply -----------


def echo_message(ws, msg):
    return msg  # text frames only: actix echoes binary frames before Python sees them


def json_message(ws, msg):
    try:
        seq = json.loads(msg)["seq"]
    except (ValueError, KeyError, TypeError):
        # Not a JSON request: close (PROTOCOL.md), without a close code (Robyn's close()
        # has none; it exists from 0.61.1: before, the message is only dropped)
        if hasattr(ws, "close"):
            ws.close()
        return None
    return json.dumps({"seq": seq, "ok": True})


def no_reply(ws):
    return None  # connect and close handlers are required; None sends nothing


def legacy_endpoint(path, on_message):
    from robyn import WebSocket

    websocket = WebSocket(app, path)
    websocket.on("connect")(no_reply)
    websocket.on("close")(no_reply)
    websocket.on("message")(on_message)


if hasattr(app, "websocket"):
    app.websocket("/echo")(echo)
    app.websocket("/push")(push)
    app.websocket("/json")(json_answer)
    app.websocket("/broadcast")(broadcast)
    app.websocket("/market")(market)
else:
    legacy_endpoint("/echo", echo_message)
    legacy_endpoint("/json", json_message)


if __name__ == "__main__":
    # 16 MiB messages (Robyn >= 0.79 reads it at start; older ones: actix's 64 KiB frames)
    os.environ["ROBYN_MAX_PAYLOAD_SIZE"] = str(2**24)
    # SIGTERM as Ctrl+C: KeyboardInterrupt ends Robyn's event loop, which runs its shutdown
    # handlers and exits 0. With one process Robyn installs no SIGTERM handler of its own
    # (actix's only stops the Rust server: the process would run on).
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    app.start(host=ARGS.host, port=ARGS.port)
