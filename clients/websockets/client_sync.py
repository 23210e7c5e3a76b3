"""websockets' sync client (websockets.sync.client.connect, since 11.0) driven by the
client kit (clients/clientkit.py)."""

import inspect
import socket
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit
from websockets.sync.client import connect


def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    options = {"compression": None, "max_size": clientkit.MAX_SIZE}
    if "ping_interval" in inspect.signature(connect).parameters:  # keepalive since 15.0
        options["ping_interval"] = None
    ws = clientkit.open_sync(drv, lambda: connect(opts.url, **options))
    if ws is None:
        return
    clientkit.watch_thread(drv, lambda: ws.socket.shutdown(socket.SHUT_RDWR))
    try:
        for data in drv.start():
            ws.send(data)
        while not drv.done:
            for data in drv.received(ws.recv()):
                ws.send(data)
    except Exception as exc:
        drv.closed(exc)
    if drv.close_gracefully:
        ws.close()


if __name__ == "__main__":
    clientkit.main(program, library="websockets", version=version("websockets"), api="sync client")
