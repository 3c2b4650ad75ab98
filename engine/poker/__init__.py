"""Poker as a game of the platform: Texas Hold'em (FL, NL, PL) at a cash table.

The rules live in the engine's poker modules (:mod:`engine.holdem` — one hand;
:mod:`engine.table` — seats, button, blinds and buy-ins between hands;
:mod:`engine.betting`, :mod:`engine.pots`, :mod:`engine.evaluation`,
:mod:`engine.phh` — the hand-history format). :class:`HoldemGame` puts them
behind the game contract (:mod:`engine.game`).
"""

from engine.poker.game import HoldemGame

__all__ = ["HoldemGame"]
