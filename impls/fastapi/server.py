"""wsbench server for FastAPI: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. A FastAPI app with five WebSocket endpoints, written as FastAPI's docs
show them (https://fastapi.tiangolo.com/advanced/websockets/): ``@app.websocket("/echo")``
on an ``async def`` taking a ``websocket: WebSocket``, ``await websocket.accept()``, then a
receive/send loop; /broadcast and /market use the docs' "Handling disconnections and
multiple clients" pattern, a ConnectionManager holding the active connections whose
broadcast() awaits each send in turn. The app is served by impls/asgi_serve.py (the server
and its settings are the configuration; see meta.toml).

The code is the same as impls/starlette/server.py line for line (same message handling,
same relay), written with FastAPI's API, so that FastAPI and plain Starlette on the same
server differ by the framework layer only. As there: receive() and not receive_text() where
a message's frame type matters (a text frame is echoed as text, a binary one as binary), and
send_text(json.dumps(...)) and not send_json(): FastAPI's WebSocket is Starlette's, whose
send_json writes compact JSON (separators=(",", ":")), while the reply is json.dumps'
default layout (PROTOCOL.md). The manager keeps a set rather than the docs' list (removal of
a leaving subscriber is O(1), as in the Starlette app) and skips the sender.
"""

import asyncio
import json

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

app = FastAPI()


@app.websocket("/echo")
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


@app.websocket("/json")
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


@app.websocket("/push")
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


class ConnectionManager:
    """The open connections of one endpoint (FastAPI docs' ConnectionManager): subscribers
    from accept() until they leave (PROTOCOL.md)."""

    def __init__(self):
        self.active_connections: set[WebSocket] = set()

    async def connect(self, websocket: WebSocket):
        await websocket.accept()
        self.active_connections.add(websocket)

    def disconnect(self, websocket: WebSocket):
        self.active_connections.discard(websocket)

    async def broadcast(self, sender: WebSocket, message: dict):
        """Send a received message to every connection but its sender, awaiting each send."""
        for connection in list(self.active_connections):  # a copy: they leave during a send
            if connection is sender or connection not in self.active_connections:
                continue  # the sender, or a connection that left during an earlier send
            try:
                if message.get("bytes") is not None:
                    await connection.send_bytes(message["bytes"])
                else:
                    await connection.send_text(message["text"])
            except Exception:
                # The subscriber is leaving: its own handler removes it when it sees the
                # disconnect. What the send raises depends on the versions: WebSocketDisconnect
                # (Starlette >= 0.37.2), websockets' ConnectionClosed straight through older
                # Starlette, RuntimeError once uvicorn has seen the close.
                continue


broadcast_manager = ConnectionManager()
market_manager = ConnectionManager()


@app.websocket("/broadcast")
async def broadcast(websocket: WebSocket):
    await broadcast_manager.connect(websocket)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            await broadcast_manager.broadcast(websocket, message)
    finally:
        broadcast_manager.disconnect(websocket)


@app.websocket("/market")
async def market(websocket: WebSocket):
    await market_manager.connect(websocket)
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
                await market_manager.broadcast(websocket, message)  # the text unchanged
            else:
                try:
                    await websocket.send_text(ack)
                except WebSocketDisconnect:
                    return  # the client left with orders in flight (as in json_answer)
    finally:
        market_manager.disconnect(websocket)
