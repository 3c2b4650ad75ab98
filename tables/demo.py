"""Demo tables with house bots seated, so that ``bin/serve`` shows bots playing.

House bots belong to the demo ``tester`` (every demo bot does; the accounts demo
test relies on it); ``Player.house_strategy`` names the botkit strategy and makes
the table worker play them. They are never marked disconnected.
"""

from __future__ import annotations

from django.db import transaction

from accounts.demo import Output, demo_step
from accounts.models import Player, PlayerKind, User

from . import services
from .models import Table

HOUSE_OWNER = "tester"
HOUSE_BOTS = [
    # name, botkit strategy
    ("House-RuleBased", "rule_based"),
    ("House-EHS", "ehs"),
    ("House-Station", "calling_station"),
    ("House-Random", "random"),
]
DEMO_TABLES = [
    # name, settings, seated bots (seat, bot name)
    ("Demo NL 1/2 6-max", {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6},
     [(0, "House-RuleBased"), (2, "House-EHS"), (4, "House-Station")]),
    ("Demo FL 2/4", {"structure": "FL", "small_blind": 1, "big_blind": 2, "seats": 6},
     [(1, "House-Random"), (3, "House-RuleBased")]),
    ("Demo PL heads-up", {"structure": "PL", "small_blind": 1, "big_blind": 2, "seats": 2},
     [(0, "House-EHS")]),
]


def house_bot(owner: User, name: str, strategy: str) -> Player:
    bot = Player.objects.filter(name__iexact=name).first()
    if bot is None:
        bot = Player.objects.create(owner=owner, name=name, kind=PlayerKind.BOT,
                                    house_strategy=strategy,
                                    description=f"House bot ({strategy}).")
    return bot


@demo_step(order=200)
def demo_tables(out: Output) -> None:
    owner = User.objects.get(username=HOUSE_OWNER)  # made by the accounts demo step
    bots = {name: house_bot(owner, name, strategy) for name, strategy in HOUSE_BOTS}
    out.write("Demo tables (house bots play; open the lobby to join):")
    for name, game_settings, seated in DEMO_TABLES:
        with transaction.atomic():
            table = Table.objects.filter(name=name).first()
            if table is None:
                table = services.create_table(creator=owner, name=name, settings=game_settings)
                for seat, bot_name in seated:
                    bot = bots[bot_name]
                    buy_in = table.max_buy_in or 20 * 2 * table.big_blind
                    services.execute(table_id=table.pk, user=owner, bot=None, command={
                        "type": "sit", "seat": seat, "buy_in": buy_in, "player": bot.pk})
        out.write(f"  {name}  (table {table.pk}, {table.game_name})")
