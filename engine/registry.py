"""The registry: every game the platform hosts, in one place.

The runtime never knows which game it runs: it looks the game up here by the
key stored on the table and talks to it through the contract in
:mod:`engine.game`. Adding a game is a package under ``engine/`` plus one entry
in :data:`GAMES` (docs/engine.md, "Adding a game").

>>> [game.info.key for game in GAMES.values()][:1]
['holdem']
>>> get_game("holdem").info.economy
True
"""

from __future__ import annotations

from engine.dice import DiceGame
from engine.errors import MalformedAction
from engine.game import Game
from engine.poker import HoldemGame, PokerGame
from engine.poker.variants import VARIANTS
from engine.tuppi import TuppiGame

GAMES: dict[str, Game] = {
    "holdem": HoldemGame(),
    **{key: PokerGame(key) for key in VARIANTS if key != "holdem"},
    "dice": DiceGame(),
    "tuppi": TuppiGame(),
}
"""Every hosted game by key; "holdem" first, then the other poker variants, the dice
game and Tuppi (:mod:`engine.tuppi`)."""


def register(game: Game) -> Game:
    """Add a game under ``game.info.key`` (a second registration of a key replaces it)."""
    GAMES[game.info.key] = game
    return game


def get_game(name: str) -> Game:
    """The registered game called ``name``; raises MalformedAction if unknown."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise MalformedAction("unknown_game", f"No game called {name!r}.") from None


__all__ = ["GAMES", "Game", "get_game", "register"]
