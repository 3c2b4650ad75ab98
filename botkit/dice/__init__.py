"""Bots of the dice game (:mod:`engine.dice`): ``random``, ``greedy``, ``ev`` (exact
expectation over the turn, bonus-aware), ``ev_plain`` (the same valuing the final
dice by their best immediate score alone) and ``optimal`` (the exact optimal
solitaire policy for small rule sets, else ``ev``). docs/dice.md has their figures;
``python -m botkit.dice.series BOT --games N`` measures one.

>>> sorted(BOTS)
['ev', 'ev_plain', 'greedy', 'optimal', 'random']
"""

from __future__ import annotations

import random
from collections.abc import Callable

from botkit.bot import Bot
from botkit.dice.bots import ExpectedValueBot, GreedyBot, OptimalBot, RandomBot, SheetSolver


def _plain(rng: random.Random | None = None) -> Bot:
    bot = ExpectedValueBot(rng, bonus_weight=0.0)
    bot.name = "ev_plain"
    return bot


BOTS: dict[str, Callable[[random.Random | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "ev": ExpectedValueBot,
    "ev_plain": _plain,
    "optimal": OptimalBot,
}
"""Bot name -> constructor taking an optional ``random.Random``."""

__all__ = ["BOTS", "ExpectedValueBot", "GreedyBot", "OptimalBot", "RandomBot", "SheetSolver"]
