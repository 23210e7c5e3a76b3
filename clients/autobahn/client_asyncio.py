"""autobahn's asyncio client (autobahn.asyncio.websocket.WebSocketClientProtocol and
WebSocketClientFactory on the loop's create_connection) driven by the client kit
(clients/clientkit.py). autobahn is callback-based: onOpen, onMessage and onClose drive the
kit's driver; the coroutine waits until the connection has closed."""

import asyncio
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit
from autobahn.asyncio.websocket import WebSocketClientFactory, WebSocketClientProtocol


class Client(WebSocketClientProtocol):
    drv: clientkit.Driver
    finished: asyncio.Future  # resolved once the connection has closed
    opened = False

    def send(self, data: clientkit.Message) -> None:
        binary = isinstance(data, bytes)  # sendMessage() takes bytes only: encode a str
        self.sendMessage(data if binary else data.encode(), isBinary=binary)

    def onOpen(self) -> None:
        self.opened = True
        self.drv.connected()
        for data in self.drv.start():
            self.send(data)

    def onMessage(self, payload: bytes, isBinary: bool) -> None:
        if self.drv.done:
            return  # received after the run ended, while closing
        # autobahn gives bytes for text frames too (UTF-8 validated): decode them to str
        for data in self.drv.received(payload if isBinary else payload.decode()):
            self.send(data)
        if self.drv.done:
            # The close frame, then the TCP close without waiting for the server's close
            # frame: after a push it comes behind every frame already buffered, which autobahn
            # would parse first (seconds for a few MB of small messages).
            self.sendClose()
            self.dropConnection(abort=False)  # onClose follows once the close frame is sent

    def onClose(self, wasClean: bool, code: int | None, reason: str | None) -> None:
        if not self.opened:
            self.drv.connect_failed(ConnectionError(reason))
        self.drv.closed()  # nothing when the run is done
        self.finished.set_result(None)


async def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    factory = WebSocketClientFactory(opts.url)
    factory.protocol = Client
    factory.setProtocolOptions(
        perMessageCompressionOffers=[],  # no permessage-deflate offer (the default)
        autoPingInterval=0,  # no keepalive pings (the default)
        maxFramePayloadSize=clientkit.MAX_SIZE,  # default 0: unlimited
        maxMessagePayloadSize=clientkit.MAX_SIZE,
    )
    loop = asyncio.get_running_loop()
    Client.drv, Client.finished = drv, loop.create_future()
    drv.connecting()
    try:
        _, proto = await loop.create_connection(factory, *opts.host_port)
    except Exception as exc:
        drv.connect_failed(exc)
        return
    watchdog = asyncio.ensure_future(
        clientkit.watch_async(drv, lambda: proto.dropConnection(abort=True))
    )
    await Client.finished
    watchdog.cancel()


if __name__ == "__main__":
    clientkit.main(program, library="autobahn", version=version("autobahn"), api="asyncio client")
