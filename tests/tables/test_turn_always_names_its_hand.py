"""A turn always names its hand: whenever somebody is to act, the table points at the
running hand and every ``your_turn`` carries that hand's integer id.

Regression/property test for ``your_turn`` messages with ``"hand": null`` seen under
load at 6-max tables. Random 6-max play through the service layer only (no servers):
mostly check/call, some min-raises, folds to a bet, show/muck, turns left to the turn
timer (``fire_due_timers`` with the clock moved on), sit-out/sit-in/wait-for-BB,
leaving and sitting down again, adding chips, disconnects/reconnects and the presence
sweep, house bots (rebuys) and a short-stacked table where all-in blinds end several
hands inside one command. After every step, for every table:

* ``to_act_seat`` is not None  =>  ``current_hand_id`` is not None and names the Hand
  row of this table with the engine's current hand number, not yet ended;
* every ``your_turn`` published (after the commit) has an integer ``hand`` that is
  the table's running hand, and every ``events`` message with a ``turn`` names it too;
* the actor's snapshot (``selectors.snapshot``) carries a ``your_turn`` with the hand.

That random play passes: in one thread the runtime has no such path (hands ending and
starting in any order, timeouts, sit-outs, leaving, rebuys, several hands per command).
The ``postgres`` tests at the end reproduce the real cause: two commands for one
table at once, the second waiting for the table row lock (see the comment there).
"""

from __future__ import annotations

import random
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Player, PlayerKind, Role
from engine.registry import get_game
from tables import fanout, selectors, services
from tables.errors import TableError
from tables.models import Hand, Table
from tests.conftest import _make_user

from .helpers import assert_chips_conserved, sit, turn

STEPS = 1500  # about 10 s on SQLite
GAME = get_game("holdem")


