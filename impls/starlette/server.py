"""wsbench server for Starlette: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. A Starlette app (``app``) with five WebSocketRoutes, served by
impls/asgi_serve.py on the server of the configuration (meta.toml): uvicorn with each of
its WebSocket backends (--ws) on asyncio or uvloop (--loop), Hypercorn, Daphne, Granian or
Gunicorn's ASGI worker. Starlette has no broadcast helper: /broadcast and /market keep a
set of their open WebSockets and relay a message by awaiting each subscriber's send in turn, the
connection-manager pattern of the Starlette/FastAPI docs.
"""

import asyncio
import json

from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect


async def echo(websocket: WebSocket):
    await websocket.accept()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("bytes") is not None:
            await websocket.send_bytes(message["bytes"])
        else:
            await websocket.send_text(message["text"])


async def json_answer(websocket: WebSocket):
    # Not receive_json()/send_json(): send_json writes compact JSON (separators=(",", ":")),
    # and the reply is json.dumps' default layout (PROTOCOL.md).
    await websocket.accept()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        # A message that is not a JSON request closes the connection (PROTOCOL.md)
        if message.get("text") is None:
            await websocket.close(1003, "text messages only")
            return
        try:
            request = json.loads(message["text"])
            seq = request["seq"]
        except (ValueError, KeyError, TypeError):
            await websocket.close(1007, "not a JSON request")
            return
        try:
            await websocket.send_text(json.dumps({"seq": seq, "ok": True}))
        except WebSocketDisconnect:
            return  # the client left with requests in flight (Starlette >= 0.37.2 raises this)


async def push(websocket: WebSocket):
    """Push requests (PROTOCOL.md). A reader task takes the client's messages while a push
    runs, so that a client that leaves mid-push is noticed at the next yield: hypercorn
    0.18 and granian 2.8 (ASGI) drop a send to a closed WebSocket without raising, and the
    loop would otherwise go on sending into nothing until the request's count."""
    await websocket.accept()
    received: asyncio.Queue[dict] = asyncio.Queue()

    async def read() -> None:
        while True:
            message = await websocket.receive()
            received.put_nowait(message)
            if message["type"] == "websocket.disconnect":
                return

    reader = asyncio.create_task(read())
    try:
        while True:
            message = await received.get()
            if message["type"] == "websocket.disconnect":
                return
            request = json.loads(message["text"])
            count, size = request["count"], request["size"]
            filler = bytes(ord("a") + k % 26 for k in range(16, size))
            binary = request.get("binary", True)
            text_filler = filler.decode()
            for i in range(count):
                if binary:
                    await websocket.send_bytes(b"%016x" % i + filler)
                else:
                    await websocket.send_text(f"{i:016x}" + text_filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages, as in every impl
                    if reader.done():
                        return  # the client left mid-push
    except WebSocketDisconnect:
        pass  # the client went away, possibly mid-push
    finally:
        reader.cancel()


# The open connections of /broadcast and of /market (PROTOCOL.md): subscribers from accept()
# until they leave.
broadcast_subscribers: set[WebSocket] = set()
market_subscribers: set[WebSocket] = set()


async def relay(subscribers: set[WebSocket], sender: WebSocket, message: dict):
    """Send a received message to every subscriber but its sender, awaiting each send."""
    for subscriber in list(subscribers):  # a copy: subscribers leave while a send awaits
        if subscriber is sender or subscriber not in subscribers:
            continue  # the sender, or a subscriber that left during an earlier send
        try:
            if message.get("bytes") is not None:
                await subscriber.send_bytes(message["bytes"])
            else:
                await subscriber.send_text(message["text"])
        except Exception:
            # The subscriber is leaving: its own handler removes it when it sees the
            # disconnect. What the send raises depends on the versions: WebSocketDisconnect
            # (Starlette >= 0.37.2), websockets' ConnectionClosed or wsproto's
            # LocalProtocolError straight through older Starlette, RuntimeError once uvicorn
            # has seen the close.
            continue


async def broadcast(websocket: WebSocket):
    await websocket.accept()
    broadcast_subscribers.add(websocket)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            await relay(broadcast_subscribers, websocket, message)
    finally:
        broadcast_subscribers.discard(websocket)


async def market(websocket: WebSocket):
    await websocket.accept()
    market_subscribers.add(websocket)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            # A message that is not a tick or an order closes the connection (PROTOCOL.md)
            if message.get("text") is None:
                await websocket.close(1003, "text messages only")
                return
            try:
                data = json.loads(message["text"])
                kind = data["type"]
                if kind == "order":
                    ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
                elif kind != "tick":
                    raise ValueError(kind)
            except (ValueError, KeyError, TypeError):
                await websocket.close(1007, "not a tick or an order")
                return
            if kind == "tick":
                await relay(market_subscribers, websocket, message)  # the text unchanged
            else:
                try:
                    await websocket.send_text(ack)
                except WebSocketDisconnect:
                    return  # the client left with orders in flight (as in json_answer)
    finally:
        market_subscribers.discard(websocket)


app = Starlette(
    routes=[
        WebSocketRoute("/echo", echo),
        WebSocketRoute("/push", push),
        WebSocketRoute("/json", json_answer),
        WebSocketRoute("/broadcast", broadcast),
        WebSocketRoute("/market", market),
    ]
)
