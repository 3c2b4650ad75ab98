"""How botkit drives a game: the game contract, plus what it does not (yet) say.

The offline match runner (:mod:`botkit.match`) reaches a game only through the
contract of :mod:`engine.game` (``create``, ``seat``, ``draw_chance``,
``start_round``, ``status``, ``apply``, ``timeout``, ``project_event``,
``view``...). Three things a batch match needs are not in the contract yet; a
:class:`MatchOps` gives them for any game:

* :meth:`MatchOps.to_act` — the seats that must move now (``status().to_act``);
* :meth:`MatchOps.view_maker` — a function ``(state, seat) -> view`` equal to
  :func:`engine.game.decision_view` for states with one table's settings, which
  may cache what never changes;
* :meth:`MatchOps.prepare_round` — between rounds, put ``players[i]`` in seat
  ``i`` with ``chips[i]`` chips (economy games), present, and make ``dealer`` the
  seat that deals the next round: duplicate matches replay a deal with the seats
  rotated and the button where it was, and stacks are reset every hand.

Generic versions use the contract only (the last one by unseating and seating
again, without moving the dealer). A game that offers a method of the same name
and signature (a proposed addition to :class:`engine.game.Game`) is used as it
is. Until :class:`engine.poker.HoldemGame` offers them, :class:`HoldemOps` gives
Hold'em's fast versions, which keep batch matches as fast as when the runner
drove the poker table directly.

>>> from engine.registry import get_game
>>> type(match_ops(get_game("holdem"))).__name__
'HoldemOps'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from botkit.bot import Json
from engine.cards import Card, format_cards, standard_deck
from engine.game import Event, Game, RoundEnded, Viewer, decision_view

__all__ = ["PROPOSED", "HoldemOps", "MatchOps", "ViewFn", "match_ops"]

ViewFn = Callable[..., Json]
"""``(state, seat, time_left=None) -> view``: :func:`engine.game.decision_view` for one game."""

PROPOSED = ("to_act", "view_maker", "prepare_round")
"""Methods a game may offer itself (proposed contract additions); the game's own win."""


class MatchOps:
    """The calls the match runner makes on one game (generic: the contract only)."""

    def __init__(self, game: Game, seat_options: Json | None = None) -> None:
        self.game = game
        self.seat_options = dict(seat_options or {})
        for name in PROPOSED:  # the game's own versions win
            method = getattr(game, name, None)
            if callable(method):
                setattr(self, name, method)

    def draw_chance(self, state: Any, rng: random.Random) -> Json:
        """``game.draw_chance``."""
        return self.game.draw_chance(state, rng)

    def start_round(self, state: Any, chance: Json) -> list[Event]:
        """``game.start_round``."""
        return self.game.start_round(state, chance)

    def to_act(self, state: Any) -> tuple[int, ...]:
        """The seats that must move now (several for a simultaneous decision)."""
        return self.game.status(state).to_act

    def view_maker(self, state: Any) -> ViewFn:
        """``(state, seat, time_left=None) -> decision_view(game, state, seat, time_left)``."""
        game = self.game

        def make(state: Any, seat: int, time_left: float | None = None) -> Json:
            return decision_view(game, state, seat, time_left)

        return make

    def options(self, chips: int | None) -> Json:
        """The ``seat`` options for a player with ``chips`` (the buy-in, if the game has one)."""
        options = dict(self.seat_options)
        properties = self.game.info.seat_options.get("properties", {})
        if chips is not None and "buy_in" in properties:
            options["buy_in"] = chips
        return options

    def prepare_round(self, state: Any, players: Sequence[str], chips: Sequence[int] | None,
                      dealer: int | None) -> None:
        """Seat ``players[i]`` in seat ``i`` (with ``chips[i]``), everyone present.

        Generic: a seat whose player or chips differ is freed and taken again
        (``unseat`` + ``seat``), an away player comes ``back``; ``dealer`` is not
        moved (the game's own rotation goes on).
        """
        game = self.game
        current = game.seats(state)
        changed = []
        for seat, name in enumerate(players):
            info = current[seat] if seat < len(current) else None
            want = None if chips is None else chips[seat]
            if info is None or info.player_id != name or (want is not None
                                                           and info.chips != want):
                changed.append(seat)
                if info is not None:
                    game.unseat(state, seat)
            elif info.away:
                game.back(state, seat)
        for seat in changed:  # after every unseat: a player may move to another seat
            game.seat(state, seat, players[seat], self.options(None if chips is None
                                                               else chips[seat]))

    def summary(self, state: Any, ended: RoundEnded, seats: Sequence[str]) -> Json:
        """What a match record keeps of a finished round: the public results."""
        return {"results": [r.to_json() for r in ended.results]}


class _Deck(dict[str, Any]):
    """Hold'em's chance ``{"deck": "<cards>"}`` that also keeps the cards it was made
    from, so :meth:`HoldemOps.start_round` need not parse them again."""

    __slots__ = ("cards",)
    cards: tuple[Card, ...]


class HoldemOps(MatchOps):
    """Hold'em's fast versions (to move into :class:`engine.poker.HoldemGame`)."""

    def draw_chance(self, state: Any, rng: random.Random) -> Json:
        """``HoldemGame.draw_chance`` (the same deck from the same ``rng``: tested), keeping
        the cards."""
        deck = standard_deck()
        rng.shuffle(deck)
        chance = _Deck(deck=format_cards(deck))
        chance.cards = tuple(deck)
        return chance

    def start_round(self, state: Any, chance: Json) -> list[Event]:
        """``HoldemGame.start_round`` without parsing a deck this object drew."""
        cards = getattr(chance, "cards", None)
        if cards is None:
            return self.game.start_round(state, chance)
        events: list[Event] = state.start_hand(cards)
        return events

    def to_act(self, state: Any) -> tuple[int, ...]:
        """The actor's seat: ``status(state).to_act`` without building a Status."""
        seat = state.to_act_seat
        return () if seat is None else (seat,)

    def view_maker(self, state: Any) -> ViewFn:
        """:class:`botkit.view.ViewMaker` (the settings' JSON cached; tested equal)."""
        from botkit.view import ViewMaker

        return ViewMaker(state)

    def prepare_round(self, state: Any, players: Sequence[str], chips: Sequence[int] | None,
                      dealer: int | None) -> None:
        """Rename the seats, set the stacks, everyone playing; ``dealer`` gets the button."""
        seats = state.seats
        for seat, name in enumerate(players):
            occupant = seats[seat]
            occupant.player_id = name
            if chips is not None:
                occupant.stack = chips[seat]
            occupant.status = "playing"
            occupant.timeouts = 0
        if dealer is not None:  # the next hand moves the button to the seat after this one
            state.button = (dealer - 1) % len(players)

    def summary(self, state: Any, ended: RoundEnded, seats: Sequence[str]) -> Json:
        """The button, every player's hole cards (by name) and the board."""
        view = self.game.view(state, Viewer.superuser())
        hand = view["hand"]
        return {"button": view["button"],
                "cards": {seats[p["player"]]: p["cards"] for p in hand["players"]},
                "board": hand["board"]}


_OPS: dict[str, Callable[[Game, Json | None], MatchOps]] = {"holdem": HoldemOps}


def match_ops(game: Game, seat_options: Json | None = None) -> MatchOps:
    """The :class:`MatchOps` for ``game`` (Hold'em's fast one for ``holdem``)."""
    factory = _OPS.get(game.info.key, MatchOps)
    return factory(game, seat_options)