def _policy(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Like the load bots: mostly check/call, 8 % min-raises, 10 % folds to a bet."""
    if legal["can_show"]:
        return {"kind": rng.choice(["show", "muck", "muck"])}
    roll = rng.random()
    if roll < 0.08 and legal["sized_kind"]:
        return {"kind": legal["sized_kind"], "amount": legal["min_raise_to"]}
    if legal["call_amount"]:
        return {"kind": "fold"} if roll < 0.18 else {"kind": "call"}
    return {"kind": "check"}


class Checker:
    """Collects every published batch and checks the invariant after each step."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.log: list[str] = []
        self.turns_seen = 0
        self.snapshots_with_turn = 0

    def fail(self, why: str) -> None:
        recent = "\n  ".join(self.log[-25:])
        pytest.fail(f"{why}\nlast steps:\n  {recent}")

    def check_tables(self, tables: list[Any]) -> None:
        for table in Table.objects.filter(pk__in=[t.pk for t in tables]):
            state = GAME.load(table.state)
            engine_seat = next(iter(GAME.status(state).to_act), None)
            if engine_seat != table.to_act_seat:
                self.fail(f"table {table.pk}: to_act_seat {table.to_act_seat} but the "
                          f"engine says {engine_seat}")
            if table.to_act_seat is None:
                continue
            if table.current_hand_id is None:
                self.fail(f"table {table.pk}: seat {table.to_act_seat} to act in hand "
                          f"#{state.hand_number} but current_hand is None "
                          f"(version {table.version})")
            hand = Hand.objects.filter(pk=table.current_hand_id).first()
            if (hand is None or hand.table_id != table.pk or hand.ended_at is not None
                    or hand.number != state.hand_number):
                self.fail(f"table {table.pk}: current_hand {table.current_hand_id} is not "
                          f"the running hand #{state.hand_number}: {hand and vars(hand)}")

    def check_sent(self) -> None:
        for group, message in self.sent:
            kind = message.get("type")
            if kind == "your_turn":
                self.turns_seen += 1
                self._check_turn(group, message, message["table"])
            elif kind == "events" and message.get("turn") is not None:
                hand = message["turn"].get("hand")
                if type(hand) is not int:
                    self.fail(f"{group}: events v{message['version']} with turn "
                              f"{message['turn']} names no hand")
        self.sent.clear()

    def _check_turn(self, where: str, message: dict[str, Any], table_id: int) -> None:
        hand = message.get("hand")
        if type(hand) is not int:
            self.fail(f"{where}: your_turn with hand={hand!r}: {message}")
        row = Hand.objects.filter(pk=hand).first()
        if row is None or row.table_id != table_id:
            self.fail(f"{where}: your_turn names hand {hand}, not one of table {table_id}")
        if message["view"].get("hand_number") not in (None, row.number):
            self.fail(f"{where}: your_turn names hand {hand} (#{row.number}) but its view "
                      f"is of hand #{message['view']['hand_number']}")

    def check_snapshot(self, table: Any, owners: dict[int, Any]) -> None:
        row = Table.objects.get(pk=table.pk)
        if row.to_act_seat is None:
            return
        state = GAME.load(row.state)
        occupant = state.seats[row.to_act_seat]
        owner = owners[int(occupant.player_id)]
        snap = selectors.snapshot(table.pk, owner)
        if snap["your_turn"] is None:
            return  # e.g. the owner controls the seat through a bot connection only
        self.snapshots_with_turn += 1
        self._check_turn(f"snapshot of table {table.pk}", snap["your_turn"], table.pk)
        if snap["hand"] != snap["your_turn"]["hand"]:
            self.fail(f"snapshot hand {snap['hand']} != its your_turn hand")


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1])
def test_every_turn_names_its_running_hand(
        seed: int, bob: Any, monkeypatch: pytest.MonkeyPatch,
        django_capture_on_commit_callbacks: Any) -> None:
    rng = random.Random(seed)
    deck_rng = random.Random(seed * 7919)
    # Reproducible decks (the runtime draws them from tables.runtime.chance_rng()).
    monkeypatch.setattr("tables.runtime.chance_rng", lambda: deck_rng)
    checker = Checker()
    monkeypatch.setattr(fanout, "publish", lambda batch: checker.sent.extend(batch))

    users = [_make_user(f"p{i}", Role.PLAYER) for i in range(8)]
    house = [Player.objects.create(owner=bob, name=f"House{i}", kind=PlayerKind.BOT,
                                   house_strategy=strategy)
             for i, strategy in enumerate(["calling_station", "shove"])]
    owners = {p.pk: p.owner for p in Player.objects.select_related("owner")}
    player_of = {user.pk: user.players.get().pk for user in users}
    tables = [
        services.create_table(creator=users[0], name="Six", turn_seconds=20, settings={
            "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6}),
        services.create_table(creator=users[0], name="Six bots", turn_seconds=20, settings={
            "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6}),
        # Stacks of a few big blinds: all-in blinds, hands that end as they are dealt,
        # several hands in one command, busts.
        services.create_table(creator=users[0], name="Six short", turn_seconds=20, settings={
            "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6,
            "min_buy_in": 2, "max_buy_in": 8}),
    ]
    now = timezone.now()
    counts = {"ok": 0, "refused": 0, "timeouts": 0, "house": 0}

    def run(label: str, call: Any, **kwargs: Any) -> Any:
        checker.log.append(label)
        try:
            with django_capture_on_commit_callbacks(execute=True):
                result = call(**kwargs)
            counts["ok"] += 1
            return result
        except TableError as error:
            checker.log[-1] += f" -> {error.code}"
            counts["refused"] += 1
            return None

    def command(table: Any, user: Any, **data: Any) -> Any:
        return run(f"t{table.pk} {user.username} {data}", services.execute,
                   table_id=table.pk, user=user, command=data, now=now)

    def buy_in(table: Any) -> int:
        low, high = table.min_buy_in, table.max_buy_in or 10 * table.min_buy_in
        return rng.choice([low, high, rng.randint(low, high)])

    # Fill the tables: six humans at two, four humans and both house bots at one.
    for table in tables:
        seats = list(range(6))
        for seat in seats[: 4 if table.name == "Six bots" else 6]:
            command(table, users[seat], type="sit", seat=seat, buy_in=buy_in(table))
    for seat, bot in zip((4, 5), house, strict=True):
        command(tables[1], bob, type="sit", seat=seat, buy_in=200, player=bot.pk)
    checker.check_tables(tables)
    checker.check_sent()

    for step in range(STEPS):
        table = rng.choice(tables)
        row = Table.objects.get(pk=table.pk)
        state = GAME.load(row.state)
        seated = {int(s.player_id): n for n, s in enumerate(state.seats) if s is not None}
        humans = [u for u in users if player_of[u.pk] in seated]
        roll = rng.random()
        if roll < 0.55:
            seat = row.to_act_seat
            if seat is not None:
                player = int(state.seats[seat].player_id)
                if player in {b.pk for b in house}:
                    checker.log.append(f"t{table.pk} house bots")
                    with django_capture_on_commit_callbacks(execute=True):
                        counts["house"] += services.run_house_bots(now)
                else:
                    legal = GAME.legal_actions(state, seat)
                    command(table, owners[player], type="act", hand=row.current_hand_id,
                            version=row.decision_version, action=_policy(legal, rng))
        elif roll < 0.67:  # nobody answers: the turn timer fires
            now += timedelta(seconds=rng.choice([6, 21]))
            checker.log.append(f"clock +, fire_due_timers({now.time()})")
            with django_capture_on_commit_callbacks(execute=True):
                counts["timeouts"] += services.fire_due_timers(now)
        elif roll < 0.75:  # sit down (again), sometimes waiting for the big blind
            free = [n for n, s in enumerate(state.seats) if s is None]
            if free:
                if rng.random() < 0.2:
                    bot = rng.choice(house)
                    command(table, bob, type="sit", seat=rng.choice(free), buy_in=buy_in(table),
                            player=bot.pk)
                else:
                    user = rng.choice(users)
                    command(table, user, type="sit", seat=rng.choice(free),
                            buy_in=buy_in(table), wait_for_bb=rng.random() < 0.3)
        elif roll < 0.83 and humans:
            user = rng.choice(humans)
            kind = rng.choice(["sit_out", "sit_in", "sit_in", "wait_for_bb"])
            command(table, user, type=kind)
        elif roll < 0.88 and seated:
            if rng.random() < 0.2:  # a tester stands a house bot up
                seat = rng.choice(list(seated.values()))
                command(table, bob, type="leave", seat=seat)
            elif humans:
                command(table, rng.choice(humans), type="leave")
        elif roll < 0.91 and humans:
            command(table, rng.choice(humans), type="add_chips",
                    amount=rng.choice([2, 10, 50]))
        elif roll < 0.96:
            user = rng.choice(users)
            name = f"t{table.pk}-{user.username}-{rng.randrange(2)}"
            if rng.random() < 0.5:
                run(f"connect {name}", services.connect, table_id=table.pk,
                    channel_name=name, user=user, now=now)
            else:
                run(f"disconnect {name}", services.disconnect, channel_name=name, now=now)
        elif roll < 0.97:
            now += timedelta(minutes=rng.choice([1, 11]))
            run(f"sweep_presence({now.time()})", services.sweep_presence, now=now)
        else:
            checker.log.append("house bots")
            with django_capture_on_commit_callbacks(execute=True):
                counts["house"] += services.run_house_bots(now)
        checker.check_sent()
        checker.check_tables(tables)
        if step % 5 == 0:
            checker.check_snapshot(table, owners)
    assert_chips_conserved()
    finished = Hand.objects.filter(ended_at__isnull=False).count()
    print(f"seed {seed}: {finished} hands, {checker.turns_seen} your_turn, "
          f"{checker.snapshots_with_turn} snapshots with a turn, {counts}")
    assert finished > 100 and checker.turns_seen > 300 and counts["timeouts"] > 20


# ------------------------------------------------------------------ PostgreSQL
#
# The random play above runs in one thread, and on SQLite a writer takes the database
# lock at BEGIN (IMMEDIATE), so a command always reads the latest table. On PostgreSQL
# (READ COMMITTED) a command that has to *wait* for the table row lock is different.
# ``locked_table`` used to read the running hand in the same statement as it locked the
# table (``select_related("current_hand")`` + ``FOR UPDATE OF "tables_table"``); it now
# reads it in a statement of its own after the lock (tables/rowsql.py). When the lock
# is released, PostgreSQL re-reads only the locked table row (the lock holder's new
# version) and re-checks the join against the hand row of the statement's *old*
# snapshot. If the holder dealt a new hand, that old row does not match the new
# ``current_hand_id``: the LEFT JOIN yields NULLs, Django caches ``current_hand = None``,
# ``TableRun.hand_row`` is None while the new hand runs, and ``finish()`` stores
# ``current_hand = NULL`` with a seat to act: ``your_turn`` with ``"hand": null``, every
# action refused, the hand's events and its end never archived. If the holder only
# played on in the same hand, the waiter gets that hand's stale ``events`` and writes
# them back, dropping the holder's events from the stored log. These tests keep it so.

def _conninfo() -> str:
    s = connection.settings_dict
    return " ".join(f"{key}={value}" for key, value in (
        ("dbname", s["NAME"]), ("user", s.get("USER")), ("password", s.get("PASSWORD")),
        ("host", s.get("HOST") or "127.0.0.1"), ("port", s.get("PORT") or 5432)) if value)


def _wait_until_someone_waits_for_a_lock(timeout: float = 10.0) -> None:
    import psycopg

    with psycopg.connect(_conninfo(), autocommit=True) as probe:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            row = probe.execute("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a "
                                "USING (pid) WHERE NOT l.granted "
                                "AND a.datname = current_database()").fetchone()
            if row and row[0]:
                return
            time.sleep(0.02)
    pytest.fail("the second command never waited for the table lock")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("holder_deals_a_new_hand", [True, False])
def test_a_command_that_waited_for_the_table_lock_sees_the_running_hand(
        holder_deals_a_new_hand: bool, alice: Any, bob: Any, carol: Any, dave: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The acting command holds the lock (its transaction kept open) while another
    client's command arrives and waits; then the first commits."""
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(fanout, "publish", lambda batch: sent.extend(batch))
    table = services.create_table(creator=alice, name="Race", turn_seconds=20, settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6})
    users = {0: alice, 1: bob, 2: carol, 3: dave}
    for seat, user in users.items():
        sit(table, user, seat, buy_in=100)
        services.execute(table_id=table.pk, user=user,  # asked to show or muck
                         command={"type": "skip_formalities", "on": False})
    if holder_deals_a_new_hand:  # fold round to the big blind, whose muck ends the hand
        while not turn(table.pk)[3]["can_show"]:
            seat, hand, version, _ = turn(table.pk)
            services.execute(table_id=table.pk, user=users[seat], command={
                "type": "act", "hand": hand, "version": version, "action": {"kind": "fold"}})
    seat, hand, version, legal = turn(table.pk)
    action = ({"kind": "muck"} if legal["can_show"] else
              {"kind": "call"} if legal["call_amount"] else {"kind": "check"})
    other = users[(seat + 1) % 4]
    errors: list[BaseException] = []

    def waiter() -> None:  # another client's command arrives while the table is locked
        try:
            services.execute(table_id=table.pk, user=other,
                             command={"type": "add_chips", "amount": 10})
        except BaseException as error:  # reported to the main thread
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=waiter)
    with transaction.atomic():  # the acting command; its row lock lasts until the commit
        services.execute(table_id=table.pk, user=users[seat], command={
            "type": "act", "hand": hand, "version": version, "action": action})
        locked = Table.objects.get(pk=table.pk)
        running = locked.current_hand_id
        logged = list(Hand.objects.get(pk=running).events)
        assert (running != hand) is holder_deals_a_new_hand
        thread.start()
        _wait_until_someone_waits_for_a_lock()
    thread.join(timeout=30)
    assert not errors, errors

    after = Table.objects.get(pk=table.pk)
    stored = Hand.objects.get(pk=running).events
    snap = selectors.snapshot(table.pk, users[after.to_act_seat])
    # The symptom first: nobody answers, the turn timer fires, the next turn is sent.
    sent.clear()
    assert services.fire_due_timers(after.deadline + timedelta(seconds=1)) == 1
    turns = [message for _group, message in sent if message.get("type") == "your_turn"]
    assert turns, "the timeout began no new turn"
    for message in turns:
        assert message["hand"] == running, f"your_turn with hand={message['hand']!r}"
    # The cause.
    assert after.to_act_seat is not None
    assert after.current_hand_id == running, (
        f"seat {after.to_act_seat} to act, but current_hand is {after.current_hand_id} "
        f"instead of the running hand {running}")
    assert snap["your_turn"] is not None and snap["your_turn"]["hand"] == running
    assert stored[:len(logged)] == logged, "the waiting command dropped the holder's events"
    assert stored[-1]["type"] in {"ChipsPending", "ChipsAdded"}  # the waiter's own event
