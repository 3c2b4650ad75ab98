"""``uniform``: any game's random player — a uniformly chosen legal move (``view["moves"]``).

It reads only the generic descriptors every game gives (:mod:`engine.game`), so it
plays any registered game; arguments are uniform too (a number in its range, one
of the options, a random subset of the allowed size).

>>> import random
>>> bot = UniformBot(random.Random(1))
>>> bot.act({"moves": [{"kind": "fold", "label": "Fold"}]})
{'kind': 'fold'}
>>> move = bot.act({"moves": [{"kind": "raise", "label": "Raise to",
...                            "params": {"amount": {"type": "number", "min": 4, "max": 8}}}]})
>>> move["kind"], 4 <= move["amount"] <= 8
('raise', True)
"""

from __future__ import annotations

import random

from botkit.bot import Bot, Json
from engine.game import random_move


class UniformBot(Bot):
    """Every legal move equally likely (poker: fold included), then uniform arguments."""

    name = "uniform"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def act(self, view: Json) -> Json:
        return random_move(view["moves"], self.rng)
