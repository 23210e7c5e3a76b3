"""wsbench server for autobahn on asyncio or uvloop: /echo, /push, /json (impls/PROTOCOL.md).

One WebSocketServerFactory serves every path on one port: onConnect routes by request.path.
autobahn's sendMessage() writes straight to the transport and returns nothing to await, and
its asyncio adapter ignores asyncio's flow control. So the protocol implements asyncio's
pause_writing()/resume_writing() callbacks (the transport calls them around its 64 KiB
high-water mark): while paused, the push awaits a future that resume_writing() resolves, as
asyncio's StreamWriter.drain() does. It also yields every 64 messages (asyncio.sleep(0)).
"""

import argparse
import asyncio
import json
import signal

import txaio
from autobahn.asyncio.websocket import WebSocketServerFactory, WebSocketServerProtocol
from autobahn.websocket.types import ConnectionDeny


class BenchProtocol(WebSocketServerProtocol):
    is_echo = False
    is_push = False
    pusher = None  # the /push task
    writable = None  # a future while the transport's write buffer is above its high-water mark

    def onConnect(self, request):
        if request.path not in ("/echo", "/push", "/json"):
            raise ConnectionDeny(404, "unknown path")
        self.is_echo = request.path == "/echo"
        self.is_push = request.path == "/push"

    def onOpen(self):
        if self.is_push:
            self.requests = asyncio.Queue()
            self.pusher = asyncio.get_running_loop().create_task(self.push())

    def onMessage(self, payload, isBinary):
        if self.is_echo:
            self.sendMessage(payload, isBinary)
        elif self.is_push:
            self.requests.put_nowait(json.loads(payload))
        else:
            self.answer_json(payload, isBinary)

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

    def onClose(self, wasClean, code, reason):
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


async def main(host, port):
    loop = asyncio.get_running_loop()
    txaio.config.loop = loop  # txaio's timers (handshake timeouts) on this loop
    factory = WebSocketServerFactory(loop=loop)
    factory.protocol = BenchProtocol
    factory.setProtocolOptions(
        perMessageCompressionAccept=lambda offers: None,  # no permessage-deflate (default)
        autoPingInterval=0,  # no keepalive pings (default)
        maxFramePayloadSize=2**24,  # 16 MiB (default 0: unlimited)
        maxMessagePayloadSize=2**24,
    )
    server = await loop.create_server(factory, host, port)
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
    args = parser.parse_args()
    loop_factory = None
    if args.loop == "uvloop":
        import uvloop

        loop_factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(main(args.host, args.port))
