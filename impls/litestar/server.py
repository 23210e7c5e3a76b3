"""wsbench server for Litestar on an ASGI server: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. A Litestar app served by impls/asgi_serve.py (uvicorn; the fairness
settings live there). Litestar's documented WebSocket APIs (docs.litestar.dev, "WebSockets"
and "Channels"):

- /json is a ``@websocket_listener``: Litestar receives each text message, passes it as
  ``data: str`` and sends the returned ``str`` back as one text message (the docs' first
  example, ``async def handler(data: str) -> str``). A bad request raises
  ``WebSocketException(code=1007)``, which Litestar turns into a close with that code.
- /echo, /push, /broadcast and /market are ``@websocket`` route handlers (the docs'
  low-level interface: ``await socket.accept()``, then a receive loop), because the listener
  does not fit them: a listener receives in one fixed mode (``receive_mode`` text or binary;
  a frame of the other type arrives as "" or b"") and sends exactly one reply per message,
  while /echo and /broadcast keep each message's frame type, /push sends C messages per
  request and /market answers orders but not ticks.
- /broadcast and /market use Litestar's channels plugin, as its docs show:
  ``ChannelsPlugin(backend=MemoryChannelsBackend(), channels=[...])``, injected into the
  handler as ``channels``; each connection publishes with ``channels.publish(...)`` and
  receives through ``channels.start_subscription(...)`` and
  ``subscriber.run_in_background(callback)`` (the docs' run_in_background example). The
  plugin starts its workers in the app's lifespan, so the server runs with lifespan on.

Channel events are bytes and carry no sender, so each published event is an envelope:
the publishing connection's number (8 bytes), the frame type (b"t" or b"b"), then the
message. Every subscriber's callback skips the events its own connection published (the
publisher never gets its message back, PROTOCOL.md) and sends the rest with the original
frame type.
"""

import asyncio
import itertools
import json

from litestar import Litestar, WebSocket, websocket, websocket_listener
from litestar.channels import ChannelsPlugin
from litestar.channels.backends.memory import MemoryChannelsBackend
from litestar.exceptions import WebSocketDisconnect, WebSocketException


@websocket("/echo")
async def echo(socket: WebSocket) -> None:
    await socket.accept()
    while True:
        message = await socket.receive()  # the ASGI event: its text or bytes keep the frame type
        if message["type"] == "websocket.disconnect":
            return
        if message.get("bytes") is not None:
            await socket.send_bytes(message["bytes"])
        else:
            await socket.send_text(message["text"])


@websocket("/push")
async def push(socket: WebSocket) -> None:
    await socket.accept()
    try:
        while True:
            request = json.loads(await socket.receive_text())
            count, size = request["count"], request["size"]
            filler = bytes(ord("a") + k % 26 for k in range(16, size))
            if request.get("binary", True):
                for i in range(count):
                    await socket.send_bytes(b"%016x" % i + filler)
                    if i % 64 == 63:
                        await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
            else:
                text_filler = filler.decode()
                for i in range(count):
                    await socket.send_text(f"{i:016x}" + text_filler)
                    if i % 64 == 63:
                        await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
    except WebSocketDisconnect:
        pass  # the client went away (Litestar raises this from receive_text())
    # A send to a client that left mid-push raises the server's own exception (uvicorn's
    # ClientDisconnected; websockets' ConnectionClosed with uvicorn 0.23): Litestar's
    # exception handling turns it into a close, quietly (it logs exceptions in debug only).


@websocket_listener("/json")
async def json_answer(data: str) -> str:
    # A message that is not a JSON request closes the connection (PROTOCOL.md); a binary
    # frame reaches a text-mode listener as "" and is refused here too.
    try:
        seq = json.loads(data)["seq"]
    except (ValueError, KeyError, TypeError):
        raise WebSocketException(detail="not a JSON request", code=1007) from None
    return json.dumps({"seq": seq, "ok": True})


TEXT, BINARY = b"t", b"b"
connection_numbers = itertools.count()


def deliver_to(socket: WebSocket, sender: bytes):
    """The subscriber's callback: send each channel event to ``socket``, except the events
    its own connection (``sender``) published."""

    async def deliver(event: bytes) -> None:
        if event[:8] == sender:
            return  # this connection published it: never back to the publisher
        try:
            if event[8:9] == BINARY:
                await socket.send_bytes(event[9:])
            else:
                await socket.send_text(event[9:].decode())
        except Exception:
            # This subscriber is leaving: its handler ends the subscription when it sees the
            # disconnect. What the send raises depends on the server and its version
            # (Litestar's WebSocketDisconnect, uvicorn's ClientDisconnected, websockets'
            # ConnectionClosed); the worker must not die of it (run_in_background would
            # re-raise it when the handler leaves).
            return

    return deliver


@websocket("/broadcast")
async def broadcast(socket: WebSocket, channels: ChannelsPlugin) -> None:
    await socket.accept()
    sender = next(connection_numbers).to_bytes(8, "big")
    async with (
        channels.start_subscription("broadcast") as subscriber,
        # join=False: once the client has left, what is still queued for it is dropped
        subscriber.run_in_background(deliver_to(socket, sender), join=False),
    ):
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if message.get("bytes") is not None:
                channels.publish(sender + BINARY + message["bytes"], "broadcast")
            else:
                channels.publish(sender + TEXT + message["text"].encode(), "broadcast")


@websocket("/market")
async def market(socket: WebSocket, channels: ChannelsPlugin) -> None:
    await socket.accept()
    sender = next(connection_numbers).to_bytes(8, "big")
    async with (
        channels.start_subscription("market") as subscriber,
        subscriber.run_in_background(deliver_to(socket, sender), join=False),
    ):
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                return
            # A message that is not a tick or an order closes the connection (PROTOCOL.md)
            if message.get("text") is None:
                await socket.close(1003, "text messages only")
                return
            try:
                data = json.loads(message["text"])
                kind = data["type"]
                if kind == "order":
                    ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
                elif kind != "tick":
                    raise ValueError(kind)
            except (ValueError, KeyError, TypeError):
                await socket.close(1007, "not a tick or an order")
                return
            if kind == "tick":
                channels.publish(sender + TEXT + message["text"].encode(), "market")  # unchanged
            else:
                await socket.send_text(ack)


app = Litestar(
    route_handlers=[echo, push, json_answer, broadcast, market],
    plugins=[ChannelsPlugin(backend=MemoryChannelsBackend(), channels=["broadcast", "market"])],
)
