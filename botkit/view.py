"""What a bot sees: :func:`make_view` builds it, :class:`View` reads it.

The view is exactly the ``your_turn`` payload a remote bot receives over the
server's websocket: the engine projection of the table for the bot's seat
(:func:`engine.projection.project_table`) plus ``"legal"`` (the engine's legal
actions as JSON), ``"time_left"`` (seconds, or ``None`` offline) and ``"seat"``.
The server and the offline match runner both call :func:`make_view`, so a house
bot sees the same dict online and offline.

>>> from engine.cards import seeded_deck
>>> from engine.table import TableSettings, TableState
>>> table = TableState(TableSettings(structure="NL", small_blind=1, big_blind=2, seats=2))
>>> _ = table.sit(0, "alice", 200); _ = table.sit(1, "bob", 200)
>>> _ = table.start_hand(seeded_deck(1))
>>> view = View(make_view(table, 0))
>>> view.to_call, view.min_raise_to, view.max_raise_to, view.position
(1, 4, 200, 'button')
>>> view.pot, view.active_opponents, view.bet_or_raise(7)
(3, 1, {'kind': 'raise', 'amount': 7})
"""

from __future__ import annotations

from functools import cached_property

from botkit.bot import Json
from botkit.positions import position_name
from engine.cards import Card, parse_cards
from engine.projection import Viewer, project_hand, project_table
from engine.table import TableState

__all__ = ["View", "ViewMaker", "make_view"]


def make_view(state: TableState, seat: int, time_left: float | None = None) -> Json:
    """The ``your_turn`` view of ``state`` for ``seat``.

    ``legal`` is all false/``None`` when it is not ``seat``'s turn.
    """
    view = project_table(state, Viewer.of(seat))
    view["legal"] = state.legal_actions(seat).to_json()
    view["time_left"] = time_left
    view["seat"] = seat
    return view


class ViewMaker:
    """:func:`make_view` for one table whose settings never change (batch matches).

    It caches the settings' JSON and the table name, which the projection would
    rebuild on every call; the result is equal to :func:`make_view`'s (tested).
    """

    __slots__ = ("name", "settings")

    def __init__(self, state: TableState) -> None:
        self.name = state.name
        self.settings = state.settings.to_json()

    def __call__(self, state: TableState, seat: int, time_left: float | None = None) -> Json:
        """The ``your_turn`` view of ``state`` for ``seat``."""
        hand = state.hand
        return {
            "name": self.name,
            "settings": dict(self.settings),
            "button": state.button,
            "hand_number": state.hand_number,
            "seats": [None if s is None else {"seat": i, "player_id": s.player_id,
                                              "stack": s.stack, "status": s.status}
                      for i, s in enumerate(state.seats)],
            "to_act_seat": state.to_act_seat,
            "hand": None if hand is None else project_hand(hand, Viewer.of(seat),
                                                           state.positions),
            "legal": state.legal_actions(seat).to_json(),
            "time_left": time_left,
            "seat": seat,
        }


