"""House bots: reference opponents of different levels and styles.

>>> sorted(HOUSE_BOTS)
['calling_station', 'ehs', 'random', 'rule_based']
>>> make_bot("calling_station").act({"legal": {"can_muck": False, "can_check": True}})
{'kind': 'check'}
"""

from __future__ import annotations

import random
from collections.abc import Callable

from botkit.bot import Bot
from botkit.house.calling_station import CallingStation
from botkit.house.ehs import EHSBot
from botkit.house.random_bot import RandomBot
from botkit.house.rule_based import RuleBasedBot

__all__ = ["HOUSE_BOTS", "CallingStation", "EHSBot", "RandomBot", "RuleBasedBot", "make_bot"]

HOUSE_BOTS: dict[str, Callable[[random.Random | None], Bot]] = {
    "random": RandomBot,
    "calling_station": CallingStation,
    "rule_based": RuleBasedBot,
    "ehs": EHSBot,
}
"""Bot name -> constructor taking an optional ``random.Random``."""


def make_bot(name: str, rng: random.Random | None = None) -> Bot:
    """A fresh house bot; pass a seeded ``rng`` for reproducible play.

    Raises ``KeyError`` (with the known names) for an unknown name.
    """
    try:
        factory = HOUSE_BOTS[name]
    except KeyError:
        known = ", ".join(sorted(HOUSE_BOTS))
        raise KeyError(f"No house bot called {name!r} (known: {known}).") from None
    return factory(rng)
