"""wsbench server for aiohttp: /echo, /push, /json, /broadcast and /market (see
impls/PROTOCOL.md).

A web.Application with five WebSocketResponse handlers, run by web.run_app. Sends await
send_bytes()/send_str(): every 64 KiB written (256 KiB in aiohttp 3.14), aiohttp waits
while the transport is paused. /broadcast and /market fan out with the loop over the open
WebSockets that aiohttp's example shows (examples/web_ws.py), awaiting each send in turn.
"""

import argparse
import asyncio
import contextlib
import json
import sys
import weakref
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from aiohttp import WSCloseCode, WSMsgType, web
from profile_args import parse_profile_args, tls_context

WS_OPTIONS = dict(compress=False, heartbeat=None, max_msg_size=2**24)
# Deployment profile as shipped (--shipped-compression): compress=False is left out, so
# WebSocketResponse's default, compress=True, applies
open_sockets = weakref.WeakSet()
broadcast_sockets = set()  # the open WebSockets on /broadcast
market_sockets = set()  # the open WebSockets on /market


async def open_websocket(request):
    ws = web.WebSocketResponse(**WS_OPTIONS)
    await ws.prepare(request)
    open_sockets.add(ws)
    return ws


async def echo(request):
    ws = await open_websocket(request)
    async for msg in ws:
        if msg.type == WSMsgType.TEXT:
            await ws.send_str(msg.data)
        elif msg.type == WSMsgType.BINARY:
            await ws.send_bytes(msg.data)
    return ws


async def json_answer(request):
    ws = await open_websocket(request)
    # A message that is not a JSON request closes the connection (PROTOCOL.md)
    try:
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                try:
                    json_request = json.loads(msg.data)
                    seq = json_request["seq"]
                except (ValueError, KeyError, TypeError):
                    await ws.close(code=WSCloseCode.INVALID_TEXT, message=b"not a JSON request")
                    break
                await ws.send_str(json.dumps({"seq": seq, "ok": True}))
            elif msg.type == WSMsgType.BINARY:
                await ws.close(code=WSCloseCode.UNSUPPORTED_DATA, message=b"text messages only")
                break
    except ConnectionResetError:
        pass  # the transport closed under a send: the client left with requests in flight
    return ws


async def push_messages(ws, request):
    count, size, binary = request["count"], request["size"], request.get("binary", True)
    filler = bytes(ord("a") + k % 26 for k in range(16, size))
    send = ws.send_bytes if binary else ws.send_str
    if not binary:
        filler = filler.decode()
    try:
        for i in range(count):
            if ws.closed:
                return  # the client went away mid-push
            await send((b"%016x" % i if binary else f"{i:016x}") + filler)
            if i % 64 == 63:
                await asyncio.sleep(0)  # yield every 64 messages, as in every impl (PROTOCOL.md)
    except ConnectionResetError:
        pass  # the transport closed under a send


async def push(request):
    ws = await open_websocket(request)
    task = None
    # Push from a task: only this handler reads, and it must keep reading to see the
    # client's close frame mid-push (aiohttp allows sending from other tasks).
    async for msg in ws:
        if msg.type == WSMsgType.TEXT:
            task = asyncio.create_task(push_messages(ws, json.loads(msg.data)))
    if task is not None:
        task.cancel()
    return ws


async def send_to_others(subscribers, sender, data, binary):
    # A copy: the set changes while a send waits for a subscriber's flow control
    for ws in tuple(subscribers):
        if ws is sender or ws.closed:
            continue
        # ConnectionError: that subscriber's transport closed under the send (its handler
        # removes it)
        with contextlib.suppress(ConnectionError):
            await (ws.send_bytes(data) if binary else ws.send_str(data))


async def broadcast(request):
    ws = await open_websocket(request)
    broadcast_sockets.add(ws)  # a subscriber from the handshake until it closes
    try:
        # Every message goes to every other connection on /broadcast (PROTOCOL.md)
        async for msg in ws:
            if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                binary = msg.type == WSMsgType.BINARY
                await send_to_others(broadcast_sockets, ws, msg.data, binary)
    finally:
        broadcast_sockets.discard(ws)
    return ws


async def market(request):
    ws = await open_websocket(request)
    market_sockets.add(ws)  # a subscriber from the handshake until it closes
    try:
        # Ticks go to every other connection on /market; orders are acknowledged (PROTOCOL.md)
        async for msg in ws:
            if msg.type == WSMsgType.BINARY:
                await ws.close(code=WSCloseCode.UNSUPPORTED_DATA, message=b"text messages only")
                break
            if msg.type != WSMsgType.TEXT:
                continue
            try:
                message = json.loads(msg.data)
                kind = message["type"]
                if kind == "order":
                    ack = json.dumps({"type": "ack", "id": message["id"], "ok": True})
                elif kind != "tick":
                    raise ValueError(kind)
            except (ValueError, KeyError, TypeError):
                await ws.close(code=WSCloseCode.INVALID_TEXT, message=b"not a tick or an order")
                break
            if kind == "tick":
                await send_to_others(market_sockets, ws, msg.data, False)  # the received text
            else:
                await ws.send_str(ack)
    except ConnectionError:
        pass  # the transport closed under a send: the client left with orders in flight
    finally:
        market_sockets.discard(ws)
    return ws


async def close_open_sockets(app):
    for ws in set(open_sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


def make_app():
    app = web.Application()
    app.add_routes(
        [
            web.get("/echo", echo),
            web.get("/push", push),
            web.get("/json", json_answer),
            web.get("/broadcast", broadcast),
            web.get("/market", market),
        ]
    )
    app.on_shutdown.append(close_open_sockets)
    return app


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parse_profile_args(
        parser,
        compression="keep WebSocketResponse's default compression (compress=True), not turn it off",
        no_workers="aiohttp's web.run_app() has no workers or processes option",
    )
    if args.shipped_compression:
        del WS_OPTIONS["compress"]
    # as aiohttp's docs show: an SSLContext passed as run_app(ssl_context=...)
    ssl_context = tls_context(args)
    if args.loop == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    web.run_app(
        make_app(),
        host=args.host,
        port=args.port,
        ssl_context=ssl_context,
        access_log=None,
        print=None,
    )
