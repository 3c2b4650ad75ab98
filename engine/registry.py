"""The game interface a table runtime drives, and the registry of games.

The runtime never knows it is running poker: it validates settings, seats
players, draws the chance input (a deck, dice rolls) and stores it, starts a
round, asks whose turn it is, applies JSON actions, plays the default action
on timeout, and renders state and events per viewer. A new game is a new
module listed in :data:`GAMES`; no server code changes.

>>> game = get_game("holdem")
>>> settings = game.validate_settings({"structure": "NL", "small_blind": 1, "big_blind": 2})
>>> game.display_name(settings)
"Texas Hold'em NL200 (1/2)"
>>> state = game.create(settings)
>>> _ = game.seat(state, 0, "alice", {"buy_in": 200})
>>> _ = game.seat(state, 1, "bob", {"buy_in": 200})
>>> import random
>>> _ = game.start_round(state, game.draw_chance(state, random.Random(5)))
>>> game.to_act(state)  # heads-up: seat 0 has the button, posts the SB and acts first
0
>>> _ = game.apply(state, 0, {"kind": "call"})
>>> game.legal_actions(state, 1)["can_check"]
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from engine.actions import Action
from engine.cards import format_cards, parse_cards, standard_deck
from engine.errors import MalformedAction
from engine.events import Event
from engine.projection import Viewer, project_event
from engine.table import TableSettings, TableState

Json = dict[str, Any]


class Game(Protocol):
    """What a table runtime needs from a game. ``State`` is game-specific and opaque."""

    key: str
    title: str

    def settings_schema(self) -> Json:
        """A JSON-schema-like description of the settings (for forms)."""
        ...

    def validate_settings(self, data: Json) -> Any:
        """Validated settings object; raises MalformedAction."""
        ...

    def display_name(self, settings: Any) -> str:
        """Human name of a table with these settings."""
        ...

    def create(self, settings: Any) -> Any:
        """A fresh table state."""
        ...

    def seat(self, state: Any, seat: int, player_id: str, options: Json) -> list[Event]:
        """Seat a player (options: buy-in etc.)."""
        ...

    def unseat(self, state: Any, seat: int) -> list[Event]:
        """Remove a player (maybe at the end of the round)."""
        ...

    def seat_command(self, state: Any, seat: int, name: str, options: Json) -> list[Event]:
        """A game-specific seat command between actions (poker: ``sit_out``, ``sit_in``,
        ``wait_for_bb``, ``add_chips``); raises MalformedAction for an unknown one."""
        ...

    def can_start(self, state: Any) -> bool:
        """True if a new round can start now."""
        ...

    def draw_chance(self, state: Any, rng: random.Random) -> Json:
        """Draw the randomness for one round (the caller stores it for replay)."""
        ...

    def start_round(self, state: Any, chance: Json) -> list[Event]:
        """Start a round consuming the stored chance input."""
        ...

    def to_act(self, state: Any) -> int | None:
        """The seat whose turn it is, if any."""
        ...

    def legal_actions(self, state: Any, seat: int) -> Json:
        """What ``seat`` may do now, as JSON."""
        ...

    def apply(self, state: Any, seat: int, action: Json) -> list[Event]:
        """Apply a JSON action; raises MalformedAction / IllegalAction."""
        ...

    def timeout(self, state: Any) -> list[Event]:
        """Play the default action for whoever is to act."""
        ...

    def view(self, state: Any, viewer: Viewer) -> Json:
        """The state as ``viewer`` may see it."""
        ...

    def project_event(self, event: Event, viewer: Viewer) -> Json | None:
        """An event as ``viewer`` may see it (``None``: not at all)."""
        ...

    def dump(self, state: Any) -> Json:
        """Serialise the state (server side only: may hold secrets such as the deck)."""
        ...

    def load(self, data: Json) -> Any:
        """Inverse of :meth:`dump`."""
        ...


class HoldemGame:
    """Texas Hold'em (FL, NL, PL) at a table of 2–10 seats."""

    key = "holdem"
    title = "Texas Hold'em"

    def settings_schema(self) -> Json:
        """Fields, types and defaults of :class:`~engine.table.TableSettings`."""
        return {
            "structure": {"type": "string", "enum": ["NL", "PL", "FL"], "default": "NL"},
            "small_blind": {"type": "integer", "minimum": 1, "default": 1},
            "big_blind": {"type": "integer", "minimum": 1, "default": 2},
            "ante": {"type": "integer", "minimum": 0, "default": 0},
            "seats": {"type": "integer", "minimum": 2, "maximum": 10, "default": 6},
            "min_buy_in": {"type": "integer", "description": "0 = 20 x big blind"},
            "max_buy_in": {"type": ["integer", "null"],
                           "description": "0 = 100 x big blind (NL/PL), none (FL)"},
        }

    def validate_settings(self, data: Json) -> TableSettings:
        """Build validated settings from JSON."""
        if not isinstance(data, dict):
            raise MalformedAction("bad_settings", "Settings must be an object.")
        return TableSettings.from_json(data)

    def display_name(self, settings: TableSettings) -> str:
        """``Texas Hold'em NL200 (1/2)`` and so on."""
        return settings.name

    def create(self, settings: TableSettings) -> TableState:
        """An empty table."""
        return TableState(settings)

    def seat(self, state: TableState, seat: int, player_id: str, options: Json) -> list[Event]:
        """Options: ``buy_in`` (int), ``wait_for_bb`` (bool)."""
        return state.sit(seat, player_id, options.get("buy_in", 0),
                         bool(options.get("wait_for_bb", False)))

    def unseat(self, state: TableState, seat: int) -> list[Event]:
        """Leave (folded first if in a hand)."""
        return state.leave(seat)

    def seat_command(self, state: TableState, seat: int, name: str,
                     options: Json) -> list[Event]:
        """``sit_out``, ``sit_in``, ``wait_for_bb``, or ``add_chips`` (``options["amount"]``).

        >>> game = get_game("holdem")
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
            return state.add_chips(seat, options.get("amount", 0))
        raise MalformedAction("unknown_command", f"No seat command called {name!r}.")

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
        return state.start_hand(_deck(chance))

    def to_act(self, state: TableState) -> int | None:
        """The seat to act."""
        return state.to_act_seat

    def legal_actions(self, state: TableState, seat: int) -> Json:
        """Legal actions as JSON."""
        return state.legal_actions(seat).to_json()

    def apply(self, state: TableState, seat: int, action: Json) -> list[Event]:
        """Apply ``{"kind": ..., "amount": ...}`` for ``seat``."""
        return state.act(seat, Action.from_json(action))

    def timeout(self, state: TableState) -> list[Event]:
        """Default action for the actor."""
        return state.timeout()

    def view(self, state: TableState, viewer: Viewer) -> Json:
        """Projection of the table."""
        return state.view(viewer)

    def project_event(self, event: Event, viewer: Viewer) -> Json | None:
        """Projection of one event."""
        return project_event(event, viewer)

    def dump(self, state: TableState) -> Json:
        """Server-side JSON (contains the deck)."""
        return state.to_json()

    def load(self, data: Json) -> TableState:
        """Inverse of :meth:`dump`."""
        return TableState.from_json(data)


def _deck(chance: Json) -> Sequence[Any]:
    if not isinstance(chance, dict) or not isinstance(chance.get("deck"), str):
        raise MalformedAction("bad_chance", 'Expected {"deck": "<cards>"}.')
    return parse_cards(chance["deck"])


GAMES: dict[str, Game] = {"holdem": HoldemGame()}
"""Every hosted game by key; "holdem" first."""


def get_game(name: str) -> Game:
    """The registered game called ``name``; raises MalformedAction if unknown."""
    try:
        return GAMES[name]
    except KeyError:
        raise MalformedAction("unknown_game", f"No game called {name!r}.") from None
