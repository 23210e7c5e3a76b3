"""aiohttp's WebSocket client (ClientSession.ws_connect) driven by the client kit
(clients/clientkit.py)."""

import asyncio
import contextlib
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import aiohttp
import clientkit

DATA = (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)
CLOSE_WAIT_S = 1.0


async def send(ws: aiohttp.ClientWebSocketResponse, data: clientkit.Message) -> None:
    if isinstance(data, bytes):
        await ws.send_bytes(data)
    else:
        await ws.send_str(data)


async def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    async with aiohttp.ClientSession() as session:
        drv.connecting()
        try:
            ws = await session.ws_connect(
                opts.url, compress=0, autoping=True, heartbeat=None, max_msg_size=clientkit.MAX_SIZE
            )
        except Exception as exc:
            drv.connect_failed(exc)
            return
        drv.connected()
        watchdog = asyncio.ensure_future(clientkit.watch_async(drv, ws.close))
        try:
            for data in drv.start():
                await send(ws, data)
            while not drv.done:
                msg = await ws.receive()
                if msg.type not in DATA:  # CLOSE, CLOSING, CLOSED or ERROR: the end
                    raise ConnectionError(f"connection ended: {msg.type.name} {msg.data!r}")
                for data in drv.received(msg.data):  # BINARY: bytes, TEXT: str
                    await send(ws, data)
        except Exception as exc:
            drv.closed(exc)
        watchdog.cancel()
        # close() reads until the server's close frame, its timeout (10 s) applying to each
        # read: a push still streaming (the reference server answers a close only after its
        # push) would keep it reading, so the wait is bounded (then aiohttp drops the socket)
        if drv.close_gracefully:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(ws.close(), CLOSE_WAIT_S)


if __name__ == "__main__":
    clientkit.main(program, library="aiohttp", version=version("aiohttp"), api="ws_connect")
