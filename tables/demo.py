"""Demo tables with house bots seated, so that ``bin/serve`` shows bots playing.

House bots belong to the system account (``accounts.services.house_owner``), never
to a person: nobody is offered their turns or sees their cards.
``Player.house_strategy`` names the botkit strategy and makes the table worker play
them. The demo ``tester`` creates the tables and seats them (testers may seat house
bots, V33). House bots are never marked disconnected.
"""

from __future__ import annotations

from django.db import transaction

from accounts.demo import Output, demo_step
from accounts.models import User
from accounts.services import create_house_bot

from . import services
from .models import Table

TABLE_CREATOR = "tester"
HOUSE_BOTS = [
    # name, botkit strategy
    ("House-RuleBased", "rule_based"),
    ("House-EHS", "ehs"),
    ("House-Station", "calling_station"),
    ("House-Random", "random"),
    # Tuppi's agents (botkit.tuppi): the game's random, greedy and strong styles
    ("Tuppi-Random", "random"),
    ("Tuppi-Greedy", "greedy"),
    ("Tuppi-Strong", "strong"),
]
DEMO_TABLES = [
    # name, game, settings, seated bots (seat, bot name)
    ("Demo NL 1/2 6-max", "holdem",
     {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6},
     [(0, "House-RuleBased"), (2, "House-EHS"), (4, "House-Station")]),
    ("Demo FL 2/4", "holdem", {"structure": "FL", "small_blind": 1, "big_blind": 2, "seats": 6},
     [(1, "House-Random"), (3, "House-RuleBased")]),
    ("Demo PL heads-up", "holdem",
     {"structure": "PL", "small_blind": 1, "big_blind": 2, "seats": 2},
     [(0, "House-EHS")]),
    ("Demo PLO 1/2", "omaha", {"structure": "PL", "small_blind": 1, "big_blind": 2, "seats": 6},
     [(0, "House-RuleBased"), (3, "House-Station")]),
    ("Demo Seven-card stud 2/4", "stud", {"big_blind": 2, "bring_in": 1, "ante": 1, "seats": 8},
     [(1, "House-RuleBased"), (4, "House-Random")]),
    ("Demo Five-card draw", "five_card_draw",
     {"structure": "PL", "small_blind": 1, "big_blind": 2, "seats": 6},
     [(0, "House-RuleBased"), (2, "House-Station")]),
    # Three agents wait for a fourth player: seat 1, partnered with Tuppi-Greedy.
    ("Demo Tuppi", "tuppi", {"round_limit": 0},
     [(0, "Tuppi-Strong"), (2, "Tuppi-Random"), (3, "Tuppi-Greedy")]),
]


@demo_step(order=200)
def demo_tables(out: Output) -> None:
    owner = User.objects.get(username=TABLE_CREATOR)  # made by the accounts demo step
    bots = {name: create_house_bot(name=name, strategy=strategy)
            for name, strategy in HOUSE_BOTS}
    out.write("Demo tables (house bots play; open the lobby to join):")
    for name, game, game_settings, seated in DEMO_TABLES:
        with transaction.atomic():
            table = Table.objects.filter(name=name).first()
            if table is None:
                table = services.create_table(creator=owner, name=name, game=game,
                                              settings=game_settings)
                options = services.default_seat_options(table)
                for seat, bot_name in seated:
                    services.execute(table_id=table.pk, user=owner, bot=None, command={
                        "type": "sit", "seat": seat, "player": bots[bot_name].pk, **options})
        out.write(f"  {name}  (table {table.pk}, {table.game_name})")
