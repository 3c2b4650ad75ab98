"""One locked table for the length of one transaction: the single writer.

:func:`locked_table` opens a transaction, locks the table row, loads the game
state and yields a :class:`TableRun`. Services change the state through it
(``run.engine(...)`` wraps every game call), then :meth:`TableRun.finish`
archives finished rounds, starts the next one, books money, mirrors the seats,
sets the stored turn deadline, bumps the version and registers the fan-out for
after the commit. Any exception rolls everything back.

The runtime knows games only through the contract (:mod:`engine.game`): it
reads platform events (a round started or ended, a buy-in or cash-out, the game
ended), :meth:`~engine.game.Game.status` and :meth:`~engine.game.Game.seats`.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import services as ledger
from accounts.errors import AccountsError
from accounts.models import Player
from engine.errors import EngineError
from engine.game import (
    BuyIn,
    CashOut,
    Event,
    GameEnded,
    RoundEnded,
    RoundStarted,
    SeatInfo,
    SeatTaken,
    Status,
    Viewer,
)
from engine.registry import Game, get_game

from . import fanout, handlog, rowsql
from .errors import TableError
from .models import Hand, HandPlayer, HandStep, Seat, SeatState, Standing, Table, TableStatus

Json = dict[str, Any]
# The columns a command may change; the rest of the row (name, settings, …) is not
# rewritten on every action.
RUNTIME_FIELDS = ("state", "replay_from", "version", "current_hand", "to_act_seat",
                  "decision_version", "decision_key", "deadline", "bot_due", "status",
                  "closed_at", "standings")
MAX_ROUNDS_PER_COMMAND = 20  # rounds that end at once (all-in blinds) before anyone acts
SPECTATOR = Viewer.spectator()
# Columns of the running round that a command never reads (written once, or at the end).
HAND_DEFER = ("start_state", "chance", "record")


def conf(name: str) -> Any:
    return settings.TABLES[name]


def owner_runtime() -> bool:
    """Whether live tables are owned by one process each (tables.owner.enabled)."""
    from . import owner

    return owner.enabled()


def rules_digest(game: str, settings_json: Json) -> str:
    """Tables with the same game and settings share a leaderboard."""
    text = json.dumps({"game": game, "settings": settings_json}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


@contextmanager
def locked_table(table_id: int, *, skip_locked: bool = False,
                 now: datetime | None = None) -> Iterator[TableRun | None]:
    """Lock the table for one transaction; yields ``None`` if skip_locked found it busy."""
    with transaction.atomic():
        table = rowsql.lock_row(Table, table_id, skip_locked=skip_locked)
        if table is None:
            if skip_locked:
                yield None
                return
            raise TableError("table_not_found", f"There is no table {table_id}.")
        # The running round, in a statement of its own after the lock (never joined into
        # the locking query: tests/tables/test_turn_always_names_its_hand.py).
        if table.current_hand_id is not None:  # (what only a replay reads stays behind)
            table.current_hand = rowsql.get_row(Hand, table.current_hand_id, HAND_DEFER)
        yield TableRun(table, now or timezone.now())


class PooledSystemRandom(random.SystemRandom):
    """The operating system's randomness (as ``secrets.SystemRandom``) read 256 bytes at
    a time: a shuffle asks for one number per card, each its own system call there."""

    def __init__(self) -> None:
        super().__init__()
        self._pool, self._at = b"", 0

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        n = (k + 7) // 8
        if self._at + n > len(self._pool):
            self._pool, self._at = os.urandom(max(256, n)), 0
        chunk = self._pool[self._at:self._at + n]
        self._at += n
        return int.from_bytes(chunk, "big") >> (8 * n - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0 ** -53

    def randbytes(self, n: int) -> bytes:
        return self.getrandbits(8 * n).to_bytes(n, "big") if n else b""


def chance_rng() -> random.Random:
    """Where a round's chance is drawn from (tests replace it with a seeded one)."""
    return PooledSystemRandom()


class NeedsTransaction(Exception):
    """Raised on a live table (write-behind) by a command that must run in its own
    transaction: the owner flushes, drops its copy and runs the command classically."""