class View:
    """Typed, convenient read access to a view dict (which stays available as ``.data``)."""

    def __init__(self, data: Json) -> None:
        self.data = data

    # ------------------------------------------------------------ the table
    @property
    def seat(self) -> int:
        """This bot's seat."""
        return int(self.data["seat"])

    @property
    def settings(self) -> Json:
        """The table settings (structure, blinds, ante, seats, buy-ins)."""
        settings: Json = self.data["settings"]
        return settings

    @property
    def structure(self) -> str:
        """``"NL"``, ``"PL"`` or ``"FL"``."""
        return str(self.settings["structure"])

    @property
    def big_blind(self) -> int:
        """The big blind (FL: the small bet)."""
        return int(self.settings["big_blind"])

    @property
    def hand(self) -> Json:
        """The projected hand (``street``, ``board``, ``pots``, ``players``...)."""
        hand: Json = self.data["hand"]
        return hand

    @property
    def legal(self) -> Json:
        """The legal actions as JSON (``can_fold``, ``call_amount``, ``min_raise_to``...)."""
        legal: Json = self.data["legal"]
        return legal

    @property
    def street(self) -> str:
        """``"preflop"``, ``"flop"``, ``"turn"`` or ``"river"``."""
        return str(self.hand["street"])

    # ------------------------------------------------------------ players
    @property
    def players(self) -> list[Json]:
        """Players dealt in, in position order (0 = small blind, last = button)."""
        players: list[Json] = self.hand["players"]
        return players

    @cached_property
    def me(self) -> Json:
        """This bot's player entry."""
        seat = self.data["seat"]
        for player in self.players:
            if player["player"] == seat:
                return player
        raise LookupError(f"Seat {seat} is not in the hand.")

    @property
    def opponents(self) -> list[Json]:
        """The other players still holding cards (all-in ones included)."""
        seat = self.data["seat"]
        return [p for p in self.players if p["player"] != seat and not p["folded"]]

    @property
    def active_opponents(self) -> int:
        """How many opponents have not folded."""
        return len(self.opponents)

    @property
    def n_players(self) -> int:
        """Players dealt into the hand."""
        return len(self.players)

    @property
    def position_index(self) -> int:
        """Hand position (0 = small blind, ``n_players - 1`` = button)."""
        return int(self.me["position"])

    @property
    def position(self) -> str:
        """``button``, ``sb``, ``bb``, ``early``, ``middle`` or ``late``."""
        return position_name(self.position_index, self.n_players)

    @property
    def stack(self) -> int:
        """Chips behind (not counting this street's bet)."""
        return int(self.me["stack"])

    @property
    def my_bet(self) -> int:
        """This street's bet so far."""
        return int(self.me["bet"])

    # ------------------------------------------------------------ cards
    @cached_property
    def hole_cards(self) -> tuple[Card, ...]:
        """This bot's two hole cards."""
        return parse_cards(self.me["cards"])

    @cached_property
    def board(self) -> tuple[Card, ...]:
        """The community cards."""
        return parse_cards(self.hand["board"])

    # ------------------------------------------------------------ money
    @property
    def pot(self) -> int:
        """Every chip in the middle: all pots, this street's bets included."""
        return sum(int(p["amount"]) for p in self.hand["pots"])

    @property
    def current_bet(self) -> int:
        """The largest bet on this street."""
        return max(int(p["bet"]) for p in self.players)

    @property
    def to_call(self) -> int:
        """Chips a call adds (0 when nothing is owed)."""
        return int(self.legal["call_amount"] or 0)

    @property
    def can_check(self) -> bool:
        """True if checking is legal."""
        return bool(self.legal["can_check"])

    @property
    def can_call(self) -> bool:
        """True if calling is legal."""
        return self.legal["call_amount"] is not None

    @property
    def can_raise(self) -> bool:
        """True if a bet or raise is legal."""
        return self.legal["sized_kind"] is not None

    @property
    def min_raise_to(self) -> int | None:
        """Smallest legal bet/raise-to, or ``None``."""
        value: int | None = self.legal["min_raise_to"]
        return value

    @property
    def max_raise_to(self) -> int | None:
        """Largest legal bet/raise-to, or ``None``."""
        value: int | None = self.legal["max_raise_to"]
        return value

    @property
    def can_show_or_muck(self) -> bool:
        """True at a show-or-muck decision."""
        return bool(self.legal["can_show"] or self.legal["can_muck"])

    # ------------------------------------------------------------ actions
    def check_or_fold(self) -> Json:
        """Check if possible, else fold (mucks at a show-or-muck decision)."""
        if self.can_show_or_muck:
            return {"kind": "muck"}
        return {"kind": "check"} if self.can_check else {"kind": "fold"}

    def check_or_call(self) -> Json:
        """Check if possible, else call (mucks at a show-or-muck decision)."""
        if self.can_show_or_muck:
            return {"kind": "muck"}
        return {"kind": "check"} if self.can_check else {"kind": "call"}

    def bet_or_raise(self, to: int) -> Json:
        """A bet or raise to ``to`` clamped into the legal range; check/call if none is legal."""
        kind = self.legal["sized_kind"]
        low, high = self.legal["min_raise_to"], self.legal["max_raise_to"]
        if kind is None or low is None or high is None:
            return self.check_or_call()
        return {"kind": kind, "amount": max(low, min(int(to), high))}

    def __repr__(self) -> str:
        return f"View(seat={self.data.get('seat')!r}, street={self.hand.get('street')!r})"

