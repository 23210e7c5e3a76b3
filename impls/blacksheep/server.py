"""wsbench server for BlackSheep on an ASGI server: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. A BlackSheep Application served by impls/asgi_serve.py (uvicorn; the
fairness settings live there), with BlackSheep's documented WebSocket API (BlackSheep docs,
"WebSocket"): ``@app.router.ws(path)`` handlers taking a ``websocket: WebSocket``, ``await
websocket.accept()``, then a ``receive``/``send_*`` loop that ends on
``WebSocketDisconnectError``. /echo, /json, /broadcast and /market read with ``receive()``
(the raw ASGI message: its "text" or "bytes" gives the frame type); /push reads its
requests with ``receive_text()``. BlackSheep has no broadcast helper: /broadcast and /market
keep a set of their open WebSockets and relay a message by awaiting each subscriber's send
in turn, the connection-manager pattern of the docs' chat example (BlackSheep-Examples,
websocket-chat: ``for connection in self.active_connections: await connection.send(...)``).

A send to a client that has gone raises the ASGI server's exception (uvicorn's
ClientDisconnected, an OSError; websockets' ConnectionClosed with uvicorn 0.23), which
BlackSheep passes through unchanged: the handlers end quietly on ClientDisconnected, as on
``WebSocketDisconnectError``.
"""

import asyncio
import json

from blacksheep import Application, WebSocket, WebSocketDisconnectError

app = Application()

CLIENT_GONE = (WebSocketDisconnectError, OSError)
"""What a receive (BlackSheep's WebSocketDisconnectError) or a send (uvicorn's
ClientDisconnected) raises once the client has left."""


@app.router.ws("/echo")
async def echo(websocket: WebSocket):
    await websocket.accept()
    try:
        while True:
            message = await websocket.receive()
            if message.get("bytes") is not None:
                await websocket.send_bytes(message["bytes"])
            else:
                await websocket.send_text(message["text"])
    except CLIENT_GONE:
        pass


@app.router.ws("/push")
async def push(websocket: WebSocket):
    await websocket.accept()
    try:
        while True:
            request = json.loads(await websocket.receive_text())
            count, size = request["count"], request["size"]
            filler = bytes(ord("a") + k % 26 for k in range(16, size))
            if request.get("binary", True):
                for i in range(count):
                    await websocket.send_bytes(b"%016x" % i + filler)
                    if i % 64 == 63:
                        await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
            else:
                text_filler = filler.decode()
                for i in range(count):
                    await websocket.send_text(f"{i:016x}" + text_filler)
                    if i % 64 == 63:
                        await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
    except CLIENT_GONE:
        pass  # the client went away, possibly mid-push


@app.router.ws("/json")
async def json_answer(websocket: WebSocket):
    # Not receive_json()/send_json(): send_json writes compact JSON (BlackSheep's
    # json_settings: essentials' encoder with separators=(",", ":")), and the reply is
    # json.dumps' default layout (PROTOCOL.md).
    await websocket.accept()
    try:
        while True:
            message = await websocket.receive()
            # A message that is not a JSON request closes the connection (PROTOCOL.md)
            if message.get("text") is None:
                await websocket.close(1003, "text messages only")
                return
            try:
                seq = json.loads(message["text"])["seq"]
            except (ValueError, KeyError, TypeError):
                await websocket.close(1007, "not a JSON request")
                return
            await websocket.send_text(json.dumps({"seq": seq, "ok": True}))
    except CLIENT_GONE:
        pass  # the client left, possibly with requests in flight


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
            # disconnect. What the send raises depends on the versions: uvicorn's
            # ClientDisconnected, websockets' ConnectionClosed (uvicorn 0.23), BlackSheep's
            # InvalidWebSocketStateError once its handler has seen the disconnect.
            continue


@app.router.ws("/broadcast")
async def broadcast(websocket: WebSocket):
    await websocket.accept()
    broadcast_subscribers.add(websocket)
    try:
        while True:
            await relay(broadcast_subscribers, websocket, await websocket.receive())
    except CLIENT_GONE:
        pass
    finally:
        broadcast_subscribers.discard(websocket)


@app.router.ws("/market")
async def market(websocket: WebSocket):
    await websocket.accept()
    market_subscribers.add(websocket)
    try:
        while True:
            message = await websocket.receive()
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
                await websocket.send_text(ack)
    except CLIENT_GONE:
        pass  # the client left, possibly with orders in flight
    finally:
        market_subscribers.discard(websocket)
