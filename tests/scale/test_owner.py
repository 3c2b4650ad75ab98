"""Live tables owned by one process (tables.owner) against the real PostgreSQL and
Redis: commands applied in memory and committed in groups, acknowledged only after
the commit; a change made behind the owner's back refuses its pending command and
reloads the table; a dead owner's table taken over after its lease expires, the hand
going on from its last commit; turn timers fired in memory; admission control; money
commands in a transaction of their own; chips conserved throughout."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import os
import threading
import time
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from engine.registry import get_game
from tables import fanout, handlog, owner, services
from tables.errors import TableError
from tables.models import Hand, HandStep, Seat, Table

from ..tables.helpers import assert_chips_conserved, sit, turn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True),
              pytest.mark.asyncio]

NL = {"structure": "NL", "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
      "max_buy_in": 400}


@pytest.fixture(autouse=True)
def _owners(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.environ.get("REDIS_URL"):
        pytest.fail("this test needs Redis: run it with REDIS_URL=redis://... (bin/test does)")
    # Leases and relays of this test only (table ids repeat between tests).
    monkeypatch.setenv("CHANNELS_PREFIX", f"ownertest-{uuid.uuid4().hex[:12]}")
    settings.TABLES = {**settings.TABLES, "OWNERS": True, "OWNER_LEASE_SECONDS": 1.0,
                       "OWNER_COMMIT_MS": 5}


class Watcher:
    """A connection of the owner's process: collects what the host delivers."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def table_message(self, event: dict[str, Any]) -> None:
        self.texts.append(event["text"])


@contextlib.asynccontextmanager
async def running(host: owner.Host) -> AsyncIterator[owner.Host]:
    await host.start()
    try:
        yield host
    finally:
        await stop(host)


async def stop(host: owner.Host) -> None:
    """A host that ends without a word (as after kill -9): no lease given back."""
    await host.stop()


def tables_with_players(count: int, alice: Any, bob: Any) -> list[Table]:
    tables = []
    for n in range(count):
        table = services.create_table(creator=alice, name=f"Live {n}", settings=NL,
                                      turn_seconds=30)
        sit(table, alice, 0)
        sit(table, bob, 1)
        tables.append(table)
    return tables


async def host_after_one_act(table: Table, alice: Any, bob: Any) -> tuple[owner.Host, int]:
    """A started host that has played the table's next action; the version it committed."""
    host = owner.Host()
    await host.start()
    command = await sync(act_command)(table.pk)
    user = await sync(whose_turn)(table.pk, alice, bob)
    return host, await host.command(table.pk, user, None, command)


def act_command(table_id: int, *, kind: str = "") -> dict[str, Any]:
    _seat, hand, version, legal = turn(table_id)
    action = {"kind": kind or ("check" if legal["can_check"] else "call")}
    return {"type": "act", "hand": hand, "version": version, "action": action}


def whose_turn(table_id: int, alice: Any, bob: Any) -> Any:
    return alice if turn(table_id)[0] == 0 else bob


sync = database_sync_to_async


async def test_actions_are_applied_in_memory_and_committed_together(
        alice: Any, bob: Any, settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "OWNER_COMMIT_MS": 300}  # one window for all
    tables = await sync(tables_with_players)(3, alice, bob)
    async with running(owner.Host()) as host:
        # Loaded first: a hand nobody owned is resumed (a fresh version, committed).
        lives = [await host.live(t.pk) for t in tables]
        await asyncio.gather(*[host.committed(live) for live in lives if live is not None])
        assert host.stats["adopted"] == 3
        commits = host.stats["commits"]
        watcher = Watcher()
        host.attach(tables[0].pk, watcher, [f"table.{tables[0].pk}"])
        commands = [await sync(act_command)(t.pk) for t in tables]
        users = [await sync(whose_turn)(t.pk, alice, bob) for t in tables]
        before = [await sync(lambda t=t: Table.objects.get(pk=t.pk).version)() for t in tables]
        versions = await asyncio.gather(*[
            host.command(t.pk, user, None, command)
            for t, user, command in zip(tables, users, commands, strict=True)])
        # Acknowledged after the commit: the database already holds each new version,
        # and one group commit wrote all three tables.
        after = [await sync(lambda t=t: Table.objects.get(pk=t.pk).version)() for t in tables]
        assert versions == after == [v + 1 for v in before]
        assert host.stats["fast"] == 3 and host.stats["commits"] == commits + 1
        # The owner's own connection got the event, and no hidden card in it.
        assert any(f'"version":{versions[0]}' in text for text in watcher.texts)
        assert not any('"cards":"' in t and '"HoleCardsDealt"' in t and '??' not in t
                       for t in watcher.texts)
        # A bad command changes nothing and keeps the live copy.
        stale = {**commands[1], "version": commands[1]["version"] - 1}
        with pytest.raises(TableError) as refused:
            await host.command(tables[1].pk, users[1], None, stale)
        assert refused.value.code in ("stale_version", "not_your_turn")
        assert tables[1].pk in host.lives
    await sync(assert_chips_conserved)()


async def test_a_second_lane_commits_while_the_first_waits_and_a_table_waits_its_turn(
        alice: Any, bob: Any, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two commit lanes: while one commit waits for PostgreSQL, another table's change
    is committed (and acknowledged) by the other lane; a table whose commit is under
    way is not taken by the other lane: its next change waits, and lands after it."""
    settings.TABLES = {**settings.TABLES, "OWNER_COMMIT_LANES": 2}
    one, two = await sync(tables_with_players)(2, alice, bob)
    async with running(owner.Host()) as host:
        lives = [await host.live(t.pk) for t in (one, two)]
        for live in lives:
            assert live is not None
            await host.committed(live)
        first_live = lives[0]
        assert first_live is not None
        gate, held = asyncio.Event(), []
        write = owner.write_cuts

        async def slow(conn: Any, cuts: list[owner.Cut], timings: Any = None) -> None:
            if not held:  # the first commit from now on waits for the gate
                held.append([c.table.pk for c in cuts])
                await gate.wait()
            await write(conn, cuts, timings)

        monkeypatch.setattr(owner, "write_cuts", slow)
        commands = [await sync(act_command)(t.pk) for t in (one, two)]
        users = [await sync(whose_turn)(t.pk, alice, bob) for t in (one, two)]
        first = asyncio.create_task(host.command(one.pk, users[0], None, commands[0]))
        for _ in range(100):
            if held:
                break
            await asyncio.sleep(0.01)
        assert held == [[one.pk]]
        version = first_live.run.table.version
        # Waiting for the table's commit waits for the one under way (nothing is dirty).
        waiting = asyncio.create_task(host.committed(first_live))
        await asyncio.sleep(0.1)
        assert not first_live.dirty and not waiting.done()
        # The other table: committed by the other lane, the first commit still waiting.
        done = await asyncio.wait_for(host.command(two.pk, users[1], None, commands[1]), 10)
        assert await sync(lambda: Table.objects.get(pk=two.pk).version)() == done
        assert not first.done()
        # A table changes only once its last commit has landed: its turn's timeout waits.
        first_live.run.table.deadline = timezone.now()
        first_live.schedule()
        await asyncio.sleep(0.2)
        assert first_live.run.table.version == version
        # A change made anyway (by a path that would not wait) is not taken by the free
        # lane while the table's commit is under way: it stays pending.
        first_live.write(first_live.run.table, ("deadline",))
        host.dirty(first_live)
        await asyncio.sleep(0.2)
        assert first_live.dirty and one.pk in host.pending
        assert await sync(lambda: Table.objects.get(pk=one.pk).version)() < version
        gate.set()
        assert await first == version
        await waiting
        for _ in range(200):  # then the timeout, committed after it
            if first_live.run.table.version > version and not first_live.dirty:
                break
            await asyncio.sleep(0.02)
        await host.committed(first_live)
        assert first_live.run.table.version > version
        assert await sync(lambda: Table.objects.get(pk=one.pk).version)() \
            == first_live.run.table.version
    await sync(assert_chips_conserved)()


def table_rows(table_id: int) -> tuple[Any, ...]:
    """What the database holds of a table: its row, its hands, its seats."""
    table = Table.objects.get(pk=table_id)
    hands = list(Hand.objects.filter(table_id=table_id).order_by("pk").values_list(
        "pk", "events", "calls"))
    seats = list(Seat.objects.filter(table_id=table_id).order_by("number").values_list(
        "number", "stack", "player_id"))
    return table.version, table.state, hands, seats


def stored_logs(hand_id: int) -> tuple[Any, ...]:
    """A round's logs as the database holds them: its row, its steps merged."""
    hand = Hand.objects.get(pk=hand_id)
    handlog.attach_steps([hand])
    return tuple(getattr(hand, name) for name in handlog.LOGS)


def stored_state(table_id: int) -> tuple[Any, int]:
    """The table's game state as read back from the database (its round's calls
    replayed on the stored state), and how many steps the database holds for it."""
    table = Table.objects.get(pk=table_id)
    game = get_game(table.game)
    steps = HandStep.objects.filter(hand__table_id=table_id).count()
    return game.dump(handlog.current_state(game, table)), steps


async def test_a_rounds_logs_are_committed_with_each_action_and_replay_exactly(
        alice: Any, bob: Any) -> None:
    """Random play at a live table: after every acknowledged action the database holds
    exactly the live copy's round logs (events, game calls, hidden events, policies),
    and every finished round replays from its stored calls to its stored events."""
    import random

    from tables.selectors import replay_round

    from ..tables.helpers import random_action

    rng = random.Random(7)
    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        rows: dict[int, Hand] = {}  # the live copy's round rows, by id
        most_steps = 0
        for _ in range(80):
            seat, hand, version, legal = await sync(turn)(table.pk)
            if seat is None:
                break
            user = alice if seat == 0 else bob
            live = host.lives[table.pk]
            assert live.run.hand_row is not None and live.run.hand_row.pk == hand
            rows[hand] = live.run.hand_row
            await host.command(table.pk, user, None, {
                "type": "act", "hand": hand, "version": version,
                "action": random_action(legal, rng)})
            live = host.lives[table.pk]
            for row in (rows[hand], live.run.hand_row):
                if row is not None:  # (acknowledged: committed)
                    assert await sync(stored_logs)(row.pk) == tuple(
                        getattr(row, name) for name in handlog.LOGS)
            state, steps = await sync(stored_state)(table.pk)
            assert state == live.run.game.dump(live.run.state)
            most_steps = max(most_steps, steps)
        assert len(rows) >= 5 and host.stats["fast"] >= 20  # (until somebody is broke)
        assert most_steps >= 2  # (the rounds' logs were appended, not rewritten)

        def finished() -> list[Hand]:
            return list(Hand.objects.filter(table_id=table.pk, ended_at__isnull=False)
                        .select_related("table"))

        done = await sync(finished)()
        assert len(done) >= 4
        for stored in done:
            assert await sync(replay_round)(stored) == stored.events
        steps_left = await sync(lambda: set(HandStep.objects.values_list("hand_id", flat=True)))()
        running_now = host.lives[table.pk].run.hand_row
        assert steps_left <= {getattr(running_now, "pk", None)}  # (ended rounds': gone)
    await sync(assert_chips_conserved)()


async def test_a_change_behind_the_owners_back_refuses_its_command(alice: Any,
                                                                   bob: Any) -> None:
    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)  # (resumed: nobody owned it)
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        # Another process acts in a transaction of its own (the owner does not know).
        await sync(services.execute)(table_id=table.pk, user=user, command=command)
        moved = await sync(lambda: Table.objects.get(pk=table.pk).version)()
        written = await sync(table_rows)(table.pk)
        with pytest.raises(TableError) as refused:
            await host.command(table.pk, user, None, command)  # still current in memory
        assert refused.value.code == "conflict"
        assert await sync(lambda: Table.objects.get(pk=table.pk).version)() == moved
        # Nothing of the refused commit stayed (its other rows went in the same
        # transaction, sent before the guard's answer was read).
        assert await sync(table_rows)(table.pk) == written
        for _ in range(50):  # loaded again, from the database
            if table.pk in host.lives:
                break
            await asyncio.sleep(0.02)
        assert host.lives[table.pk].run.table.version == moved
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        assert await host.command(table.pk, user, None, command) == moved + 1
    await sync(assert_chips_conserved)()