class TableRun:
    """The loaded table inside its transaction; collects events for the fan-out."""

    def __init__(self, table: Table, now: datetime) -> None:
        self.table = table
        self.now = now
        self.game: Game = get_game(table.game)
        # Its round's logs merged from their steps: written whole with this command.
        self._logs_merged = table.replay_from is not None
        self.state: Any = handlog.current_state(self.game, table)
        self.events: list[Event | Json] = []
        self.hand_row: Hand | None = table.current_hand
        self._status_loaded = table.status
        self._players: dict[str, Player] = {}
        self._house: dict[str, str] | None = None
        self._cash_outs: list[tuple[str, int, int | None]] = []
        self._buy_ins: list[tuple[str, int, bool]] = []
        self._seated_now: set[str] = set()
        self._hidden_changed = False  # the round's hidden-event list needs writing
        self._policy_added = False  # the round's policies need writing
        self._seat_written = False  # a Seat row changed by the command (write_seat)
        self._seat_rows_loaded: dict[int, Seat] | None = None
        self._seats_at_load = self._seat_signature()
        # The owner of a live table (tables.owner) keeps this run between commands and
        # collects its writes instead of making them (write-behind): ``sink`` is then
        # its :class:`tables.owner.Live`. ``None``: every write now, in the transaction.
        self.sink: Any = None
        self.engine_calls = 0  # game calls the current command made (that succeeded)

    @property
    def touched(self) -> bool:
        """Whether the current command changed anything yet (a game call that
        succeeded, an event, a policy kept, a Seat row written): a live copy is dropped
        if it then fails."""
        return bool(self.engine_calls or self.events or self._policy_added
                    or self._seat_written)

    def next_command(self, now: datetime) -> None:
        """Start another command on the same loaded table (the owner's live copy)."""
        self.now = now
        self.events = []
        self._status_loaded = self.table.status
        self._cash_outs, self._buy_ins, self._seated_now = [], [], set()
        self._hidden_changed = self._policy_added = self._seat_written = False
        self._seats_at_load = self._seat_signature()
        self.engine_calls = 0

    def _write(self, row: Any, fields: tuple[str, ...]) -> None:
        """``UPDATE`` these fields of ``row`` now, or (live table) with the next group commit."""
        if self.sink is None:
            rowsql.update_row(row, fields)
        else:
            self.sink.write(row, fields)

    def _classic(self, why: str) -> None:
        """A live table's command that needs the whole transaction (money, seats that
        appear or go, a game that ends): the owner runs it again the classic way."""
        if self.sink is not None:
            raise NeedsTransaction(why)

    # ------------------------------------------------------------ queries
    @property
    def seats(self) -> list[SeatInfo | None]:
        """Who sits where, as the game says now."""
        return self.game.seats(self.state)

    def status(self) -> Status:
        return self.game.status(self.state)

    def player(self, player_id: str) -> Player:
        if player_id not in self._players:
            # One query for everyone seated (not one per seat): archiving a round and
            # checking who controls which seat need them all.
            for player in Player.objects.select_related("owner").filter(
                    pk__in=self._seated_and(player_id)):
                self._players.setdefault(str(player.pk), player)
            if player_id not in self._players:
                raise Player.DoesNotExist(f"no player {player_id}")
        return self._players[player_id]

    def player_cache(self, player: Player) -> None:
        self._players[str(player.pk)] = player

    def _seated_and(self, player_id: str) -> list[int]:
        """Everyone seated plus ``player_id``: one query answers for the whole table."""
        wanted = {int(s.player_id) for s in self.seats if s is not None}
        wanted.add(int(player_id))
        return sorted(wanted)

    def house_strategy(self, player_id: str) -> str:
        """The player's house-bot strategy ("" for people and remote bots). Every action
        asks (is the next player to act a house bot?): one plain column for everyone
        seated, not the Player rows with their owners."""
        if player_id in self._players:
            return self._players[player_id].house_strategy
        if self._house is None or player_id not in self._house:
            self._house = {str(pk): strategy for pk, strategy in rowsql.column_by_pk(
                Player, "house_strategy", self._seated_and(player_id)).items()}
        if player_id not in self._house:
            raise Player.DoesNotExist(f"no player {player_id}")
        return self._house[player_id]

    @property
    def _seat_rows(self) -> dict[int, Seat]:
        """The table's Seat rows, read when first needed (most actions never need them)."""
        if self._seat_rows_loaded is None:
            self._seat_rows_loaded = {s.number: s for s in self.table.seats.all()}
        return self._seat_rows_loaded

    def _seat_signature(self) -> tuple[Any, ...]:
        """What the Seat rows mirror of the game's seats."""
        return tuple(None if o is None else (o.player_id, o.chips, o.status)
                     for o in self.seats)

    def seat_row(self, number: int) -> Seat | None:
        return self._seat_rows.get(number)

    def controlled_seats(self, user: Any, bot: Player | None) -> list[int]:
        """Seats this connection may act for: the bot itself, or the user's own players."""
        out = []
        for number, occupant in enumerate(self.seats):
            if occupant is None:
                continue
            if bot is not None:
                if occupant.player_id == str(bot.pk):
                    out.append(number)
            elif self.player(occupant.player_id).owner_id == user.pk:
                out.append(number)
        return out

    def plays(self, seat: int, user: Any, bot: Player | None) -> bool:
        """Whether the connection of ``user``/``bot`` controls ``seat``, from memory only
        (no query: False if the seat's player is not loaded yet)."""
        occupant = self.seats[seat] if 0 <= seat < len(self.seats) else None
        if occupant is None:
            return False
        if bot is not None:
            return occupant.player_id == str(bot.pk)
        player = self._players.get(occupant.player_id)
        return player is not None and player.owner_id == getattr(user, "pk", None)

    # ------------------------------------------------------------ changes
    def engine(self, call: Callable[..., list[Event]], *args: Any) -> list[Event]:
        """Run one game call; its events are recorded (round log, money, results)."""
        try:
            events = call(self.state, *args)
        except EngineError as error:  # (the game changed nothing: its contract)
            raise TableError.from_engine(error) from None
        self.engine_calls += 1
        if self.hand_row is not None:  # the round's replay log
            self.hand_row.calls.append([call.__name__, *args])
        self.record(events)
        return events

    def policy(self, seat: int, policy: list[Json] | None, reason: str | None = None) -> None:
        """Keep a bot's stated probabilities (and its ``reason``, if it gave one) for the
        game call about to be made."""
        if self.hand_row is not None:
            entry: Json = {"call": len(self.hand_row.calls), "seat": seat, "policy": policy}
            if reason is not None:
                entry["reason"] = reason
            self.hand_row.policies.append(entry)
            self._policy_added = True

    def record(self, events: list[Event] | list[Event | Json]) -> None:
        for event in events:
            self.events.append(event)
            row = self.hand_row
            if row is not None:
                if isinstance(event, dict):
                    row.events.append(event)
                else:
                    row.events.append(event.to_json())
                    audience = event.audience
                    if audience is not None:  # stored with its public form (maybe none)
                        row.hidden.append([len(row.events) - 1, audience,
                                           self.game.project_event(event, SPECTATOR)])
                        self._hidden_changed = True
            if isinstance(event, dict):
                continue
            if isinstance(event, RoundEnded):
                self._archive_round(event)
            elif isinstance(event, CashOut):
                hand_id = self.hand_row.pk if self.hand_row else None
                self._cash_outs.append((event.player_id, event.amount, hand_id))
            elif isinstance(event, BuyIn):
                self._buy_ins.append((event.player_id, event.amount,
                                      event.player_id in self._seated_now))
            elif isinstance(event, SeatTaken):
                self._seated_now.add(event.player_id)
            elif isinstance(event, GameEnded):
                self._end_game(event)

    def note(self, data: Json) -> None:
        """A runtime event (not from the game): public, e.g. PlayerDisconnected."""
        if self.hand_row is not None:
            self.hand_row.calls.append(["note", data])
        self.record([data])

    def _archive_round(self, ended: RoundEnded) -> None:
        """Store the finished round (V12/V24) before the next one starts. Every
        participant is kept under their own name, also one who left during it."""
        row = self.hand_row
        if row is None:
            return
        row.ended_at = self.now
        participants = list(row.participants)
        seats = list(row.seats)
        players: dict[str, Player | None] = {}
        for player_id in {*participants, *(r.player_id for r in ended.results)}:
            try:
                players[player_id] = self.player(player_id) if player_id else None
            except Player.DoesNotExist:
                players[player_id] = None
        try:
            row.record = self.game.round_record(self.state)
        except (TypeError, KeyError, ValueError, EngineError):  # export must not stop play
            row.record = {}
        fields = ("ended_at", "events", "hidden", "record", "calls")
        self._write(row, (*fields, "policies") if row.policies else fields)
        results = []
        for result in ended.results:
            player = players.get(result.player_id)
            position = seats.index(result.seat) if result.seat in seats else len(results)
            results.append(HandPlayer(
                hand=row, player=player, seat=result.seat, name=player.name if player else "",
                position=position, net=result.net, score=result.score,
                detail=result.detail, secret=result.secret))
        if self.sink is None:
            HandPlayer.objects.bulk_create(results)
            if self._logs_merged or owner_runtime():  # its steps: in its row now
                HandStep.objects.filter(hand=row).delete()
        else:
            self.sink.insert(results)
        self.hand_row = None

    def _end_game(self, ended: GameEnded) -> None:
        """A game that ends: store the standings (leaderboards), finish the table."""
        self._classic("the game ends")
        table = self.table
        rows = []
        standings = []
        try:
            rule_set = self.game.rule_set_id(table.settings)[:40]
        except (TypeError, KeyError, ValueError, AttributeError):
            rule_set = ""
        for place in ended.standings:
            try:
                player: Player | None = self.player(place.player_id)
            except Player.DoesNotExist:
                player = None
            name = player.name if player else ""
            standings.append({**place.to_json(), "name": name})
            rows.append(Standing(table=table, game=table.game, rules=table.rules, player=player,
                                 name=name, seat=place.seat, rank=place.rank,
                                 score=place.score, finished_at=self.now,
                                 rule_set=rule_set, listed=self.game.on_leaderboard(
                                     table.settings, table.seat_count, place)))
        Standing.objects.bulk_create(rows)
        table.standings = standings
        table.status, table.closed_at = TableStatus.FINISHED, self.now

    def _refill_house_bots(self) -> None:
        """Economy games: a busted house bot buys in again between rounds, so bot
        tables keep playing."""
        if not self.game.info.economy:
            return
        for number, occupant in enumerate(self.seats):
            if occupant is None or occupant.chips or occupant.leaving:
                continue
            if not self.house_strategy(occupant.player_id):
                continue
            self.engine(self.game.refill, number)

    def _start_rounds(self) -> None:
        game, state, table = self.game, self.state, self.table
        for _ in range(MAX_ROUNDS_PER_COMMAND):
            if table.status in (TableStatus.CLOSED, TableStatus.FINISHED):
                return
            if game.to_act(state):  # a round is running (the cheap question first)
                return
            status = game.status(state)
            if status.round is not None or status.over:
                return
            self._refill_house_bots()
            if not game.can_start(state):
                return
            chance = game.draw_chance(state, chance_rng())
            start_state = game.dump(state)
            try:
                events = game.start_round(state, chance)
            except EngineError as error:  # should not happen: can_start said yes
                raise TableError.from_engine(error) from None
            started = next((e for e in events if isinstance(e, RoundStarted)), None)
            if started is None:
                raise TableError("game_error", "The game started a round without saying so.")
            hand = Hand(
                table=table, number=started.number, started_at=self.now,
                button=getattr(started, "button", None), seats=list(started.seats),
                participants=list(started.player_ids), chance=chance, events=[], hidden=[],
                start_state=start_state, calls=[],
            )
            if self.sink is None:
                hand.save(force_insert=True)
            else:
                self.sink.new_hand(hand)  # its id from the owner's reserved block
            self.hand_row = hand
            if table.status == TableStatus.WAITING:
                table.status = TableStatus.RUNNING
            self.record(events)  # type: ignore[arg-type]

    def _post_ledger(self) -> None:
        if self._buy_ins or self._cash_outs:
            self._classic("money moves")
        for player_id, chips, sat in sorted(self._buy_ins):
            player = self.player(player_id)
            if sat:
                note = f"Sat at {self.table.name}"
            else:
                kind = "House bot rebuy" if player.house_strategy else "Added chips"
                note = f"{kind} at {self.table.name}"
            try:
                ledger.buy_in(player=player, chips=chips, table_id=self.table.pk, note=note)
            except AccountsError as error:  # e.g. balance_limit: the command is refused
                raise TableError(error.code, error.message) from None
        self._buy_ins = []
        for player_id, chips, hand_id in sorted(self._cash_outs):
            player = self.player(player_id)
            if player.is_deleted:
                raise TableError("player_deleted", "A deleted player cannot cash out.")
            ledger.cash_out(player=player, chips=chips, table_id=self.table.pk, hand_id=hand_id,
                            note=f"Left {self.table.name}")
        self._cash_outs = []

    def _sync_seats(self) -> bool:
        """Mirror the game's seats into Seat rows (exactly while seated).

        Returns True if somebody sat down or stood up. The rows mirrored the game's
        seats when the table was loaded (every change goes through here), so if the
        mirrored fields did not change, neither do the rows: no query at all.
        """
        seats = self.seats
        if self._seat_rows_loaded is None and self._seat_signature() == self._seats_at_load:
            return False
        rows = self._seat_rows
        if self.sink is not None and set(rows) != {n for n, o in enumerate(seats) if o}:
            self._classic("somebody sits down or stands up")
        occupancy_changed = False
        changed: list[Seat] = []
        for number, occupant in enumerate(seats):
            row = rows.get(number)
            if occupant is None:
                if row is not None:
                    row.delete()
                    del rows[number]
                    occupancy_changed = True
                continue
            if row is not None and str(row.player_id) != occupant.player_id:
                row.delete()
                row = None
            if row is None:
                occupancy_changed = True
            state = occupant.status
            if row is not None and row.disconnected_at is not None:
                state = SeatState.DISCONNECTED
            if row is None:
                rows[number] = Seat.objects.create(
                    table=self.table, number=number, player_id=int(occupant.player_id),
                    stack=occupant.chips, state=state,
                    skip_formalities=not self.player(occupant.player_id).is_bot)
            elif (row.stack, row.state) != (occupant.chips, state):
                row.stack, row.state = occupant.chips, state
                changed.append(row)
        for row in changed:  # a fixed UPDATE per row is cheaper than one bulk_update
            self._write(row, ("stack", "state"))  # (CASE … WHEN per row) to build
        return occupancy_changed

    def write_seat(self, row: Seat, fields: tuple[str, ...]) -> None:
        """A Seat row's own fields (not the presence ones, :meth:`save_seat`)."""
        self._seat_written = True
        self._write(row, fields)

    def save_seat(self, row: Seat) -> None:
        self._classic("presence")
        row.save(update_fields=["disconnected_at", "sat_out_by_disconnect", "state"])

    def to_act(self) -> tuple[int, ...]:
        """The seats that must move now (cheaper than the whole status)."""
        return self.game.to_act(self.state)

    def _decide(self) -> bool:
        """Update the stored turn: deadline and decision version. True if a new turn began."""
        table = self.table
        status = self.status()
        to_act = status.to_act
        table.to_act_seat = to_act[0] if to_act else None
        key = status.decision if to_act else ""
        if len(key) > 40:
            key = hashlib.sha256(key.encode()).hexdigest()[:40]
        if key == table.decision_key:
            return False
        table.decision_key = key
        if not to_act:
            table.decision_version = table.deadline = table.bot_due = None
            return False
        seconds = conf("SHOWDOWN_SECONDS") if status.quick else table.turn_seconds
        table.deadline = self.now + timedelta(seconds=seconds)
        table.decision_version = table.version + 1
        seats = self.seats
        house = any(self.house_strategy(seats[s].player_id)  # type: ignore[union-attr]
                    for s in to_act if seats[s] is not None)
        table.bot_due = self.now + timedelta(seconds=conf("HOUSE_BOT_DELAY")) if house else None
        return True

    def _skip_formalities(self) -> None:
        """Answer a formality (poker: show or muck) at once with the game's default move
        for a seat that skips them, so the table is not held for its short timer."""
        for _ in range(MAX_ROUNDS_PER_COMMAND):
            if not self.to_act():
                return
            status = self.status()
            if not status.quick or status.default is None:
                return
            seat = status.to_act[0]
            row = self.seat_row(seat)
            if row is None or not row.skip_formalities:
                return
            self.engine(self.game.apply, seat, dict(status.default))
            self._start_rounds()

    def finish(self, *, bump: bool = True) -> int:
        """Deal on, store everything, bump the version, publish after the commit."""
        self._start_rounds()
        self._skip_formalities()
        self._post_ledger()
        new_turn = self._decide()
        seats_changed = self._sync_seats()
        table = self.table
        table.current_hand = self.hand_row
        if self.sink is not None:  # live: written with the owner's next group commit
            table.version += 1
            batch = fanout.build_batch(self, new_turn=new_turn)
            if seats_changed or table.status != self._status_loaded:
                batch += fanout.announce_to_lobby(table.pk, table.status)
            self.sink.changed(self, batch)
            return table.version
        if self.hand_row is not None:  # (private events come only when a round deals)
            fields = ("events", "calls", "hidden") if self._hidden_changed else ("events", "calls")
            if self._policy_added:
                fields = (*fields, "policies")
            if self._logs_merged:  # (merged from its steps: the row gets them all)
                fields = handlog.LOGS
            rowsql.update_row(self.hand_row, fields)
        table.state = self.game.dump(self.state)
        if bump:
            table.version += 1
        rowsql.update_row(table, RUNTIME_FIELDS)
        if bump:
            batch = fanout.build_batch(self, new_turn=new_turn)
            if seats_changed or table.status != self._status_loaded:
                batch += fanout.announce_to_lobby(table.pk, table.status)
            transaction.on_commit(lambda: fanout.publish(batch))
        return table.version
