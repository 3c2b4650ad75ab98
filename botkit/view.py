"""What a bot sees: :func:`make_view` builds it, :class:`View` reads it.

The view is exactly the ``your_turn`` payload a remote bot receives over the
server's websocket: :func:`engine.game.decision_view` — the game's projection of
the table for the bot's seat plus ``"seat"``, ``"legal"`` (the game's own
description of the legal moves; poker: ``can_check``, ``min_raise_to``...),
``"moves"`` (the generic descriptors of :mod:`engine.game`, which any game
gives) and ``"time_left"`` (seconds, or ``None`` offline). The server and the
offline match runner both build it there, so a house bot sees the same dict
online and offline.

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
>>> [m["kind"] for m in view.moves]
['fold', 'call', 'raise']
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, overload

from botkit.bot import Json
from botkit.positions import position_name
from engine.cards import Card, parse_cards
from engine.game import Game, decision_view
from engine.poker.views import HoldemViews
from engine.registry import get_game

__all__ = ["View", "ViewMaker", "make_view"]


@overload
def make_view(state: Any, seat: int, time_left: float | None = None) -> Json: ...


@overload
def make_view(game: Game, state: Any, seat: int, time_left: float | None = None) -> Json: ...


def make_view(*args: Any, **kwargs: Any) -> Json:
    """The ``your_turn`` view for ``seat``: :func:`engine.game.decision_view`.

    ``make_view(state, seat, time_left=None)`` for a Hold'em ``TableState``;
    ``make_view(game, state, seat, time_left=None)`` for any game. ``legal`` is
    all false/``None`` and ``moves`` empty when it is not ``seat``'s turn.
    """
    if (args and isinstance(args[0], Game)) or "game" in kwargs:
        return _game_view(*args, **kwargs)
    return _game_view(get_game("holdem"), *args, **kwargs)


def _game_view(game: Game, state: Any, seat: int, time_left: float | None = None) -> Json:
    return decision_view(game, state, seat, time_left)


ViewMaker = HoldemViews
""":func:`make_view` for one Hold'em table whose settings never change:
:meth:`engine.poker.HoldemGame.view_maker` (:class:`engine.poker.views.HoldemViews`),
kept under this name. Any game: ``game.view_maker(state)``."""


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
    def moves(self) -> list[Json]:
        """The legal moves as generic descriptors (:func:`engine.game.move`; any game)."""
        moves: list[Json] = self.data.get("moves", [])
        return moves

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

