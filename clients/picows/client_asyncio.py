"""picows's WebSocket client (picows.ws_connect with a WSListener: callbacks, synchronous
sends) driven by the client kit (clients/clientkit.py). picows delivers frames, not
messages: each data frame is one message (the reference server sends one frame each)."""

import asyncio
import inspect
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit
from picows import WSListener, WSMsgType, ws_connect

# max_frame_size exists from picows 1.8 (default 10 MiB); before, the limit is a fixed 1 MiB.
HAS_MAX_FRAME_SIZE = "max_frame_size" in inspect.signature(ws_connect).parameters
OPTIONS = {"max_frame_size": clientkit.MAX_SIZE} if HAS_MAX_FRAME_SIZE else {}


def send(transport, data: clientkit.Message) -> None:
    # send() takes bytes-like objects only before picows 1.20 (later it encodes str as here)
    if isinstance(data, bytes):
        transport.send(WSMsgType.BINARY, data)
    else:
        transport.send(WSMsgType.TEXT, data.encode())


def close(transport) -> None:
    if not transport.underlying_transport.is_closing():
        transport.send_close()  # a close frame, then the socket closes, as picows's examples
        transport.disconnect()


class Listener(WSListener):
    def __init__(self, drv: clientkit.Driver) -> None:
        super().__init__()
        self.drv = drv

    def on_ws_frame(self, transport, frame) -> None:
        if self.drv.done:  # frames parsed in the same read as the last one
            return
        if frame.msg_type == WSMsgType.BINARY:
            data = frame.get_payload_as_bytes()
        elif frame.msg_type == WSMsgType.TEXT:
            data = frame.get_payload_as_utf8_text()
        else:
            if frame.msg_type == WSMsgType.CLOSE:  # the server closes: so do we
                transport.disconnect()
            return
        try:
            for out in self.drv.received(data):
                send(transport, out)
        except Exception as exc:  # some picows 1.x raise OSError from send() after a reset
            self.drv.closed(exc)
        if self.drv.done:  # disconnect at once (a push would go on), ending the program's wait
            close(transport)

    def on_ws_disconnected(self, transport) -> None:
        self.drv.closed()  # does nothing once the run is done


async def program(drv: clientkit.Driver) -> None:
    opened = await clientkit.open_async(
        drv, lambda: ws_connect(lambda: Listener(drv), drv.opts.url, **OPTIONS)
    )
    if opened is None:
        return
    transport, _ = opened
    watchdog = asyncio.ensure_future(clientkit.watch_async(drv, transport.disconnect))
    try:
        for data in drv.start():
            send(transport, data)
    except Exception as exc:
        drv.closed(exc)
        close(transport)
    # The listener receives from here on: the run ends when the connection does (closed by the
    # listener once drv.done, by the server, or by the watchdog).
    await transport.wait_disconnected()
    watchdog.cancel()


if __name__ == "__main__":
    clientkit.main(
        program, library="picows", version=version("picows"), api="ws_connect (callbacks)"
    )
