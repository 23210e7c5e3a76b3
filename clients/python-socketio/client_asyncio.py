"""python-socketio's asyncio client (socketio.AsyncClient, Engine.IO's websocket transport
on aiohttp) driven by the client kit (clients/clientkit.py)."""

import asyncio
import contextlib
import inspect
import sys
from importlib.metadata import version
from pathlib import Path

import engineio
import socketio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit

OPTIONS = {}
if "websocket_extra_options" in inspect.signature(engineio.AsyncClient).parameters:
    # aiohttp's ws_connect() options (python-engineio 4.4+; aiohttp's 4 MiB limit before)
    OPTIONS["websocket_extra_options"] = {"max_msg_size": clientkit.MAX_SIZE}
CLOSE_TIMEOUT_S = 1.0


async def disconnect(sio: socketio.AsyncClient) -> None:
    """Disconnect, bounded: after a push the reference server writes on until a write fails,
    and aiohttp's close() reads until its close frame (a timeout per read, never reached);
    cancelled, close() drops the connection."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(sio.disconnect(), CLOSE_TIMEOUT_S)


async def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    sio = socketio.AsyncClient(reconnection=False, **OPTIONS)
    finished = asyncio.Event()

    @sio.on("echo")
    @sio.on("push")
    async def on_message(data: clientkit.Message) -> None:
        if drv.done:
            return
        try:
            for reply in drv.received(data):
                await sio.emit("echo", reply)
        except Exception as exc:
            drv.closed(exc)
        if drv.done:
            finished.set()

    @sio.on("disconnect")
    def on_disconnect(*reason: object) -> None:  # also on sio.disconnect(); a reason from 5.12
        drv.closed()
        finished.set()

    await clientkit.open_async(drv, lambda: sio.connect(opts.http_base, transports=["websocket"]))
    if drv.done:  # the connection failed
        return
    watchdog = asyncio.ensure_future(clientkit.watch_async(drv, lambda: disconnect(sio)))
    try:
        if opts.scenario == "stream":
            drv.start()  # starts the traffic phase; the request is emitted as an object
            await sio.emit("push", drv.request())
        else:
            for data in drv.start():
                await sio.emit("echo", data)
        await finished.wait()
    except Exception as exc:
        drv.closed(exc)
    watchdog.cancel()
    if drv.close_gracefully:
        await disconnect(sio)


if __name__ == "__main__":
    clientkit.main(
        program, library="python-socketio", version=version("python-socketio"), api="AsyncClient"
    )
