"""wsbench server for autobahn on asyncio or uvloop: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. One WebSocketServerFactory serves every path on one port: onConnect
routes by request.path. /broadcast and /market relay as autobahn's broadcast example does:
the factory keeps the open connections and calls sendMessage() on each (no waiting: a slow
subscriber's frames queue in its transport).
autobahn's sendMessage() writes straight to the transport and returns nothing to await, and
its asyncio adapter ignores asyncio's flow control. So the protocol implements asyncio's
pause_writing()/resume_writing() callbacks (the transport calls them around its 64 KiB
high-water mark): while paused, the push awaits a future that resume_writing() resolves, as
asyncio's StreamWriter.drain() does. It also yields every 64 messages (asyncio.sleep(0)).
"""

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
import txaio
from autobahn.asyncio.websocket import WebSocketServerFactory, WebSocketServerProtocol
from autobahn.exception import Disconnected
from autobahn.websocket.types import ConnectionDeny
from profile_args import parse_profile_args, plain_tls_context, tls_context


class BenchFactory(WebSocketServerFactory):
    """The factory keeps the open connections of /broadcast and /market and relays to them,
    as autobahn's broadcast example (examples/twisted/websocket/broadcast) does."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.subscribers = {"/broadcast": set(), "/market": set()}

    def broadcast(self, sender, payload, isBinary):
        # sendMessage() never yields to the event loop, so the set cannot change meanwhile
        for subscriber in sender.subscribers:
            # Not to a connection asyncio has lost but not yet reported (onClose removes it)
            if subscriber is not sender and not subscriber.transport.is_closing():
                with contextlib.suppress(Disconnected):  # closing: onClose removes it
                    subscriber.sendMessage(payload, isBinary)


class BenchProtocol(WebSocketServerProtocol):
    is_echo = False
    is_push = False
    is_market = False
    subscribers = None  # /broadcast and /market: the endpoint's open connections
    pusher = None  # the /push task
    writable = None  # a future while the transport's write buffer is above its high-water mark

    def onConnect(self, request):
        if request.path not in ("/echo", "/push", "/json", "/broadcast", "/market"):
            raise ConnectionDeny(404, "unknown path")
        self.is_echo = request.path == "/echo"
        self.is_push = request.path == "/push"
        self.is_market = request.path == "/market"
        self.subscribers = self.factory.subscribers.get(request.path)

    def onOpen(self):
        if self.subscribers is not None:
            self.subscribers.add(self)
        if self.is_push:
            self.requests = asyncio.Queue()
            self.pusher = asyncio.get_running_loop().create_task(self.push())

    def onMessage(self, payload, isBinary):
        if self.is_echo:
            self.sendMessage(payload, isBinary)
        elif self.is_push:
            self.requests.put_nowait(json.loads(payload))
        elif self.subscribers is None:
            self.answer_json(payload, isBinary)
        elif self.is_market:
            self.market(payload, isBinary)
        else:
            self.factory.broadcast(self, payload, isBinary)

    def answer_json(self, payload, isBinary):
        # A message that is not a JSON request closes the connection (PROTOCOL.md), with
        # sendCloseFrame(): sendClose() accepts only the codes 1000 and 3000-4999.
        if self.state != self.STATE_OPEN:
            return  # a message read after this side's close frame (below): no answer
        if isBinary:
            self.sendCloseFrame(code=1003, reasonUtf8=b"text messages only")
            return
        try:
            request = json.loads(payload)  # a text message's UTF-8 bytes, validated by autobahn
            seq = request["seq"]
        except (ValueError, KeyError, TypeError):
            self.sendCloseFrame(code=1007, reasonUtf8=b"not a JSON request")
            return
        self.sendMessage(json.dumps({"seq": seq, "ok": True}).encode(), False)  # bytes only

    def market(self, payload, isBinary):
        # A message that is not a tick or an order closes the connection (PROTOCOL.md)
        if self.state != self.STATE_OPEN:
            return  # a message read after this side's close frame (below)
        if isBinary:
            self.sendCloseFrame(code=1003, reasonUtf8=b"text messages only")
            return
        try:
            data = json.loads(payload)  # a text message's UTF-8 bytes, validated by autobahn
            kind = data["type"]
            if kind == "order":
                ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
            elif kind != "tick":
                raise ValueError(kind)
        except (ValueError, KeyError, TypeError):
            self.sendCloseFrame(code=1007, reasonUtf8=b"not a tick or an order")
            return
        if kind == "tick":
            self.factory.broadcast(self, payload, False)  # the received text, unchanged
        else:
            self.sendMessage(ack.encode(), False)

    def onClose(self, wasClean, code, reason):
        if self.subscribers is not None:
            self.subscribers.discard(self)
        if self.pusher is not None:
            self.pusher.cancel()  # the client went away, possibly mid-push: stop quietly

    def pause_writing(self):
        self.writable = asyncio.get_running_loop().create_future()

    def resume_writing(self):
        self.writable.set_result(None)
        self.writable = None

    async def push(self):
        while True:
            request = await self.requests.get()
            filler = bytes(ord("a") + k % 26 for k in range(16, request["size"]))
            binary = request.get("binary", True)
            for i in range(request["count"]):
                if self.state != self.STATE_OPEN or self.transport.is_closing():
                    return  # the client is leaving: stop quietly (no writes to a dead socket)
                self.sendMessage(b"%016x" % i + filler, binary)
                if self.writable is not None:
                    await self.writable  # backpressure
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages, as in every impl


async def main(host, port, shipped_compression, ssl_context):
    loop = asyncio.get_running_loop()
    txaio.config.loop = loop  # txaio's timers (handshake timeouts) on this loop
    factory = BenchFactory(loop=loop)
    factory.protocol = BenchProtocol
    # Tuned: no permessage-deflate, which is also autobahn's default (the factory's
    # perMessageCompressionAccept is lambda _: None); as shipped: that default, left as it is
    options = {} if shipped_compression else {"perMessageCompressionAccept": lambda offers: None}
    factory.setProtocolOptions(
        autoPingInterval=0,  # no keepalive pings (default)
        maxFramePayloadSize=2**24,  # 16 MiB (default 0: unlimited)
        maxMessagePayloadSize=2**24,
        **options,
    )
    # TLS: asyncio's own, an SSLContext passed to loop.create_server (None: plain TCP)
    server = await loop.create_server(factory, host, port, ssl=ssl_context)
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    loop.add_signal_handler(signal.SIGINT, stop.set_result, None)
    await stop
    server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parse_profile_args(
        parser,
        compression="keep autobahn's default compression setting (it accepts no offer) unchanged",
        no_workers="autobahn has no workers or processes option",
    )
    ssl_context = tls_context(args, plain_tls_context)  # asyncio's own TLS
    loop_factory = None
    if args.loop == "uvloop":
        import uvloop

        loop_factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(main(args.host, args.port, args.shipped_compression, ssl_context))
