"""python-socketio's sync client (socketio.Client, Engine.IO's websocket transport on
websocket-client) driven by the client kit (clients/clientkit.py)."""

import sys
import threading
from importlib.metadata import version
from pathlib import Path

import socketio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clientkit


def program(drv: clientkit.Driver) -> None:
    opts = drv.opts
    sio = socketio.Client(reconnection=False)
    finished = threading.Event()
    # python-engineio runs each received message's handler in a new thread: the lock keeps
    # the driver and each handler's emits (placeholder + attachment) from interleaving.
    lock = threading.Lock()

    @sio.on("echo")
    @sio.on("push")
    def on_message(data: clientkit.Message) -> None:
        with lock:
            if drv.done:
                return
            try:
                for reply in drv.received(data):
                    sio.emit("echo", reply)
            except Exception as exc:
                drv.closed(exc)
            if drv.done:
                finished.set()

    @sio.on("disconnect")
    def on_disconnect(*reason: object) -> None:  # also on sio.disconnect(); a reason from 5.12
        with lock:
            drv.closed()
        finished.set()

    clientkit.open_sync(drv, lambda: sio.connect(opts.http_base, transports=["websocket"]))
    if drv.done:  # the connection failed
        return
    clientkit.watch_thread(drv, sio.disconnect)
    try:
        with lock:
            if opts.scenario == "stream":
                drv.start()  # starts the traffic phase; the request is emitted as an object
                sio.emit("push", drv.request())
            else:
                for data in drv.start():
                    sio.emit("echo", data)
        finished.wait()
    except Exception as exc:
        drv.closed(exc)
    if drv.close_gracefully:
        sio.disconnect()


if __name__ == "__main__":
    clientkit.main(
        program, library="python-socketio", version=version("python-socketio"), api="Client"
    )
