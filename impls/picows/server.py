"""wsbench server for picows: /echo, /push, /json, /broadcast and /market (see
impls/PROTOCOL.md).

picows is callback-based: ws_create_server() calls a factory with the parsed upgrade request
(WSUpgradeRequest) and the factory returns the WSListener for that connection, chosen here by
path (None: picows answers 404). Where aiofastnet is installed (a dependency of picows 1.20.0
and 2.x), picows creates its connections with it by default; that default is kept.

picows delivers frames, not messages: /echo sends every data frame back with its own type and
fin bit (a fragmented message goes back fragmented the same way); /json takes each text frame
as one message (the load generator sends one frame per message). Sends are synchronous
(WSTransport.send() writes to the transport); backpressure is the transport's flow control,
which picows forwards to WSListener.pause_writing()/resume_writing(). A push runs in an
asyncio task that, after a send that crossed the write buffer's high-water mark, awaits
resume_writing(), and yields every 64 messages as every implementation does.

/broadcast and /market keep the transports of their open connections in a set and fan out
with a loop over it, as picows's own broadcast example (examples/broadcast_server.py) does:
each send() is synchronous, so every subscriber's transport buffers what it cannot send yet.
"""

import argparse
import asyncio
import contextlib
import inspect
import json
import logging
import signal
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from picows import WSCloseCode, WSListener, WSMsgType, ws_create_server
from profile_args import parse_profile_args, tls_context

DATA_FRAMES = (WSMsgType.TEXT, WSMsgType.BINARY, WSMsgType.CONTINUATION)
open_transports = set()
broadcast_subscribers = set()  # transports of the open /broadcast connections
market_subscribers = set()  # transports of the open /market connections
# max_frame_size exists from picows 1.8 (default 10 MiB); before, the limit is a fixed 1 MiB.
if "max_frame_size" in inspect.signature(ws_create_server).parameters:
    SERVER_OPTIONS = {"max_frame_size": 2**24}  # 16 MiB
else:
    SERVER_OPTIONS = {}


class Listener(WSListener):
    def on_ws_connected(self, transport):
        open_transports.add(transport)

    def on_ws_disconnected(self, transport):
        open_transports.discard(transport)

    def on_ws_frame(self, transport, frame):
        try:
            if frame.msg_type in DATA_FRAMES:
                self.on_data_frame(transport, frame)
            elif frame.msg_type == WSMsgType.CLOSE:  # answer the client's close, as picows shows
                transport.send_close(frame.get_close_code(), frame.get_close_message())
                transport.disconnect()
            elif frame.msg_type == WSMsgType.PING:  # only before 1.7: later picows answers itself
                transport.send_pong(frame.get_payload_as_bytes())
        except OSError:  # some picows 1.x (1.8, 1.10) raise from send() after a reset
            transport.disconnect()


def publish(subscribers, sender, msg_type, payload, fin=True):
    """Send one frame to every subscriber but its sender (the frame's payload is only valid
    during on_ws_frame(); send() copies it at once)."""
    gone = []
    for transport in subscribers:
        # is_closing(): closed but not yet disconnected (picows < 1.20 would still write)
        if transport is sender or transport.underlying_transport.is_closing():
            continue
        try:
            transport.send(msg_type, payload, fin)
        except OSError:  # some picows 1.x (1.8, 1.10) raise from send() after a reset
            gone.append(transport)
    for transport in gone:
        transport.disconnect()


class Subscriber(Listener):
    subscribers = None  # the set this endpoint's connections are kept in

    def on_ws_connected(self, transport):
        super().on_ws_connected(transport)
        self.subscribers.add(transport)  # a subscriber from the handshake until it closes

    def on_ws_disconnected(self, transport):
        super().on_ws_disconnected(transport)
        self.subscribers.discard(transport)


class Broadcast(Subscriber):
    subscribers = broadcast_subscribers

    def on_data_frame(self, transport, frame):
        # Every frame goes to every other connection, with its own type and fin bit
        payload = frame.get_payload_as_memoryview()
        publish(self.subscribers, transport, frame.msg_type, payload, frame.fin)


class Market(Subscriber):
    subscribers = market_subscribers

    def on_data_frame(self, transport, frame):
        # Ticks go to every other connection, unchanged; orders are acknowledged
        if frame.msg_type != WSMsgType.TEXT or not frame.fin:
            transport.send_close(WSCloseCode.UNSUPPORTED_DATA, b"one text frame per message")
            transport.disconnect()
            return
        try:
            message = json.loads(frame.get_payload_as_utf8_text())
            kind = message["type"]
            if kind == "order":
                ack = json.dumps({"type": "ack", "id": message["id"], "ok": True})
            elif kind != "tick":
                raise ValueError(kind)
        except (ValueError, KeyError, TypeError):
            transport.send_close(WSCloseCode.INVALID_TEXT, b"not a tick or an order")
            transport.disconnect()
            return
        if kind == "tick":
            publish(self.subscribers, transport, WSMsgType.TEXT, frame.get_payload_as_memoryview())
        else:
            transport.send(WSMsgType.TEXT, ack.encode())