async def test_a_conflict_in_a_group_commit_refuses_only_its_own_table(alice: Any,
                                                                       bob: Any) -> None:
    """Two tables in one commit, one of them changed behind the owner's back: the
    transaction writes nothing, then the other table is written on its own."""
    one, two = await sync(tables_with_players)(2, alice, bob)
    async with running(owner.Host()) as host:
        for table in (one, two):
            live = await host.live(table.pk)
            assert live is not None
            await host.committed(live)
        commands = [await sync(act_command)(t.pk) for t in (one, two)]
        users = [await sync(whose_turn)(t.pk, alice, bob) for t in (one, two)]
        await sync(services.execute)(table_id=one.pk, user=users[0], command=commands[0])
        written = await sync(table_rows)(one.pk)
        version = await sync(lambda: Table.objects.get(pk=two.pk).version)()
        before = collections.Counter(host.stats)
        refused, done = await asyncio.gather(  # (applied together: one commit)
            host.command(one.pk, users[0], None, commands[0]),
            host.command(two.pk, users[1], None, commands[1]), return_exceptions=True)
        assert isinstance(refused, TableError) and refused.code == "conflict"
        assert done == version + 1
        after = collections.Counter(host.stats) - before
        assert after["conflicts"] == 1 and after["commits"] == 1
        assert after["committed_tables"] == 1
        assert await sync(table_rows)(one.pk) == written
        assert await sync(lambda: Table.objects.get(pk=two.pk).version)() == done
    await sync(assert_chips_conserved)()


async def test_a_lost_commit_connection_refuses_the_command_and_is_opened_again(
        alice: Any, bob: Any, settings: Any) -> None:
    """The group commit's own connection dies (PostgreSQL restarted, network): the
    commands waiting for that commit are refused ``unavailable`` with nothing
    written, and the next commit opens a new connection."""
    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        lanes = settings.TABLES["OWNER_COMMIT_LANES"]
        writers = [await host.writer_connection(lane) for lane in range(lanes)]
        before = await sync(lambda: Table.objects.get(pk=table.pk).version)()
        for writer in writers:  # (whichever lane takes the next commit)
            await sync(_terminate)(writer.info.backend_pid)
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        with pytest.raises(TableError) as refused:
            await host.command(table.pk, user, None, command)
        assert refused.value.code == "unavailable"
        assert await sync(lambda: Table.objects.get(pk=table.pk).version)() == before
        command = await sync(act_command)(table.pk)  # the same turn, from the database
        assert await host.command(table.pk, user, None, command) == before + 1
        # The lane that wrote it opened a new connection.
        assert any(all(w is not old for old in writers) for w in host.writers.values())
    await sync(assert_chips_conserved)()


def _terminate(pid: int) -> None:
    from django.db import connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])


async def test_a_dead_owners_table_is_taken_over_from_its_last_commit(alice: Any,
                                                                      bob: Any) -> None:
    (table,) = await sync(tables_with_players)(1, alice, bob)
    first, committed = await host_after_one_act(table, alice, bob)
    await stop(first)  # no goodbye: the lease runs out
    async with running(owner.Host()) as second:
        assert await second.live(table.pk) is None  # still leased to the dead one
        await asyncio.sleep(1.3)
        await second.adopt()  # (or its own loop did already, once a second)
        assert table.pk in second.lives and second.stats["adopted"] == 1
        live = second.lives[table.pk]
        await second.committed(live)
        stored = await sync(lambda: Table.objects.get(pk=table.pk))()
        assert stored.version == committed + 1  # resumed: a fresh version for resync
        assert stored.deadline > timezone.now() + timedelta(seconds=25)  # a full turn
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        assert await second.command(table.pk, user, None, command) == committed + 2
    await sync(assert_chips_conserved)()


async def test_a_killed_owner_is_found_dead_before_its_lease_runs_out(
        alice: Any, bob: Any, settings: Any) -> None:
    """A process that ends without a word (its sockets closed, as the kernel does
    after kill -9) is found dead once it misses one and a half renewals: its tables
    are taken over about a second after, not when its leases run out."""
    settings.TABLES = {**settings.TABLES, "OWNER_LEASE_SECONDS": 8.0}  # (renewed each 0.5 s)
    (table,) = await sync(tables_with_players)(1, alice, bob)
    first, committed = await host_after_one_act(table, alice, bob)
    await asyncio.sleep(0.6)  # (its lease thread has renewed, under its name)
    await stop(first)
    async with running(owner.Host()) as second:
        lease = second.lease_key(table.pk)
        assert (await second.redis.get(lease)).decode() == first.channel
        renewed = await second.redis.zscore(second.hosts_key(), first.channel) - 8.0
        while not second.dead and time.time() - renewed < 5:
            await asyncio.sleep(0.05)
            await second.find_dead()
        assert set(second.dead) == {first.channel}
        assert 0.75 <= time.time() - renewed < 3  # 1.5 renewals missed, not the 8-s lease
        assert await second.redis.pttl(lease) > 4000  # its lease still held...
        await second.adopt()  # ... and taken all the same (or by its own loop already)
        assert table.pk in second.lives and second.stats["adopted"] == 1
        assert (await second.redis.get(lease)).decode() == second.channel
        assert await second.redis.zscore(second.hosts_key(), first.channel) is None
        live = second.lives[table.pk]  # (the discovery endpoint forgets it, above)
        await second.committed(live)
        assert live.run.table.version == committed + 1  # resumed: clients resync
    await sync(assert_chips_conserved)()


