"""wsbench server for websockets: /echo, /push and /json (see impls/PROTOCOL.md).

Uses the asyncio implementation (websockets.asyncio.server, websockets >= 13.0) and falls
back to the legacy implementation (websockets.serve) on older versions. Both accept a
handler with one argument (legacy: since 10.1); the path is read from the connection.
"""

import argparse
import asyncio
import json
import signal

from websockets.exceptions import ConnectionClosed

try:  # websockets >= 13.0
    from websockets.asyncio.server import serve

    def request_path(ws):
        return ws.request.path

except ImportError:  # websockets < 13.0: legacy implementation only
    from websockets import serve

    def request_path(ws):
        return ws.path


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


async def handler(ws):
    path = request_path(ws)
    try:
        if path == "/echo":
            await echo(ws)
        elif path == "/push":
            await push(ws)
        elif path == "/json":
            await json_answer(ws)
        else:
            await ws.close(1008, "unknown path")
    except ConnectionClosed:
        pass  # the client went away, possibly mid-push


async def main(host, port):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    loop.add_signal_handler(signal.SIGINT, stop.set_result, None)
    async with serve(
        handler,
        host,
        port,
        compression=None,  # no permessage-deflate
        ping_interval=None,  # no keepalive pings
        max_size=2**24,  # 16 MiB
    ):
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(main(args.host, args.port))
