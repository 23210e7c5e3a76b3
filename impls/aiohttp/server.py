"""wsbench server for aiohttp: /echo, /push and /json (see impls/PROTOCOL.md).

A web.Application with three WebSocketResponse handlers, run by web.run_app. Sends await
send_bytes()/send_str(): every 64 KiB written, aiohttp waits while the transport is paused.
"""

import argparse
import asyncio
import json
import weakref

from aiohttp import WSCloseCode, WSMsgType, web

WS_OPTIONS = dict(compress=False, heartbeat=None, max_msg_size=2**24)
open_sockets = weakref.WeakSet()


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


async def close_open_sockets(app):
    for ws in set(open_sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


def make_app():
    app = web.Application()
    app.add_routes([web.get("/echo", echo), web.get("/push", push), web.get("/json", json_answer)])
    app.on_shutdown.append(close_open_sockets)
    return app


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    web.run_app(make_app(), host=args.host, port=args.port, access_log=None, print=None)
