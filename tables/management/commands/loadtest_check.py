"""``manage.py loadtest_check --prefix lt``: the load run's end-of-run invariants as JSON.

* chips: the balances of the prefix's bots + every chip on the prefix's tables
  (stacks, which during a hand are the starting stacks, see
  ``tables.selectors.chips_on_tables``) must be 0 — bots start at 0 and every
  buy-in is a ledger debit.
* stuck: running tables whose turn deadline passed more than ``--late`` seconds
  ago (the worker should have fired it) or that have players but no hand.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand
from django.db.models import Count, Sum
from django.utils import timezone

from accounts.models import Player
from engine.registry import get_game
from tables.models import Hand, Table, TableStatus


def check(prefix: str, late_seconds: float = 5.0) -> dict[str, Any]:
    tables = Table.objects.filter(name__startswith=f"{prefix}-")
    chips = 0
    for table in tables.only("game", "state"):
        state = get_game(table.game).load(table.state)
        chips += sum(s.stack for s in state.seats if s is not None)
    balances = int(Player.objects.filter(name__startswith=f"{prefix}-")
                   .aggregate(total=Sum("balance"))["total"] or 0)
    overdue = timezone.now() - timedelta(seconds=late_seconds)
    stuck = list(tables.filter(status=TableStatus.RUNNING, deadline__lt=overdue)
                 .values_list("pk", flat=True))
    idle = list(tables.annotate(n=Count("seats")).filter(n__gte=2, current_hand__isnull=True)
                .values_list("pk", flat=True))
    hands = Hand.objects.filter(table__in=tables)
    return {
        "tables": tables.count(), "balances": balances, "chips_on_tables": chips,
        "chips_conserved": balances + chips == 0, "overdue_deadlines": stuck,
        "seated_without_hand": idle, "hands_finished": hands.filter(ended_at__isnull=False).count(),
    }


class Command(BaseCommand):
    help = "Check chip conservation and stuck tables of a load run; prints JSON."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--prefix", default="lt")
        parser.add_argument("--late", type=float, default=5.0)

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(json.dumps(check(options["prefix"], options["late"])))
