"""Setup for the MCP end-to-end tests, run as a subprocess against the test server's
own SQLite file (like tests/sdk/server.py):

``python -m tests.mcp.setup setup`` → prints {"token", "revoked", "holdem", "tuppi"}:
the tester pekka's bot ``Agent`` (its token), a bot ``Old`` whose token was then
regenerated (the old token, now revoked), a heads-up NL 1/2 Hold'em table with 60 s
turns where a house ``rule_based`` bot sits, and a Tuppi table where three house
Tuppi agents wait for a fourth player (seat 1).
``python -m tests.mcp.setup inspect TABLE`` → prints the stored reasons of the
table's finished hands and the Agent's balance as JSON.
"""

from __future__ import annotations

import json
import os
import sys


def setup() -> None:
    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot, regenerate_bot_token
    from tables import services

    pekka = User.objects.create_user("pekka", role=Role.TESTER)
    Player.objects.create(owner=pekka, name="pekka", kind=PlayerKind.HUMAN)
    _, token = create_bot(owner=pekka, name="Agent")
    old, revoked = create_bot(owner=pekka, name="Old")
    regenerate_bot_token(old)
    owner = User.objects.create_user("house", role=Role.TESTER)
    house = Player.objects.create(owner=owner, name="House-RuleBased", kind=PlayerKind.BOT,
                                  house_strategy="rule_based")
    table = services.create_table(
        creator=pekka, name="MCP heads-up", turn_seconds=60,
        settings={"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2,
                  "max_buy_in": 1_000_000})
    services.execute(table_id=table.pk, user=owner, command={
        "type": "sit", "seat": 0, "buy_in": 1_000_000, "player": house.pk})
    tuppi = services.create_table(creator=pekka, name="MCP Tuppi", game="tuppi",
                                  turn_seconds=60, settings={"round_limit": 0})
    for seat, (name, style) in {0: ("Tuppi-Greedy", "greedy"), 2: ("Tuppi-Random", "random"),
                                3: ("Tuppi-Random2", "random")}.items():
        agent = Player.objects.create(owner=owner, name=name, kind=PlayerKind.BOT,
                                      house_strategy=style)
        services.execute(table_id=tuppi.pk, user=owner, command={
            "type": "sit", "seat": seat, "player": agent.pk})
    print(json.dumps({"token": token, "revoked": revoked, "holdem": table.pk,
                      "tuppi": tuppi.pk}))


def inspect(table: str) -> None:
    from accounts.models import Player
    from tables.models import Hand

    reasons = [entry["reason"] for hand in Hand.objects.filter(table_id=int(table))
               for entry in hand.policies if "reason" in entry]
    agent = Player.objects.get(name="Agent")
    print(json.dumps({"reasons": reasons, "balance": agent.balance,
                      "hands": Hand.objects.filter(table_id=int(table),
                                                   ended_at__isnull=False).count()}))


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
    import django

    django.setup()
    if sys.argv[1] == "setup":
        setup()
    else:
        inspect(sys.argv[2])
