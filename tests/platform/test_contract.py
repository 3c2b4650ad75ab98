"""The game contract, over every registered game (the poker variants, the dice game,
Tuppi, and the test-only Kuhn poker and tic-tac-toe).

Random play through the real websocket and ``tables.services`` only: players answer
``your_turn`` with a random legal move read from the generic descriptors, step
away and come back, leave in the middle of a round and sit down again, let their
time run out; a cash game for ``ROUNDS`` rounds, a game that ends until it does.
Then, for every game:

* no hidden value ever reaches a spectator or another seat (every message scanned);
* every stored round replays from its start state, chance input and calls to the
  exact stored event log;
* the game state round-trips through dump/load at every step;
* economy games conserve chips (balances + table chips), and after everyone left,
  each player's balance equals the sum of their round results: nobody's round is
  lost, the leaver's included; a game without chips never touches the ledger;
* a game that ends finishes its table with standings that agree with the rounds'
  scores, and they reach the leaderboard of its rule set.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.utils import timezone

from accounts.models import LedgerEntry
from engine.game import random_move
from engine.registry import GAMES, get_game
from tables import selectors, services
from tables.models import Hand, HandPlayer, Table, TableStatus
from tests.conftest import _make_user
from tests.tables.ws import Client, open_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
ROUNDS = 12
META = {"type", "player", "seat"}
SETTINGS: dict[str, dict[str, Any]] = {"tuppi": {"round_limit": 15}}
"""Table settings per game (default: the game's defaults). A game that ends is played
until it does; random Tuppi play to 52 takes ~21 rounds on average (and a long tail),
its 15-round tournament limit ends every game by about round 19."""


@pytest.fixture(autouse=True)
def _no_rate_limits(settings: Any) -> None:
    """The players answer as fast as the server delivers (the rate limits have tests of
    their own): a refused ``back`` would leave a seat away and the game stuck."""
    settings.TABLES = {**settings.TABLES, "RATE_PER_SECOND": 10_000, "RATE_BURST": 10_000,
                       "USER_RATE_PER_SECOND": 10_000}


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)



def _facts(player: int, key: str, value: Any) -> Iterator[tuple[int, str, str]]:
    """The facts a field states about a player: the whole value, and each card of a
    card string on its own (stud shows hidden cards among up cards: ``??As??...``)."""
    yield (player, key, json.dumps(value))
    if isinstance(value, str):
        for text in re.findall(r"[2-9TJQKA][cdhs]", value):
            yield (player, "card", text)


def _secrets() -> tuple[set[tuple[int, str, str]], set[tuple[int, str, str]]]:
    """(seat, field, value) of every hidden value dealt, from the stored omniscient logs
    (never from the game's projection, which is what is under test), and those that a
    public event later revealed."""
    secret, revealed = set(), set()
    for hand in Hand.objects.all():
        private = {index: (audience, public) for index, audience, public in hand.hidden}
        for index, event in enumerate(hand.events):
            if index in private:  # every field of a private event is its audience's secret
                audience, _public = private[index]
                for key, value in event.items():
                    if key not in META:
                        secret.update(_facts(audience, key, value))
            elif isinstance(event.get("player"), int):
                for key, value in event.items():
                    revealed.update(_facts(event["player"], key, value))
    return secret, revealed


def assert_no_leak(client: Client, may_see: set[int] | None) -> int:
    """Scan every message ``client`` received; ``may_see`` None = omniscient."""
    secret, revealed = _secrets()
    checked = 0
    for message in client.received:
        for node in _nodes(message):
            assert "deck" not in node and "chance" not in node, f"{client.name}: {node}"
            player = node.get("player")
            if not isinstance(player, int) or may_see is None or player in may_see:
                continue
            for key, value in node.items():
                for fact in _facts(player, key, value):
                    if fact in secret:
                        assert fact in revealed, f"{client.name} saw {fact} in {message['type']}"
                        checked += 1
    return checked


def _stuck(game: Any, row: Table, left: dict[int, int]) -> str:
    state = game.load(row.state)
    return (f"status={row.status} version={row.version} to_act={row.to_act_seat} "
            f"deadline={row.deadline} bot_due={row.bot_due} seats={game.seats(state)} "
            f"left={left} game_status={game.status(state)}")


async def drain(clients: list[Client]) -> None:
    for client in clients:
        await client.drain(0.01)


async def catch_up(clients: list[Client], ready: Callable[[], bool]) -> None:
    """Take what every client has received so far (without waiting on each) until
    ``ready()`` (someone has a turn to answer), for 50 ms at most: a message that comes
    later is simply read at the next step."""
    deadline = asyncio.get_running_loop().time() + 0.05
    while True:
        for client in clients:
            await client.drain(0)
        if ready() or asyncio.get_running_loop().time() > deadline:
            return
        await asyncio.sleep(0.002)


def _games() -> list[str]:
    """Every registered game; on PostgreSQL (the suite's second run, after SQLite ran
    them all) the poker variants only by one of each mechanism: blinds and a board
    (hold'em), a hi-lo split (Omaha hi-lo), a bring-in and up cards (seven-card stud),
    a draw (five-card draw). The engine is the same on both databases; the runtime
    around it is what the second run checks."""
    keys = sorted(GAMES)
    if connection.vendor != "postgresql":
        return keys
    poker = {key for key, game in GAMES.items() if game.info.client == "holdem"}
    return [key for key in keys
            if key not in poker or key in ("holdem", "omaha8", "stud", "five_card_draw")]


@pytest.mark.parametrize("key", _games())
async def test_random_play_through_the_websocket(key: str) -> None:
    game = get_game(key)
    rng = random.Random(f"contract-{key}")
    n = max(game.info.min_players, min(3, game.info.max_players))
    users = await database_sync_to_async(
        lambda: [_make_user(f"p{i}", 3) for i in range(n)] + [
            _make_user("watcher", 3), _make_user("boss", 2), _make_user("root", 1)])()
    players, watcher, boss, root = users[:n], users[n], users[n + 1], users[n + 2]
    table = await database_sync_to_async(services.create_table)(
        creator=boss, name=f"contract {key}", game=key, settings=SETTINGS.get(key, {}))
    options = game.default_seat_options(game.load(table.state))
    clients = [await open_client(table.pk, user=u) for u in players]
    spectator = await open_client(table.pk, user=watcher)
    omniscient = await open_client(table.pk, user=root)
    everyone = [*clients, spectator, omniscient]
    for seat, client in enumerate(clients):
        replies = await client.answer({"type": "sit", "seat": seat, **options})
        assert any(m["type"] == "ack" for m in replies), replies
        # Formalities (show or muck): asked of half the people, skipped by the others.
        replies = await client.answer({"type": "skip_formalities", "on": seat % 2 == 1})
        assert any(m["type"] == "ack" for m in replies), replies

    answered: set[tuple[int, int]] = set()
    left: dict[int, int] = {}  # seat -> the step it left at

    def unanswered(client: Client) -> list[dict[str, Any]]:
        return [m for m in client.received if m["type"] == "your_turn"
                and (m["version"], m["seat"]) not in answered]

    for step in range(3000):
        finished = await database_sync_to_async(
            Hand.objects.filter(table=table, ended_at__isnull=False).count)()
        row = await database_sync_to_async(Table.objects.get)(pk=table.pk)
        if row.status == TableStatus.FINISHED or (finished >= ROUNDS and not game.info.ends):
            break
        await catch_up(everyone, lambda: any(unanswered(client) for client in clients))
        for seat, client in enumerate(clients):
            turns = unanswered(client)
            if not turns:
                continue
            yt = turns[-1]
            answered.update((m["version"], m["seat"]) for m in turns)
            roll = rng.random()
            if roll < 0.04 and seat not in left:  # leave in the middle of the round
                await client.send({"type": "leave"})
                left[seat] = step
            elif roll < 0.08:
                pass  # let the time run out (fired below)
            else:
                await client.send({"type": "act", "hand": yt["hand"], "version": yt["version"],
                                   "action": random_move(yt["moves"], rng)})
        free = game.seats(game.load(row.state))
        for seat, info in enumerate(free[:n]):  # busted: leave, and buy in again below
            if (game.info.economy and seat not in left and info is not None
                    and info.chips == 0 and info.status == "sitting_out"):
                await clients[seat].send({"type": "leave"})
                left[seat] = step
        for seat, since in list(left.items()):  # come back a little later, once the seat
            if step - since > 5 and free[seat] is None:  # is free (a game may free it only
                # when its round ends: Tuppi plays a leaver's cards until then)
                replies = await clients[seat].answer({"type": "sit", "seat": seat, **options})
                if any(m["type"] == "ack" for m in replies):
                    del left[seat]
        if step % 11 == 6 and 1 not in left:  # seat 1's formalities: asked or skipped
            await clients[1].send({"type": "skip_formalities", "on": step % 22 == 6})
        if step % 7 == 3:  # away and back between moves
            client = clients[rng.randrange(n)]
            await client.send({"type": "away"})
            await client.send({"type": "back"})
        if step % 5 == 4:  # an hour later each time: a deadline set by the last firing
            # (an hour ahead, plus the turn's seconds) is due by the next one
            later = timezone.now() + timedelta(hours=1 + step)
            await database_sync_to_async(services.fire_due_timers)(later)
        row = await database_sync_to_async(Table.objects.get)(pk=table.pk)
        assert game.dump(game.load(row.state)) == row.state
    else:
        pytest.fail(f"the rounds did not finish: {_stuck(game, row, left)}")

    for client in clients:  # everyone leaves: cashed out
        await client.send({"type": "leave"})
    for attempt in range(30):
        await drain(everyone)
        seated = await database_sync_to_async(
            lambda: any(game.seats(game.load(Table.objects.get(pk=table.pk).state))))()
        if not seated:
            break
        await database_sync_to_async(services.fire_due_timers)(
            timezone.now() + timedelta(hours=3001 + attempt))
    else:
        pytest.fail("the players could not leave")
    await drain(everyone)

    def stored() -> tuple[list[Hand], dict[str, int], dict[str, int], dict[str, int]]:
        hands = list(Hand.objects.filter(table=table, ended_at__isnull=False))
        nets: dict[str, int] = {}
        scores: dict[str, int] = {}
        for p in HandPlayer.objects.filter(hand__table=table).select_related("player"):
            assert p.player is not None and p.name, "a participant lost their identity"
            nets[p.player.name] = nets.get(p.player.name, 0) + p.net
            scores[p.player_id] = scores.get(p.player_id, 0) + (p.score or 0)
        balances = {u.username: u.players.get().balance for u in players}
        return hands, nets, balances, scores

    hands, nets, balances, scores = await database_sync_to_async(stored)()
    final = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    if game.info.ends:
        assert final.status == TableStatus.FINISHED and final.standings
        assert {int(s["player_id"]): s["score"] for s in final.standings} == {
            pid: score for pid, score in scores.items()
            if str(pid) in {s["player_id"] for s in final.standings}}
        board = await database_sync_to_async(selectors.leaderboard)(key, final.rules)
        assert sorted(e["score"] for e in board) == sorted(
            s["score"] for s in final.standings)
    else:
        assert len(hands) >= ROUNDS
    for hand in hands:
        replayed = await database_sync_to_async(selectors.replay_round)(hand)
        assert replayed == hand.events, f"round {hand.number} did not replay"
        assert sorted(p for p in hand.participants) == sorted(
            str(p) for p in await database_sync_to_async(
                lambda h=hand: list(h.players.values_list("player_id", flat=True)))())
    if game.info.economy:
        assert balances == {name: nets.get(name, 0) for name in balances}
        total = await database_sync_to_async(
            lambda: selectors.chips_on_tables() + selectors.total_balances())()
        assert total == 0
    else:
        assert not await database_sync_to_async(LedgerEntry.objects.exists)()
        assert set(nets.values()) <= {0}
    checked = 0
    for seat, client in enumerate(clients):
        checked += await database_sync_to_async(assert_no_leak)(client, {seat})
    checked += await database_sync_to_async(assert_no_leak)(spectator, set())
    await database_sync_to_async(assert_no_leak)(omniscient, None)
    if await database_sync_to_async(
            lambda: any(h.hidden for h in Hand.objects.filter(table=table)))():
        assert checked > 0  # hidden values were really looked at, not absent
    assert left or any(m["type"] == "events" and any(e["type"].endswith("Freed") or
                       e["type"] == "PlayerLeft" for e in m["events"])
                       for m in spectator.received)
    for client in everyone:
        await client.close()
