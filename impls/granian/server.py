"""wsbench server for granian's RSGI interface: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. A bare RSGI app, granian's native interface, written as granian's
RSGI specification (docs/spec/RSGI.md) and its own test app (tests/apps/rsgi.py) show it:
``async def app(scope, proto)``; ``transport = await proto.accept()``; ``message = await
transport.receive()``, whose ``kind`` is a ``WebsocketMessageType`` (close, bytes, string)
and ``data`` the payload; ``await transport.send_bytes(...)`` / ``send_str(...)``;
``proto.close()`` when the handler is done. granian's command line serves it (``granian
--interface rsgi``), started by impls/asgi_serve.py (``--server granian --interface rsgi``)
with the same granian flags as the ASGI frameworks get there; see meta.toml.

RSGI has no routing and no broadcast helper: the handlers are looked up by path, and
/broadcast and /market keep a set of their open connections and relay a message by awaiting
each subscriber's send in turn. Each of those connections has an asyncio.Lock around its
sends: granian before 2.8.1 fails a send that starts while another send on the same
transport is in progress (RSGIProtocolError) instead of waiting, and on /market the feed's
relay and the client's own acknowledgement can meet.
"""

import asyncio
import json

from granian.rsgi import ProtocolClosed, ProtocolError, WebsocketMessageType

CLOSE = WebsocketMessageType.close
BYTES = WebsocketMessageType.bytes


async def echo(transport):
    while True:
        message = await transport.receive()
        if message.kind == CLOSE:
            return
        if message.kind == BYTES:
            await transport.send_bytes(message.data)
        else:
            await transport.send_str(message.data)


async def push(transport):
    while True:
        message = await transport.receive()
        if message.kind == CLOSE:
            return
        request = json.loads(message.data)
        count, size = request["count"], request["size"]
        filler = bytes(ord("a") + k % 26 for k in range(16, size))
        if request.get("binary", True):
            for i in range(count):
                await transport.send_bytes(b"%016x" % i + filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages, as in every impl
        else:
            text_filler = filler.decode()
            for i in range(count):
                await transport.send_str(f"{i:016x}" + text_filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages, as in every impl


async def json_answer(transport):
    while True:
        message = await transport.receive()
        if message.kind == CLOSE:
            return
        # A message that is not a JSON request closes the connection (PROTOCOL.md; RSGI
        # closes without a close code: see meta.toml)
        if message.kind == BYTES:
            return
        try:
            seq = json.loads(message.data)["seq"]
        except (ValueError, KeyError, TypeError):
            return
        await transport.send_str(json.dumps({"seq": seq, "ok": True}))


class Subscriber:
    """An open connection of /broadcast or /market, and the lock its sends take turns on."""

    __slots__ = ("lock", "transport")

    def __init__(self, transport):
        self.transport = transport
        self.lock = asyncio.Lock()

    async def send(self, kind, data):
        async with self.lock:
            if kind == BYTES:
                await self.transport.send_bytes(data)
            else:
                await self.transport.send_str(data)


# The open connections of /broadcast and of /market (PROTOCOL.md): subscribers from accept()
# until they leave.
broadcast_subscribers: set[Subscriber] = set()
market_subscribers: set[Subscriber] = set()


async def relay(subscribers, sender, kind, data):
    """Send a received message to every subscriber but its sender, awaiting each send."""
    for subscriber in list(subscribers):  # a copy: subscribers leave while a send awaits
        if subscriber is sender or subscriber not in subscribers:
            continue  # the sender, or a subscriber that left during an earlier send
        try:
            await subscriber.send(kind, data)
        except (ProtocolClosed, ProtocolError):
            continue  # the subscriber is leaving: its own handler removes it


async def broadcast(transport):
    me = Subscriber(transport)
    broadcast_subscribers.add(me)
    try:
        while True:
            message = await transport.receive()
            if message.kind == CLOSE:
                return
            await relay(broadcast_subscribers, me, message.kind, message.data)
    finally:
        broadcast_subscribers.discard(me)


async def market(transport):
    me = Subscriber(transport)
    market_subscribers.add(me)
    try:
        while True:
            message = await transport.receive()
            if message.kind == CLOSE:
                return
            # A message that is not a tick or an order closes the connection (PROTOCOL.md)
            if message.kind == BYTES:
                return
            try:
                data = json.loads(message.data)
                kind = data["type"]
                if kind == "order":
                    ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
                elif kind != "tick":
                    raise ValueError(kind)
            except (ValueError, KeyError, TypeError):
                return
            if kind == "tick":
                await relay(market_subscribers, me, message.kind, message.data)  # unchanged
            else:
                await me.send(message.kind, ack)
    finally:
        market_subscribers.discard(me)


ROUTES = {
    "/echo": echo,
    "/push": push,
    "/json": json_answer,
    "/broadcast": broadcast,
    "/market": market,
}


async def app(scope, proto):
    """The RSGI application: one call per request or WebSocket connection."""
    if scope.proto != "ws":
        proto.response_empty(404, [])  # WebSocket endpoints only
        return
    handler = ROUTES.get(scope.path)
    if handler is None:
        proto.close(404)  # refuse the handshake with HTTP 404
        return
    transport = await proto.accept()
    try:
        await handler(transport)
    except (ProtocolClosed, ProtocolError):
        pass  # the client went away, possibly mid-push or with replies in flight
    finally:
        proto.close()
