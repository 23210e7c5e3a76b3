"""autobahn's Twisted client (autobahn.twisted.websocket.WebSocketClientProtocol and
WebSocketClientFactory on Twisted's default reactor) driven by the client kit
(clients/clientkit.py). autobahn is callback-based: onOpen, onMessage and onClose drive the
kit's driver; the reactor stops once the connection has closed."""

import contextlib
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit
from autobahn.twisted.websocket import WebSocketClientFactory, WebSocketClientProtocol
from twisted.internet import error, reactor


class Client(WebSocketClientProtocol):
    drv: clientkit.Driver
    opened = False

    def send(self, data: clientkit.Message) -> None:
        binary = isinstance(data, bytes)  # sendMessage() takes bytes only: encode a str
        self.sendMessage(data if binary else data.encode(), isBinary=binary)

    def onOpen(self) -> None:
        self.opened = True
        self.drv.connected()
        clientkit.watch_thread(
            self.drv, lambda: reactor.callFromThread(self.dropConnection, abort=True)
        )
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
        with contextlib.suppress(error.ReactorNotRunning):  # stopping already (a signal)
            reactor.stop()


class Factory(WebSocketClientFactory):
    protocol = Client

    def clientConnectionFailed(self, connector, reason) -> None:  # TCP connect failed
        exc = reason.value
        if reason.check(error.ConnectionRefusedError):  # the kit counts the built-in one
            exc = ConnectionRefusedError(str(exc))
        Client.drv.connect_failed(exc)
        reactor.stop()


def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    factory = Factory(opts.url)
    factory.setProtocolOptions(
        perMessageCompressionOffers=[],  # no permessage-deflate offer (the default)
        autoPingInterval=0,  # no keepalive pings (the default)
        maxFramePayloadSize=clientkit.MAX_SIZE,  # default 0: unlimited
        maxMessagePayloadSize=clientkit.MAX_SIZE,
    )
    Client.drv = drv
    drv.connecting()
    reactor.connectTCP(*opts.host_port, factory)
    reactor.run()


if __name__ == "__main__":
    clientkit.main(program, library="autobahn", version=version("autobahn"), api="Twisted client")
