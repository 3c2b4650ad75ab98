"""One locked table for the length of one transaction: the single writer.

:func:`locked_table` opens a transaction, locks the table row, loads the engine
state and yields a :class:`TableRun`. Services change the state through it
(``run.engine(...)`` wraps every engine call), then :meth:`TableRun.finish`
archives finished hands, deals the next one, posts ledger entries, mirrors the
seats, sets the stored turn deadline, bumps the version and registers the
fan-out for after the commit. Any exception rolls everything back.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import services as ledger
from accounts.models import Player
from engine.errors import EngineError
from engine.events import ChipsAdded, Event, HandEnded, HandStarted, PlayerLeft
from engine.phh import dumps, phh_fields
from engine.registry import Game, get_game
from engine.table import NEW, SITTING_OUT, WAITING_FOR_BB

from . import fanout, rowsql
from .errors import TableError
from .models import Hand, HandPlayer, Seat, SeatState, Table, TableStatus

Json = dict[str, Any]
# The columns a command may change; the rest of the row (name, blinds, …) is not
# rewritten on every action.
RUNTIME_FIELDS = ("state", "version", "current_hand", "to_act_seat", "decision_version",
                  "decision_key", "deadline", "bot_due", "status", "closed_at")
MAX_HANDS_PER_COMMAND = 20  # hands that end at once (all-in blinds) before anyone acts

_SEAT_STATES = {NEW: SeatState.PLAYING, SITTING_OUT: SeatState.SITTING_OUT,
                WAITING_FOR_BB: SeatState.WAITING_FOR_BB}


def conf(name: str) -> Any:
    return settings.TABLES[name]


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
        # The running hand, in a statement of its own after the lock (never joined into
        # the locking query: tests/tables/test_turn_always_names_its_hand.py).
        if table.current_hand_id is not None:
            table.current_hand = rowsql.get_row(Hand, table.current_hand_id)
        yield TableRun(table, now or timezone.now())


class TableRun:
    """The loaded table inside its transaction; collects events for the fan-out."""

    def __init__(self, table: Table, now: datetime) -> None:
        self.table = table
        self.now = now
        self.game: Game = get_game(table.game)
        self.state: Any = self.game.load(table.state)
        self.events: list[Event | Json] = []
        self.hand_row: Hand | None = table.current_hand
        self._status_loaded = table.status
        self._players: dict[str, Player] = {}
        self._house: dict[str, str] | None = None
        self._cash_outs: list[tuple[str, int, int | None]] = []
        self._buy_ins: list[tuple[str, int]] = []
        self._seat_rows_loaded: dict[int, Seat] | None = None
        self._seats_at_load = self._seat_signature()

    # ------------------------------------------------------------ queries
    @property
    def seats(self) -> list[Any]:
        return list(self.state.seats)

    def player(self, player_id: str) -> Player:
        if player_id not in self._players:
            # One query for everyone seated (not one per seat): archiving a hand and
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
        wanted = {int(s.player_id) for s in self.state.seats if s is not None}
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
        """What the Seat rows mirror of the engine's seats."""
        return tuple(None if o is None else (o.player_id, o.stack, o.status)
                     for o in self.state.seats)

    def seat_row(self, number: int) -> Seat | None:
        return self._seat_rows.get(number)

    def controlled_seats(self, user: Any, bot: Player | None) -> list[int]:
        """Seats this connection may act for: the bot itself, or the user's own players."""
        out = []
        for number, occupant in enumerate(self.state.seats):
            if occupant is None:
                continue
            if bot is not None:
                if occupant.player_id == str(bot.pk):
                    out.append(number)
            elif self.player(occupant.player_id).owner_id == user.pk:
                out.append(number)
        return out

    # ------------------------------------------------------------ changes
    def engine(self, call: Callable[..., list[Event]], *args: Any) -> list[Event]:
        """Run one engine call; its events are recorded (hand log, cash-outs)."""
        try:
            events = call(self.state, *args)
        except EngineError as error:
            raise TableError.from_engine(error) from None
        self.record(events)
        return events

    def record(self, events: list[Event | Json]) -> None:
        for event in events:
            self.events.append(event)
            if self.hand_row is not None:
                self.hand_row.events.append(
                    event if isinstance(event, dict) else event.to_json())
            if isinstance(event, HandEnded):
                self._archive_hand()
            elif isinstance(event, PlayerLeft):
                hand_id = self.hand_row.pk if self.hand_row else None
                self._cash_outs.append((event.player_id, event.cash_out, hand_id))
            elif isinstance(event, ChipsAdded):  # every chip brought to the table is a buy-in
                occupant = self.state.seats[event.player]
                self._buy_ins.append((occupant.player_id, event.amount))

    def note(self, data: Json) -> None:
        """A runtime event (not from the engine): public, e.g. PlayerDisconnected."""
        self.record([data])

    def _archive_hand(self) -> None:
        """Store the finished hand (V12/V24) before the next one is dealt."""
        row, hand = self.hand_row, self.state.hand
        if row is None or hand is None:
            return
        row.ended_at = self.now
        names = {}
        for position, seat in enumerate(row.seats):
            occupant = self.state.seats[seat]
            player = self.player(occupant.player_id) if occupant is not None else None
            names[position] = player
        try:
            names_list = [names[p].name if names[p] else f"seat {s}"
                          for p, s in enumerate(row.seats)]
            fields = phh_fields(hand.setup, hand.events, hand.finishing_stacks,
                                players=names_list, table=self.table.name, hand=row.number,
                                seats=[seat + 1 for seat in row.seats],
                                seat_count=len(self.state.seats))
            row.phh = dumps(fields)
        except (TypeError, KeyError, ValueError):  # an export problem must not stop play
            row.phh = ""
        row.save()
        results = hand.results or ()
        holes = hand.hole_cards
        HandPlayer.objects.bulk_create([
            HandPlayer(
                hand=row, player=names[r.position], seat=row.seats[r.position],
                name=names[r.position].name if names[r.position] else "",
                position=r.position, starting_stack=hand.setup.stacks[r.position],
                net=r.net, hole_cards="".join(str(c) for c in holes[r.position]),
                shown=bool(hand.shown[r.position]),
            )
            for r in results
        ])
        self.hand_row = None

    def _rebuy_house_bots(self) -> None:
        """A busted house bot buys in again between hands, so bot tables keep playing."""
        state = self.state
        if state.hand is not None and not state.hand.is_over:
            return
        settings_ = state.settings
        amount = settings_.max_buy_in or 5 * settings_.min_buy_in
        for number, occupant in enumerate(state.seats):
            if occupant is None or occupant.stack or occupant.leaving:
                continue
            if not self.house_strategy(occupant.player_id):
                continue
            self.record(state.add_chips(number, amount) + state.sit_in(number))

    def _start_hands(self) -> None:
        for _ in range(MAX_HANDS_PER_COMMAND):
            if self.state.hand is not None and not self.state.hand.is_over:
                return
            self._rebuy_house_bots()
            if not self.game.can_start(self.state):
                return
            chance = self.game.draw_chance(self.state, secrets.SystemRandom())
            try:
                events = self.game.start_round(self.state, chance)
            except EngineError as error:  # should not happen: can_start said yes
                raise TableError.from_engine(error) from None
            started = next(e for e in events if isinstance(e, HandStarted))
            hand = self.state.hand
            self.hand_row = Hand.objects.create(
                table=self.table, number=started.number, started_at=self.now,
                button=started.button, seats=list(started.seats), deck=chance["deck"],
                setup=hand.setup.to_json(), events=[],
            )
            if self.table.status == TableStatus.WAITING:
                self.table.status = TableStatus.RUNNING
            self.record(events)

    def _post_ledger(self) -> None:
        for player_id, chips in sorted(self._buy_ins):
            player = self.player(player_id)
            note = ("House bot rebuy" if player.house_strategy else "Added chips")
            ledger.buy_in(player=player, chips=chips, table_id=self.table.pk,
                          note=f"{note} at {self.table.name}")
        self._buy_ins = []
        for player_id, chips, hand_id in sorted(self._cash_outs):
            player = self.player(player_id)
            if player.is_deleted:
                raise TableError("player_deleted", "A deleted player cannot cash out.")
            ledger.cash_out(player=player, chips=chips, table_id=self.table.pk, hand_id=hand_id,
                            note=f"Left {self.table.name}")
        self._cash_outs = []

    def _sync_seats(self) -> bool:
        """Mirror the engine's seats into Seat rows (exactly while seated).

        Returns True if somebody sat down or stood up. The rows mirrored the engine's
        seats when the table was loaded (every change goes through here), so if the
        mirrored fields did not change, neither do the rows: no query at all.
        """
        if self._seat_rows_loaded is None and self._seat_signature() == self._seats_at_load:
            return False
        rows = self._seat_rows
        occupancy_changed = False
        changed: list[Seat] = []
        for number, occupant in enumerate(self.state.seats):
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
            state = _SEAT_STATES.get(occupant.status, SeatState.PLAYING)
            if row is not None and row.disconnected_at is not None:
                state = SeatState.DISCONNECTED
            if row is None:
                rows[number] = Seat.objects.create(
                    table=self.table, number=number, player_id=int(occupant.player_id),
                    stack=occupant.stack, state=state)
            elif (row.stack, row.state) != (occupant.stack, state):
                row.stack, row.state = occupant.stack, state
                changed.append(row)
        for row in changed:  # a fixed UPDATE per row is cheaper than one bulk_update
            rowsql.update_row(row, ("stack", "state"))  # (CASE … WHEN per row) to build
        return occupancy_changed

    def save_seat(self, row: Seat) -> None:
        row.save(update_fields=["disconnected_at", "sat_out_by_disconnect", "state"])

    def _decide(self) -> bool:
        """Update the stored turn: deadline and decision version. True if a new turn began."""
        table, state = self.table, self.state
        seat = self.game.to_act(state)
        key = ""
        if seat is not None and state.hand is not None:
            key = f"{state.hand_number}:{len(state.hand.history)}"
        table.to_act_seat = seat
        if key == table.decision_key:
            return False
        table.decision_key = key
        if seat is None:
            table.decision_version = table.deadline = table.bot_due = None
            return False
        legal = self.game.legal_actions(state, seat)
        showing = legal.get("can_show") and not legal.get("can_fold")
        seconds = conf("SHOWDOWN_SECONDS") if showing else table.turn_seconds
        table.deadline = self.now + timedelta(seconds=seconds)
        table.decision_version = table.version + 1
        occupant = state.seats[seat]
        if self.house_strategy(occupant.player_id):
            table.bot_due = self.now + timedelta(seconds=conf("HOUSE_BOT_DELAY"))
        else:
            table.bot_due = None
        return True

    def finish(self, *, bump: bool = True) -> int:
        """Deal on, store everything, bump the version, publish after the commit."""
        self._start_hands()
        self._post_ledger()
        new_turn = self._decide()
        seats_changed = self._sync_seats()
        table = self.table
        if self.hand_row is not None:
            rowsql.update_row(self.hand_row, ("events",))
        table.current_hand = self.hand_row
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
