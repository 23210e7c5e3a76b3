"""wsbench server for websockets: /echo, /push, /json, /broadcast and /market (see
impls/PROTOCOL.md).

Uses the asyncio implementation (websockets.asyncio.server, websockets >= 13.0) and falls
back to the legacy implementation (websockets.serve) on older versions. Both accept a
handler with one argument (legacy: since 10.1); the path is read from the connection.
/broadcast and /market keep their open connections in a set and fan out with the
implementation's own broadcast() (websockets.asyncio.server.broadcast, legacy:
websockets.broadcast), which writes to every open connection without waiting.
"""

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from profile_args import parse_profile_args, plain_tls_context, tls_context
from websockets.exceptions import ConnectionClosed

try:  # websockets >= 13.0
    from websockets.asyncio.server import broadcast, serve

    def request_path(ws):
        return ws.request.path

except ImportError:  # websockets < 13.0: legacy implementation only
    from websockets import broadcast, serve

    def request_path(ws):
        return ws.path


broadcast_connections = set()  # the open connections on /broadcast
market_connections = set()  # the open connections on /market


def others(connections, ws):
    # Skip a transport already closing: after a reset, broadcast() still sees the connection
    # open until connection_lost() runs, and asyncio logs every write to it from the 5th on
    # ("socket.send() raised exception.").
    return (c for c in connections if c is not ws and not c.transport.is_closing())


async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def json_answer(ws):
    # A message that is not a JSON request closes the connection (PROTOCOL.md)
    async for message in ws:
        if not isinstance(message, str):
            await ws.close(1003, "text messages only")
            return
        try:
            request = json.loads(message)
            seq = request["seq"]
        except (ValueError, KeyError, TypeError):
            await ws.close(1007, "not a JSON request")
            return
        await ws.send(json.dumps({"seq": seq, "ok": True}))


async def push(ws):
    async for message in ws:
        request = json.loads(message)
        count, size = request["count"], request["size"]
        filler = bytes(ord("a") + k % 26 for k in range(16, size))
        if request.get("binary", True):
            for i in range(count):
                await ws.send(b"%016x" % i + filler)
                if i % 64 == 63:
                    await asyncio.sleep(
                        0
                    )  # yield every 64 messages, as in every impl (PROTOCOL.md)
        else:
            text_filler = filler.decode()
            for i in range(count):
                await ws.send(f"{i:016x}" + text_filler)
                if i % 64 == 63:
                    await asyncio.sleep(
                        0
                    )  # yield every 64 messages, as in every impl (PROTOCOL.md)


async def fan_out(ws):
    # Every message goes to every other connection on /broadcast (PROTOCOL.md)
    async for message in ws:
        broadcast(others(broadcast_connections, ws), message)


async def market(ws):
    # Ticks go to every other connection on /market; orders are acknowledged (PROTOCOL.md)
    async for message in ws:
        if not isinstance(message, str):
            await ws.close(1003, "text messages only")
            return
        try:
            request = json.loads(message)
            kind = request["type"]
            if kind == "order":
                ack = json.dumps({"type": "ack", "id": request["id"], "ok": True})
            elif kind != "tick":
                raise ValueError(kind)
        except (ValueError, KeyError, TypeError):
            await ws.close(1007, "not a tick or an order")
            return
        if kind == "tick":
            broadcast(others(market_connections, ws), message)  # the received text
        else:
            await ws.send(ack)


async def subscribed(ws, connections, serve_connection):
    connections.add(ws)  # a subscriber from the handshake until it closes
    try:
        await serve_connection(ws)
    finally:
        connections.discard(ws)


async def handler(ws):
    path = request_path(ws)
    try:
        if path == "/echo":
            await echo(ws)
        elif path == "/push":
            await push(ws)
        elif path == "/json":
            await json_answer(ws)
        elif path == "/broadcast":
            await subscribed(ws, broadcast_connections, fan_out)
        elif path == "/market":
            await subscribed(ws, market_connections, market)
        else:
            await ws.close(1008, "unknown path")
    except ConnectionClosed:
        pass  # the client went away, possibly mid-push


async def main(host, port, shipped_compression, ssl_context):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    loop.add_signal_handler(signal.SIGINT, stop.set_result, None)
    # Tuned: no permessage-deflate. As shipped: serve()'s default, compression="deflate"
    options = {} if shipped_compression else {"compression": None}
    async with serve(
        handler,
        host,
        port,
        ping_interval=None,  # no keepalive pings
        max_size=2**24,  # 16 MiB
        ssl=ssl_context,  # None: plain TCP
        **options,
    ):
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parse_profile_args(
        parser,
        compression="keep serve()'s default compression (permessage-deflate), not turn it off",
        no_workers="websockets' serve() has no workers or processes option",
    )
    # as websockets' docs show: an SSLContext(PROTOCOL_TLS_SERVER) passed as serve(ssl=...)
    ssl_context = tls_context(args, plain_tls_context)
    if args.loop == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(main(args.host, args.port, args.shipped_compression, ssl_context))