async def test_a_starved_owner_keeps_its_tables_until_its_lease_runs_out(
        alice: Any, bob: Any, settings: Any) -> None:
    """Renewals late but the lease connection open (a process starved of CPU, not
    dead): nothing is taken before the lease lapses; the same process with its
    connection gone is dead, its table taken at once."""
    import redis

    settings.TABLES = {**settings.TABLES, "OWNER_LEASE_SECONDS": 8.0}
    (table,) = await sync(tables_with_players)(1, alice, bob)
    slow = "owner.test.starved!1"
    connection = redis.Redis.from_url(os.environ["REDIS_URL"],
                                      client_name=owner.lease_client_name(slow))
    connection.ping()
    try:
        async with running(owner.Host()) as host:
            await host.redis.set(host.lease_key(table.pk), slow, px=8000)
            # Its last renewal 2 s ago (the score is when its leases end).
            await host.redis.zadd(host.hosts_key(), {slow: time.time() - 2 + 8})
            assert await host.find_dead() == set() and await host.adopt() == []
            assert await host.live(table.pk) is None  # its players are forwarded to it
            forwarded = asyncio.create_task(host.forward(table.pk, alice, None,
                                                         {"type": "sit_out"}))
            await asyncio.sleep(0.3)
            assert not forwarded.done()  # (it does not answer: starved)
            connection.close()
            await asyncio.sleep(0.2)
            assert await host.find_dead() == {slow}
            # The command waiting for it is tried here at once (not at its next look).
            assert await asyncio.wait_for(forwarded, 0.1) == {"moved": True}
            await host.adopt()  # (or its own loop did already)
            assert table.pk in host.lives and host.stats["adopted"] == 1
            # Had it been only cut off from Redis for a moment, its next renewal
            # would make it alive again (its leases, taken meanwhile, stay taken).
            await host.redis.zadd(host.hosts_key(), {slow: time.time() + 8})
            assert await host.find_dead() == set()
    finally:
        connection.close()


async def test_a_round_written_in_steps_is_read_back_exactly(alice: Any, bob: Any) -> None:
    """While a round runs its owner writes the table's state only at the round's start
    and appends what the round's logs gained (tables.handlog): a takeover replays the
    round's calls on the stored state to exactly the dead owner's last committed copy
    and plays on; a command in a transaction of its own (leaving mid-round) then reads
    the same state and writes state and logs whole; the round's steps go when it ends."""
    from tables.selectors import replay_round, viewer_for, visible_events

    (table,) = await sync(tables_with_players)(1, alice, bob)
    first = owner.Host()
    await first.start()
    live = await first.live(table.pk)
    assert live is not None
    await first.committed(live)
    hand = live.run.hand_row.pk
    for _ in range(3):  # preflop call and check, a check on the flop: one round
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        await first.command(table.pk, user, None, command)
    live = first.lives[table.pk]
    assert live.run.hand_row.pk == hand and live.state_hand == hand
    dead_state = live.run.game.dump(live.run.state)
    dead_logs = tuple(list(getattr(live.run.hand_row, name)) for name in handlog.LOGS)

    def stored() -> tuple[Any, ...]:
        row = Table.objects.get(pk=table.pk)
        steps = HandStep.objects.filter(hand_id=hand).count()
        return row.state, row.replay_from, steps, Hand.objects.get(pk=hand).calls

    state, replay_from, steps, row_calls = await sync(stored)()
    assert state != dead_state and replay_from is not None  # (not rewritten per action)
    assert steps == 3 and len(row_calls) < len(dead_logs[1])  # (appended in steps)

    def running_log() -> list[Any]:  # the table page's running round, from the database
        from lobby.selectors import current_hand_log

        return current_hand_log(Table.objects.select_related("current_hand").get(
            pk=table.pk), alice)["events"]

    assert await sync(running_log)() == visible_events(live.run.hand_row,
                                                       viewer_for(alice, [0]))
    await stop(first)  # no goodbye: the lease runs out
    async with running(owner.Host()) as second:
        await asyncio.sleep(1.3)
        await second.adopt()
        live = second.lives[table.pk]
        assert live.run.game.dump(live.run.state) == dead_state
        assert tuple(getattr(live.run.hand_row, name) for name in handlog.LOGS) \
            == dead_logs
        await second.committed(live)
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        await second.command(table.pk, user, None, command)  # (committed in a step)
        live = second.lives[table.pk]
        assert live.run.hand_row.pk == hand
        played = live.run.game.dump(live.run.state)
        assert (await sync(stored_state)(table.pk))[0] == played
        # Leaving mid-round: a transaction of its own reads the replayed state.
        await second.command(table.pk, alice, None, {"type": "leave"})
        assert second.stats["classic"] >= 1
        state, replay_from, steps, row_calls = await sync(stored)()
        assert len(row_calls) > len(dead_logs[1])  # (its logs whole in its row)
        await asyncio.wait_for(asyncio.gather(*second.spawned), 10)
        live = second.lives[table.pk]  # (loaded again)
        assert (await sync(stored_state)(table.pk))[0] == live.run.game.dump(live.run.state)
        for _ in range(10):  # on to the round's end (she folds when her turn comes)
            seat, current, _version, _legal = await sync(turn)(table.pk)
            if current != hand or seat is None:
                break
            command = await sync(act_command)(table.pk)
            user = await sync(whose_turn)(table.pk, alice, bob)
            await second.command(table.pk, user, None, command)
        row = await sync(Hand.objects.select_related("table").get)(pk=hand)
        assert row.ended_at is not None and (await sync(stored)())[2] == 0  # (steps gone)
        assert row.calls[:len(dead_logs[1])] == dead_logs[1]  # (whole in its row)
        assert await sync(replay_round)(row) == row.events
        await sync(assert_chips_conserved)()


async def test_a_snapshot_from_the_database_is_at_one_version(alice: Any, bob: Any) -> None:
    """A live table's snapshot read from the database (another process's, the REST
    API's) replays the round read after the table's row: when a commit lands in
    between, it reads again, and the state it gives is the version it tells."""
    from unittest import mock

    from tables import selectors

    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        for _ in range(2):  # (the round's logs in steps)
            command = await sync(act_command)(table.pk)
            await host.command(table.pk, await sync(whose_turn)(table.pk, alice, bob), None,
                               command)
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        loop, original, landed = asyncio.get_running_loop(), handlog.attach_steps, []

        def racing(hands: list[Hand]) -> None:
            if not landed:  # a commit lands between the row's read and its round's
                landed.append(asyncio.run_coroutine_threadsafe(
                    host.command(table.pk, user, None, command), loop).result(10))
            original(hands)

        with mock.patch.object(handlog, "attach_steps", racing):
            read = await sync(selectors.snapshot)(table.pk, bob, None)
        built = await host.snapshot(table.pk, bob, None)
        assert landed and read["version"] == built["version"] == landed[0]
        assert _without_clock(read) == _without_clock(built)


async def test_turn_timer_fires_in_memory(alice: Any, bob: Any) -> None:
    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        version = live.run.table.version
        hand = live.run.table.current_hand_id
        live.run.table.deadline = timezone.now() + timedelta(seconds=0.2)
        live.schedule()
        for _ in range(100):
            await asyncio.sleep(0.05)
            stored = await sync(lambda: Table.objects.get(pk=table.pk).version)()
            if stored > version:
                break
        assert host.stats["timeout"] == 1
        events = await sync(lambda: Hand.objects.get(pk=hand).events)()
        assert any(e["type"] == "PlayerTimedOut" for e in events)
    await sync(assert_chips_conserved)()


async def test_new_tables_are_refused_at_capacity(alice: Any, bob: Any, settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "OWNER_MAX_TABLES": 1}
    (first,) = await sync(tables_with_players)(1, alice, bob)
    empty = await sync(services.create_table)(creator=alice, name="Empty", settings=NL)
    async with running(owner.Host()) as host:
        assert await host.live(first.pk) is not None
        assert host.busy() and not host.busy(host.lives[first.pk])
        # A new table is refused its first seat (watching it is fine); nothing changes.
        with pytest.raises(TableError) as refused:
            await host.command(empty.pk, alice, None, {"type": "sit", "seat": 2,
                                                       "buy_in": 100})
        assert refused.value.code == "server_busy"
        # ... saying when to try again: between 5 and 10 s (OWNER_BUSY_RETRY_SECONDS=5),
        # drawn for each refusal, so that clients refused together come back apart.
        wait = refused.value.wait_seconds
        assert wait is not None and 5 <= wait <= 10
        assert refused.value.to_json()["wait_seconds"] == wait
        assert f"try again in {wait} seconds" in refused.value.message
        waits = set()
        for _ in range(30):
            with pytest.raises(TableError) as again:
                await host.command(empty.pk, bob, None, {"type": "sit", "seat": 3,
                                                         "buy_in": 100})
            waits.add(again.value.wait_seconds)
        assert len(waits) > 1 and all(5 <= w <= 10 for w in waits)
        assert await sync(lambda: Table.objects.get(pk=empty.pk).version)() == 0
        assert empty.pk not in host.lives  # refused before it was loaded
        assert await host.live(empty.pk) is not None  # (a connection to watch it)
        # The table already playing here plays on.
        command = await sync(act_command)(first.pk)
        user = await sync(whose_turn)(first.pk, alice, bob)
        assert await host.command(first.pk, user, None, command) > 0
        # Running late refuses new tables, never the seats of a table played here.
        host.load = 10.0  # (the event loop's smoothed lateness, seconds)
        assert host.busy(host.lives[empty.pk]) and not host.busy(host.lives[first.pk])
        host.load = 0.0
        # So does, if asked, a loop at capacity: its thread busy over OWNER_BUSY_PERCENT
        # (its thread here is this test's: the measure is set by hand).
        settings.TABLES = {**settings.TABLES, "OWNER_MAX_TABLES": 0}
        host.loop_busy = 0.99
        assert not host.late()  # (off by default)
        settings.TABLES = {**settings.TABLES, "OWNER_BUSY_PERCENT": 80}
        host.loop_busy = 0.79
        assert not host.late()  # (busy() would admit the table: a side effect)
        host.loop_busy = 0.81
        assert host.late()
        assert host.busy(host.lives[empty.pk]) and not host.busy(host.lives[first.pk])
        host.loop_busy = None  # (not measured: not Linux)
        assert not host.late()
        # Nobody sits at the new table nor watches it here: it is forgotten.
        host.unload_idle()
        assert empty.pk not in host.lives and first.pk in host.lives


