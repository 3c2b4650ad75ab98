"""botkit: write, run and judge bots on the engine's games (poker first), without Django.

* :mod:`botkit.bot` — the interface: ``act(view) -> action`` plus optional hooks;
* :mod:`botkit.view` — :func:`make_view` (the ``your_turn`` payload,
  :func:`engine.game.decision_view`) and :class:`View`;
* :mod:`botkit.house` — reference opponents per game, :func:`botkit.house.make_bot`
  (``uniform`` plays any game from ``view["moves"]``);
* :mod:`botkit.match` — batch and duplicate matches of any registered game with
  confidence intervals, through the game contract (:mod:`engine.game`) only;
* :mod:`botkit.stats` — VPIP, PFR, AF, WTSD, W$SD... from hand histories.
"""

from botkit.bot import Bot, BotLike
from botkit.view import View, make_view

__all__ = ["Bot", "BotLike", "View", "make_view"]
