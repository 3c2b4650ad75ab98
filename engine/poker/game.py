"""Texas Hold'em behind the game contract.

>>> game = HoldemGame()
>>> settings = game.validate_settings({"structure": "NL", "small_blind": 1, "big_blind": 2})
>>> game.display_name(settings)
"Texas Hold'em NL200 (1/2)"
>>> state = game.create(settings)
>>> _ = game.seat(state, 0, "alice", {"buy_in": 200})
>>> _ = game.seat(state, 1, "bob", {"buy_in": 200})
>>> import random
>>> _ = game.start_round(state, game.draw_chance(state, random.Random(5)))
>>> game.status(state).to_act  # heads-up: seat 0 has the button, posts the SB, acts first
(0,)
>>> [m["kind"] for m in game.legal_moves(state, 0)]
['fold', 'call', 'raise']
>>> _ = game.apply(state, 0, {"kind": "call"})
>>> game.legal_actions(state, 1)["can_check"]
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.actions import Action
from engine.cards import HIDDEN, format_cards, parse_cards, standard_deck
from engine.errors import MalformedAction
from engine.events import Event
from engine.game import (
    Game,
    GameInfo,
    Json,
    Listing,
    SeatInfo,
    Status,
    Viewer,
    move,
    number,
)
from engine.phh import dumps, phh_fields
from engine.projection import project_event
from engine.table import NEW, SITTING_OUT, TableSettings, TableState

STRUCTURE_TITLES = {"NL": "No limit", "PL": "Pot limit", "FL": "Fixed limit"}


class HoldemGame(Game):
    """Texas Hold'em (FL, NL, PL) at a cash table of 2–10 seats."""

    info = GameInfo(
        key="holdem", title="Texas Hold'em", min_players=2, max_players=10,
        economy=True, ends=False, round_name="hand",
        seat_commands=("sit_out", "sit_in", "wait_for_bb", "add_chips"),
        seat_options={
            "type": "object", "required": ["buy_in"],
            "properties": {
                "buy_in": {"type": "integer", "minimum": 1, "title": "Buy-in"},
                "wait_for_bb": {"type": "boolean", "default": False,
                                "title": "Wait for the big blind"},
            },
        },
        house_bots=("random", "calling_station", "rule_based", "ehs"),
        export_format="phh",
        stats=("vpip", "pfr", "af", "wtsd", "bb_per_100"),
    )

    # ------------------------------------------------------------ settings
    def settings_schema(self) -> Json:
        """A JSON schema of :class:`~engine.table.TableSettings`."""
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "structure": {"type": "string", "enum": ["NL", "PL", "FL"], "default": "NL",
                              "title": "Betting", "enumTitles": STRUCTURE_TITLES},
                "small_blind": {"type": "integer", "minimum": 1, "default": 1,
                                "title": "Small blind"},
                "big_blind": {"type": "integer", "minimum": 1, "default": 2,
                              "title": "Big blind", "description": "FL: the small bet"},
                "ante": {"type": "integer", "minimum": 0, "default": 0, "title": "Ante"},
                "seats": {"type": "integer", "minimum": 2, "maximum": 10, "default": 6,
                          "title": "Seats"},
                "min_buy_in": {"type": "integer", "minimum": 0, "default": 0,
                               "title": "Minimum buy-in", "description": "0 = 20 big blinds"},
                "max_buy_in": {"type": ["integer", "null"], "minimum": 0, "default": 0,
                               "title": "Maximum buy-in",
                               "description": "0 = 100 big blinds (NL/PL), none (FL); "
                                              "empty = no maximum"},
            },
        }

    def validate_settings(self, data: Json) -> TableSettings:
        """Build validated settings from JSON."""
        if not isinstance(data, dict):
            raise MalformedAction("bad_settings", "Settings must be an object.")
        return TableSettings.from_json(data)

    def settings_json(self, settings: TableSettings) -> Json:
        """Defaults filled in."""
        return settings.to_json()

    def listing(self, settings: TableSettings) -> Listing:
        """``Texas Hold'em NL200 (1/2)``; facts: structure, blinds, ante, buy-ins."""
        return Listing(name=settings.name, seats=settings.seats, facts={
            "structure": settings.structure, "small_blind": settings.small_blind,
            "big_blind": settings.big_blind, "ante": settings.ante,
            "min_buy_in": settings.min_buy_in, "max_buy_in": settings.max_buy_in,
        })

    # ------------------------------------------------------------ seats
    def create(self, settings: TableSettings) -> TableState:
        """An empty table."""
        return TableState(settings)

    def seats(self, state: TableState) -> list[SeatInfo | None]:
        """Occupants; a new player counts as playing."""
        return [None if s is None else SeatInfo(
            player_id=s.player_id, status="playing" if s.status == NEW else s.status,
            away=s.status == SITTING_OUT, leaving=s.leaving, chips=s.stack)
            for s in state.seats]

    def seat(self, state: TableState, seat: int, player_id: str, options: Json) -> list[Event]:
        """Options: ``buy_in`` (int, required), ``wait_for_bb`` (bool)."""
        if "buy_in" not in options:
            raise MalformedAction("malformed_message", "The field “buy_in” is missing.")
        wait = options.get("wait_for_bb", False)
        if not isinstance(wait, bool):
            raise MalformedAction("malformed_message", "“wait_for_bb” is true or false.")
        return state.sit(seat, player_id, options["buy_in"], wait)

    def default_seat_options(self, state: TableState) -> Json:
        """The maximum buy-in (fixed limit: 100 big blinds, at least the minimum)."""
        settings = state.settings
        return {"buy_in": settings.max_buy_in or max(settings.min_buy_in, 100 * settings.big_blind)}

    def unseat(self, state: TableState, seat: int) -> list[Event]:
        """Leave (folded first if in a hand)."""
        return state.leave(seat)

    def away(self, state: TableState, seat: int, reason: str = "request") -> list[Event]:
        """Sit out from the next hand."""
        return state.sit_out(seat)

    def back(self, state: TableState, seat: int) -> list[Event]:
        """Sit in again (needs chips)."""
        return state.sit_in(seat)

    def seat_command(self, state: TableState, seat: int, name: str,
                     options: Json) -> list[Event]:
        """``sit_out``, ``sit_in``, ``wait_for_bb``, or ``add_chips`` (``options["amount"]``).

        >>> game = HoldemGame()
        >>> state = game.create(game.validate_settings({"structure": "NL"}))
        >>> _ = game.seat(state, 0, "alice", {"buy_in": 100})
        >>> [e.type for e in game.seat_command(state, 0, "add_chips", {"amount": 50})]
        ['ChipsAdded']
        """
        if name == "sit_out":
            return state.sit_out(seat)
        if name == "sit_in":
            return state.sit_in(seat)
        if name == "wait_for_bb":
            return state.wait_for_bb(seat)
        if name == "add_chips":
            if "amount" not in options:
                raise MalformedAction("malformed_message", "The field “amount” is missing.")
            return state.add_chips(seat, options["amount"])
        raise MalformedAction("unknown_command", f"No seat command called {name!r}.")

    def refill(self, state: TableState, seat: int) -> list[Event]:
        """A busted house bot buys in again (the maximum, else five minimum buy-ins)."""
        occupant = state.seats[seat]
        if occupant is None or occupant.stack or occupant.leaving or state.in_hand(seat):
            return []
        settings = state.settings
        amount = settings.max_buy_in or 5 * settings.min_buy_in
        events = state.add_chips(seat, amount)
        if occupant.status == SITTING_OUT:
            events += state.sit_in(seat)
        return events

    # ------------------------------------------------------------ rounds
    def can_start(self, state: TableState) -> bool:
        """True if a hand can start."""
        return state.can_start_hand()

    def draw_chance(self, state: TableState, rng: random.Random) -> Json:
        """A shuffled deck: ``{"deck": "AsKd..."}``."""
        deck = standard_deck()
        rng.shuffle(deck)
        return {"deck": format_cards(deck)}

    def start_round(self, state: TableState, chance: Json) -> list[Event]:
        """Start a hand dealt from ``chance["deck"]``."""
        if not isinstance(chance, dict) or not isinstance(chance.get("deck"), str):
            raise MalformedAction("bad_chance", 'Expected {"deck": "<cards>"}.')
        return state.start_hand(parse_cards(chance["deck"]))

    def status(self, state: TableState) -> Status:
        """The hand in progress and its actor."""
        hand = state.hand
        if hand is None or state.settled:
            return Status()
        seat = state.to_act_seat
        if seat is None:
            return Status(round=state.hand_number)
        legal = hand.legal_actions()
        return Status(round=state.hand_number, to_act=(seat,),
                      decision=f"{state.hand_number}:{len(hand.history)}",
                      quick=legal.can_show and not legal.can_fold)

    def legal_moves(self, state: TableState, seat: int) -> list[Json]:
        """fold / check / call / bet or raise to an amount / show / muck."""
        legal = state.legal_actions(seat)
        moves = []
        if legal.can_fold:
            moves.append(move("fold"))
        if legal.can_check:
            moves.append(move("check"))
        if legal.call_amount is not None:
            moves.append(move("call", f"Call {legal.call_amount}"))
        if legal.sized_kind is not None:
            assert legal.min_raise_to is not None and legal.max_raise_to is not None
            label = "Bet" if legal.sized_kind == "bet" else "Raise to"
            moves.append(move(legal.sized_kind, label,
                              amount=number(legal.min_raise_to, legal.max_raise_to)))
        if legal.can_show:
            moves.append(move("show"))
        if legal.can_muck:
            moves.append(move("muck"))
        return moves

    def legal_actions(self, state: TableState, seat: int) -> Json:
        """The poker fields (``can_fold``, ``call_amount``, ``min_raise_to``...)."""
        return state.legal_actions(seat).to_json()

    def apply(self, state: TableState, seat: int, action: Json) -> list[Event]:
        """Apply ``{"kind": ..., "amount": ...}`` for ``seat``."""
        return state.act(seat, Action.from_json(action))

    def timeout(self, state: TableState) -> list[Event]:
        """Check, else fold (muck at showdown); two in a row sit the seat out."""
        return state.timeout()

    # ------------------------------------------------------------ projections
    def view(self, state: TableState, viewer: Viewer) -> Json:
        """Projection of the table."""
        return state.view(viewer)

    def project_event(self, event: Event, viewer: Viewer) -> Json | None:
        """Hidden hole cards read ``"??"``."""
        return project_event(event, viewer)

    # ------------------------------------------------------------ history
    def round_record(self, state: TableState) -> Json:
        """The finished hand's PHH fields (every card), its seats and who showed."""
        hand = state.hand
        if hand is None:
            return {}
        fields = phh_fields(hand.setup, hand.events, hand.finishing_stacks,
                            seats=[seat + 1 for seat in state.positions],
                            seat_count=len(state.seats))
        return {"fields": fields, "seats": list(state.positions),
                "shown": [p for p in range(hand.n) if hand.shown[p]]}

    def export_round(self, record: Json, viewer: Viewer, meta: Json) -> str:
        """PHH text; hole cards the viewer may not see (and nobody showed) read ``????``."""
        fields = record.get("fields")
        if not isinstance(fields, dict):
            return ""
        seats: Sequence[int] = record.get("seats", ())
        shown = set(record.get("shown", ()))
        visible = {p for p, seat in enumerate(seats) if viewer.can_see(seat) or p in shown}
        out: Json = {}
        for key, value in fields.items():
            if key == "seats":
                out["players"] = list(meta.get("names") or fields.get("players") or [])
                if meta.get("table") is not None:
                    out["table"] = meta["table"]
                if meta.get("number") is not None:
                    out["hand"] = meta["number"]
            if key == "actions":
                value = [_redact(line, visible) for line in value]
            out[key] = value
        return dumps(out)

    # ------------------------------------------------------------ storage
    def dump(self, state: TableState) -> Json:
        """Server-side JSON (contains the deck)."""
        return state.to_json()

    def load(self, data: Json) -> TableState:
        """Inverse of :meth:`dump`."""
        return TableState.from_json(data)


def _redact(line: str, visible: set[int]) -> str:
    """``d dh p2 AsKd`` -> ``d dh p2 ????`` unless position 1 is visible."""
    parts = line.split()
    if len(parts) >= 4 and parts[:2] == ["d", "dh"] and parts[2].startswith("p"):
        try:
            position = int(parts[2][1:]) - 1
        except ValueError:
            return line
        if position not in visible:
            parts[3] = HIDDEN * (len(parts[3]) // 2)
            return " ".join(parts)
    return line

