"""wsbench server for Quart: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. A Quart app with five ``@app.websocket(...)`` routes using the
global ``websocket`` object, as Quart's "Using websockets" guide shows it
(https://quart.palletsprojects.com/en/latest/how_to_guides/websockets.html)::

    @app.websocket('/ws')
    async def ws():
        while True:
            data = await websocket.receive()
            await websocket.send(data)

``receive()`` returns ``str`` for a text frame and ``bytes`` for a binary one, and
``send()`` sends each as such, so the echo keeps the frame type. When the client leaves,
Quart cancels the handler (``CancelledError``), which ends a push mid-way.

/broadcast and /market follow Quart's chat tutorial
(https://quart.palletsprojects.com/en/latest/tutorials/chat_tutorial.html): an in-memory
broker holding one ``asyncio.Queue`` per connected client; each connection runs a receiving
task that publishes what its client sends to the other clients' queues, while the handler
sends what arrives on its own queue. (The tutorial's broker also delivers to the sender;
here ``publish`` skips the sender's queue, as PROTOCOL.md asks.)

Served by hypercorn, Quart's own server, through impls/asgi_serve.py (see meta.toml).
"""

import asyncio
import json

from quart import Quart, websocket

app = Quart(__name__)


@app.websocket("/echo")
async def echo():
    while True:
        data = await websocket.receive()
        await websocket.send(data)


@app.websocket("/push")
async def push():
    while True:
        request = json.loads(await websocket.receive())
        count, size = request["count"], request["size"]
        filler = bytes(ord("a") + k % 26 for k in range(16, size))
        if request.get("binary", True):
            for i in range(count):
                await websocket.send(b"%016x" % i + filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
        else:
            text_filler = filler.decode()
            for i in range(count):
                await websocket.send(f"{i:016x}" + text_filler)
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)


@app.websocket("/json")
async def json_answer():
    # Not receive_json()/send_json(): they use the app's JSON provider, and the workload is
    # the standard library's json.loads/json.dumps (PROTOCOL.md).
    while True:
        message = await websocket.receive()
        # A message that is not a JSON request closes the connection (PROTOCOL.md)
        if not isinstance(message, str):
            await websocket.close(1003)
            return
        try:
            seq = json.loads(message)["seq"]
        except (ValueError, KeyError, TypeError):
            await websocket.close(1007)
            return
        await websocket.send(json.dumps({"seq": seq, "ok": True}))


class Broker:
    """The chat tutorial's in-memory broker: one asyncio.Queue per connected client."""

    def __init__(self) -> None:
        self.connections: set[asyncio.Queue] = set()

    async def publish(self, message: str | bytes, sender: asyncio.Queue) -> None:
        for connection in self.connections:
            if connection is not sender:  # never back to the sender (PROTOCOL.md)
                await connection.put(message)  # unbounded: never waits


broadcast_broker = Broker()
market_broker = Broker()


async def serve_subscriber(broker: Broker, receive) -> None:
    """Register this connection's queue, run ``receive(queue)`` as a task, and send what
    arrives on the queue until the client leaves (the tutorial's ws() route)."""
    await websocket.accept()
    queue: asyncio.Queue = asyncio.Queue()
    broker.connections.add(queue)  # a subscriber from the handshake on (PROTOCOL.md)
    task = asyncio.ensure_future(receive(queue))
    try:
        while True:
            await websocket.send(await queue.get())
    finally:
        broker.connections.discard(queue)
        task.cancel()
        await task  # as the tutorial does: raises CancelledError unless it had returned


async def broadcast_receive(queue: asyncio.Queue) -> None:
    while True:
        await broadcast_broker.publish(await websocket.receive(), sender=queue)


async def market_receive(queue: asyncio.Queue) -> None:
    while True:
        message = await websocket.receive()
        # A message that is not a tick or an order closes the connection (PROTOCOL.md)
        if not isinstance(message, str):
            await websocket.close(1003)
            return
        try:
            data = json.loads(message)
            kind = data["type"]
            if kind == "order":
                ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
            elif kind != "tick":
                raise ValueError(kind)
        except (ValueError, KeyError, TypeError):
            await websocket.close(1007)
            return
        if kind == "tick":
            await market_broker.publish(message, sender=queue)  # the text unchanged
        else:
            await websocket.send(ack)  # to this client only, from its receiving task


@app.websocket("/broadcast")
async def broadcast():
    await serve_subscriber(broadcast_broker, broadcast_receive)


@app.websocket("/market")
async def market():
    await serve_subscriber(market_broker, market_receive)
