"""Subprocess helpers of the ACPC tests (own SQLite file, no Redis).

``python -m tests.acpc.server setup`` -> {"token", "table", "limit_table"} as JSON: a bot
token and heads-up NL 50/100 and FL 50/100 tables with a house ``calling_station`` bot
(a busted house bot buys in again);
``python -m tests.acpc.server serve PORT`` -> the ACPC listener with the table worker
ticking every 5 ms; ``chips``, ``hands TABLE``: what the tests check.
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
    _, token = create_bot(owner=pekka, name="AcpcBot")
    owner = User.objects.create_user("house", role=Role.TESTER)
    tables = {}
    for structure in ("NL", "FL"):
        house = Player.objects.create(owner=owner, name=f"House-{structure}",
                                      kind=PlayerKind.BOT, house_strategy="calling_station")
        table = services.create_table(
            creator=pekka, name=f"ACPC {structure}", turn_seconds=30,
            settings={"structure": structure, "small_blind": 50, "big_blind": 100,
                      "seats": 2, "max_buy_in": 20_000})
        services.execute(table_id=table.pk, user=owner, command={
            "type": "sit", "seat": 0, "buy_in": 20_000, "player": house.pk})
        tables[structure] = table.pk
    print(json.dumps({"token": token, "table": tables["NL"], "limit_table": tables["FL"]}))


def chips() -> None:
    """Every chip: account balances plus chips on tables (constant while bots play)."""
    from tables import selectors

    print(selectors.total_balances() + selectors.chips_on_tables())


def hands(table: str) -> None:
    """The table's version and its number of finished hands, as JSON."""
    from tables.models import Hand, Table

    version = Table.objects.values_list("version", flat=True).get(pk=int(table))
    done = Hand.objects.filter(table_id=int(table), ended_at__isnull=False).count()
    print(json.dumps({"version": version, "hands": done}))


def match(match_id: str) -> None:
    """A stored match: status, results and its ACPC STATE lines, as JSON."""
    from io import StringIO

    from django.core.management import call_command

    from research.models import MatchRun

    run = MatchRun.objects.get(pk=int(match_id))
    out = StringIO()
    call_command("acpc_log", "--match", match_id, stdout=out)
    print(json.dumps({"status": run.status, "results": run.results, "log": out.getvalue()}))


def serve(port: str) -> None:
    os.environ.update(TABLES_WORKER_TICK_SECONDS="0.005", HOUSE_BOT_DELAY="0")
    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1)  # a stuck test: kill -USR1 dumps every thread
    import django

    django.setup()
    from django.core.management import call_command

    call_command("acpc_server", "--port", port, "--with-worker", "--poll", "0.002")


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        import django

        django.setup()
        if sys.argv[1] == "hands":
            hands(sys.argv[2])
        elif sys.argv[1] == "match":
            match(sys.argv[2])
        else:
            {"setup": setup, "chips": chips}[sys.argv[1]]()
