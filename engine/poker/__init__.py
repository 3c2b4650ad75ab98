"""Poker as a game of the platform: every variant of :mod:`engine.poker.variants`.

The rules live in the engine's poker modules (:mod:`engine.poker.variants` — the
variants as data; :mod:`engine.poker.hand` — one hand of any variant;
:mod:`engine.poker.evaluators` — hand ranking; :mod:`engine.table` — seats, button,
forced bets and buy-ins between hands; :mod:`engine.betting`, :mod:`engine.pots`,
:mod:`engine.phh` — the hand-history format). :class:`PokerGame` puts one variant
behind the game contract (:mod:`engine.game`); :class:`HoldemGame` is Texas Hold'em.

The game classes are imported on first use, so that the rule modules above can be
imported on their own (``engine.table`` imports ``engine.poker.hand``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["HoldemGame", "PokerGame"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from engine.poker import game

        return getattr(game, name)
    raise AttributeError(f"module 'engine.poker' has no attribute {name!r}")
