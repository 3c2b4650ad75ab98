"""Helpers run as subprocesses by the SDK end-to-end test (own SQLite file, no Redis).

``python -m tests.sdk.server setup``  → prints {"token", "table"} as JSON;
``python -m tests.sdk.server moves_setup`` → a Kuhn poker table (the test game of
tests/games/kuhn.py, registered in this server) and a Hold'em table, each with a
house ``uniform`` / ``rule_based`` bot; prints {"token", "tables"};
``python -m tests.sdk.server match_setup`` → prints the bot tokens of two testers;
``python -m tests.sdk.server chips``  → prints balances + chips on tables (0 = conserved);
``python -m tests.sdk.server serve PORT`` → Daphne with the in-process table worker,
ticking every 10 ms (the worker's 100 ms tick would make 1,000 hands take minutes).
"""

from __future__ import annotations

import json
import os
import sys


def setup() -> None:
    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot
    from tables import services

    pekka = User.objects.create_user("pekka", role=Role.TESTER)
    Player.objects.create(owner=pekka, name="pekka", kind=PlayerKind.HUMAN)
    bot, token = create_bot(owner=pekka, name="Skynet")
    owner = User.objects.create_user("house", role=Role.TESTER)
    house = Player.objects.create(owner=owner, name="House-RuleBased", kind=PlayerKind.BOT,
                                  house_strategy="rule_based")
    tables = {}
    for transport in ("ws", "rest"):
        table = services.create_table(
            creator=pekka, name=f"SDK {transport}", turn_seconds=5,
            settings={"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2,
                      "max_buy_in": 1_000_000})
        services.execute(table_id=table.pk, user=owner, command={
            "type": "sit", "seat": 0, "buy_in": 1_000_000, "player": house.pk})
        tables[transport] = table.pk
    print(json.dumps({"token": token, "tables": tables, "bot": bot.pk}))


def register_test_games() -> None:
    """The platform tests' Kuhn poker, in this server too (as tests/conftest.py does)."""
    from engine.registry import register
    from tests.games.kuhn import KuhnGame

    register(KuhnGame())


def moves_setup() -> None:
    """For bots that read only ``view["moves"]``: a Kuhn table and a Hold'em table."""
    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot
    from tables import services

    pekka = User.objects.create_user("pekka", role=Role.TESTER)
    Player.objects.create(owner=pekka, name="pekka", kind=PlayerKind.HUMAN)
    _, token = create_bot(owner=pekka, name="Mover")
    owner = User.objects.create_user("house", role=Role.TESTER)
    tables = {}
    for game, settings, strategy, buy_in in (
            ("kuhn", {"ante": 1}, "uniform", 1000),
            ("holdem", {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2,
                        "max_buy_in": 1_000_000}, "rule_based", 1_000_000)):
        house = Player.objects.create(owner=owner, name=f"House-{game}", kind=PlayerKind.BOT,
                                      house_strategy=strategy)
        table = services.create_table(creator=pekka, name=f"Moves {game}", game=game,
                                      turn_seconds=5, settings=settings)
        services.execute(table_id=table.pk, user=owner, command={
            "type": "sit", "seat": 0, "buy_in": buy_in, "player": house.pk})
        tables[game] = table.pk
    print(json.dumps({"token": token, "tables": tables}))


def match_setup() -> None:
    """Two testers with a bot each: pekka's Skynet plays; olli's Intruder must not."""
    from accounts.models import Role, User
    from accounts.services import create_bot

    tokens = {}
    for user, bot in (("pekka", "Skynet"), ("olli", "Intruder")):
        owner = User.objects.create_user(user, role=Role.TESTER)
        tokens[bot] = create_bot(owner=owner, name=bot)[1]
    print(json.dumps(tokens))


def chips() -> None:
    from tables import selectors

    print(selectors.total_balances() + selectors.chips_on_tables())


def serve(port: str) -> None:
    # A bot at full speed sends more than the default 10 messages/s per connection.
    os.environ.update(TABLES_RATE_PER_SECOND="1000", TABLES_RATE_BURST="1000",
                      TABLES_WORKER_TICK_SECONDS="0.01")
    import django

    from pokersite.serve import choose_loop

    choose_loop()  # before Django's set-up imports Daphne (and so installs the reactor)
    django.setup()
    register_test_games()
    from daphne.cli import CommandLineInterface

    CommandLineInterface().run(["-b", "127.0.0.1", "-p", port, "pokersite.asgi:application"])


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
    command = sys.argv[1]
    if command == "serve":
        serve(sys.argv[2])
    else:
        import django

        django.setup()
        register_test_games()
        {"setup": setup, "chips": chips, "match_setup": match_setup,
         "moves_setup": moves_setup}[command]()
