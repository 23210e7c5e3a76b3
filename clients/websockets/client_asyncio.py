"""websockets' asyncio client (websockets.asyncio.client.connect from 13.0, the legacy
websockets.connect before) driven by the client kit (clients/clientkit.py)."""

import asyncio
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit

try:
    from websockets.asyncio.client import connect
except ImportError:  # before 13.0
    from websockets import connect


async def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    ws = await clientkit.open_async(
        drv,
        lambda: connect(
            opts.url, compression=None, max_size=clientkit.MAX_SIZE, ping_interval=None
        ),
    )
    if ws is None:
        return
    watchdog = asyncio.ensure_future(clientkit.watch_async(drv, ws.close))
    try:
        for data in drv.start():
            await ws.send(data)
        while not drv.done:
            for data in drv.received(await ws.recv()):
                await ws.send(data)
    except Exception as exc:
        drv.closed(exc)
    watchdog.cancel()
    if drv.close_gracefully:
        await ws.close()


if __name__ == "__main__":
    clientkit.main(
        program, library="websockets", version=version("websockets"), api="asyncio client"
    )
