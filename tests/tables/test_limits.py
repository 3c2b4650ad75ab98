"""Per-account limits across sockets, and the lobby socket's flood limit
(docs/security.md, "Connection and message limits")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from pokersite.asgi import application
from tables.models import Connection

from .ws import _session_cookie, open_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def codes(messages: list[dict[str, Any]]) -> list[str]:
    return [m.get("code", "") for m in messages if m["type"] == "error"]


async def test_connections_per_user_are_limited_across_sockets(table: Any, alice: Any,
                                                               bob: Any, settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "MAX_CONNECTIONS_PER_USER": 3}
    sockets = [await open_client(table.pk, user=alice) for _ in range(3)]
    assert all(s.connected and not codes(s.received) for s in sockets)
    extra = await open_client(table.pk, user=alice)
    assert codes(extra.received) == ["too_many_connections"] and extra.close_code == 4429
    assert await database_sync_to_async(Connection.objects.filter(user=alice).count)() == 3
    other = await open_client(table.pk, user=bob)  # someone else is not affected
    assert not codes(other.received)
    await sockets[0].close()
    again = await open_client(table.pk, user=alice)  # a closed socket frees its place
    assert not codes(again.received)
    for client in [*sockets[1:], other, again]:
        await client.close()


async def test_one_account_shares_one_message_budget_across_sockets(
        table: Any, alice: Any, bob: Any, settings: Any) -> None:
    """Snapshots cost 5 tokens; 2 per second with a burst of 6 tokens: more sockets do not
    buy more snapshots, and another user's budget is untouched."""
    settings.TABLES = {**settings.TABLES, "USER_RATE_PER_SECOND": 2}
    sockets = [await open_client(table.pk, user=alice) for _ in range(4)]
    answered = refused = 0
    for client in sockets:
        got = await client.request({"type": "snapshot"}, quiet=0.05)
        answered += sum(m["type"] == "snapshot" for m in got)
        refused += codes(got).count("rate_limited")
    assert answered == 1 and refused == 3
    other = await open_client(table.pk, user=bob)
    got = await other.request({"type": "snapshot"}, quiet=0.05)
    assert [m["type"] for m in got] == ["snapshot"]
    for client in [*sockets, other]:
        await client.close()


async def test_lobby_socket_is_rate_limited_and_closed_when_flooding(alice: Any) -> None:
    cookie = await database_sync_to_async(_session_cookie)(alice)
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[
        (b"cookie", cookie), (b"origin", b"http://localhost"), (b"host", b"localhost")])
    connected, _ = await communicator.connect()
    assert connected
    for _ in range(200):
        await communicator.send_to(text_data='{"type":"ping"}')
    replies, close_code = [], None
    while not await communicator.receive_nothing(timeout=0.3):
        message = await communicator.receive_output(timeout=1)
        if message["type"] == "websocket.close":
            close_code = message.get("code")
            break
        replies.append(json.loads(message["text"]))
    pongs = sum(r["type"] == "pong" for r in replies)
    assert 1 <= pongs <= 35, pongs  # the burst (30) and what refilled meanwhile
    assert codes(replies) == ["rate_limited"]  # said once, not 170 times
    assert close_code == 4429
