"""Whole hands over real websockets: players, a bot, a spectator and a superuser observer."""

from __future__ import annotations

import random
from typing import Any

import pytest
from channels.db import database_sync_to_async

from tables.models import HandPlayer

from .helpers import assert_chips_conserved, random_action
from .privacy import assert_private, dealt_cards
from .ws import Client, open_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
HANDS = 12


async def play(players: dict[int, Client], watchers: list[Client], hands: int,
               rng: random.Random) -> int:
    """Answer every your_turn until ``hands`` hands ended (seen by the first watcher)."""
    seen = {id(c): 0 for c in players.values()}
    ended = stalls = 0
    while ended < hands and stalls < 20:
        for client in [*players.values(), *watchers]:
            await client.drain(0.01)
        acted = False
        for client in players.values():
            new = client.received[seen[id(client)]:]
            seen[id(client)] = len(client.received)
            turns = [m for m in new if m["type"] == "your_turn"]
            if turns:
                yt = turns[-1]
                await client.send({"type": "act", "hand": yt["hand"], "version": yt["version"],
                                   "action": random_action(yt["legal"], rng)})
                acted = True
        ended = sum(1 for m in watchers[0].received if m["type"] == "events"
                    for e in m["events"] if e["type"] == "HandEnded")
        stalls = 0 if acted else stalls + 1
        if stalls == 5:  # busted players rebuy and sit in
            for client in players.values():
                await client.send({"type": "add_chips", "amount": 100})
                await client.send({"type": "sit_in"})
        if stalls == 10:  # a message lost? resync like a real client
            for client in players.values():
                await client.send({"type": "snapshot"})
    return ended


async def test_whole_hands_with_spectator_and_superuser(alice: Any, bob: Any, carol: Any,
                                                        dave: Any, root: Any) -> None:
    from accounts.services import create_bot
    from tables.services import create_table

    table = await database_sync_to_async(create_table)(
        creator=alice, name="WS", settings={"structure": "NL", "small_blind": 1,
                                            "big_blind": 2, "seats": 6})
    _bot, token = await database_sync_to_async(create_bot)(owner=bob, name="Skynet")
    players = {0: await open_client(table.pk, user=alice),
               1: await open_client(table.pk, user=carol),
               3: await open_client(table.pk, user=dave),
               4: await open_client(table.pk, token=token, origin=None)}
    spectator = await open_client(table.pk, user=bob)  # bob owns Skynet but does not sit
    observer = await open_client(table.pk, user=root)
    for seat, client in players.items():
        await client.request({"type": "sit", "seat": seat, "buy_in": 200})
    ended = await play(players, [spectator, observer], HANDS, random.Random(3))
    assert ended >= HANDS
    await database_sync_to_async(assert_chips_conserved)()
    checked = 0
    for seat, client in players.items():
        checked += assert_private(client.received, {seat})
    # bob owns the bot: he sees its cards; no other seat's
    checked += assert_private(spectator.received, {4})
    assert checked > HANDS * 6
    stored = await database_sync_to_async(
        lambda: set(HandPlayer.objects.values_list("secret__cards", flat=True)))()
    seen = {c for _, c in dealt_cards(observer.received)}
    assert stored <= seen and not any("?" in c for c in seen)
    for client in [*players.values(), spectator, observer]:
        versions = [m["version"] for m in client.received if m["type"] == "events"]
        assert versions == sorted(versions)
        await client.close()
