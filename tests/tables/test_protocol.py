"""The websocket protocol against the real ASGI app (docs/protocol.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from tables.models import Table

from .ws import open_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def first(messages: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(m for m in messages if m["type"] == kind)


async def test_connect_snapshot_sit_and_a_hand(table: Any, alice: Any, bob: Any) -> None:
    a = await open_client(table.pk, user=alice)
    b = await open_client(table.pk, user=bob)
    snap = first(a.received, "snapshot")
    assert snap["version"] == 0 and snap["info"]["name"] == "Test NL"
    got = await a.request({"type": "sit", "seat": 0, "buy_in": 200, "request_id": "r1"})
    assert first(got, "ack") == {"type": "ack", "version": 1, "request_id": "r1"}
    await b.request({"type": "sit", "seat": 1, "buy_in": 200})
    await a.drain()
    turns = [m for m in a.received + b.received if m["type"] == "your_turn"]
    assert len(turns) == 1
    yt = turns[0]
    actor = a if yt in a.received else b
    assert yt["legal"]["can_fold"] and yt["view"]["seat"] == yt["seat"]
    assert yt["time_left"] > 0
    act = {"type": "act", "hand": yt["hand"], "version": yt["version"],
           "action": {"kind": "fold"}, "request_id": 7}
    got = await actor.request(act)
    assert first(got, "ack")["request_id"] == 7
    got = await actor.request(act)  # the duplicate (the hand is over: nobody skips auto-muck)
    assert first(got, "error")["code"] in {"stale_version", "not_your_turn", "wrong_hand"}
    await a.close()
    await b.close()


async def test_refuses_anonymous_and_foreign_origin(table: Any, alice: Any) -> None:
    anonymous = await open_client(table.pk)
    assert first(anonymous.received, "error")["code"] == "not_authenticated"
    assert anonymous.close_code == 4401
    foreign = await open_client(table.pk, user=alice, origin=b"http://evil.example")
    assert not foreign.connected
    no_origin = await open_client(table.pk, user=alice, origin=None)
    assert not no_origin.connected
    bad_token = await open_client(table.pk, token="nope", origin=None)
    assert first(bad_token.received, "error")["code"] == "not_authenticated"


async def test_bot_token_without_origin(table: Any, bob: Any) -> None:
    from accounts.services import create_bot

    bot, token = await database_sync_to_async(create_bot)(owner=bob, name="Skynet")
    client = await open_client(table.pk, token=token, origin=None)
    assert client.connected
    got = await client.request({"type": "sit", "seat": 2, "buy_in": 200})
    assert first(got, "ack")["version"] == 1
    snap = first(await client.request({"type": "snapshot"}), "snapshot")
    assert snap["you"]["seats"] == [2] and snap["you"]["bot"] == bot.pk
    await client.close()


async def test_bad_messages_get_stable_codes_and_change_nothing(table: Any, alice: Any) -> None:
    client = await open_client(table.pk, user=alice)
    before = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()
    cases = [
        ("{not json", "malformed_message"),
        (json.dumps([1, 2]), "malformed_message"),
        (json.dumps({"type": 5}), "malformed_message"),
        (json.dumps({"type": "teleport"}), "unknown_type"),
        (json.dumps({"type": "sit", "seat": "x", "buy_in": 200}), "malformed_message"),
        (json.dumps({"type": "act", "hand": 1, "version": 1, "action": {"kind": "fold"}}),
         "wrong_hand"),
        (json.dumps({"type": "chat", "text": "x" * 70000}), "message_too_large"),
        (json.dumps({"type": "chat", "text": "x" * 5000}), "chat_too_long"),
    ]
    for text, code in cases:
        got = await client.request(text)
        assert first(got, "error")["code"] == code, text
    await client.communicator.send_to(bytes_data=b"\x00\x01")
    assert first(await client.drain(), "error")["code"] == "malformed_message"
    after = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()
    assert after == before
    pong = await client.request({"type": "ping", "request_id": "p"})
    assert first(pong, "pong")["request_id"] == "p"
    await client.close()


async def test_flooding_is_rate_limited(table: Any, alice: Any) -> None:
    client = await open_client(table.pk, user=alice)
    for _ in range(60):
        await client.send({"type": "ping"})
    got = await client.drain(0.2)
    codes = [m.get("code") for m in got if m["type"] == "error"]
    assert "rate_limited" in codes
    assert sum(1 for m in got if m["type"] == "pong") <= 32
    await client.close()


async def test_chat_is_relayed_to_watchers(table: Any, alice: Any, bob: Any) -> None:
    a = await open_client(table.pk, user=alice)
    b = await open_client(table.pk, user=bob)
    await a.request({"type": "chat", "text": "<b>hi</b>"})
    got = first(await b.drain(), "chat")
    assert got["text"] == "<b>hi</b>" and got["name"] == "alice"  # stored as text, not HTML
    await a.close()
    await b.close()


async def test_disconnect_sits_out_and_reconnect_plays_on(table: Any, alice: Any,
                                                          bob: Any) -> None:
    from tables.models import Seat

    a = await open_client(table.pk, user=alice)
    b = await open_client(table.pk, user=bob)
    await a.request({"type": "sit", "seat": 0, "buy_in": 200})
    await b.request({"type": "sit", "seat": 1, "buy_in": 200})
    await a.close()
    got = await b.drain()
    kinds = [e["type"] for m in got if m["type"] == "events" for e in m["events"]]
    assert "PlayerDisconnected" in kinds and "PlayerSatOut" in kinds
    state = await database_sync_to_async(lambda: Seat.objects.get(number=0).state)()
    assert state == "disconnected"
    again = await open_client(table.pk, user=alice)
    snap = first(again.received, "snapshot")
    assert snap["you"]["seats"] == [0]
    got = await b.drain()
    kinds = [e["type"] for m in got if m["type"] == "events" for e in m["events"]]
    assert "PlayerReconnected" in kinds and "PlayerSatIn" in kinds
    state = await database_sync_to_async(lambda: Seat.objects.get(number=0).state)()
    assert state == "playing"
    # If it is alice's turn, the new connection got your_turn after the snapshot.
    table_row = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk))()
    if table_row.to_act_seat == 0:
        assert any(m["type"] == "your_turn" for m in again.received)
    await again.close()
    await b.close()


async def test_a_snapshot_is_never_older_than_events_already_sent(
        table: Any, alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot read while events are sent to the same connection (the owner
    delivers them meanwhile) can be older than they are: it is read again instead of
    taking the client back. The race is forced: the first read after the sit returns
    the table as it was before it."""
    from tables import selectors

    a = await open_client(table.pk, user=alice)
    b = await open_client(table.pk, user=bob)
    before = first(a.received, "snapshot")
    real, reads = selectors.snapshot, []

    def snapshot(**kwargs: Any) -> dict[str, Any]:
        reads.append(kwargs["table_id"])
        return {**before, "your_turn": None} if len(reads) == 1 else real(**kwargs)

    await b.answer({"type": "sit", "seat": 1, "buy_in": 200})
    events = [m for m in await a.drain() if m["type"] == "events"]
    assert events and events[-1]["version"] == before["version"] + 1
    monkeypatch.setattr(selectors, "snapshot", snapshot)
    got = first(await a.request({"type": "snapshot"}), "snapshot")
    assert len(reads) == 2 and got["version"] == before["version"] + 1
    assert got["seats"][1] is not None
    await a.close()
    await b.close()