async def test_a_dead_owners_players_are_never_refused_as_busy(alice: Any, bob: Any) -> None:
    """Running late, a process refuses new tables, but not the reconnecting players of
    a table whose owner died: it is played, and taken over here whatever the load."""
    played, new = await sync(tables_with_players)(2, alice, bob)
    await sync(lambda: Table.objects.filter(pk=new.pk).update(
        status="waiting", deadline=None, bot_due=None))()  # (not playing yet)
    async with running(owner.Host()) as host:
        assert host.redis is not None
        key = host.lease_key(played.pk)
        await host.redis.set(key, "owner.elsewhere", px=60_000)  # another process's
        assert await host.adopt() == [] and played.pk in host.running
        await host.redis.delete(key)  # ... which dies
        host.load = 10.0  # (running late)
        live = await host.live(played.pk)
        assert live is not None and any(live.run.seats)
        with pytest.raises(TableError) as refused:
            await host.live(new.pk)
        assert refused.value.code == "server_busy"


async def test_money_moves_in_a_transaction_of_its_own(alice: Any, bob: Any) -> None:
    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        await host.command(table.pk, user, None, command)
        # Leaving mid-hand folds and cashes out: booked through the ledger at once.
        # The answer does not wait for the table's reload (here the loader thread is
        # held; in a storm of sits it queues for seconds, and the player's act, behind
        # the answer on its connection, waited while the turn ran out).
        held = threading.Event()
        host.loader.submit(held.wait, 30)
        try:
            version = await asyncio.wait_for(
                host.command(table.pk, alice, None, {"type": "leave"}), 10)
            assert table.pk not in host.lives
        finally:
            held.set()
        assert host.stats["classic"] >= 1
        assert await sync(lambda: Table.objects.get(pk=table.pk).version)() == version
        await sync(assert_chips_conserved)()
        await asyncio.wait_for(asyncio.gather(*host.spawned), 10)
        assert table.pk in host.lives  # loaded again: its timers run here


async def test_a_turn_is_not_timed_out_while_its_act_waits(alice: Any, bob: Any) -> None:
    """The player's act for the current turn has reached the owner but waits (here:
    held before it runs; in a storm: for the table's load): the turn's timer, due
    meanwhile, does not time the player out; the act is applied when it runs."""
    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        await host.committed(live)  # (the table was resumed when loaded)
        release = asyncio.Event()
        run_command = host._command

        async def held(*args: Any) -> int:
            await release.wait()
            return await run_command(*args)

        host._command = held  # type: ignore[method-assign]
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        acting = asyncio.create_task(host.command(table.pk, user, None, command))
        await asyncio.sleep(0.05)
        live.run.table.deadline = timezone.now() - timedelta(seconds=1)  # the turn is due
        host.fire(live)
        await asyncio.sleep(0.3)
        assert host.stats["timeouts_held"] >= 1 and host.stats["timeout"] == 0
        release.set()
        version = await asyncio.wait_for(acting, 5)  # applied: the turn was still its own
        assert version > command["version"] and host.stats["timeout"] == 0
        assert not host.acts_waiting
        await sync(assert_chips_conserved)()


@dataclasses.dataclass
class SlowChat:
    """A table live at the process's host (``owner.host()``, as consumers reach it),
    where a connection's ``chat`` waits for ``gate`` before it runs (as a sit waited
    seconds for the database in a seating storm)."""

    host: owner.Host
    live: Any
    gate: asyncio.Event
    acting: Any  # the user whose turn it is
    other: Any
    command: dict[str, Any]  # an act for that turn

    def due(self) -> None:
        """The turn's deadline has passed: its timer fires."""
        self.live.run.table.deadline = timezone.now() - timedelta(seconds=1)
        self.host.fire(self.live)


async def until(condition: Any, tries: int = 100, pause: float = 0.02) -> None:
    for _ in range(tries):
        if condition():
            return
        await asyncio.sleep(pause)


