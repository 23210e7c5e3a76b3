"""wsbench server for autobahn on Twisted: /echo, /push, /json, /broadcast and /market.

See impls/PROTOCOL.md. One WebSocketServerFactory on Twisted's default reactor (epoll on
Linux) serves every path on one port: onConnect routes by request.path. /broadcast and
/market relay as autobahn's broadcast example does: the factory keeps the open connections
and calls sendMessage() on each (no waiting: a slow subscriber's frames queue in its
transport). autobahn's sendMessage() writes straight to the transport and never waits, so
/push uses Twisted's producer/consumer API: the protocol registers itself as a streaming
producer on its transport, which calls pauseProducing() once its write buffer holds more
than 64 KiB and resumeProducing() when it has drained. The push loop also yields to the
reactor after every 64 messages (reactor.callLater(0)).
"""

import argparse
import contextlib
import json
import sys
from collections import deque
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from autobahn.exception import Disconnected
from autobahn.twisted.websocket import WebSocketServerFactory, WebSocketServerProtocol
from autobahn.websocket.types import ConnectionDeny
from profile_args import parse_profile_args
from twisted.internet import reactor
from twisted.internet.interfaces import IPushProducer
from zope.interface import implementer


class BenchFactory(WebSocketServerFactory):
    """The factory keeps the open connections of /broadcast and /market and relays to them,
    as autobahn's broadcast example (examples/twisted/websocket/broadcast) does."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.subscribers = {"/broadcast": set(), "/market": set()}

    def broadcast(self, sender, payload, isBinary):
        # sendMessage() never yields to the event loop, so the set cannot change meanwhile
        for subscriber in sender.subscribers:
            if subscriber is not sender:
                with contextlib.suppress(Disconnected):  # closing: onClose removes it
                    subscriber.sendMessage(payload, isBinary)


@implementer(IPushProducer)
class BenchProtocol(WebSocketServerProtocol):
    is_echo = False
    is_push = False
    is_market = False
    subscribers = None  # /broadcast and /market: the endpoint's open connections
    paused = False  # set by the transport while its write buffer is full
    later = None  # the scheduled continuation of the push loop
    sent = 0  # messages of the current request sent so far

    def onConnect(self, request):
        if request.path not in ("/echo", "/push", "/json", "/broadcast", "/market"):
            raise ConnectionDeny(404, "unknown path")
        self.is_echo = request.path == "/echo"
        self.is_push = request.path == "/push"
        self.is_market = request.path == "/market"
        self.subscribers = self.factory.subscribers.get(request.path)
        self.requests = deque()  # [count, filler, binary], the first one in progress

    def onOpen(self):
        if self.subscribers is not None:
            self.subscribers.add(self)
        if self.is_push:
            self.registerProducer(self, True)

    def onMessage(self, payload, isBinary):
        if self.is_echo:
            self.sendMessage(payload, isBinary)
            return
        if self.subscribers is not None:
            if self.is_market:
                self.market(payload, isBinary)
            else:
                self.factory.broadcast(self, payload, isBinary)
            return
        if not self.is_push:
            self.answer_json(payload, isBinary)
            return
        request = json.loads(payload)
        filler = bytes(ord("a") + k % 26 for k in range(16, request["size"]))
        self.requests.append((request["count"], filler, request.get("binary", True)))
        if len(self.requests) == 1:
            self.push()

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

    def push(self):
        self.later = None
        while self.requests and not self.paused and self.state == self.STATE_OPEN:
            count, filler, binary = self.requests[0]
            i = self.sent
            self.sendMessage(b"%016x" % i + filler, binary)
            self.sent = i + 1
            if self.sent == count:
                self.requests.popleft()
                self.sent = 0
            if i % 64 == 63:  # yield every 64 messages, as in every impl
                self.later = reactor.callLater(0, self.push)
                return

    def pauseProducing(self):
        self.paused = True

    def resumeProducing(self):
        self.paused = False
        if self.later is None:
            self.push()

    def stopProducing(self):
        self.requests.clear()  # the connection is gone, possibly mid-push: stop quietly
        if self.later is not None and self.later.active():
            self.later.cancel()

    def onClose(self, wasClean, code, reason):
        if self.subscribers is not None:
            self.subscribers.discard(self)
        if self.is_push:
            self.stopProducing()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parse_profile_args(
        parser,
        compression="keep autobahn's default compression setting (it accepts no offer) unchanged",
        no_workers="autobahn has no workers or processes option, nor Twisted's reactor",
    )
    context_factory = None
    if args.certfile:
        try:  # Twisted's TLS is pyOpenSSL's (the twisted[tls] extra)
            from twisted.internet import ssl
        except ImportError as exc:
            parser.exit(2, f"{parser.prog}: TLS not supported: Twisted needs pyOpenSSL ({exc})\n")
        # As autobahn's TLS examples (examples/twisted/websocket/echo_tls) and Twisted's docs
        # do; the whole chain from certfile (DefaultOpenSSLContextFactory loads its first
        # certificate only)
        context_factory = ssl.DefaultOpenSSLContextFactory(args.keyfile, args.certfile)
        context_factory.getContext().use_certificate_chain_file(args.certfile)
    factory = BenchFactory()
    factory.protocol = BenchProtocol
    # Tuned: no permessage-deflate, which is also autobahn's default (the factory's
    # perMessageCompressionAccept is lambda _: None); as shipped: that default, left as it is
    options = {} if args.shipped_compression else {"perMessageCompressionAccept": lambda o: None}
    factory.setProtocolOptions(
        autoPingInterval=0,  # no keepalive pings (default)
        maxFramePayloadSize=2**24,  # 16 MiB (default 0: unlimited)
        maxMessagePayloadSize=2**24,
        tcpNoDelay=True,  # transport.setTcpNoDelay(True) on each connection (default)
        **options,
    )
    if context_factory is None:
        reactor.listenTCP(args.port, factory, interface=args.host)
    else:
        reactor.listenSSL(args.port, factory, context_factory, interface=args.host)
    reactor.run()  # installs SIGTERM/SIGINT handlers that stop the reactor
