"""aiohttp's WebSocket client (ClientSession.ws_connect) driven by the client kit
(clients/clientkit.py)."""

import asyncio
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import aiohttp
import clientkit

DATA = (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)


async def send(ws: aiohttp.ClientWebSocketResponse, data: clientkit.Message) -> None:
    if isinstance(data, bytes):
        await ws.send_bytes(data)
    else:
        await ws.send_str(data)


async def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    async with aiohttp.ClientSession() as session:
        ws = await clientkit.open_async(
            drv,
            lambda: session.ws_connect(
                opts.url, compress=0, autoping=True, heartbeat=None, max_msg_size=clientkit.MAX_SIZE
            ),
        )
        if ws is None:
            return
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
        if drv.close_gracefully:  # not after a push still streaming (Driver.close_gracefully)
            await ws.close()


if __name__ == "__main__":
    clientkit.main(program, library="aiohttp", version=version("aiohttp"), api="ws_connect")
