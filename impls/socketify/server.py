"""wsbench server for socketify: /echo, /push, /json, /broadcast, /market (impls/PROTOCOL.md).

A socketify App (uWebSockets through CFFI) with one app.ws() route per endpoint. socketify
runs its own libuv loop (uWebSockets' sockets) and drives it from an asyncio loop it creates:
asyncio calls libuv without blocking on every pass while there is traffic, so the process
busy-polls (CPU near 100% under load). Handlers get whole messages (text as str).

Sends are synchronous (WebSocket.send writes to the socket, keeps what the kernel refused in
socketify's buffer and returns a SendStatus). socketify's `drain` handler cannot be used: from
0.0.6 (at least) to 0.0.31 App.ws() never registers it (the native callback is reset to NULL
right after being set). So a push is an async handler that, after a send returning
BACKPRESSURE, yields to the loop until get_buffered_amount() is back under 64 KiB, and
yields every 64 messages as every implementation does. On SIGTERM the server sends a 1001
close to every open connection, closes the listening socket and stops the loop.

/broadcast and /market use uWebSockets' pub/sub: each connection subscribes to the
endpoint's topic in `open` (uWebSockets unsubscribes it when it closes) and a message is
published as that connection, with uWebSockets' WebSocket::publish, which skips the sender.
socketify's own WebSocket.publish cannot skip it: from 0.0.6 to 0.0.31 it calls App.publish,
which sends to every subscriber, the sender too (socketify.py: "publish in app just send to
everyone"). So publish() calls the C API function that socketify binds but leaves unused,
uws_ws_publish_with_options, through socketify's CFFI library. uWebSockets queues a publish
and writes it to each subscriber at the end of the loop iteration; a subscriber with more
than max_backpressure bytes buffered (socketify's default, 64 KiB, on these two routes) is
skipped: the message is dropped for it.

--worker-processes N: N processes as socketify's CLI runs its --workers (socketify/cli.py)
and its examples/forks.py do: N - 1 os.fork() before any App exists, then every process,
the first too, creates its own App and listens on the same port (uSockets sets SO_REUSEPORT
on its listening sockets, so the kernel spreads the connections over them). Each process has
its own pub/sub topics: a publish reaches the subscribers of its own process only.
"""

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from profile_args import parse_profile_args
from socketify import App, AppListenOptions, AppOptions, CompressOptions, OpCode, SendStatus
from socketify.native import lib  # socketify's CFFI binding of uWebSockets' C API

LOW_WATER = 64 * 1024  # bytes left in socketify's buffer under which a push goes on
open_sockets = {}  # native WebSocket pointer -> the wrapper socketify passed to `open`
BROADCAST, MARKET = b"broadcast", b"market"  # pub/sub topics (one topic tree per App)
# Deployment profile as shipped (--shipped-compression): the behaviors leave out
# "compression", so App.ws()'s default applies (0, CompressOptions.DISABLED)
SHIPPED_COMPRESSION = False


def opened(ws):
    open_sockets[ws.ws] = ws


def closed(ws, code, message):
    open_sockets.pop(ws.ws, None)


def subscriber(topic):
    def opened_and_subscribed(ws):
        opened(ws)
        ws.subscribe(topic)  # unsubscribed by uWebSockets when the connection closes

    return opened_and_subscribed


def publish(ws, topic, message, opcode):
    # uWebSockets' WebSocket::publish: to every subscriber of topic but ws (see docstring)
    data = message.encode() if isinstance(message, str) else message  # text arrives as str
    lib.uws_ws_publish_with_options(
        ws.app.SSL, ws.ws, topic, len(topic), data, len(data), int(opcode), False
    )


def broadcast(ws, message, opcode):
    publish(ws, BROADCAST, message, opcode)


def market(ws, message, opcode):
    # A tick goes to every other subscriber unchanged; an order gets its ack (PROTOCOL.md)
    if opcode != OpCode.TEXT:
        ws.end(1003, b"text messages only")
        return
    try:
        data = json.loads(message)
        kind = data["type"]
        if kind == "order":
            ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
    except (ValueError, KeyError, TypeError):
        kind = None
    if kind == "tick":
        publish(ws, MARKET, message, OpCode.TEXT)
    elif kind == "order":
        ws.send(ack, OpCode.TEXT)
    else:
        ws.end(1007, b"not a tick or an order")


