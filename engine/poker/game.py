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

For batch matches (:mod:`botkit.match`) it gives fast versions of the contract's
offline methods: :meth:`~HoldemGame.to_act` without a Status,
:meth:`~HoldemGame.view_maker` (:class:`engine.poker.views.HoldemViews`), and
:meth:`~HoldemGame.prepare_round`, which renames the seats, sets the stacks and
puts the button where a duplicate deal needs it:

>>> game.to_act(state)
(1,)
>>> _ = game.apply(state, 1, {"kind": "check"})
>>> while game.to_act(state):
...     _ = game.timeout(state)
>>> game.prepare_round(state, ["carol", "dave"], [300, 100], dealer=1)
>>> [(s.player_id, s.chips) for s in game.seats(state) if s]
[('carol', 300), ('dave', 100)]
>>> _ = game.start_round(state, game.draw_chance(state, random.Random(6)))
>>> game.view(state, Viewer.spectator())["button"], game.to_act(state)
(1, (1,))
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.actions import Action
from engine.cards import HIDDEN, Card, format_cards, parse_cards
from engine.errors import IllegalAction, MalformedAction
from engine.events import Event
from engine.game import (
    MAX_CHIPS,
    Game,
    GameInfo,
    Json,
    Listing,
    RoundEnded,
    SeatInfo,
    Status,
    Viewer,
)
from engine.phh import dumps, phh_fields
from engine.poker.variants import VARIANTS
from engine.poker.views import HoldemViews, legal_moves
from engine.projection import project_event
from engine.table import MAX_BLIND, NEW, PLAYING, SITTING_OUT, Seat, TableSettings, TableState

STRUCTURE_TITLES = {"NL": "No limit", "PL": "Pot limit", "FL": "Fixed limit"}
HOLDEM_BOTS = ("random", "calling_station", "rule_based", "ehs")
VARIANT_BOTS = ("random", "calling_station", "rule_based")
"""House-bot styles of every other variant (hold'em: :data:`HOLDEM_BOTS`): random,
calling station, and the rule-based bot (:class:`botkit.house.VariantRuleBot`)."""


