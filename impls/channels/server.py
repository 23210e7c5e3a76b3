"""wsbench server for Django Channels: /echo, /push, /json, /broadcast, /market.

See impls/PROTOCOL.md. The ASGI application ``app`` (``server:app``) is served by
impls/asgi_serve.py on uvicorn or on Daphne (Channels' own server); see meta.toml.

Written the way the Channels docs show it (topics/consumers.rst "AsyncWebsocketConsumer",
tutorial part 3 "Rewrite Chat Server as Asynchronous", topics/channel_layers.rst):

- Django configured in code (``settings.configure``: no database, DEBUG=False,
  ALLOWED_HOSTS), then ``get_asgi_application()`` first, as the docs' asgi.py does, and a
  ``ProtocolTypeRouter`` with Django's HTTP app for "http" and a ``URLRouter`` of
  ``path(..., Consumer.as_asgi())`` for "websocket". No ``AuthMiddlewareStack`` (it needs
  the session and auth tables of a database) and no ``AllowedHostsOriginValidator`` (it
  refuses a handshake without an Origin header, and the load generator is not a browser).
- One ``AsyncWebsocketConsumer`` per endpoint: ``receive(text_data=None, bytes_data=None)``
  gets each frame, ``await self.send(text_data=...)`` / ``send(bytes_data=...)`` answers.
  Async rather than the sync ``WebsocketConsumer`` (which the docs suggest by default
  because most consumers call the ORM): nothing here is synchronous, the docs advise
  AsyncConsumers when only async code runs, and a sync consumer runs every handler in a
  thread (plus ``async_to_sync`` back to the loop for every send).
- /json: ``AsyncJsonWebsocketConsumer`` (``receive_json`` / ``send_json``; its
  ``decode_json`` and ``encode_json`` are the standard library's ``json.loads`` and
  ``json.dumps`` with the default layout, as PROTOCOL.md asks).
- Fan-out through the channel layer, as the chat tutorial does: ``connect()`` joins the
  group with ``self.channel_layer.group_add(group, self.channel_name)``, ``receive()``
  hands the message to ``self.channel_layer.group_send(group, {"type": ..., ...})``, and
  every member's consumer gets the event in the handler named by its type
  (``broadcast.message`` -> ``broadcast_message``) and sends it down its own WebSocket.
  The sender skips its own copy (the tutorial's chat echoes it). The layer is
  ``channels.layers.InMemoryChannelLayer`` (one process, no broker) at its defaults: each
  consumer's channel holds at most 100 messages (``capacity``), and ``group_send`` drops a
  message for a member whose channel is full (the ASGI channel layer spec: "Sending to a
  group never raises ChannelFull; instead, it must silently drop the message"); see
  ``slow_subscriber`` in meta.toml.
- /push runs in an asyncio task started by ``receive()`` and cancelled by
  ``disconnect()`` (the docs: "if you launch your own background coroutines, make sure
  to also shut them down when the connection is finished"): a consumer handles one event
  at a time, so a push inside ``receive()`` would not see the client leave until it
  ended, and Daphne drops sends to a closed connection without an error.
"""

import asyncio
import contextlib
import json

from django.conf import settings

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    INSTALLED_APPS=[],
    DATABASES={},
    ROOT_URLCONF=__name__,
    ASGI_APPLICATION=f"{__name__}.app",
    CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}},
)

from django.core.asgi import get_asgi_application  # noqa: E402

# Initialize Django ASGI application early (the docs' asgi.py): django.setup() runs here.
django_asgi_app = get_asgi_application()

from channels.generic.websocket import (  # noqa: E402
    AsyncJsonWebsocketConsumer,
    AsyncWebsocketConsumer,
)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

urlpatterns = []  # ROOT_URLCONF: no HTTP views (every HTTP request gets a 404)

# A send to a connection the client has left raises, depending on the server: uvicorn's
# ClientDisconnected (an OSError, as the ASGI spec asks), websockets' ConnectionClosed straight
# through uvicorn 0.23.2, autobahn's Disconnected through Daphne (between the client's close
# frame and the end of the TCP connection; after that Daphne drops sends silently). The sends
# below suppress Exception for all of them: the client is gone and its websocket.disconnect
# event follows.