@contextlib.asynccontextmanager
async def slow_chat(alice: Any, bob: Any,
                    monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[SlowChat]:
    from tables.consumers import TableConsumer

    gate, original = asyncio.Event(), TableConsumer.dispatch_message

    async def held(self: Any, kind: str, data: Any, request_id: Any) -> None:
        if kind == "chat":
            await gate.wait()
        await original(self, kind, data, request_id)

    monkeypatch.setattr(TableConsumer, "dispatch_message", held)
    (table,) = await sync(tables_with_players)(1, alice, bob)
    host = owner.host()
    try:
        async with running(host):
            try:
                live = await host.live(table.pk)
                await host.committed(live)
                acting = await sync(whose_turn)(table.pk, alice, bob)
                yield SlowChat(host, live, gate, acting, bob if acting == alice else alice,
                               await sync(act_command)(table.pk))
            finally:
                gate.set()  # (nothing left waiting when the host stops)
    finally:
        owner.reset()
    await sync(assert_chips_conserved)()


async def test_an_act_queued_behind_its_connections_slow_message_keeps_its_turn(
        alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's act is read while the connection's earlier message is still being
    worked on: its turn, due meanwhile, is not timed out (the server's lateness, not
    the player's); the act runs when its turn in the queue comes, and is applied."""
    from ..tables.ws import open_client

    async with slow_chat(alice, bob, monkeypatch) as at:
        host, command = at.host, at.command
        client = await open_client(at.live.table_id, user=at.acting)
        await client.send({"type": "chat", "text": "thinking", "request_id": "c1"})
        await client.send({**command, "request_id": "a1"})
        await until(lambda: host.acts_waiting[(at.live.table_id, command["version"])])
        at.due()
        await asyncio.sleep(0.3)
        assert host.stats["timeouts_held"] >= 1 and host.stats["timeout"] == 0
        at.gate.set()
        answers = await client.answer({"type": "ping"})
        acks = [m for m in client.received if m["type"] == "ack"]
        assert [m["request_id"] for m in acks][:2] == ["c1", "a1"], answers  # in order
        assert acks[1]["version"] > command["version"]  # applied
        assert host.stats["timeout"] == 0 and not host.acts_waiting
        await client.close()


async def test_a_held_turn_is_timed_out_as_soon_as_its_act_is_refused(
        alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The queued act that held its turn past the deadline turns out illegal: the
    turn is timed out when the refusal is done, not at the timer's next look."""
    from ..tables.ws import open_client

    monkeypatch.setattr(owner, "HELD_RECHECK_SECONDS", 60.0)
    async with slow_chat(alice, bob, monkeypatch) as at:
        host = at.host
        client = await open_client(at.live.table_id, user=at.acting)
        await client.send({"type": "chat", "text": "hm", "request_id": "c1"})
        await client.send({**at.command, "action": {"kind": "juggle"}, "request_id": "a1"})
        await until(lambda: host.acts_waiting)
        at.due()
        await asyncio.sleep(0.2)
        assert host.stats["timeouts_held"] == 1 and host.stats["timeout"] == 0
        at.gate.set()
        await client.answer({"type": "ping"})
        assert [m["request_id"] for m in client.received if m["type"] == "error"] == ["a1"]
        await until(lambda: host.stats["timeout"], pause=0.05)
        assert host.stats["timeout"] == 1 and not host.acts_waiting
        await client.close()


async def test_an_act_queued_by_another_player_holds_nobodys_turn(
        alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other player's act for the current turn, queued behind its own slow
    message, does not hold the turn: the player to act is timed out as usual, and the
    queued act is refused when it runs; a connection that closes with acts still
    queued lets go of them."""
    from ..tables.ws import open_client

    async with slow_chat(alice, bob, monkeypatch) as at:
        host, command, table_id = at.host, at.command, at.live.table_id
        waiting = await open_client(table_id, user=at.other)
        await waiting.send({"type": "chat", "text": "hm", "request_id": "c1"})
        await waiting.send({**command, "request_id": "a1"})
        mine = await open_client(table_id, user=at.acting)  # its own, then it goes
        await mine.send({"type": "chat", "text": "hm", "request_id": "c2"})
        await mine.send({**command, "request_id": "a2"})
        await until(lambda: host.acts_waiting)
        assert host.acts_waiting == {(table_id, command["version"]): 1}  # mine only
        await mine.close()
        await until(lambda: not host.acts_waiting)
        assert not host.acts_waiting
        at.due()
        await until(lambda: host.stats["timeout"])
        assert host.stats["timeout"] == 1 and host.stats["timeouts_held"] == 0
        at.gate.set()
        out = await waiting.answer({"type": "ping"})
        errors = [m for m in waiting.received if m["type"] == "error"]
        assert [e["request_id"] for e in errors] == ["a1"], out
        assert errors[0]["code"] in ("not_your_turn", "stale_version", "wrong_hand")
        await waiting.close()


async def test_lobby_news_do_not_hold_up_the_answer_and_keep_their_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A transaction of its own publishes its lobby news in the background (a lobby
    group_send took seconds in a storm of sits, and the command's answer waited):
    publish_plain returns at once, and the news go out in the order they came."""
    async with running(owner.Host()) as host:
        sent: list[int] = []
        gate = asyncio.Event()

        async def slow(batches: Any, *, direct: bool = False) -> bool:
            await gate.wait()
            sent.extend(message["n"] for batch in batches for _, message in batch)
            return True

        monkeypatch.setattr(owner.fanout, "apublish", slow)
        for n in range(3):
            await asyncio.wait_for(host.publish_plain([[(fanout.LOBBY_GROUP, {"n": n})]]), 1)
        assert sent == []
        gate.set()
        assert host.lobby_tail is not None
        await asyncio.wait_for(host.lobby_tail, 5)
        assert sent == [0, 1, 2]


async def test_seat_commands_are_applied_in_memory(alice: Any, bob: Any) -> None:
    """Sitting out and in, waiting for the big blind, skipping formalities: on the live
    copy, written with the group commit (no transaction of their own, no reload).
    A seat sat out by a disconnect comes back in a transaction of its own."""
    (table,) = await sync(tables_with_players)(1, alice, bob)

    def stored(number: int) -> tuple[str, bool]:
        row = Seat.objects.get(table=table.pk, number=number)
        return row.state, row.skip_formalities

    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        version = await host.command(table.pk, alice, None, {"type": "sit_out"})
        await host.command(table.pk, alice, None, {"type": "skip_formalities", "on": False})
        assert host.stats["classic"] == 0 and host.lives[table.pk] is live
        # Alice folds the hand (she plays it out): she is sat out for the next one.
        seat, hand, _version, _legal = await sync(turn)(table.pk)
        if seat == 1:
            await host.command(table.pk, bob, None, await sync(act_command)(table.pk))
        await host.command(table.pk, alice, None,
                           await sync(act_command)(table.pk, kind="fold"))
        assert live.run.table.current_hand_id != hand
        assert (await sync(stored)(0)) == ("sitting_out", False)
        with pytest.raises(TableError) as refused:  # refused on the copy: it stays
            await host.command(table.pk, bob, None, {"type": "sit_in"})
        assert refused.value.code == "not_sitting_out" and host.lives[table.pk] is live
        later = await host.command(table.pk, alice, None, {"type": "sit_in"})
        assert later > version and host.stats["classic"] == 0
        assert host.lives[table.pk] is live and not live.dead
        assert (await sync(stored)(0))[0] != "sitting_out"
        assert await sync(lambda: Table.objects.get(pk=table.pk).version)() \
            == live.run.table.version
        # Sat out by a disconnect: coming back clears the flag in a transaction.
        await sync(lambda: Seat.objects.filter(table=table.pk, number=1).update(
            sat_out_by_disconnect=True))()
        host.evict(live)  # (changed behind its back, as the presence code does)
        await host.command(table.pk, bob, None, {"type": "sit_out"})
        assert host.stats["classic"] == 1
        assert not await sync(lambda: Seat.objects.get(
            table=table.pk, number=1).sat_out_by_disconnect)()
    await sync(assert_chips_conserved)()


async def test_chips_added_mid_hand_are_booked_when_the_hand_ends(alice: Any,
                                                                   bob: Any) -> None:
    """``add_chips`` during a hand waits on the live copy (no money moves yet); the act
    that ends the hand brings them to the stack and books them through the ledger, in
    a transaction of its own. Nothing created or lost."""
    from accounts.models import LedgerEntry

    (table,) = await sync(tables_with_players)(1, alice, bob)
    entries = await sync(LedgerEntry.objects.count)()
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        await host.command(table.pk, alice, None, {"type": "add_chips", "amount": 50})
        assert host.stats["classic"] == 0 and host.lives[table.pk] is live
        assert await sync(LedgerEntry.objects.count)() == entries  # not yet
        seat, hand, _version, _legal = await sync(turn)(table.pk)
        user = alice if seat == 0 else bob
        await host.command(table.pk, user, None, await sync(act_command)(table.pk, kind="fold"))
        assert host.stats["classic"] == 1  # the money moved in a transaction
        assert await sync(LedgerEntry.objects.count)() == entries + 1
        assert await sync(lambda: Table.objects.get(pk=table.pk).current_hand_id)() != hand
    await sync(assert_chips_conserved)()


async def test_route_names_the_owning_process(alice: Any, bob: Any, client: Any) -> None:
    (table,) = await sync(tables_with_players)(1, alice, bob)
    host = owner.Host()
    host.url = "ws://127.0.0.1:65001"
    async with running(host):
        assert await host.live(table.pk) is not None
        await asyncio.sleep(1.2)  # the lease loop registers the process's address

        def ask() -> Any:
            client.force_login(alice)
            return client.get(f"/api/v1/tables/{table.pk}/route/")
        response = await sync(ask)()
        assert response.status_code == 200
        answer = response.json()
        assert answer["owner"] == host.url and answer["path"] == f"/ws/tables/{table.pk}/"
        assert answer["by_rule"] is not None and answer["processes"] >= 1
        missing = await sync(lambda: client.get("/api/v1/tables/999999/route/"))()
        assert missing.status_code == 404


async def test_a_rest_command_runs_at_the_owner(alice: Any, bob: Any) -> None:
    """A command over HTTP, served (as under Daphne) in a thread of the server's event
    loop, goes through this process's host: applied on the live copy, no conflict for
    the next websocket command."""
    from asgiref.sync import sync_to_async
    from rest_framework.test import APIClient

    (table,) = await sync(tables_with_players)(1, alice, bob)
    host = owner.host()
    try:
        async with running(host):
            assert await host.live(table.pk) is not None
            command = await sync(act_command)(table.pk)
            user = await sync(whose_turn)(table.pk, alice, bob)
            before = host.lives[table.pk].run.table.version

            def post(body: dict[str, Any]) -> Any:
                client = APIClient()
                client.force_authenticate(user)
                return client.post(f"/api/v1/tables/{table.pk}/commands/", body,
                                   format="json")

            response = await sync_to_async(post)(command)
            assert response.status_code == 200, response.json()
            assert response.json()["version"] == before + 1
            assert host.stats["fast"] == 1 and host.stats["classic"] == 0
            assert host.lives[table.pk].run.table.version == before + 1
            stale = await sync_to_async(post)(command)  # the same again: refused, no 500
            assert stale.status_code == 409
            assert stale.json()["error"]["code"] in ("stale_version", "not_your_turn")
            following = await sync(act_command)(table.pk)
            other = await sync(whose_turn)(table.pk, alice, bob)
            assert await host.command(table.pk, other, None, following) == before + 2
    finally:
        owner.reset()
    await sync(assert_chips_conserved)()


@contextlib.asynccontextmanager
async def at_capacity(alice: Any, bob: Any, settings: Any,
                      retry_seconds: int) -> AsyncIterator[Table]:
    """The process's host (``owner.host()``, as consumers and views reach it) playing
    one table at its cap of one; yields a new table to sit at."""
    settings.TABLES = {**settings.TABLES, "OWNER_MAX_TABLES": 1,
                       "OWNER_BUSY_RETRY_SECONDS": retry_seconds}
    (first,) = await sync(tables_with_players)(1, alice, bob)
    empty = await sync(services.create_table)(creator=alice, name="Empty", settings=NL)
    host = owner.host()
    try:
        async with running(host):
            assert await host.live(first.pk) is not None
            yield empty
    finally:
        owner.reset()


async def test_a_rest_sit_at_capacity_is_told_when_to_try_again(alice: Any, bob: Any,
                                                              settings: Any) -> None:
    """503 ``server_busy`` over HTTP: ``details.wait_seconds`` and a ``Retry-After``
    header that agree (docs/api.md); nothing was done, and the same Idempotency-Key
    runs the command when tried again (a refusal is not kept as its answer)."""
    from asgiref.sync import sync_to_async
    from rest_framework.test import APIClient

    async with at_capacity(alice, bob, settings, retry_seconds=2) as empty:

        def post() -> Any:
            client = APIClient()
            client.force_authenticate(alice)
            return client.post(f"/api/v1/tables/{empty.pk}/commands/",
                               {"type": "sit", "seat": 2, "buy_in": 100}, format="json",
                               HTTP_IDEMPOTENCY_KEY="sit-empty-1")

        response = await sync_to_async(post)()
        assert response.status_code == 503, response.json()
        error = response.json()["error"]
        assert error["code"] == "server_busy"
        assert 2 <= error["details"]["wait_seconds"] <= 4
        assert int(response.headers["Retry-After"]) == error["details"]["wait_seconds"]
        assert await sync(lambda: Table.objects.get(pk=empty.pk).version)() == 0
        settings.TABLES = {**settings.TABLES, "OWNER_MAX_TABLES": 0}  # room again
        again = await sync_to_async(post)()
        assert again.status_code == 200, again.json()
        assert "Idempotent-Replayed" not in again.headers
        assert await sync(lambda: Seat.objects.filter(
            table=empty, player__owner=alice).count())() == 1
        replayed = await sync_to_async(post)()  # now the answer is kept
        assert replayed.status_code == 200 and replayed.headers["Idempotent-Replayed"]
    await sync(assert_chips_conserved)()


async def test_running_late_a_connection_to_a_new_table_is_refused_before_any_database_call(
        alice: Any, bob: Any, settings: Any, monkeypatch: Any) -> None:
    """Under overload the refused come back again and again: a connection to a table
    this process would take is refused first thing
    (``server_busy`` with ``wait_seconds``, closed 4503), before the player lookup, the
    groups or a load; a connection to a table played here is not refused."""
    from tables import consumers

    from ..tables.ws import open_client

    looked_up: list[int] = []
    player_ids = consumers._player_ids
    monkeypatch.setattr(consumers, "_player_ids",
                        lambda **kw: looked_up.append(1) or player_ids(**kw))
    async with at_capacity(alice, bob, settings, retry_seconds=3) as empty:
        host = owner.host()
        (played,) = host.lives
        host.load = 10.0  # (running late)
        refused = await open_client(empty.pk, user=alice)
        frames = [m for m in refused.received if m["type"] == "error"]
        assert [f["code"] for f in frames] == ["server_busy"], refused.received
        assert 3 <= frames[0]["wait_seconds"] <= 6
        assert refused.close_code == 4503
        assert looked_up == [] and empty.pk not in host.lives
        welcome = await open_client(played, user=bob)  # its table plays on
        assert welcome.connected and welcome.close_code is None and looked_up == [1]
        await welcome.close()
        host.load = 0.0
        watching = await open_client(empty.pk, user=alice)  # on time: welcome to watch
        assert watching.connected and empty.pk in host.lives
        await watching.close()


async def test_a_websocket_sit_at_capacity_is_told_when_to_try_again(alice: Any, bob: Any,
                                                                   settings: Any) -> None:
    """The error frame of a refused ``sit`` carries ``wait_seconds`` (docs/protocol.md);
    the connection stays open to watch."""
    from ..tables.ws import open_client

    async with at_capacity(alice, bob, settings, retry_seconds=3) as empty:
        client = await open_client(empty.pk, user=alice)
        assert client.connected
        answer = await client.request({"type": "sit", "seat": 2, "buy_in": 100,
                                       "request_id": "r1"})
        errors = [m for m in answer if m["type"] == "error"]
        assert len(errors) == 1 and errors[0]["code"] == "server_busy"
        assert errors[0]["request_id"] == "r1" and 3 <= errors[0]["wait_seconds"] <= 6
        assert client.close_code is None  # still watching
        await client.close()
        assert await sync(lambda: Table.objects.get(pk=empty.pk).version)() == 0


async def test_the_owner_sweeps_the_presence_of_its_tables(alice: Any, bob: Any) -> None:
    """A silent connection at a live table is dropped by its owner (through a
    transaction of its own, the live copy loaded again), not by the worker's sweep
    behind the owner's back."""
    from tables.models import Connection, Seat

    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        await sync(services.connect)(table_id=table.pk, channel_name="gone.1", user=alice)
        await sync(lambda: Connection.objects.filter(channel_name="gone.1").update(
            last_seen=timezone.now() - timedelta(hours=1)))()
        before = await sync(lambda: Table.objects.get(pk=table.pk).version)()
        assert await sync(services.sweep_presence)(owned=owner.owned_sync) == 0  # not its
        assert await sync(Connection.objects.filter(channel_name="gone.1").exists)()
        assert await host.sweep() == 1
        assert not await sync(Connection.objects.filter(channel_name="gone.1").exists)()
        assert await sync(lambda: Seat.objects.get(table=table, number=0).disconnected_at)()
        moved = await sync(lambda: Table.objects.get(pk=table.pk).version)()
        assert moved > before
        for _ in range(50):  # loaded again, from the database
            if table.pk in host.lives:
                break
            await asyncio.sleep(0.02)
        assert host.lives[table.pk].run.table.version == moved and host.stats["conflicts"] == 0
        command = await sync(act_command)(table.pk)
        user = await sync(whose_turn)(table.pk, alice, bob)
        assert await host.command(table.pk, user, None, command) == moved + 1
    await sync(assert_chips_conserved)()


async def test_the_owner_does_not_sweep_a_connection_it_hears_from(alice: Any,
                                                                    bob: Any) -> None:
    """A connection of the owner's own process that spoke within the presence timeout
    is alive, even if its batched ``last_seen`` write has not landed yet (a busy
    process at the start of a run): its player is not sat out; so is one whose
    command the server is still working on (a slow sit: its pings wait behind it).
    Once silent that long in memory too, it is swept."""
    import time

    from tables import presence
    from tables.models import Connection

    class Here:
        channel_name = "alive.1"

        async def register_again(self) -> None:  # (never: not swept)
            raise AssertionError("swept")

    (table,) = await sync(tables_with_players)(1, alice, bob)
    writer = presence.writer()
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        await sync(services.connect)(table_id=table.pk, channel_name="alive.1", user=alice)
        await sync(lambda: Connection.objects.filter(channel_name="alive.1").update(
            last_seen=timezone.now() - timedelta(seconds=30)))()
        writer.heard_from(Here())  # a ping just now
        try:
            assert await host.sweep() == 0
            assert await sync(Connection.objects.filter(channel_name="alive.1").exists)()
            writer.last_heard["alive.1"] = time.monotonic() - 30  # silent in memory too...
            with writer.working_on(Here()):  # ... but a command of it is still running
                # (its next messages wait unread behind it): not silent
                assert await host.sweep() == 0
                assert "alive.1" in writer.working
                await writer.flush()  # and its last_seen is written (the worker's sweep)
                seen = await sync(lambda: Connection.objects.get(
                    channel_name="alive.1").last_seen)()
                assert timezone.now() - seen < timedelta(seconds=5)
            assert "alive.1" not in writer.working
            writer.last_heard["alive.1"] = time.monotonic() - 30  # then silent 30 s
            await sync(lambda: Connection.objects.filter(channel_name="alive.1").update(
                last_seen=timezone.now() - timedelta(seconds=30)))()
            assert await host.sweep() == 1
            assert not await sync(Connection.objects.filter(channel_name="alive.1").exists)()
        finally:
            writer.last_heard.pop("alive.1", None)
            writer.heard.discard("alive.1")
            writer.working.discard("alive.1")


async def test_a_quiet_connection_waits_for_a_table_lock_not_for_a_group_commit(
        alice: Any, bob: Any) -> None:
    """A connection that changes nothing (none of its players is disconnected) is
    registered under ``FOR KEY SHARE``: a group commit's ``UPDATE`` of the table row does
    not hold it up; a transaction that locked the table (a disconnect deciding whether
    a player is still controlled) does, so the two never miss each other."""
    import threading

    from django.db import connection, transaction

    from tables.models import Connection
    from tables.runtime import locked_table

    (table,) = await sync(tables_with_players)(1, alice, bob)
    release, held = threading.Event(), threading.Event()

    def hold(how: str) -> None:
        try:
            with transaction.atomic():
                if how == "commit":  # as a group commit does: no key is locked
                    with connection.cursor() as cursor:
                        cursor.execute("UPDATE tables_table SET version = version "
                                       "WHERE id = %s", [table.pk])
                    held.set()
                    release.wait(10)
                else:
                    with locked_table(table.pk):
                        held.set()
                        release.wait(10)
        finally:
            connection.close()

    def connect(name: str) -> Any:
        try:
            return services.connect(table_id=table.pk, channel_name=name, user=bob)
        finally:
            connection.close()

    for how, waits in (("commit", False), ("lock", True)):
        release.clear()
        held.clear()
        holder = threading.Thread(target=hold, args=(how,))
        holder.start()
        assert await asyncio.to_thread(held.wait, 5)
        attempt = asyncio.ensure_future(asyncio.to_thread(connect, f"quiet.{how}"))
        await asyncio.sleep(0.5)
        assert attempt.done() is not waits, how
        release.set()
        assert await asyncio.wait_for(attempt, 10) is False  # nothing changed
        await asyncio.to_thread(holder.join, 10)
        assert await sync(Connection.objects.filter(channel_name=f"quiet.{how}").exists)()


async def test_live_table_connections_share_the_process_credential_groups(
        alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A live table's websocket has no channel-layer channel of its own: the process's
    host listens to each credential group once, on its own Redis subscription, for all
    its connections (a reconnection storm costs no channel-layer call per handshake),
    closes them all at once when the credential ends (here before the once-a-second
    check could), and stops listening when the group's last connection closes."""
    import redis
    from channels.layers import get_channel_layer

    from accounts.credentials import user_group, user_revoked

    from ..tables.ws import open_client

    monkeypatch.setattr(owner, "RECHECK_SECONDS", 3600.0)  # only the announcement closes
    (table,) = await sync(tables_with_players)(1, alice, bob)
    layer = get_channel_layer()
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    host = owner.host()

    def listeners(user: Any) -> int:
        return dict(client.pubsub_numsub(host.auth_key(user_group(user.pk))))[
            host.auth_key(user_group(user.pk)).encode()]

    try:
        async with running(host):
            channels = len(layer.channels)
            first = await open_client(table.pk, user=alice)
            second = await open_client(table.pk, user=alice)
            other = await open_client(table.pk, user=bob)
            assert first.connected and second.connected and other.connected
            assert any(m["type"] == "snapshot" for m in first.received)
            assert len(layer.channels) == channels  # none per connection
            members = host.credential_members[user_group(alice.pk)]
            assert len(members) == 2
            assert all(c.channel_name.startswith("local.") for c in members)
            assert listeners(alice) == 1 and listeners(bob) == 1  # the process, once

            await sync(user_revoked)(alice.pk, "password_changed")
            for ws in (first, second):
                await ws.drain(quiet=0.5)
                assert ws.received[-1]["code"] == "session_ended", ws.received[-3:]
                assert ws.close_code == 4401
            assert (await other.request({"type": "ping"}))[-1]["type"] == "pong"
            assert listeners(alice) == 1  # until the sockets end
            for ws in (first, second):
                await ws.close()  # the server's websocket.disconnect, as Daphne sends it
            await asyncio.sleep(0.2)  # (the unsubscription is sent in a task)
            assert user_group(alice.pk) not in host.credential_members
            assert listeners(alice) == 0 and listeners(bob) == 1
            await other.close()
    finally:
        owner.reset()
        client.close()
    await sync(assert_chips_conserved)()


async def test_a_storm_of_handshakes_at_start_shares_one_redis_subscription() -> None:
    """Hundreds of connections arriving as the process starts (clients of a killed
    owner) each listen to their credential groups at once: one subscription
    connection for all, the pool is not drained (redis-py's PubSub takes a connection
    per concurrent first call), and every handshake goes on."""

    class Connection:
        pass

    host = owner.Host()
    try:
        async with running(host):
            joins = [host.join_credentials(Connection(), [f"auth.bot.{n}", "auth.owner.1"])
                     for n in range(200)]
            assert all(await asyncio.wait_for(asyncio.gather(*joins), 5))
            assert len(host.credential_members["auth.owner.1"]) == 200
            assert await asyncio.wait_for(host.redis.ping(), 2)  # the pool still serves
    finally:
        owner.reset()


async def test_a_connection_killed_before_its_disconnect_lets_go_all_the_same(
        alice: Any, bob: Any) -> None:
    """Daphne kills a connection's task whose disconnect it could not handle in time
    (a command still waiting on an overloaded server): what the process held for it
    goes all the same, else its table stays loaded with a dead watcher for ever
    (seen under overload: refused tables never unloaded)."""
    from accounts.credentials import user_group
    from tables import presence

    from ..tables.ws import open_client

    (table,) = await sync(tables_with_players)(1, alice, bob)
    host = owner.host()
    try:
        async with running(host):
            ws = await open_client(table.pk, user=alice)
            (consumer,) = host.local[table.pk]
            assert user_group(alice.pk) in host.credential_members
            assert consumer.channel_name in presence.writer().consumers
            ws.communicator.future.cancel()  # killed: no disconnect is handled
            with contextlib.suppress(asyncio.CancelledError):
                await ws.communicator.future
            assert table.pk not in host.local
            assert user_group(alice.pk) not in host.credential_members
            assert consumer.channel_name not in presence.writer().consumers
    finally:
        owner.reset()


async def test_the_periodic_report_gives_each_duration_mean_and_worst_then_starts_again() -> None:
    timings = owner.Timings()
    assert timings.report() == "nothing timed"
    for seconds in (0.010, 0.030, 0.020):
        timings.add("commit", seconds)
    timings.add("cut", 0.001)
    assert timings.report() == "commit 3x 20.0/30 ms, cut 1x 1.0/1 ms"
    assert timings.report() == "nothing timed"


async def test_redis_out_of_reach_refuses_cleanly_never_crashes(alice: Any, bob: Any) -> None:
    """Redis down with live tables: who owns a table not held here cannot be known. A
    handshake to it is told ``unavailable`` and closed 1013 (try again later), a
    command for it is refused ``unavailable``; never a crash (Daphne's 1011), and a
    table held here plays on."""
    import redis.asyncio as aioredis

    from ..tables.ws import open_client

    here, elsewhere = await sync(tables_with_players)(2, alice, bob)
    host = owner.host()
    try:
        async with running(host):
            player = await open_client(here.pk, user=alice)  # its credential is joined
            assert player.connected and player.close_code is None
            reachable = host.redis
            host.redis = aioredis.Redis.from_url("redis://127.0.0.1:9", socket_timeout=1)
            try:
                refused = await open_client(elsewhere.pk, user=alice)
                await refused.drain()
                errors = [m for m in refused.received if m["type"] == "error"]
                assert [e["code"] for e in errors] == ["unavailable"], refused.received
                assert refused.close_code == 1013
                # The table held here plays on: its turn is answered.
                user = await sync(whose_turn)(here.pk, alice, bob)
                version = await host.command(here.pk, user, None,
                                             await sync(act_command)(here.pk))
                assert version > 0
                with pytest.raises(TableError) as unreachable:
                    await host.command(elsewhere.pk, user, None,
                                       await sync(act_command)(elsewhere.pk))
                assert unreachable.value.code == "unavailable"
            finally:
                await host.redis.aclose()
                host.redis = reachable
            await player.close()
    finally:
        owner.reset()
    await sync(assert_chips_conserved)()


async def test_a_turn_watched_from_elsewhere_waits_until_redis_is_known_to_answer(
        alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Redis away and not found out yet (the lease thread asks it twice a second, later
    on a loaded machine): a turn watched from another process is not timed out until
    Redis is known to answer; then it is (a turn heard everywhere runs its course)."""
    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        await asyncio.sleep(0.3)  # (the commit's relay, after it landed, says who listens)
        live.remote = True
        version = live.run.table.version
        monkeypatch.setattr(owner, "BROKER_FRESH_SECONDS", -1.0)  # (not heard lately)
        live.run.table.deadline = timezone.now() + timedelta(seconds=0.1)
        live.schedule()
        await asyncio.sleep(1.0)
        assert host.stats["timeout"] == 0 and live.run.table.version == version
        assert not host.held and not host.outage.down
        monkeypatch.setattr(owner, "BROKER_FRESH_SECONDS", 1.5)  # Redis answers
        for _ in range(100):  # (a loaded machine fires late)
            await asyncio.sleep(0.05)
            if host.stats["timeout"]:
                break
        assert host.stats["timeout"] == 1 and live.run.table.version > version
    await sync(assert_chips_conserved)()


async def test_a_turn_watched_from_elsewhere_waits_while_redis_is_away(alice: Any,
                                                                      bob: Any) -> None:
    """While Redis is away a player connected through another process hears nothing:
    the owner holds the turn (no timeout), and no table is adopted. When Redis has
    answered the lease thread for the grace period, the turn starts over, full length,
    with a fresh version (clients resync); adopting waits a lease more."""
    from tables.outage import RESUME_GRACE_SECONDS

    watched, local = await sync(tables_with_players)(2, alice, bob)
    async with running(owner.Host()) as host:
        lives = {t.pk: await host.live(t.pk) for t in (watched, local)}
        for live in lives.values():
            assert live is not None
            await host.committed(live)
        lives[watched.pk].remote, lives[local.pk].remote = True, False
        versions = {pk: live.run.table.version for pk, live in lives.items()}
        host._broker_failed()  # (as a relay or the lease thread finds Redis away)
        # Redis stays away as far as the host hears until said (the lease thread, which
        # finds it there, would end the outage after the grace: on a loaded machine
        # before the timers below have fired)
        answered, host._broker_answered = host._broker_answered, lambda: None
        assert await host.adopt() == []
        soon = timezone.now() + timedelta(seconds=0.2)
        for live in lives.values():
            live.run.table.deadline = soon
            live.schedule()
        for _ in range(100):  # (a loaded machine fires late)
            await asyncio.sleep(0.05)
            if lives[local.pk].run.table.version > versions[local.pk]:
                break
        await asyncio.sleep(0.2)
        # Only the table heard here timed out; the other one waits, not timed out.
        assert host.stats["timeout"] == 1 and host.held == {watched.pk}
        assert lives[watched.pk].run.table.version == versions[watched.pk]
        assert lives[local.pk].run.table.version > versions[local.pk]
        # Redis answers (it never left): after the grace, a full turn from then.
        host._broker_answered = answered
        for _ in range(int(RESUME_GRACE_SECONDS * 20) + 40):
            # (the outage ends first; the held table's resume follows in a task)
            if not host.outage.down and not host.resuming and not lives[watched.pk].dirty:
                break
            await asyncio.sleep(0.05)
        assert not host.outage.down and not host.held
        await host.committed(lives[watched.pk])
        table = await sync(lambda: Table.objects.get(pk=watched.pk))()
        assert table.version > versions[watched.pk]
        assert table.deadline > timezone.now() + timedelta(seconds=table.turn_seconds - 5)
        assert host.stats["timeout"] == 1
        assert host.adopt_after > time.monotonic()
    await sync(assert_chips_conserved)()


async def test_a_turn_due_as_redis_comes_back_starts_over_instead_of_timing_out(
        alice: Any, bob: Any) -> None:
    """Redis back: every table watched elsewhere gets a full turn from now, once its
    pending commit has landed. A timer due in that moment (a loop that was late runs
    both at once) does not time the turn out first."""
    (watched,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(watched.pk)
        assert live is not None
        await host.committed(live)
        live.remote = True
        version = live.run.table.version
        host._broker_failed()
        host.outage.answered = lambda: True  # (the grace is over)
        live.run.table.deadline = timezone.now() - timedelta(seconds=1)
        host._broker_answered()
        host.fire(live)  # the turn's timer, due, in the same turn of the loop
        for _ in range(100):
            await asyncio.sleep(0.05)
            if not host.resuming and not live.dirty:
                break
        assert host.stats["timeout"] == 0
        table = await sync(lambda: Table.objects.get(pk=watched.pk))()
        assert table.version > version
        assert table.deadline > timezone.now() + timedelta(seconds=table.turn_seconds - 5)
    await sync(assert_chips_conserved)()


async def test_a_connection_without_a_seat_comes_and_goes_beside_the_commands(
        alice: Any, bob: Any) -> None:
    """Connecting and disconnecting an account with no seat at the table change nothing
    there: they run beside the table commands (here the process's one database thread
    is held, as a storm of sits held it for tens of seconds), not behind them. A seated
    player's disconnection still goes the whole way and sits the player out."""
    from accounts.models import Player, PlayerKind, User
    from tables.models import Connection

    (table,) = await sync(tables_with_players)(1, alice, bob)

    def make_carol() -> Any:
        carol = User.objects.create_user("carol", "carol@example.com", "pw-carol-123")
        Player.objects.create(owner=carol, name="carol", kind=PlayerKind.HUMAN)
        return carol

    carol = await sync(make_carol)()
    version = await sync(lambda: Table.objects.get(pk=table.pk).version)()
    async with running(owner.Host()) as host:
        held = threading.Event()
        blocker = asyncio.ensure_future(sync(held.wait)(20))  # the one database thread
        await asyncio.sleep(0.2)
        try:
            assert await asyncio.wait_for(host.presence(
                table.pk, services.connect, table_id=table.pk, channel_name="carol.1",
                user=carol, bot=None), 5) is False
            assert await sync(Connection.objects.filter(channel_name="carol.1").exists,
                              thread_sensitive=False)()
            assert await asyncio.wait_for(host.presence(
                table.pk, services.disconnect, channel_name="carol.1"), 5) is False
        finally:
            held.set()
            await blocker
        assert not await sync(Connection.objects.filter(channel_name="carol.1").exists)()
        assert await sync(lambda: Table.objects.get(pk=table.pk).version)() == version

        await host.presence(table.pk, services.connect, table_id=table.pk,
                            channel_name="alice.1", user=alice, bot=None)
        assert await host.presence(table.pk, services.disconnect, channel_name="alice.1")
        seat = await sync(lambda: Seat.objects.get(table=table, number=0))()
        assert seat.disconnected_at is not None and seat.sat_out_by_disconnect


def _without_clock(data: Any) -> Any:
    """A snapshot without its clock readings (``time_left``: read at each build)."""
    if isinstance(data, dict):
        return {k: _without_clock(v) for k, v in data.items() if k != "time_left"}
    if isinstance(data, list):
        return [_without_clock(v) for v in data]
    return data


async def test_a_live_tables_snapshot_is_built_from_its_copy_as_the_database_gives_it(
        alice: Any, bob: Any, root: Any, settings: Any) -> None:
    """At the owner a snapshot comes from the live copy once everything of it is
    committed: for each viewer (each player, a superuser who sees everything, a
    guest) exactly what the database's snapshot gives, at the last committed version."""
    from tables import selectors
    from tables.consumers import Guest

    settings.TABLES = {**settings.TABLES, "OWNER_COMMIT_MS": 300}  # (commits wait)
    table = (await sync(tables_with_players)(1, alice, bob))[0]
    await sync(services.chat)(table_id=table.pk, user=alice, text="good luck")
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        user = await sync(whose_turn)(table.pk, alice, bob)
        version = await host.command(table.pk, user, None, await sync(act_command)(table.pk))
        for viewer in (alice, bob, root, Guest()):
            built = await host.snapshot(table.pk, viewer, None)
            read = await sync(selectors.snapshot)(table.pk, viewer, None)
            assert built is not None and built["version"] == read["version"] == version
            assert _without_clock(built) == _without_clock(read)
        mine = await host.snapshot(table.pk, alice, None)
        assert mine["you"]["seats"] == [0] and mine["chat"][0]["text"] == "good luck"
        hole = {p["player"]: p["cards"] for p in mine["state"]["hand"]["players"]}
        assert "?" not in hole[0] and hole[1].strip("?") == "", hole  # hers, not his
        # A change not committed yet is never in a snapshot: it waits for the commit
        # (due a window after the last one began), and then the database holds it.
        user = await sync(whose_turn)(table.pk, alice, bob)
        command = await sync(act_command)(table.pk)
        acting = asyncio.ensure_future(host.command(table.pk, user, None, command))
        await asyncio.sleep(0)
        assert live.dirty  # (applied in memory, not committed)
        built = await host.snapshot(table.pk, bob, None)
        stored = await sync(lambda: Table.objects.get(pk=table.pk).version)()
        assert built is not None and built["version"] == stored == await acting


async def test_a_silent_connection_of_a_player_connected_again_is_swept_without_holding_the_table(
        alice: Any, bob: Any) -> None:
    """After a takeover the survivor sweeps the dead process's connections, whose
    players reconnected meanwhile: such a sweep changes nothing at the table, so it
    deletes the row beside the table's commands (the live copy stays, no version
    moves, the seat stays connected), and never a connection heard from since."""
    from tables.models import Connection, Seat

    (table,) = await sync(tables_with_players)(1, alice, bob)
    async with running(owner.Host()) as host:
        live = await host.live(table.pk)
        assert live is not None
        await host.committed(live)
        for name in ("dead.1", "again.1"):
            await sync(services.connect)(table_id=table.pk, channel_name=name, user=alice)
        await sync(lambda: Connection.objects.filter(channel_name="dead.1").update(
            last_seen=timezone.now() - timedelta(hours=1)))()
        before = await sync(lambda: Table.objects.get(pk=table.pk).version)()
        held = host.generation[table.pk]  # (+1 for each transaction of its own)
        assert await host.sweep() == 1
        assert host.generation[table.pk] == held  # the table's commands never waited
        names = await sync(lambda: set(Connection.objects.filter(table=table).values_list(
            "channel_name", flat=True)))()
        assert "dead.1" not in names and "again.1" in names
        assert await sync(lambda: Seat.objects.get(table=table, number=0).disconnected_at)() \
            is None
        assert host.lives[table.pk] is live and not live.dead
        assert await sync(lambda: Table.objects.get(pk=table.pk).version)() == before
        # A heartbeat written after the sweep listed it wins: the row stays.
        silent_since = timezone.now() - timedelta(seconds=12)
        assert await sync(services.disconnect_quietly)(
            channel_name="again.1", silent_since=silent_since) is None  # (its last one)
        await sync(services.connect)(table_id=table.pk, channel_name="again.2", user=alice)
        assert await sync(services.disconnect_quietly)(
            channel_name="again.1", silent_since=silent_since) is False
        assert await sync(Connection.objects.filter(channel_name="again.1").exists)()


async def test_two_connections_of_a_player_going_at_once_never_both_go_quietly(
        alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each sees the other at first; the rows are locked in order, so the second to
    get them finds itself the last connection and goes the long way (the player is
    sat out), instead of both going quietly and leaving the seat uncontrolled."""
    await sync(_two_going_at_once)(alice, bob, monkeypatch)


def _two_going_at_once(alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.db import close_old_connections

    from tables.models import Connection

    (table,) = tables_with_players(1, alice, bob)
    for name in ("two.1", "two.2"):
        services.connect(table_id=table.pk, channel_name=name, user=alice)
    both = threading.Barrier(2, timeout=10)
    key_share = services._key_share

    def meet(table_id: int) -> Any:  # both hold the table's key share, then go on
        status = key_share(table_id)
        both.wait()
        return status

    monkeypatch.setattr(services, "_key_share", meet)
    answers: dict[str, Any] = {}

    def go(name: str) -> None:
        try:
            answers[name] = services.disconnect_quietly(channel_name=name)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=go, args=(n,)) for n in ("two.1", "two.2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert sorted(answers.values(), key=str) == [False, None], answers
    left = [n for n, answer in answers.items() if answer is None]
    assert list(Connection.objects.values_list("channel_name", flat=True)) == left