def echo(ws, message, opcode):
    ws.send(message, opcode)


def json_answer(ws, message, opcode):
    # A message that is not a JSON request closes the connection (PROTOCOL.md)
    if opcode != OpCode.TEXT:
        ws.end(1003, b"text messages only")
        return
    try:
        request = json.loads(message)
        seq = request["seq"]
    except (ValueError, KeyError, TypeError):
        ws.end(1007, b"not a JSON request")
        return
    ws.send(json.dumps({"seq": seq, "ok": True}), OpCode.TEXT)


async def push(ws, message, opcode):
    if opcode != OpCode.TEXT:
        return
    request = json.loads(message)
    count, size = request["count"], request["size"]
    opcode = OpCode.BINARY if request.get("binary", True) else OpCode.TEXT
    filler = bytes(ord("a") + k % 26 for k in range(16, size))  # ASCII: text frames too
    native, this = ws.ws, open_sockets.get(ws.ws)

    def gone():  # closed; the pointer may even be reused by a new connection
        return this is None or open_sockets.get(native) is not this

    for i in range(count):
        if gone():
            return  # the client went away mid-push: stop quietly
        if ws.send(b"%016x" % i + filler, opcode) == SendStatus.BACKPRESSURE:
            while ws.get_buffered_amount() > LOW_WATER:
                await asyncio.sleep(0)  # libuv runs between asyncio steps and flushes
                if gone():
                    return
        if i % 64 == 63:
            await asyncio.sleep(0)  # yield every 64 messages, as in every impl (PROTOCOL.md)


def behavior(message_handler, **options):
    tuned = {} if SHIPPED_COMPRESSION else {"compression": CompressOptions.DISABLED}
    return {
        **tuned,
        "max_payload_length": 2**24,  # 16 MiB (default 16 KiB)
        "idle_timeout": 0,  # no idle timeout (default 120 s)
        "send_pings_automatically": False,  # the default: no keepalive pings
        # The echo never waits: what the kernel refuses stays in socketify's buffer, bounded
        # by the client's messages in flight. Past max_backpressure (default 64 KiB) a send
        # is dropped, so it is set far above any window; the push waits at LOW_WATER.
        "max_backpressure": 2**28,
        "open": opened,
        "message": message_handler,
        "close": closed,
        **options,
    }


def main(host, port, certfile, keyfile):
    # TLS as socketify's docs show (SSL / HTTPS): App(AppOptions(key_file_name=...,
    # cert_file_name=...)), an SSL app of uWebSockets; without them, plain TCP
    app = App(AppOptions(key_file_name=keyfile, cert_file_name=certfile) if certfile else None)
    app.ws("/echo", behavior(echo))
    app.ws("/push", behavior(push))
    app.ws("/json", behavior(json_answer))
    # Pub/sub at socketify's default max_backpressure (64 KiB), which socketify's docs call
    # essential for pub/sub: past it a publish (or send) skips the slow subscriber
    pubsub = {"max_backpressure": 64 * 1024}
    app.ws("/broadcast", behavior(broadcast, open=subscriber(BROADCAST), **pubsub))
    app.ws("/market", behavior(market, open=subscriber(MARKET), **pubsub))
    app.listen(AppListenOptions(port=port, host=host))

    def shutdown():
        for ws in list(open_sockets.values()):
            ws.end(1001, b"server shutdown")
        app.close()  # closes the listening socket and stops the loop: run() returns

    app.loop.loop.add_signal_handler(signal.SIGTERM, shutdown)
    app.run()


def fork_workers(processes):
    """Fork ``processes - 1`` workers, as socketify's CLI does for --workers: returns their
    process ids in the first process, [] in each worker."""
    workers = []
    for _ in range(1, processes):
        pid = os.fork()
        if pid == 0:
            return []
        workers.append(pid)
    return workers


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parse_profile_args(
        parser,
        compression="keep App.ws()'s default compression (CompressOptions.DISABLED) instead of "
        "setting it",
    )
    SHIPPED_COMPRESSION = args.shipped_compression
    workers = fork_workers(args.worker_processes or 1)
    main(args.host, args.port, args.certfile, args.keyfile)
    # The first process, stopped, waits for its workers: the SIGTERM that stopped it stops
    # them too (the harness signals the server's whole process group, as a terminal does)
    for pid in workers:
        os.waitpid(pid, 0)
