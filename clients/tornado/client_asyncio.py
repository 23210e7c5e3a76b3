"""Tornado's WebSocket client (tornado.websocket.websocket_connect, on the asyncio event loop)
driven by the client kit (clients/clientkit.py)."""

import asyncio
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit
from tornado.websocket import websocket_connect


async def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    conn = await clientkit.open_async(
        drv,
        lambda: websocket_connect(
            opts.url,
            compression_options=None,
            ping_interval=None,
            max_message_size=clientkit.MAX_SIZE,
        ),
    )
    if conn is None:
        return
    # TCP_NODELAY, as the other clients have it (asyncio sets it on its transports): tornado's
    # HTTP client turns it off again once the upgrade request is written
    conn.protocol.set_nodelay(True)
    watchdog = asyncio.ensure_future(clientkit.watch_async(drv, conn.close))
    try:
        for data in drv.start():
            await conn.write_message(data, binary=isinstance(data, bytes))
        while not drv.done:
            received = await conn.read_message()
            if received is None:  # the connection is closed
                raise ConnectionError(f"closed by the server (code {conn.close_code})")
            for data in drv.received(received):
                await conn.write_message(data, binary=isinstance(data, bytes))
    except Exception as exc:
        drv.closed(exc)
    watchdog.cancel()
    conn.close()


if __name__ == "__main__":
    clientkit.main(program, library="tornado", version=version("tornado"), api="websocket_connect")