class EchoConsumer(AsyncWebsocketConsumer):
    async def receive(self, text_data=None, bytes_data=None):
        with contextlib.suppress(Exception):  # the client left mid-echo
            await self.send(text_data=text_data, bytes_data=bytes_data)


class JsonConsumer(AsyncJsonWebsocketConsumer):
    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        # A message that is not a JSON request closes the connection (PROTOCOL.md)
        if text_data is None:
            await self.close(1003)
            return
        try:
            await super().receive(text_data=text_data, **kwargs)  # decode_json, receive_json
        except (ValueError, KeyError, TypeError):
            await self.close(1007)

    async def receive_json(self, content, **kwargs):
        reply = {"seq": content["seq"], "ok": True}
        with contextlib.suppress(Exception):  # the client left with requests in flight
            await self.send_json(reply)


class PushConsumer(AsyncWebsocketConsumer):
    push_task = None

    async def receive(self, text_data=None, bytes_data=None):
        request = json.loads(text_data)
        if self.push_task is not None:
            await self.push_task  # one push at a time, in the order requested
        self.push_task = asyncio.create_task(
            self.push(request["count"], request["size"], request.get("binary", True))
        )

    async def push(self, count, size, binary):
        filler = bytes(ord("a") + k % 26 for k in range(16, size))
        with contextlib.suppress(Exception):  # the client left mid-push
            if binary:
                for i in range(count):
                    await self.send(bytes_data=b"%016x" % i + filler)
                    if i % 64 == 63:
                        await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)
            else:
                text_filler = filler.decode()
                for i in range(count):
                    await self.send(text_data=f"{i:016x}" + text_filler)
                    if i % 64 == 63:
                        await asyncio.sleep(0)  # yield every 64 messages (PROTOCOL.md)

    async def disconnect(self, code):
        if self.push_task is not None:
            self.push_task.cancel()


class BroadcastConsumer(AsyncWebsocketConsumer):
    """Every connection is a subscriber from connect() (PROTOCOL.md /broadcast)."""

    group = "broadcast"

    async def connect(self):
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        await self.channel_layer.group_send(
            self.group,
            {
                "type": "broadcast.message",
                "text": text_data,
                "bytes": bytes_data,
                "sender": self.channel_name,
            },
        )

    async def broadcast_message(self, event):
        if event["sender"] == self.channel_name:
            return  # never back to the publisher
        with contextlib.suppress(Exception):  # a subscriber leaving
            await self.send(text_data=event["text"], bytes_data=event["bytes"])


class MarketConsumer(AsyncWebsocketConsumer):
    """Ticks relayed to the group, orders answered (PROTOCOL.md /market)."""

    group = "market"

    async def connect(self):
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        # A message that is not a tick or an order closes the connection (PROTOCOL.md)
        if text_data is None:
            await self.close(1003)
            return
        try:
            data = json.loads(text_data)
            kind = data["type"]
            if kind == "order":
                ack = json.dumps({"type": "ack", "id": data["id"], "ok": True})
            elif kind != "tick":
                raise ValueError(kind)
        except (ValueError, KeyError, TypeError):
            await self.close(1007)
            return
        if kind == "tick":  # the received text, unchanged, to every other client
            await self.channel_layer.group_send(
                self.group,
                {"type": "market.tick", "text": text_data, "sender": self.channel_name},
            )
        else:
            with contextlib.suppress(Exception):  # the client left with orders in flight
                await self.send(text_data=ack)

    async def market_tick(self, event):
        if event["sender"] == self.channel_name:
            return  # never back to the feed
        with contextlib.suppress(Exception):  # a client leaving
            await self.send(text_data=event["text"])


websocket_urlpatterns = [
    path("echo", EchoConsumer.as_asgi()),
    path("push", PushConsumer.as_asgi()),
    path("json", JsonConsumer.as_asgi()),
    path("broadcast", BroadcastConsumer.as_asgi()),
    path("market", MarketConsumer.as_asgi()),
]

app = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": URLRouter(websocket_urlpatterns),
    }
)
