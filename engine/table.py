"""Between-hands table logic: seats, button, joining, sitting out, missed blinds, buy-ins.

A :class:`TableState` is the runtime's unit of state (JSON round-trips). Events
it returns use **seat numbers** in their ``player`` field (hand positions are
translated).

>>> from engine.cards import seeded_deck
>>> table = TableState(TableSettings(structure="NL", small_blind=1, big_blind=2, seats=6))
>>> _ = table.sit(0, "alice", 200); _ = table.sit(3, "bob", 200)
>>> table.can_start_hand()
True
>>> _ = table.start_hand(seeded_deck(1))
>>> table.button, table.to_act_seat  # heads-up: the button posts the small blind, acts first
(0, 0)
>>> _ = table.act(0, Action.fold())
>>> table.to_act_seat, table.legal_actions(3).can_show  # the winner may show
(3, True)
>>> _ = table.act(3, Action.muck())
>>> [seat.stack for seat in table.seats if seat]
[199, 201]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from engine.actions import Action
from engine.betting import NO_ACTIONS, STRUCTURES, LegalActions
from engine.cards import Card, format_cards
from engine.errors import IllegalAction, MalformedAction
from engine.events import (
    BuyIn,
    CashOut,
    ChipsAdded,
    ChipsPending,
    Event,
    HandEnded,
    HandStarted,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    PlayerTimedOut,
    PlayerWaitingForBB,
    relabel,
)
from engine.game import MAX_CHIPS, SeatResult
from engine.naming import game_name
from engine.poker.hand import Hand, HandSetup
from engine.poker.variants import VARIANTS, Variant
from engine.projection import Viewer, project_table

PLAYING, SITTING_OUT, WAITING_FOR_BB, NEW = "playing", "sitting_out", "waiting_for_bb", "new"
STATUSES = (PLAYING, SITTING_OUT, WAITING_FOR_BB, NEW)
TIMEOUTS_BEFORE_SIT_OUT = 2


MAX_BLIND = MAX_CHIPS // 100
"""The largest blind or ante: the default buy-ins (20 and 100 big blinds) stay within
:data:`~engine.game.MAX_CHIPS`, the largest buy-in limit."""


_BIG_BLIND_TITLE = {"blinds": "big blind", "bring_in": "small bet", "antes": "minimum bet"}
"""What ``big_blind`` is, per kind of forced bet (the settings schema's titles)."""


def _whole(name: str, value: Any, low: int = 0, high: int = MAX_CHIPS) -> int:
    if type(value) is not int or not low <= value <= high:
        raise MalformedAction("bad_settings",
                              f"{name} must be a whole number from {low} to {high}.")
    return value


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Validated table settings; buy-in limits default per the rules. Blinds and the
    ante are at most :data:`MAX_BLIND`, buy-in limits at most ``MAX_CHIPS``.

    >>> TableSettings(structure="NL", small_blind=1, big_blind=2).max_buy_in
    200
    >>> TableSettings(structure="FL", small_blind=1, big_blind=2).max_buy_in is None
    True
    """

    structure: str = "NL"
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    seats: int = 6
    min_buy_in: int = 0
    max_buy_in: int | None = 0
    variant: str = "holdem"
    bring_in: int = 0

    def __post_init__(self) -> None:
        variant = VARIANTS.get(self.variant) if isinstance(self.variant, str) else None
        if variant is None:
            raise MalformedAction("bad_settings", f"Unknown variant {self.variant!r}.")
        if self.structure not in STRUCTURES or self.structure not in variant.structures:
            raise MalformedAction("bad_settings", f"{variant.title} is not played "
                                                  f"{self.structure!r}.")
        _whole("small_blind", self.small_blind, 1, MAX_BLIND)
        _whole("big_blind", self.big_blind, 1, MAX_BLIND)
        if self.small_blind > self.big_blind:
            raise MalformedAction("bad_blinds", f"The small blind may not exceed the big "
                                  f"blind (small_blind {self.small_blind}, "
                                  f"big_blind {self.big_blind}).")
        _whole("ante", self.ante, 0, MAX_BLIND)
        if variant.forced == "bring_in":
            _whole("bring_in", self.bring_in, 1, self.big_blind)
        elif self.bring_in:
            raise MalformedAction("bad_settings", f"{variant.title} has no bring-in.")
        if not variant.min_players <= _whole("seats", self.seats) <= variant.max_players:
            raise MalformedAction("bad_settings", f"A table of {variant.title} has "
                                  f"{variant.min_players} to {variant.max_players} seats.")
        if not self.min_buy_in:
            object.__setattr__(self, "min_buy_in", 20 * self.big_blind)
        if self.max_buy_in == 0:
            default = None if self.structure == "FL" else 100 * self.big_blind
            object.__setattr__(self, "max_buy_in", default)
        _whole("min_buy_in", self.min_buy_in, 1)
        if self.max_buy_in is not None and _whole("max_buy_in", self.max_buy_in) < self.min_buy_in:
            raise MalformedAction("bad_settings", "max_buy_in is below min_buy_in.")

    @property
    def game(self) -> Variant:
        """The poker variant played."""
        return VARIANTS[self.variant]

    @property
    def name(self) -> str:
        """E.g. ``Texas Hold'em NL200 (1/2)``."""
        game = self.game
        return game_name(self.structure, self.small_blind, self.big_blind,
                         self.max_buy_in, self.ante, game.title,
                         blinds=game.forced == "blinds")

    def to_json(self) -> dict[str, Any]:
        """Plain dict (``variant`` and ``bring_in`` only where they apply: hold'em's
        settings keep their shape)."""
        data = {name: getattr(self, name) for name in _SETTINGS_FIELDS}
        if self.variant == "holdem":
            del data["variant"]
        if not self.bring_in:
            del data["bring_in"]
        return data

    def check_new_table(self) -> TableSettings:
        """The stricter rules for a table being created (not for one already stored, which
        must keep loading): blind games' small blind below the big blind, and a minimum
        buy-in of at least the big blind (stud: the small bet). Returns ``self``."""
        forced = VARIANTS[self.variant].forced
        if forced == "blinds" and self.small_blind >= self.big_blind:
            raise MalformedAction("bad_blinds", f"The small blind must be less than the big "
                                  f"blind (small_blind {self.small_blind}, "
                                  f"big_blind {self.big_blind}).")
        if self.min_buy_in < self.big_blind:
            bet = _BIG_BLIND_TITLE.get(forced, "big blind")
            raise MalformedAction("buy_in_below_big_blind", f"The minimum buy-in must be at "
                                  f"least the {bet} (min_buy_in {self.min_buy_in}, "
                                  f"big_blind {self.big_blind}).")
        return self

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableSettings:
        """Inverse of :meth:`to_json`; raises MalformedAction on unknown fields."""
        try:
            return cls(**data)
        except TypeError as error:
            raise MalformedAction("bad_settings", f"Bad table settings: {error}.") from None


@dataclass(slots=True)
class Seat:
    """One occupied seat."""

    player_id: str
    stack: int
    status: str = NEW
    missed_sb: bool = False
    missed_bb: bool = False
    timeouts: int = 0
    leaving: bool = False
    pending_chips: int = 0  # asked for during the player's hand, added when it ends

    def to_json(self) -> dict[str, Any]:
        """Plain dict."""
        return {name: getattr(self, name) for name in _SEAT_FIELDS}


# Field names, read once (``dataclasses.asdict`` deep-copies every value, and every
# group commit of a live table writes its whole state; these values are all flat).
_SETTINGS_FIELDS = tuple(f.name for f in fields(TableSettings))
_SEAT_FIELDS = tuple(f.name for f in fields(Seat))


@dataclass(slots=True)
class _Plan:
    positions: list[int] = field(default_factory=list)
    blinds: list[int] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)
    button: int = -1


