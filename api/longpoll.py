"""``GET /api/v1/tables/<id>/wait/?since=<version>&timeout=<s>``: long-poll for bots
without websockets.

Returns as soon as the table's version is above ``since`` (or at the timeout) with
the caller's fresh snapshot and, if the caller is to act, its ``your_turn``.

No database connection is held while waiting: the view is async, each database
read is a short ``sync_to_async`` call that closes its connection afterwards,
and the wait itself listens to the table's public channel-layer group (every
accepted command publishes there, from any process when Redis is the layer).
The channel layer may drop messages, so the version is also re-read from the
database every ``POLL_SECONDS``: the database stays the source of truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, connection
from django.http import HttpRequest, JsonResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import APIException
from rest_framework.request import Request

from accounts.models import Player
from tables import fanout, selectors
from tables.errors import TableError
from tables.models import Table
from tables.outage import LAYER_TIMEOUT

from . import serializers as s
from .errors import exception_handler
from .views import ApiView, errors

POLL_SECONDS = 1.0
T = TypeVar("T")


def max_wait() -> float:
    return float(getattr(settings, "API", {}).get("LONG_POLL_MAX_SECONDS", 30))


async def db(call: Callable[..., T], *args: Any) -> T:
    """Run one short database call off the event loop and give the connection back."""

    def run() -> T:
        try:
            return call(*args)
        finally:
            if not connection.in_atomic_block:  # (tests run inside one transaction)
                close_old_connections()

    return await sync_to_async(run, thread_sensitive=True)()


def table_version(table_id: int) -> int:
    version = Table.objects.filter(pk=table_id).values_list("version", flat=True).first()
    if version is None:
        raise TableError("table_not_found", f"There is no table {table_id}.")
    return int(version)


class WaitView(ApiView):
    """Authentication, throttling and parameters (sync); the waiting is in :func:`wait`."""

    throttle_scope = "wait"

    @extend_schema(
        summary="Long-poll: wait until the table changes (or your turn comes)",
        description="Returns when the table version exceeds `since`, or after `timeout` "
        "seconds (at most 30) with `changed: false`. Events are not replayed: you get the "
        "fresh snapshot and, if you are to act, `your_turn` (its `view` is the bot view).",
        parameters=[OpenApiParameter("since", int, description="Last version you saw."),
                    OpenApiParameter("timeout", float, description="Seconds, 0–30 (default 25).")],
        responses={200: s.WaitSerializer, **errors(400, 404)}, tags=["tables"])
    def get(self, request: Request, table_id: int) -> Any:  # only for the schema
        raise NotImplementedError

    def prepare(self, request: HttpRequest, table_id: int) -> tuple[Any, Player | None, int, float]:
        drf_request = self.initialize_request(request)
        self.request = drf_request
        self.args, self.kwargs = (), {"table_id": table_id}
        self.headers = {}
        self.format_kwarg = None
        self.initial(drf_request)  # authentication, permissions, throttles
        params = drf_request.query_params
        try:
            since = int(params.get("since", "0"))
            timeout = float(params.get("timeout", "25"))
        except ValueError:
            raise TableError("malformed_message", "since is a whole number and timeout "
                             "a number of seconds.") from None
        if since < 0 or not math.isfinite(timeout) or timeout < 0:
            raise TableError("malformed_message", "since and timeout cannot be negative.")
        bot = drf_request.auth if isinstance(drf_request.auth, Player) else None
        return drf_request.user, bot, since, min(timeout, max_wait())

    def error_response(self, error: Exception) -> JsonResponse:
        response = exception_handler(error, {"view": self, "request": getattr(self, "request",
                                                                              None)})
        if response is None:
            raise error
        out = JsonResponse(response.data, status=response.status_code)
        for name, value in response.headers.items():
            if name.lower() != "content-type":
                out[name] = value
        return out


async def wait_until(table_id: int, since: int, timeout: float) -> int:
    """The table version once it is above ``since``, or the latest at the timeout."""
    version = await db(table_version, table_id)
    if version > since or timeout <= 0:
        return version
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    layer = get_channel_layer()
    channel = group = None
    if layer is not None:
        group = fanout.public_group(table_id)
        try:
            channel = await asyncio.wait_for(layer.new_channel("longpoll."), LAYER_TIMEOUT)
            await asyncio.wait_for(layer.group_add(group, channel), LAYER_TIMEOUT)
        except Exception:  # the channel layer is away (Redis): poll the database only
            channel = None
        else:  # a change published before the subscription: seen here, not a poll later
            version = await db(table_version, table_id)
    try:
        while version <= since and (left := deadline - loop.time()) > 0:
            step = min(left, POLL_SECONDS)
            if channel is None:
                await asyncio.sleep(step)
            else:
                try:
                    message = await asyncio.wait_for(layer.receive(channel), step)
                    # tables.fanout.layer_message: the version is the message's own key
                    seen = int(message.get("version") or 0)
                    if seen <= since:
                        continue
                except TimeoutError:
                    pass
                except Exception:  # the channel layer went away: poll the database only
                    await asyncio.sleep(step)
            version = await db(table_version, table_id)
    finally:
        if channel is not None:
            with contextlib.suppress(Exception):  # best effort: a stale member expires
                await asyncio.wait_for(layer.group_discard(group, channel), LAYER_TIMEOUT)
    return version


async def wait(request: HttpRequest, table_id: int) -> JsonResponse:
    view = WaitView()
    view.setup(request, table_id=table_id)
    try:
        if request.method != "GET":
            raise TableError("method_not_allowed", f"Method {request.method} is not allowed.")
        user, bot, since, timeout = await db(view.prepare, request, table_id)
        await wait_until(table_id, since, timeout)
        snapshot = await db(selectors.snapshot, table_id, user, bot)
    except (TableError, APIException) as error:
        if isinstance(error, TableError) and error.code == "method_not_allowed":
            return JsonResponse({"error": {"code": error.code, "message": error.message,
                                           "details": {}}}, status=405)
        return view.error_response(error)
    turn = snapshot.pop("your_turn")
    return JsonResponse({"changed": snapshot["version"] > since, "version": snapshot["version"],
                         "your_turn": turn, "snapshot": snapshot})


wait.cls = WaitView  # type: ignore[attr-defined]  # drf-spectacular documents the view
wait.initkwargs = {}  # type: ignore[attr-defined]