class PokerGame(Game):
    """One poker variant (:mod:`engine.poker.variants`) at a cash table."""

    def __init__(self, variant: str = "holdem") -> None:
        self.variant = VARIANTS[variant]
        v = self.variant
        self.info = GameInfo(
            key=v.key, title=v.title, min_players=v.min_players, max_players=v.max_players,
            economy=True, ends=False, round_name="hand",
            seat_commands=("sit_out", "sit_in", "wait_for_bb", "add_chips"),
            seat_options={
                "type": "object", "required": ["buy_in"],
                "properties": {
                    "buy_in": {"type": "integer", "minimum": 1, "maximum": MAX_CHIPS,
                               "title": "Buy-in"},
                    "wait_for_bb": {"type": "boolean", "default": False,
                                    "title": "Wait for the big blind"},
                },
            },
            house_bots=HOLDEM_BOTS if v.key == "holdem" else VARIANT_BOTS,
            export_format="phh",
            stats=("vpip", "pfr", "af", "wtsd", "bb_per_100"),
            client="holdem",  # one board draws every variant
        )

    # ------------------------------------------------------------ settings
    def settings_schema(self) -> Json:
        """A JSON schema of :class:`~engine.table.TableSettings` for this variant."""
        v = self.variant
        forced = v.forced
        properties: Json = {
            "structure": {"type": "string", "enum": list(v.structures),
                          "default": v.default_structure, "title": "Betting",
                          "enumTitles": {s: STRUCTURE_TITLES[s] for s in v.structures}},
        }
        if forced == "blinds":
            properties["small_blind"] = {"type": "integer", "minimum": 1,
                                         "maximum": MAX_BLIND, "default": 1,
                                         "title": "Small blind"}
            properties["big_blind"] = {"type": "integer", "minimum": 1, "maximum": MAX_BLIND,
                                       "default": 2, "title": "Big blind",
                                       "description": "FL: the small bet"}
        else:
            properties["big_blind"] = {"type": "integer", "minimum": 1, "maximum": MAX_BLIND,
                                       "default": 2,
                                       "title": "Small bet" if forced == "bring_in"
                                       else "Minimum bet",
                                       "description": "FL: the small bet; the big bet is "
                                                      "twice it"}
        if forced == "bring_in":
            properties["bring_in"] = {"type": "integer", "minimum": 1, "maximum": MAX_BLIND,
                                      "default": 1, "title": "Bring-in",
                                      "description": "At most the small bet"}
        properties["ante"] = {"type": "integer", "minimum": 0, "maximum": MAX_BLIND,
                              "default": _DEFAULT_ANTE[forced], "title": "Ante"}
        properties["seats"] = {"type": "integer", "minimum": v.min_players,
                               "maximum": v.max_players, "default": v.default_seats,
                               "title": "Seats"}
        properties["min_buy_in"] = {"type": "integer", "minimum": 0, "maximum": MAX_CHIPS,
                                    "default": 0, "title": "Minimum buy-in",
                                    "description": "0 = 20 big blinds"}
        properties["max_buy_in"] = {"type": ["integer", "null"], "minimum": 0,
                                    "maximum": MAX_CHIPS, "default": 0,
                                    "title": "Maximum buy-in",
                                    "description": "0 = 100 big blinds (NL/PL), none (FL); "
                                                   "empty = no maximum"}
        return {"type": "object", "additionalProperties": False, "properties": properties}

    def validate_settings(self, data: Json) -> TableSettings:
        """Build validated settings from JSON (the variant's defaults filled in)."""
        if not isinstance(data, dict):
            raise MalformedAction("bad_settings", "Settings must be an object.")
        v = self.variant
        if data.get("variant", v.key) != v.key:
            raise MalformedAction("bad_settings", f"This is a table of {v.title}.")
        defaults: Json = {"structure": v.default_structure, "seats": v.default_seats,
                          "variant": v.key}
        if v.forced != "blinds":
            defaults["ante"] = _DEFAULT_ANTE[v.forced]
        if v.forced == "bring_in":
            defaults["bring_in"] = 1
        return TableSettings.from_json({**defaults, **data}).check_new_table()

    def settings_json(self, settings: TableSettings) -> Json:
        """Defaults filled in."""
        return settings.to_json()

    def listing(self, settings: TableSettings) -> Listing:
        """``Texas Hold'em NL200 (1/2)``; facts: structure, blinds (stud: the small bet
        as ``big_blind`` and the ``bring_in``), ante, buy-ins."""
        facts: Json = {"structure": settings.structure}
        if self.variant.forced == "blinds":
            facts["small_blind"] = settings.small_blind
        facts["big_blind"] = settings.big_blind
        if settings.bring_in:
            facts["bring_in"] = settings.bring_in
        facts.update(ante=settings.ante, min_buy_in=settings.min_buy_in,
                     max_buy_in=settings.max_buy_in)
        return Listing(name=settings.name, seats=settings.seats, facts=facts)

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
        return state.sit_out(seat, reason)

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
        amount = settings.max_buy_in or min(5 * settings.min_buy_in, MAX_CHIPS)
        events = state.add_chips(seat, amount)
        if occupant.status == SITTING_OUT:
            events += state.sit_in(seat)
        return events

    # ------------------------------------------------------------ rounds
    def can_start(self, state: TableState) -> bool:
        """True if a hand can start."""
        return state.can_start_hand()

    def draw_chance(self, state: TableState, rng: random.Random) -> Json:
        """A shuffled deck of the variant: ``{"deck": "AsKd..."}``; draw games add a
        second, independent order of the deck, ``"reshuffle"``, which orders the
        discards if the deck runs out."""
        deck = list(self.variant.cards)
        rng.shuffle(deck)
        chance: Json = {"deck": format_cards(deck)}
        if self.variant.draws:
            order = list(self.variant.cards)
            rng.shuffle(order)
            chance["reshuffle"] = format_cards(order)
        return chance

    def start_round(self, state: TableState, chance: Json) -> list[Event]:
        """Start a hand dealt from ``chance["deck"]``.

        Without draws only the cards a hand at this table can deal (hold'em: two per
        seat and five for the board) are read: the hand never looks at the rest.
        """
        deck = chance.get("deck") if isinstance(chance, dict) else None
        if not isinstance(deck, str):
            raise MalformedAction("bad_chance", 'Expected {"deck": "<cards>"}.')
        if " " in deck:
            deck = deck.replace(" ", "")
        v = self.variant
        if not v.draws:
            return state.start_hand(parse_cards(deck[: 2 * v.cards_needed(len(state.seats))]))
        order = chance.get("reshuffle", "")
        if not isinstance(order, str):
            raise MalformedAction("bad_chance", "The reshuffle order is a string of cards.")
        return state.start_hand(parse_cards(deck), parse_cards(order))

    def status(self, state: TableState) -> Status:
        """The hand in progress and its actor."""
        hand = state.hand
        if hand is None or state.settled:
            return Status()
        seat = state.to_act_seat
        if seat is None:
            return Status(round=state.hand_number)
        quick = hand.formality
        return Status(round=state.hand_number, to_act=(seat,),
                      decision=f"{state.hand_number}:{len(hand.history)}",
                      quick=quick, default={"kind": "muck"} if quick else None)

    def to_act(self, state: TableState) -> tuple[int, ...]:
        """The actor's seat, if any: ``status(state).to_act`` without building a Status
        (whose ``quick`` needs the legal actions)."""
        hand = state.hand
        if hand is None or (actor := hand.actor) is None:
            return ()
        return (state.positions[actor],)

    def legal_moves(self, state: TableState, seat: int) -> list[Json]:
        """fold / check / call / bet or raise to an amount / show / muck; stud's bring-in;
        a draw's discards (a subset of the seat's cards)."""
        return legal_moves(state.legal_actions(seat), _cards_of(state, seat))

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

    # ------------------------------------------------------------ offline matches
    def view_maker(self, state: TableState) -> HoldemViews:
        """:class:`~engine.poker.views.HoldemViews`: ``decision_view`` with the table's
        name and settings JSON cached (tested equal)."""
        return HoldemViews(state)

    def prepare_round(self, state: TableState, players: Sequence[str],
                      chips: Sequence[int] | None = None, dealer: int | None = None,
                      options: Json | None = None) -> None:
        """Rename seat ``i`` to ``players[i]`` (seating it if empty), set its stack to
        ``chips[i]``, everyone playing (no missed blinds, timeouts or pending chips);
        the next hand puts the button on ``dealer`` (when it is dealt in). A new
        occupant without ``chips`` gets ``options["buy_in"]`` (default: the maximum)."""
        if state.hand is not None and not state.settled:
            raise IllegalAction("hand_running", "A hand is in progress.")
        seats = state.seats
        for seat, name in enumerate(players):
            occupant = seats[seat]
            if occupant is None:
                data = self.default_seat_options(state) if options is None else options
                occupant = seats[seat] = Seat(name, data["buy_in"])
            occupant.player_id = name
            if chips is not None:
                occupant.stack = chips[seat]
            occupant.status = PLAYING
            occupant.timeouts = 0
            if occupant.missed_sb or occupant.missed_bb or occupant.leaving \
                    or occupant.pending_chips:
                occupant.missed_sb = occupant.missed_bb = occupant.leaving = False
                occupant.pending_chips = 0
        if dealer is not None:  # the button moves to the first dealt-in seat after this one
            state.button = (dealer - 1) % len(seats)

    def round_summary(self, state: TableState, ended: RoundEnded) -> Json:
        """The button, every dealt-in player's hole cards (by player id) and the board."""
        hand = state.hand
        if hand is None:
            return {}
        names = state.hand_players
        return {"button": state.button,
                "cards": {names[p]: format_cards(cards)
                          for p, cards in enumerate(hand.hole_cards)},
                "board": format_cards(hand.board)}

    # ------------------------------------------------------------ history
    def round_record(self, state: TableState) -> Json:
        """The finished hand's PHH fields (every card), its seats and who showed."""
        hand = state.hand
        if hand is None:
            return {}
        fields = phh_fields(hand.setup, hand.events, hand.finishing_stacks,
                            seats=[seat + 1 for seat in state.positions],
                            seat_count=len(state.seats))
        record: Json = {"fields": fields, "seats": list(state.positions),
                        "shown": [p for p in range(hand.n) if hand.shown[p]]}
        if self.variant.stud:  # cards dealt face up stay visible in every export
            record["up"] = [format_cards(c for c, up in zip(hole, ups, strict=True) if up)
                            for hole, ups in zip(hand.holes, hand.up, strict=True)]
        return record

    def export_round(self, record: Json, viewer: Viewer, meta: Json) -> str:
        """PHH text; hole cards the viewer may not see (and nobody showed) read ``????``.

        ``meta``: ``names`` (PHH ``players``), ``table``, ``number`` (``hand``) and
        ``event`` are written before ``seats`` (a table's hand history). With
        ``"order": "match"`` (botkit's match files) they come after the hand's own
        fields as ``hand``, ``seats``, ``seat_count``, ``players``, ``table``, ``event``.
        """
        fields = record.get("fields")
        if not isinstance(fields, dict):
            return ""
        seats: Sequence[int] = record.get("seats", ())
        shown = set(record.get("shown", ()))
        visible = {p for p, seat in enumerate(seats) if viewer.can_see(seat) or p in shown}
        about: Json = {"players": list(meta.get("names") or fields.get("players") or [])}
        for key, name in (("table", "table"), ("number", "hand"), ("event", "event")):
            if meta.get(key) is not None:
                about[name] = meta[key]
        out: Json = {}
        if meta.get("order") == "match":
            for key, value in fields.items():
                if key not in _MATCH_TAIL:
                    out[key] = _redacted(key, value, visible, record.get("up"))
            tail = {**fields, **about}
            out.update((key, tail[key]) for key in _MATCH_TAIL if key in tail)
            return dumps(out)
        for key, value in fields.items():
            if key == "seats":
                out.update(about)
            out[key] = _redacted(key, value, visible, record.get("up"))
        return dumps(out)

    # ------------------------------------------------------------ storage
    def dump(self, state: TableState) -> Json:
        """Server-side JSON (contains the deck)."""
        return state.to_json()

    def load(self, data: Json) -> TableState:
        """Inverse of :meth:`dump`."""
        return TableState.from_json(data)


