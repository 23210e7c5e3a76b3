"""websocket-client's blocking client (websocket.create_connection) driven by the client kit
(clients/clientkit.py)."""

import socket
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit
import websocket


def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    # No compression (the library has no permessage-deflate), no pings (only
    # WebSocketApp.run_forever sends them), no maximum message size (none exists).
    ws = clientkit.open_sync(drv, lambda: websocket.create_connection(opts.url))
    if ws is None:
        return
    clientkit.watch_thread(drv, lambda: ws.sock.shutdown(socket.SHUT_RDWR))

    def send(data: clientkit.Message) -> None:
        if isinstance(data, bytes):
            ws.send_binary(data)
        else:
            ws.send(data)  # a text frame (opcode OPCODE_TEXT, the default)

    try:
        for data in drv.start():
            send(data)
        while not drv.done:
            # recv() gives bytes for a binary frame, str for a text frame (UTF-8 validated)
            for data in drv.received(ws.recv()):
                send(data)
    except Exception as exc:
        drv.closed(exc)
    if drv.close_gracefully:
        ws.close()


if __name__ == "__main__":
    clientkit.main(
        program,
        library="websocket-client",
        version=version("websocket-client"),
        api="sync client (WebSocket)",
    )
