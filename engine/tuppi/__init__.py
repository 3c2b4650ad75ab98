"""Tuppi, the Finnish four-player partnership trick-taking game (docs/tuppi.md).

:mod:`engine.tuppi.rules` has the rules as pure functions (seats, the deal,
tricks, scoring); :mod:`engine.tuppi.game` puts them behind the game contract
(:class:`TuppiGame`).
"""

from __future__ import annotations

from engine.tuppi.game import TuppiGame, chance_of, replay

__all__ = ["TuppiGame", "chance_of", "replay"]
