"""wsbench server for Flask-SocketIO: the Socket.IO events of impls/PROTOCOL.md.

Events: echo, push, json, subscribe, broadcast, tick, order.

A Flask app with a flask_socketio.SocketIO, started by socketio.run() in one async mode:
- threading: Flask's app.run, i.e. Werkzeug's development server (a thread per connection),
  with simple-websocket. socketio.run refuses it without a terminal unless
  allow_unsafe_werkzeug=True: it is a development server, but it is what this mode runs.
- eventlet: eventlet.wsgi with eventlet's own WebSocket.
- gevent: gevent.pywsgi with gevent-websocket's WebSocketHandler (socketio.run picks it when
  gevent-websocket is installed, as Flask-SocketIO's docs ask for WebSocket on gevent).
With eventlet and gevent the standard library is monkey-patched first, as their docs advise.
Events run in the order received (async_handlers=False); each push runs in a background task
so that the connection keeps reading and notices a client that leaves.

Fan-out uses Socket.IO rooms: `subscribe` joins a room (join_room); `broadcast` and `tick`
are emitted to the room with include_self=False (not back to the sender). emit() puts the
packet on each recipient's Engine.IO queue (unbounded: queue.Queue, eventlet's or gevent's
queue) and returns; each connection's writer thread or greenlet sends from its queue.
"""

import argparse
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # impls/, for profile_args
from profile_args import parse_profile_args

MODES = ("threading", "eventlet", "gevent")
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=8000)
parser.add_argument("--mode", choices=MODES, required=True, help="Flask-SocketIO async_mode")
args = parse_profile_args(
    parser,
    compression="accepted for every server; nothing turns compression off here, so nothing changes",
    no_workers="Flask-SocketIO's socketio.run() has no workers or processes option",
)

# eventlet's and gevent's docs: monkey-patch as early as possible, before other imports.
if args.mode == "eventlet":
    import eventlet

    eventlet.monkey_patch()
elif args.mode == "gevent":
    from gevent import monkey

    monkey.patch_all()

import logging  # noqa: E402
import socket  # noqa: E402
from importlib.metadata import version  # noqa: E402

from flask import Flask, request  # noqa: E402
from flask_socketio import SocketIO, emit, join_room  # noqa: E402

FLASK_SOCKETIO_VERSION = tuple(int(part) for part in version("flask-socketio").split(".")[:2])

app = Flask(__name__)
socketio = SocketIO(
    app,
    async_mode=args.mode,
    async_handlers=False,  # one client's events run one after the other, in order
    max_http_buffer_size=2**24,
    logger=False,
    engineio_logger=False,
)


@socketio.on("connect")
def connect(*auth):
    # TCP_NODELAY as asyncio sets on every transport: these three servers leave Nagle on
    environ = request.environ
    if "werkzeug.socket" in environ:  # threading: Werkzeug
        sock = environ["werkzeug.socket"]
    elif "eventlet.input" in environ:  # eventlet.wsgi
        sock = environ["eventlet.input"].get_socket()
    else:  # gevent.pywsgi with gevent-websocket
        sock = environ["wsgi.websocket"].handler.socket
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


@socketio.on("echo")
def echo(data):
    emit("echo", data)  # to the sender only, with the argument unchanged (str or bytes)


@socketio.on("json")
def json_answer(data):
    # data: the object python-socketio decoded from the packet (standard library json)
    emit("json", {"seq": data["seq"], "ok": True})  # to the sender only


@socketio.on("subscribe")
def subscribe(room):
    join_room(room)


@socketio.on("broadcast")
def broadcast(data):
    # to every client in the room but the sender, the argument unchanged (str or bytes)
    emit("broadcast", data, to="broadcast", include_self=False)


@socketio.on("tick")
def tick(data):
    emit("tick", data, to="market", include_self=False)


@socketio.on("order")
def order(data):
    emit("ack", {"type": "ack", "id": data["id"], "ok": True})  # to the sender only


@socketio.on("push")
def push(req):
    count, size, binary = req["count"], req["size"], req.get("binary", True)
    socketio.start_background_task(push_events, request.sid, count, size, binary)


def push_events(sid, count, size, binary):
    filler = bytes(ord("a") + k % 26 for k in range(16, size))
    if not binary:
        filler = filler.decode()
    for i in range(count):
        socketio.emit("push", (b"%016x" % i if binary else f"{i:016x}") + filler, to=sid)
        if i % 64 == 63:
            socketio.sleep(0)  # yield every 64 events, as in every impl (PROTOCOL.md)
            if not socketio.server.manager.is_connected(sid, "/"):
                return  # the client went away mid-push


if __name__ == "__main__":
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no per-request log lines
    run_options = {}
    if args.mode == "threading" and FLASK_SOCKETIO_VERSION >= (5, 3):
        run_options["allow_unsafe_werkzeug"] = True  # Flask-SocketIO >= 5.3 requires it
    # TLS: socketio.run() hands its other keyword arguments to the mode's server. Werkzeug
    # (threading, through app.run): ssl_context=(certfile, keyfile), as Werkzeug's run_simple
    # documents; eventlet: certfile=/keyfile=, which socketio.run passes to eventlet.wrap_ssl;
    # gevent: certfile=/keyfile=, gevent.pywsgi.WSGIServer's SSL arguments.
    if args.certfile and args.mode == "threading":
        run_options["ssl_context"] = (args.certfile, args.keyfile)
    elif args.certfile:
        run_options.update(certfile=args.certfile, keyfile=args.keyfile)
    # debug=False and log_output=False: no eventlet/gevent access log; SIGTERM's default
    # action ends the process (exit status -15).
    socketio.run(app, args.host, args.port, debug=False, log_output=False, **run_options)
