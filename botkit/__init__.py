"""botkit: write, run and judge poker bots on the engine, without Django.

* :mod:`botkit.bot` — the interface: ``act(view) -> action`` plus optional hooks;
* :mod:`botkit.view` — :func:`make_view` (the ``your_turn`` payload) and :class:`View`;
* :mod:`botkit.house` — reference opponents, :func:`botkit.house.make_bot`;
* :mod:`botkit.match` — batch and duplicate matches with confidence intervals;
* :mod:`botkit.stats` — VPIP, PFR, AF, WTSD, W$SD... from hand histories.
"""

from botkit.bot import Bot, BotLike
from botkit.view import View, make_view

__all__ = ["Bot", "BotLike", "View", "make_view"]
