"""House bots: reference opponents of different levels and styles, per game.

Hold'em has four styles of its own (``random``, ``calling_station``,
``rule_based``, ``ehs``: :data:`HOUSE_BOTS`, the styles ``GameInfo.house_bots``
lists); ``uniform`` (:class:`UniformBot`, a uniformly random legal move read from
``view["moves"]``) plays every game. For a game without bots of its own,
``random`` is ``uniform``.

>>> house_bots("holdem")
['random', 'calling_station', 'rule_based', 'ehs', 'uniform']
>>> make_bot("calling_station").act({"legal": {"can_muck": False, "can_check": True}})
{'kind': 'check'}
>>> type(make_bot("uniform", game="holdem")).__name__
'UniformBot'
"""

from __future__ import annotations

import random
from collections.abc import Callable

from botkit.bot import Bot
from botkit.dice import BOTS as DICE_BOTS
from botkit.house.calling_station import CallingStation
from botkit.house.ehs import EHSBot
from botkit.house.random_bot import RandomBot
from botkit.house.rule_based import RuleBasedBot
from botkit.house.uniform import UniformBot
from botkit.house.variant_rules import VariantRuleBot
from botkit.tuppi import BOTS as TUPPI_BOTS
from engine.poker.variants import VARIANTS

__all__ = ["GAME_BOTS", "GENERIC_BOTS", "HOUSE_BOTS", "CallingStation", "EHSBot", "RandomBot",
           "RuleBasedBot", "UniformBot", "VariantRuleBot", "house_bots", "make_bot"]

Factory = Callable[[random.Random | None], Bot]

GENERIC_BOTS: dict[str, Factory] = {"uniform": UniformBot}
"""Bots that play any game (they read only ``view["moves"]``)."""

HOUSE_BOTS: dict[str, Factory] = {
    "random": RandomBot,
    "calling_station": CallingStation,
    "rule_based": RuleBasedBot,
    "ehs": EHSBot,
    **GENERIC_BOTS,
}
"""Hold'em: bot name -> constructor taking an optional ``random.Random``."""

VARIANT_BOTS: dict[str, Factory] = {
    "random": RandomBot,
    "calling_station": CallingStation,
    "rule_based": VariantRuleBot,
    **GENERIC_BOTS,
}
"""The other poker variants: random, calling station and the rule-based bot
(:class:`VariantRuleBot`: Monte-Carlo equity against pot odds, and draw rules)."""

GAME_BOTS: dict[str, dict[str, Factory]] = {
    "holdem": HOUSE_BOTS, **{key: VARIANT_BOTS for key in VARIANTS if key != "holdem"},
    "tuppi": {**TUPPI_BOTS, **GENERIC_BOTS}, "dice": {**DICE_BOTS, **GENERIC_BOTS}}
"""Game key -> its house bots (a game not listed has the generic ones)."""


def _bots(game: str) -> dict[str, Factory]:
    own = GAME_BOTS.get(game)
    if own is not None:
        return own
    return {"random": UniformBot, **GENERIC_BOTS}


def house_bots(game: str = "holdem") -> list[str]:
    """The house-bot styles that can play ``game`` (any key: unknown games get the generic
    ones)."""
    return list(_bots(game))


def make_bot(name: str, rng: random.Random | None = None, game: str = "holdem") -> Bot:
    """A fresh house bot for ``game``; pass a seeded ``rng`` for reproducible play.

    Raises ``KeyError`` (with the known names) for a name that does not play ``game``.
    """
    bots = _bots(game)
    try:
        factory = bots[name]
    except KeyError:
        known = ", ".join(sorted(bots))
        raise KeyError(f"No house bot called {name!r} for {game} (known: {known}).") from None
    return factory(rng)