class HoldemGame(PokerGame):
    """Texas Hold'em (FL, NL, PL) at a cash table of 2–10 seats."""

    def __init__(self, variant: str = "holdem") -> None:
        super().__init__(variant)


_DEFAULT_ANTE = {"blinds": 0, "bring_in": 1, "antes": 1}
"""A stud or sökö table's default ante (hold'em: none)."""


def _cards_of(state: TableState, seat: int) -> list[str]:
    hand = state.hand
    if hand is None or seat not in state.positions:
        return []
    return [str(card) for card in hand.holes[state.positions.index(seat)]]


_MATCH_TAIL = ("hand", "seats", "seat_count", "players", "table", "event")
"""The last PHH fields of a match file, in their order (``export_round``, ``order="match"``)."""


def _redacted(key: str, value: object, visible: set[int],
              up: Sequence[str] | None = None) -> object:
    if key == "actions" and isinstance(value, list):
        public = [set(parse_cards(text)) for text in up] if up else None
        return [_redact(line, visible, public) for line in value]
    return value


def _redact(line: str, visible: set[int], public: Sequence[set[Card]] | None = None) -> str:
    """``d dh p2 AsKd`` -> ``d dh p2 ????`` unless position 1 is visible; stud's up
    cards (``public[position]``) stay; a draw's discards ``p2 sd 7h2c`` -> ``p2 sd ????``.

    >>> _redact("d dh p1 AsKd7h", set(), [set(parse_cards("7h"))])
    'd dh p1 ????7h'
    >>> _redact("p1 sd 7h2c", set()), _redact("p1 sd 7h2c", {0})
    ('p1 sd ????', 'p1 sd 7h2c')
    """
    parts = line.split()
    if len(parts) >= 4 and parts[:2] == ["d", "dh"] and parts[2].startswith("p"):
        actor, cards = parts[2], 3
    elif len(parts) >= 3 and parts[1] == "sd" and parts[0].startswith("p"):
        actor, cards = parts[0], 2
    else:
        return line
    try:
        position = int(actor[1:]) - 1
    except ValueError:
        return line
    if position in visible:
        return line
    text = parts[cards]
    if cards == 3 and public is not None and 0 <= position < len(public):
        shown = public[position]
        parts[cards] = "".join(text[k:k + 2] if text[k:k + 2] != HIDDEN
                               and Card.parse(text[k:k + 2]) in shown else HIDDEN
                               for k in range(0, len(text), 2))
    else:
        parts[cards] = HIDDEN * (len(text) // 2)
    return " ".join(parts)

