"""wsbench server for python-socketio: events echo, push and json (see impls/PROTOCOL.md).

A socketio.AsyncServer (async_mode="asgi") wrapped in socketio.ASGIApp, served by uvicorn
on the asyncio or uvloop event loop (--loop). Clients use the Engine.IO websocket transport
at /socket.io/. uvicorn's WebSocket backend is its default with the websockets library
installed: "websockets" up to uvicorn 0.49, "websockets-sansio" from 0.50.
"""

import argparse
import asyncio

import socketio
import uvicorn

UVICORN_VERSION = tuple(int(part) for part in uvicorn.__version__.split(".")[:2])
WS_BACKEND = "websockets-sansio" if UVICORN_VERSION >= (0, 50) else "websockets"

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


app = socketio.ASGIApp(sio)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parser.parse_args()
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        loop=args.loop,
        ws=WS_BACKEND,
        ws_max_size=2**24,  # 16 MiB
        ws_ping_interval=None,  # no WebSocket keepalive pings (Engine.IO pings its own)
        ws_per_message_deflate=False,  # no permessage-deflate
        lifespan="off",
        access_log=False,
        log_level="warning",
    )