class TableState:
    """A table of 2–10 seats and its current hand, if any."""

    __slots__ = ("button", "hand", "hand_number", "hand_players", "positions", "seats",
                 "settings", "settled")

    def __init__(self, settings: TableSettings) -> None:
        self.settings = settings
        self.seats: list[Seat | None] = [None] * settings.seats
        self.button: int | None = None
        self.hand: Hand | None = None
        self.positions: list[int] = []  # position -> seat for the current hand
        self.hand_players: list[str] = []  # position -> player id for the current hand
        self.hand_number = 0
        self.settled = True  # the last hand's stacks have been written back to the seats

    # ---------------------------------------------------------------- seats
    def _seat(self, seat: int) -> Seat:
        if type(seat) is not int or not 0 <= seat < len(self.seats):
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        occupant = self.seats[seat]
        if occupant is None:
            raise IllegalAction("seat_empty", f"Seat {seat} is empty.")
        return occupant

    def in_hand(self, seat: int) -> bool:
        """True if ``seat`` was dealt into the hand in progress."""
        return self.hand is not None and not self.settled and seat in self.positions

    def _add_pending(self, seat: int, occupant: Seat) -> list[Event]:
        """Chips asked for during the hand, capped by what the maximum allows now."""
        wanted, occupant.pending_chips = occupant.pending_chips, 0
        room = self.settings.max_buy_in or MAX_CHIPS
        amount = min(wanted, max(0, room - occupant.stack))
        if not amount:
            return []
        occupant.stack += amount
        return [ChipsAdded(seat, occupant.player_id, amount)]

    def _check_buy_in(self, total: int) -> None:
        """Never above the table's maximum, nor above ``MAX_CHIPS`` (also where the
        table has no maximum: fixed limit by default)."""
        most = self.settings.max_buy_in or MAX_CHIPS
        if total > most:
            raise IllegalAction("above_max_buy_in",
                                f"The most you may have at this table is {most}.")

    def sit(self, seat: int, player: str, buy_in: int, wait_for_bb: bool = False) -> list[Event]:
        """Take a free seat with ``buy_in`` chips; by default post a big blind to join."""
        if type(seat) is not int or not 0 <= seat < len(self.seats):
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        if not isinstance(player, str) or not player:
            raise MalformedAction("bad_player", "A player id must be a non-empty string.")
        if type(buy_in) is not int or buy_in <= 0:
            raise MalformedAction("bad_amount", "The buy-in must be a positive whole number.")
        if self.seats[seat] is not None:
            raise IllegalAction("seat_taken", f"Seat {seat} is taken.")
        if any(s is not None and s.player_id == player for s in self.seats):
            raise IllegalAction("already_seated", "You already have a seat at this table.")
        if buy_in < self.settings.min_buy_in:
            raise IllegalAction("below_min_buy_in",
                                f"The minimum buy-in is {self.settings.min_buy_in}.")
        self._check_buy_in(buy_in)
        self.seats[seat] = Seat(player, buy_in, WAITING_FOR_BB if wait_for_bb else NEW)
        return [PlayerSeated(seat, player, buy_in), BuyIn(seat, player, buy_in)]

    def leave(self, seat: int) -> list[Event]:
        """Leave the table. In a hand, the player is folded (now if it is their turn,
        else when it comes) and the seat is freed, with ``PlayerLeft``, when the hand ends."""
        occupant = self._seat(seat)
        if not self.in_hand(seat):
            self.seats[seat] = None
            return [PlayerLeft(seat, occupant.player_id, occupant.stack),
                    CashOut(seat, occupant.player_id, occupant.stack)]
        occupant.leaving = True
        return self._drive([])

    def sit_out(self, seat: int, reason: str = "request") -> list[Event]:
        """Stop being dealt in from the next hand (the current hand is played out);
        ``reason`` as the event tells it (``request``, or ``disconnected`` by the server)."""
        occupant = self._seat(seat)
        if occupant.status == SITTING_OUT:
            raise IllegalAction("already_sitting_out", "You are already sitting out.")
        occupant.status = SITTING_OUT
        return [PlayerSatOut(seat, reason)]

    def sit_in(self, seat: int) -> list[Event]:
        """Be dealt in again; missed blinds are posted when next dealt in."""
        occupant = self._seat(seat)
        if occupant.status != SITTING_OUT:
            raise IllegalAction("not_sitting_out", "You are not sitting out.")
        if occupant.stack == 0:
            raise IllegalAction("no_chips", "Add chips before sitting in.")
        occupant.status = PLAYING
        occupant.timeouts = 0
        return [PlayerSatIn(seat)]

    def wait_for_bb(self, seat: int) -> list[Event]:
        """A new or sitting-out player comes in only in the big blind, owing nothing more."""
        occupant = self._seat(seat)
        if occupant.status not in (NEW, SITTING_OUT):
            raise IllegalAction("already_playing",
                                "Only a new or sitting-out player can wait for the big blind.")
        if occupant.stack == 0:
            raise IllegalAction("no_chips", "Add chips before sitting in.")
        occupant.status = WAITING_FOR_BB
        occupant.timeouts = 0
        return [PlayerWaitingForBB(seat)]

    def add_chips(self, seat: int, amount: int) -> list[Event]:
        """Add chips, never above the max buy-in in total.

        Between hands (or while not in the hand) they are added at once; during the
        player's own hand they are added when it ends (``ChipsPending`` now,
        ``ChipsAdded`` then, up to the maximum at that moment).
        """
        occupant = self._seat(seat)
        if type(amount) is not int or amount <= 0:
            raise MalformedAction("bad_amount", "The amount must be a positive whole number.")
        if occupant.leaving:
            raise IllegalAction("leaving", "You are leaving the table.")
        if self.in_hand(seat):
            self._check_buy_in(occupant.stack + occupant.pending_chips + amount)
            occupant.pending_chips += amount
            return [ChipsPending(seat, amount)]
        self._check_buy_in(occupant.stack + amount)
        occupant.stack += amount
        return [ChipsAdded(seat, occupant.player_id, amount)]

    # ------------------------------------------------------------- hands
    def _plan(self) -> _Plan | None:
        """Who is dealt in, who posts what, and where the button goes."""
        n_seats = len(self.seats)
        status = {i: s.status for i, s in enumerate(self.seats)
                  if s is not None and s.stack > 0 and s.status != SITTING_OUT and not s.leaving}
        if self.settings.game.forced != "blinds":  # no blinds: everyone ready is dealt in
            if len(status) < 2:
                return None
            start = -1 if self.button is None else self.button
            button = min(status, key=lambda i: (i - start - 1) % n_seats)
            dealt = sorted(status, key=lambda i: (i - button - 1) % n_seats)
            return _Plan(positions=dealt, blinds=[0] * len(dealt), dead=[0] * len(dealt),
                         button=button)
        owing = {i for i, s in enumerate(self.seats)
                 if s is not None and (s.missed_sb or s.missed_bb)}
        # Joiners (new players, returning players who owe blinds) are never the SB or button.
        established = {i for i in status if status[i] == PLAYING and i not in owing}
        fresh = len(established) < 2
        if fresh:  # (re)starting a table: everyone ready is simply dealt in
            established = {i for i in status if status[i] != WAITING_FOR_BB}
            if len(established) < 2:
                established = set(status)
        if len(established) < 2:
            return None
        start = -1 if self.button is None else self.button
        button = min(established, key=lambda i: (i - start - 1) % n_seats)
        after = sorted(status, key=lambda i: (i - button - 1) % n_seats)  # the button is last
        sb = next(i for i in after if i in established)  # a joiner here would be the SB
        dealt = [sb]
        for i in after[after.index(sb) + 1 :]:
            if i in established or len(dealt) == 1 or status[i] != WAITING_FOR_BB:
                dealt.append(i)  # the BB seat takes anyone; elsewhere new players post
        plan = _Plan(positions=dealt, button=button)
        settings = self.settings
        if len(dealt) == 2:  # heads-up: HandSetup gives the button (position 1) the SB
            plan.blinds, plan.dead = [settings.small_blind, settings.big_blind], [0, 0]
            return plan
        for position, i in enumerate(dealt):
            occupant = self.seats[i]
            assert occupant is not None
            live = dead = 0
            if position < 2:
                live = (settings.small_blind, settings.big_blind)[position]
            elif i in established:
                pass
            elif occupant.missed_bb:  # at most SB + BB: the BB live, the SB dead
                live, dead = settings.big_blind, settings.small_blind if occupant.missed_sb else 0
            elif occupant.missed_sb:  # only the SB: posted live, completed in turn
                live = settings.small_blind
            else:
                live = settings.big_blind  # a new player's big blind
            plan.blinds.append(live)
            plan.dead.append(dead)
        return plan

    def can_start_hand(self) -> bool:
        """True if no hand is running and at least two players would be dealt in."""
        return (self.hand is None or self.hand.is_over) and self._plan() is not None

    def start_hand(self, deck: Sequence[Card], reshuffle: Sequence[Card] = ()) -> list[Event]:
        """Move the button, post blinds (and missed blinds) and deal from ``deck``
        (draw games: ``reshuffle`` orders the discards if the deck runs out)."""
        if self.hand is not None and not self.hand.is_over:
            raise IllegalAction("hand_running", "A hand is already in progress.")
        plan = self._plan()
        if plan is None:
            raise IllegalAction("not_enough_players", "At least two players are needed.")
        settings = self.settings
        if settings.game.forced == "blinds":
            self._mark_missed_blinds(plan)
        setup = HandSetup(
            variant=settings.variant,
            bring_in=settings.bring_in,
            structure=settings.structure,
            stacks=tuple(self.seats[i].stack for i in plan.positions),  # type: ignore[union-attr]
            blinds=tuple(plan.blinds),
            antes=(settings.ante,) * len(plan.positions) if settings.ante else (),
            dead_blinds=tuple(plan.dead),
            min_bet=settings.big_blind,
            big_bet=2 * settings.big_blind if settings.structure == "FL" else 0,
        )
        hand, events = Hand.start(setup, deck, reshuffle)
        for i in plan.positions:
            occupant = self.seats[i]
            assert occupant is not None
            occupant.status, occupant.missed_sb, occupant.missed_bb = PLAYING, False, False
        self.hand, self.positions, self.button = hand, plan.positions, plan.button
        self.hand_players = [self.seats[i].player_id for i in plan.positions]  # type: ignore[union-attr]
        self.settled = False
        self.hand_number += 1
        started: list[Event] = [HandStarted(
            number=self.hand_number, seats=tuple(plan.positions),
            player_ids=tuple(self.hand_players), button=plan.button)]
        return self._drive(started + self._relabel(events))

    def _mark_missed_blinds(self, plan: _Plan) -> None:
        n_seats, button = len(self.seats), plan.button
        sb, bb = plan.positions[0], plan.positions[1]
        if len(plan.positions) == 2:
            sb, bb = button, plan.positions[0]
        for i, occupant in enumerate(self.seats):
            if occupant is None or occupant.status != SITTING_OUT:
                continue
            distance = (i - button) % n_seats
            if distance < (sb - button) % n_seats:
                occupant.missed_sb = True
            elif distance < (bb - button) % n_seats:
                occupant.missed_bb = True

    def _relabel(self, events: list[Event]) -> list[Event]:
        positions = self.positions
        return [relabel(e, positions.__getitem__) for e in events]

    @property
    def to_act_seat(self) -> int | None:
        """The seat whose turn it is, or ``None``."""
        if self.hand is None or self.hand.actor is None:
            return None
        return self.positions[self.hand.actor]

    def legal_actions(self, seat: int) -> LegalActions:
        """What ``seat`` may do now (nothing unless it is their turn)."""
        if seat != self.to_act_seat or self.hand is None:
            return NO_ACTIONS
        return self.hand.legal_actions()

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action; resets the seat's timeout count."""
        if self.hand is None or seat != self.to_act_seat:
            raise IllegalAction("not_your_turn", "It is not your turn to act.")
        events = self._relabel(self.hand.apply(action))
        occupant = self.seats[seat]
        if occupant is not None:
            occupant.timeouts = 0
        return self._drive(events)

    def timeout(self) -> list[Event]:
        """Play the default action for the actor; two timeouts in a row sit the seat out.

        The optional show-or-muck prompt (after an uncontested win, or for a hand that
        cannot win at showdown) is a formality: its timer running out mucks and does not
        count towards sitting out."""
        seat = self.to_act_seat
        if seat is None or self.hand is None:
            raise IllegalAction("nobody_to_act", "Nobody is to act.")
        formality = self.hand.formality
        action = self.hand.default_action()
        events: list[Event] = [PlayerTimedOut(seat, str(action))]
        events += self._relabel(self.hand.apply(action))
        occupant = self.seats[seat]
        if occupant is not None and not formality:
            occupant.timeouts += 1
            if occupant.timeouts >= TIMEOUTS_BEFORE_SIT_OUT and occupant.status != SITTING_OUT:
                occupant.status = SITTING_OUT
                events.append(PlayerSatOut(seat, "timeouts"))
        return self._drive(events)

    def _drive(self, events: list[Event]) -> list[Event]:
        """Fold for players who left; settle stacks and free seats when the hand ends."""
        hand = self.hand
        if hand is None:
            return events
        while hand.actor is not None:
            occupant = self.seats[self.positions[hand.actor]]
            if occupant is None or not occupant.leaving:
                break
            # Fold; where folding is not a choice (stud's bring-in, a draw, the showdown)
            # the default move, and the fold comes at the next betting decision.
            action = Action.fold() if hand.legal_actions().can_fold else hand.default_action()
            events += self._relabel(hand.apply(action))
        if hand.is_over and not self.settled:
            self.settled = True
            events = [self._results() if isinstance(e, HandEnded) else e for e in events]
            for position, stack in enumerate(hand.stacks):
                seat = self.positions[position]
                occupant = self.seats[seat]
                assert occupant is not None
                occupant.stack = stack
                if occupant.leaving:
                    self.seats[seat] = None
                    events += [PlayerLeft(seat, occupant.player_id, stack),
                               CashOut(seat, occupant.player_id, stack)]
                    continue
                if occupant.pending_chips:
                    events += self._add_pending(seat, occupant)
                if occupant.stack == 0:
                    occupant.status = SITTING_OUT
                    events.append(PlayerSatOut(seat, "busted"))
        return events

    def _results(self) -> HandEnded:
        """``HandEnded`` with every dealt-in seat's result (who, net, cards)."""
        hand = self.hand
        assert hand is not None and hand.results is not None
        holes = hand.hole_cards
        results = []
        stud = hand.variant.stud
        for r in hand.results:
            shown = format_cards(r.shown) if r.shown is not None else None
            detail = {"position": r.position, "starting_stack": hand.setup.stacks[r.position],
                      "won": r.won, "shown": shown, "hand": r.hand if shown else None}
            if stud:  # the up cards are public: "????7hKs..."
                detail["public"] = format_cards(
                    [c if up else None for c, up in zip(holes[r.position],
                                                        hand.up[r.position], strict=True)])
            results.append(SeatResult(
                seat=self.positions[r.position], player_id=self.hand_players[r.position],
                net=r.net, detail=detail, secret={"cards": format_cards(holes[r.position])}))
        return HandEnded(tuple(results))

    # -------------------------------------------------------------- misc
    def view(self, viewer: Viewer) -> dict[str, Any]:
        """The table as ``viewer`` (who speaks seat numbers) may see it."""
        return project_table(self, viewer)

    @property
    def name(self) -> str:
        """The game name, e.g. ``Texas Hold'em NL200 (1/2)``."""
        return self.settings.name

    def to_json(self) -> dict[str, Any]:
        """Lossless plain-JSON form (includes the deck: not for clients)."""
        return {
            "settings": self.settings.to_json(),
            "seats": [None if s is None else s.to_json() for s in self.seats],
            "button": self.button,
            "hand_number": self.hand_number,
            "positions": list(self.positions),
            "hand_players": list(self.hand_players),
            "settled": self.settled,
            "hand": None if self.hand is None else self.hand.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableState:
        """Inverse of :meth:`to_json`."""
        try:
            table = cls(TableSettings.from_json(data["settings"]))
            table.seats = [None if s is None else Seat(**s) for s in data["seats"]]
            table.button = data["button"]
            table.hand_number = data["hand_number"]
            table.positions = list(data["positions"])
            table.hand_players = list(data.get("hand_players", ()))
            if table.positions and not table.hand_players:  # stored before they were kept
                table.hand_players = [s.player_id if (s := table.seats[i]) else ""
                                      for i in table.positions]
            table.settled = data["settled"]
            table.hand = None if data["hand"] is None else Hand.from_json(data["hand"])
        except (KeyError, TypeError) as error:
            raise MalformedAction("bad_table", f"Not a stored table: {error}.") from None
        return table
