"""Server-side ("house") bots: a player with ``house_strategy`` set is played here.

The strategy object comes from ``settings.TABLES["HOUSE_BOT_FACTORY"]``
(``botkit.house.make_bot`` by default: ``make_bot(strategy, game=key) -> bot`` with
``bot.act(view) -> move dict``). Instances are cached per player, game and strategy
in this process.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

_bots: dict[tuple[str, int, str, str], Any] = {}


def bot_for(player_id: int, strategy: str, game: str) -> Any:
    factory_path = settings.TABLES["HOUSE_BOT_FACTORY"]
    key = (factory_path, player_id, strategy, game)
    if key not in _bots:
        _bots[key] = import_string(factory_path)(strategy, game=game)
    return _bots[key]


def plays(strategy: str, game: str) -> bool:
    """True if the house-bot factory has a bot of style ``strategy`` for ``game``
    (it raises ``KeyError`` for a style it does not have)."""
    try:
        import_string(settings.TABLES["HOUSE_BOT_FACTORY"])(strategy, game=game)
    except KeyError:
        return False
    return True
