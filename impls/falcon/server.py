"""wsbench server for Falcon (ASGI): /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. A ``falcon.asgi.App`` with one resource class per endpoint, each with
an ``async def on_websocket(self, req, ws)`` responder, as Falcon's WebSocket guide shows it
(https://falcon.readthedocs.io/en/stable/api/websocket.html): ``await ws.accept()``, then
``await ws.receive_text()`` / ``ws.receive_data()`` / ``ws.receive_media()`` and
``await ws.send_text()`` / ``ws.send_data()``, catching ``falcon.WebSocketDisconnected``
to bail out. Served on an ASGI server by impls/asgi_serve.py (the configuration names
which one; see meta.toml).

Falcon has no call that receives "a text or a binary message, whichever comes":
``receive_text()`` and ``receive_data()`` each expect one payload type, and
``receive_media()`` hands the payload to the media handler of its type (JSON for TEXT,
MessagePack for BINARY by default). /echo and /broadcast must keep the frame type, so the
app installs pass-through media handlers (the customisation the guide's "Media Handlers"
section shows, via ``app.ws_options.media_handlers``): ``receive_media()`` then returns
the payload as received, a ``str`` for a text frame and ``bytes`` for a binary one.

Falcon has no broadcast helper: /broadcast and /market keep a set of their open WebSockets
and relay a message by awaiting each subscriber's send in turn.
"""

import asyncio
import json

import falcon
import falcon.asgi
import falcon.media
from falcon import WebSocketDisconnected
from falcon.errors import PayloadTypeError


class PassThroughText(falcon.media.TextBaseHandlerWS):
    """TEXT payloads as they are: receive_media() returns the str, send_media() sends it."""

    def serialize(self, media: object) -> str:
        return media

    def deserialize(self, payload: str) -> object:
        return payload


class PassThroughBinary(falcon.media.BinaryBaseHandlerWS):
    """BINARY payloads as they are: receive_media() returns the bytes."""

    def serialize(self, media: object) -> bytes:
        return media

    def deserialize(self, payload: bytes) -> object:
        return payload


async def send_as_received(ws: falcon.asgi.WebSocket, payload: str | bytes) -> None:
    """Send a payload from receive_media() back with the frame type it came with."""
    if isinstance(payload, str):
        await ws.send_text(payload)
    else:
        await ws.send_data(payload)


class Echo:
    async def on_websocket(self, req: falcon.asgi.Request, ws: falcon.asgi.WebSocket):
        await ws.accept()
        try:
            while True:
                await send_as_received(ws, await ws.receive_media())
        except WebSocketDisconnected:
            return


class Push:
    async def on_websocket(self, req: falcon.asgi.Request, ws: falcon.asgi.WebSocket):
        await ws.accept()
        try:
            while True:
                request = json.loads(await ws.receive_text())
                count, size = request["count"], request["size"]
                filler = bytes(ord("a") + k % 26 for k in range(16, size))
                if request.get("binary", True):
                    for i in range(count):
                        await ws.send_data(b"%016x" % i + filler)
                        if i % 64 == 63:
                            await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
                else:
                    text_filler = filler.decode()
                    for i in range(count):
                        await ws.send_text(f"{i:016x}" + text_filler)
                        if i % 64 == 63:
                            await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
        except WebSocketDisconnected:
            return  # the client went away, possibly mid-push


class JsonAnswer:
    async def on_websocket(self, req: falcon.asgi.Request, ws: falcon.asgi.WebSocket):
        await ws.accept()
        try:
            while True:
                # A message that is not a JSON request closes the connection (PROTOCOL.md)
                try:
                    text = await ws.receive_text()
                except PayloadTypeError:
                    await ws.close(1003)  # no reason: close() takes one from Falcon 4.0
                    return
                try:
                    seq = json.loads(text)["seq"]
                except (ValueError, KeyError, TypeError):
                    await ws.close(1007)
                    return
                await ws.send_text(json.dumps({"seq": seq, "ok": True}))
        except WebSocketDisconnected:
            return


async def relay(subscribers: set, sender: falcon.asgi.WebSocket, payload: str | bytes) -> None:
    """Send a received message to every subscriber but its sender, awaiting each send."""
    for subscriber in list(subscribers):  # a copy: subscribers leave while a send awaits
        if subscriber is sender or subscriber not in subscribers:
            continue  # the sender, or a subscriber that left during an earlier send
        try:
            await send_as_received(subscriber, payload)
        except WebSocketDisconnected:
            continue  # leaving: its own responder removes it when it sees the disconnect


class Broadcast:
    def __init__(self) -> None:
        self.subscribers: set[falcon.asgi.WebSocket] = set()  # from accept() until it leaves

    async def on_websocket(self, req: falcon.asgi.Request, ws: falcon.asgi.WebSocket):
        await ws.accept()
        self.subscribers.add(ws)
        try:
            while True:
                await relay(self.subscribers, ws, await ws.receive_media())
        except WebSocketDisconnected:
            return
        finally:
            self.subscribers.discard(ws)


class Market:
    def __init__(self) -> None:
        self.subscribers: set[falcon.asgi.WebSocket] = set()

    async def on_websocket(self, req: falcon.asgi.Request, ws: falcon.asgi.WebSocket):
        await ws.accept()
        self.subscribers.add(ws)
        try:
            while True:
                # A message that is not a tick or an order closes the connection (PROTOCOL.md)
                try:
                    text = await ws.receive_text()
                except PayloadTypeError:
                    await ws.close(1003)  # no reason: close() takes one from Falcon 4.0
                    return
                try:
                    data = json.loads(text)
                    kind = data["type"]
                    if kind == "order":
                        ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
                    elif kind != "tick":
                        raise ValueError(kind)
                except (ValueError, KeyError, TypeError):
                    await ws.close(1007)
                    return
                if kind == "tick":
                    await relay(self.subscribers, ws, text)  # the text unchanged
                else:
                    await ws.send_text(ack)
        except WebSocketDisconnected:
            return
        finally:
            self.subscribers.discard(ws)


app = falcon.asgi.App()
app.ws_options.media_handlers[falcon.WebSocketPayloadType.TEXT] = PassThroughText()
app.ws_options.media_handlers[falcon.WebSocketPayloadType.BINARY] = PassThroughBinary()
app.add_route("/echo", Echo())
app.add_route("/push", Push())
app.add_route("/json", JsonAnswer())
app.add_route("/broadcast", Broadcast())
app.add_route("/market", Market())
