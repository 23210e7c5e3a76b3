"""wsbench server for python-socketio: the Socket.IO events of impls/PROTOCOL.md.

Events: echo, push, json, subscribe, broadcast, tick, order.

A socketio.AsyncServer (async_mode="asgi") wrapped in socketio.ASGIApp, served by uvicorn
on the asyncio or uvloop event loop (--loop). Clients use the Engine.IO websocket transport
at /socket.io/. uvicorn's WebSocket backend is its default with the websockets library
installed: "websockets" up to uvicorn 0.49, "websockets-sansio" from 0.50.

Fan-out uses Socket.IO rooms: `subscribe` enters the client in a room ("broadcast" or
"market"); `broadcast` and `tick` are emitted to that room with skip_sid=sid (not back to
the sender). emit() puts the packet on each recipient's Engine.IO queue (an unbounded
asyncio.Queue) and returns; each connection's writer task sends from its queue, so a slow
subscriber's queue grows while the others go on.

--worker-processes N: uvicorn's own workers option, uvicorn.run("server:app", workers=N)
(uvicorn needs the app as an import string for it): a supervisor process and N spawned
worker processes, each importing this module and serving its own AsyncServer. Without a
client manager (a message queue) a worker's rooms hold its own clients only.
"""

import argparse
import asyncio
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
import socketio
import uvicorn
from profile_args import parse_profile_args

UVICORN_VERSION = tuple(int(part) for part in uvicorn.__version__.split(".")[:2])
WS_BACKEND = "websockets-sansio" if UVICORN_VERSION >= (0, 50) else "websockets"
SOCKETIO_VERSION = tuple(int(part) for part in version("python-socketio").split(".")[:2])

sio = socketio.AsyncServer(
    async_mode="asgi",
    max_http_buffer_size=2**24,  # 16 MiB
    logger=False,
    engineio_logger=False,
)
connected = set()  # sids of connected clients: a push stops when its client leaves


@sio.event
async def connect(sid, environ, *args):
    connected.add(sid)


@sio.event
async def disconnect(sid, *args):
    connected.discard(sid)


@sio.event
async def echo(sid, data):
    await sio.emit("echo", data, to=sid)


@sio.on("json")  # @sio.event would need a function named json, the module's name
async def json_answer(sid, data):
    # data: the object python-socketio decoded from the packet (standard library json)
    await sio.emit("json", {"seq": data["seq"], "ok": True}, to=sid)


@sio.event
async def push(sid, request):
    count, size = request["count"], request["size"]
    filler = bytes(ord("a") + k % 26 for k in range(16, size))
    if request.get("binary", True):
        messages = (b"%016x" % i + filler for i in range(count))
    else:
        text_filler = filler.decode()
        messages = (f"{i:016x}" + text_filler for i in range(count))
    for i, message in enumerate(messages):
        await sio.emit("push", message, to=sid)
        if i % 64 == 63:
            await asyncio.sleep(0)  # yield every 64 messages, as in every impl (PROTOCOL.md)
            if sid not in connected:
                return  # the client went away, possibly mid-push


@sio.event
async def subscribe(sid, room):
    if SOCKETIO_VERSION >= (5, 10):
        await sio.enter_room(sid, room)  # a coroutine from python-socketio 5.10
    else:
        sio.enter_room(sid, room)  # a plain method before (5.7.2)


@sio.event
async def broadcast(sid, data):
    # to every client in the room but the sender, the argument unchanged (str or bytes)
    await sio.emit("broadcast", data, room="broadcast", skip_sid=sid)


@sio.event
async def tick(sid, data):
    await sio.emit("tick", data, room="market", skip_sid=sid)


@sio.event
async def order(sid, data):
    await sio.emit("ack", {"type": "ack", "id": data["id"], "ok": True}, to=sid)


app = socketio.ASGIApp(sio)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parse_profile_args(
        parser,
        compression="keep uvicorn's default WebSocket compression (ws_per_message_deflate=True)",
    )
    # Tuned: no permessage-deflate; as shipped: uvicorn's default, ws_per_message_deflate=True
    options = {} if args.shipped_compression else {"ws_per_message_deflate": False}
    if args.certfile:  # TLS as uvicorn's docs deploy it: its ssl_certfile/ssl_keyfile settings
        options.update(ssl_certfile=args.certfile, ssl_keyfile=args.keyfile)
    if args.worker_processes:  # uvicorn's workers take the app as an import string
        options["workers"] = args.worker_processes
    uvicorn.run(
        "server:app" if args.worker_processes else app,
        host=args.host,
        port=args.port,
        loop=args.loop,
        ws=WS_BACKEND,
        ws_max_size=2**24,  # 16 MiB
        ws_ping_interval=None,  # no WebSocket keepalive pings (Engine.IO pings its own)
        lifespan="off",
        access_log=False,
        log_level="warning",
        **options,
    )
