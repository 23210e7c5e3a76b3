"""wsbench server for tornado: /echo, /push, /json, /broadcast and /market (impls/PROTOCOL.md).

A tornado.web.Application with five WebSocketHandlers. The echo and the JSON answers write
as tornado's docs show (write_message() not awaited; the client's in-flight window bounds
the buffer). The push awaits the future returned by write_message(), which resolves once the
data is flushed: that is tornado's backpressure. /broadcast and /market relay as tornado's
websocket chat demo does: a class-level set of open handlers, write_message() on each, not
awaited (so a slow subscriber's messages queue in its stream's write buffer). Every handler
turns Nagle's algorithm off (set_nodelay(True)).

One process (Application.listen), or with --worker-processes N the multi-process pattern of
tornado's HTTPServer docstring: bind_sockets() in the parent, tornado.process.fork_processes(N),
then in each forked worker an HTTPServer on those sockets (add_sockets) and its own event
loop. The parent only waits for its workers (and restarts one that exits abnormally).
"""

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import ClassVar

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
import tornado.httpserver
import tornado.netutil
import tornado.process
import tornado.web
import tornado.websocket
from profile_args import parse_profile_args, tls_context
from tornado.websocket import WebSocketClosedError


class EchoHandler(tornado.websocket.WebSocketHandler):
    def get_compression_options(self):
        return None  # no permessage-deflate (also tornado's default)

    def open(self):
        self.set_nodelay(True)  # TCP_NODELAY, as asyncio sets for every other framework

    def on_message(self, message):
        # As in tornado's own documentation: write_message without awaiting its future (the
        # load generator's in-flight window bounds what is buffered).
        with contextlib.suppress(WebSocketClosedError):
            self.write_message(message, binary=isinstance(message, bytes))


class JsonHandler(tornado.websocket.WebSocketHandler):
    def get_compression_options(self):
        return None

    def open(self):
        self.set_nodelay(True)

    def on_message(self, message):
        # A message that is not a JSON request closes the connection (PROTOCOL.md)
        if isinstance(message, bytes):
            self.close(1003, "text messages only")
            return
        try:
            request = json.loads(message)
            seq = request["seq"]
        except (ValueError, KeyError, TypeError):
            self.close(1007, "not a JSON request")
            return
        # Not awaited, as the echo (the load generator's in-flight window bounds the buffer)
        with contextlib.suppress(WebSocketClosedError):
            self.write_message(json.dumps({"seq": seq, "ok": True}))


class PushHandler(tornado.websocket.WebSocketHandler):
    push_task = None

    def get_compression_options(self):
        return None

    def open(self):
        self.set_nodelay(True)

    def on_message(self, message):
        # Push from a task: while a coroutine on_message runs, tornado reads no further
        # frames, so it would not see the client's close frame until the push ended.
        self.push_task = asyncio.ensure_future(self.push(json.loads(message)))

    def on_close(self):
        if self.push_task is not None:
            self.push_task.cancel()

    async def push(self, request):
        count, size, binary = request["count"], request["size"], request.get("binary", True)
        filler = bytes(ord("a") + k % 26 for k in range(16, size))
        if not binary:
            filler = filler.decode()
        try:
            for i in range(count):
                if self.ws_connection is None or self.ws_connection.is_closing():
                    return  # the client went away mid-push
                header = b"%016x" % i if binary else f"{i:016x}"
                await self.write_message(header + filler, binary=binary)
                if i % 64 == 63:
                    await asyncio.sleep(
                        0
                    )  # yield every 64 messages, as in every impl (PROTOCOL.md)
        except WebSocketClosedError:
            pass


class BroadcastHandler(tornado.websocket.WebSocketHandler):
    subscribers: ClassVar[set] = set()  # the open connections, as in tornado's chat demo

    def get_compression_options(self):
        return None

    def open(self):
        self.set_nodelay(True)
        self.subscribers.add(self)

    def on_close(self):
        self.subscribers.discard(self)

    def on_message(self, message):
        self.relay(message, isinstance(message, bytes))

    def relay(self, message, binary):
        # As in tornado's chat demo: write_message() on every other subscriber, not awaited
        for subscriber in list(self.subscribers):
            if subscriber is not self:
                with contextlib.suppress(WebSocketClosedError):  # it is leaving
                    subscriber.write_message(message, binary=binary)


class MarketHandler(BroadcastHandler):
    subscribers: ClassVar[set] = set()  # the open connections of /market

    def on_message(self, message):
        # A message that is not a tick or an order closes the connection (PROTOCOL.md)
        if isinstance(message, bytes):
            self.close(1003, "text messages only")
            return
        try:
            data = json.loads(message)
            kind = data["type"]
            if kind == "order":
                ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
            elif kind != "tick":
                raise ValueError(kind)
        except (ValueError, KeyError, TypeError):
            self.close(1007, "not a tick or an order")
            return
        if kind == "tick":
            self.relay(message, False)  # the received text, unchanged
        else:
            # Not awaited, as the JSON answers
            with contextlib.suppress(WebSocketClosedError):
                self.write_message(ack)


def ignore_closed_writes(loop, context):
    # A write_message() future not awaited (echo, JSON answers, relays) fails with
    # WebSocketClosedError when its client leaves with the write pending, and asyncio logs it
    # with a traceback ("Task exception was never retrieved"): harmless, as tornado's
    # maintainers say (tornado issue #2568). Everything else goes to the default handler.
    if not isinstance(context.get("exception"), WebSocketClosedError):
        loop.default_exception_handler(context)


HANDLERS = [
    (r"/echo", EchoHandler),
    (r"/push", PushHandler),
    (r"/json", JsonHandler),
    (r"/broadcast", BroadcastHandler),
    (r"/market", MarketHandler),
]


async def main(host, port, ssl_context, sockets=None):
    app = tornado.web.Application(
        HANDLERS,
        websocket_max_message_size=2**24,  # 16 MiB
        # no websocket_ping_interval: tornado sends no keepalive pings
    )
    # TLS as tornado's HTTPServer docs show: an SSLContext as ssl_options (None: plain TCP)
    if sockets is None:
        server = app.listen(port, address=host, ssl_options=ssl_context)
    else:  # a worker forked by fork_processes: the parent's sockets (HTTPServer docstring)
        server = tornado.httpserver.HTTPServer(app, ssl_options=ssl_context)
        server.add_sockets(sockets)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(ignore_closed_writes)
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    await stop.wait()
    server.stop()
    await server.close_all_connections()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parse_profile_args(
        parser,
        compression="keep tornado's default get_compression_options() (it returns None: no "
        "compression)",
    )
    if args.shipped_compression:
        # Drop the handlers' get_compression_options() overrides: WebSocketHandler's own
        # applies, which returns None too (tornado ships compression off)
        for _, handler in HANDLERS:
            if "get_compression_options" in vars(handler):  # MarketHandler inherits it
                del handler.get_compression_options
    ssl_context = tls_context(args)  # as tornado's HTTPServer docstring creates it
    sockets = None
    if args.worker_processes:
        # tornado's multi-process pattern (HTTPServer docstring, "add_sockets: multi-process"):
        # bind, then fork before any event loop exists; fork_processes returns in each of the
        # N workers, while the parent waits for them (it never returns: sys.exit once all
        # have exited normally; a worker that exits abnormally is restarted, up to 100 times)
        sockets = tornado.netutil.bind_sockets(args.port, address=args.host)
        tornado.process.fork_processes(args.worker_processes)
    if args.loop == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(main(args.host, args.port, ssl_context, sockets))