class Echo(Listener):
    def on_data_frame(self, transport, frame):
        transport.send(frame.msg_type, frame.get_payload_as_memoryview(), frame.fin)


class Json(Listener):
    def on_data_frame(self, transport, frame):
        # A message that is not a JSON request closes the connection (PROTOCOL.md)
        if frame.msg_type != WSMsgType.TEXT or not frame.fin:
            transport.send_close(WSCloseCode.UNSUPPORTED_DATA, b"one text frame per message")
            transport.disconnect()
            return
        try:
            request = json.loads(frame.get_payload_as_utf8_text())
            seq = request["seq"]
        except (ValueError, KeyError, TypeError):
            transport.send_close(WSCloseCode.INVALID_TEXT, b"not a JSON request")
            transport.disconnect()
            return
        # encode(): before picows 1.20, send() takes bytes-like objects only
        transport.send(WSMsgType.TEXT, json.dumps({"seq": seq, "ok": True}).encode())


class Push(Listener):
    task = None
    resumed = None  # a future while the transport's write buffer is above its high-water mark

    def on_ws_disconnected(self, transport):
        super().on_ws_disconnected(transport)
        if self.task is not None:
            self.task.cancel()

    def pause_writing(self):
        self.resumed = asyncio.get_running_loop().create_future()

    def resume_writing(self):
        if self.resumed is not None:
            self.resumed.set_result(None)
            self.resumed = None

    def on_data_frame(self, transport, frame):
        if frame.msg_type == WSMsgType.TEXT:
            request = json.loads(frame.get_payload_as_bytes())
            self.task = asyncio.get_running_loop().create_task(self.push(transport, request))

    async def push(self, transport, request):
        count, size = request["count"], request["size"]
        msg_type = WSMsgType.BINARY if request.get("binary", True) else WSMsgType.TEXT
        filler = bytes(ord("a") + k % 26 for k in range(16, size))  # ASCII: text frames too
        # Closing: the client's close frame arrived (disconnect() above) or a write failed;
        # on_ws_disconnected() comes one loop iteration later.
        is_closing = transport.underlying_transport.is_closing
        try:
            for i in range(count):
                if is_closing():
                    return  # the client went away mid-push: stop quietly
                transport.send(msg_type, b"%016x" % i + filler)
                if self.resumed is not None:
                    await self.resumed  # backpressure: wait for resume_writing()
                if i % 64 == 63:
                    await asyncio.sleep(0)  # yield every 64 messages, as in every impl
        except OSError:  # some picows 1.x (1.8, 1.10) raise from send() after a reset
            transport.disconnect()


def route(request):
    path = request.path.partition(b"?")[0]
    if path == b"/echo":
        return Echo()
    if path == b"/push":
        return Push()
    if path == b"/json":
        return Json()
    if path == b"/broadcast":
        return Broadcast()
    if path == b"/market":
        return Market()
    return None  # 404 Not Found


async def main(host, port, ssl_context):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    loop.add_signal_handler(signal.SIGINT, stop.set_result, None)
    # No keepalive pings: enable_auto_ping=False is the default (the option exists from 1.7).
    # TLS as picows's examples/echo_server_ssl.py: ws_create_server(ssl=context), which it
    # hands to create_server (the loop's, or aiofastnet's from 1.20); None: plain TCP.
    server = await ws_create_server(route, host, port, ssl=ssl_context, **SERVER_OPTIONS)
    await stop
    server.close()
    for transport in list(open_transports):
        with contextlib.suppress(OSError):  # the client has just reset (picows 1.8, 1.10)
            transport.send_close(WSCloseCode.GOING_AWAY, b"server shutdown")
        transport.disconnect()


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    return parse_profile_args(
        parser,
        compression="accepted for every server; picows has no permessage-deflate, so nothing "
        "changes",
        no_workers="picows's ws_create_server() has no workers or processes option",
    )


if __name__ == "__main__":
    args = parse_args()
    loop_factory = None
    if args.loop == "uvloop":
        import uvloop

        loop_factory = uvloop.new_event_loop
    # picows < 1.20 logs a WARNING on every pause_writing()/resume_writing() (two lines per
    # write-buffer cycle of a push); errors are still logged.
    logging.getLogger("picows").setLevel(logging.ERROR)
    ssl_context = tls_context(args)  # as picows's examples/echo_server_ssl.py creates it
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(main(args.host, args.port, ssl_context))
