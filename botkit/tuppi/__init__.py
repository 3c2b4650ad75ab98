"""Tuppi agents and the simulator (docs/tuppi.md).

:data:`BOTS` maps an agent's name to its constructor (an optional
``random.Random`` for reproducible play): ``random`` (a uniformly random legal
move), ``greedy`` (the assignment's reference: the cheapest card that wins the
trick, else the lowest; rami at 14+ face points) and ``strong`` (determinised
Monte-Carlo search over the unseen cards with a rule-based rollout policy).
:data:`AGENTS` adds ``rules`` (that rollout policy alone) for the simulator.

>>> sorted(BOTS), sorted(AGENTS)
(['greedy', 'random', 'strong'], ['greedy', 'random', 'rules', 'strong'])
>>> type(BOTS["strong"](None)).__name__
'StrongBot'
"""

from __future__ import annotations

import random
from collections.abc import Callable

from botkit.bot import Bot
from botkit.tuppi.bots import GreedyBot, RandomBot, RulesBot, StrongBot

__all__ = ["AGENTS", "BOTS", "GreedyBot", "RandomBot", "RulesBot", "StrongBot"]

Factory = Callable[[random.Random | None], Bot]

BOTS: dict[str, Factory] = {"random": RandomBot, "greedy": GreedyBot, "strong": StrongBot}
"""The Tuppi house bots: name -> constructor taking an optional ``random.Random``."""

AGENTS: dict[str, Factory] = {**BOTS, "rules": RulesBot}
"""Every agent the simulator knows (the house bots and the rule-based player)."""
