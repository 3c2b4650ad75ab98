"""``manage.py loadtest_check --prefix lt``: the load run's end-of-run invariants as JSON.

* chips: the balances of the prefix's bots + every chip on the prefix's tables
  (stacks, which during a hand are the starting stacks, see
  ``tables.selectors.chips_on_tables``) must be 0 — bots start at 0 and every
  buy-in is a ledger debit.
* stuck: running tables whose turn deadline passed more than ``--late`` seconds
  ago (the worker should have fired it; ``overdue`` gives each one's version and how
  late it is) or that have players but no hand.
* privacy (``--reveals FILE``): the hole cards the generator's spectators saw in
  snapshots without having seen their ``CardsShown`` (a missed message) are
  checked against the truth: the ``CardsShown`` events of the stored round log. A reveal the
  truth does not confirm, with the same cards, is a leak.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand
from django.db.models import Count, Sum
from django.utils import timezone

from accounts.models import Player
from engine.registry import get_game
from tables import handlog
from tables.models import Hand, Table, TableStatus

Shown = dict[tuple[int, int, int], str]  # (table id, hand number, seat) -> the cards shown


def check(prefix: str, late_seconds: float = 5.0) -> dict[str, Any]:
    tables = Table.objects.filter(name__startswith=f"{prefix}-")
    chips = 0
    for table in tables.only("game", "state"):
        game = get_game(table.game)
        chips += sum(s.chips for s in game.seats(game.load(table.state)) if s is not None)
    balances = int(Player.objects.filter(name__startswith=f"{prefix}-")
                   .aggregate(total=Sum("balance"))["total"] or 0)
    now = timezone.now()
    overdue = {pk: {"version": version, "late_s": round((now - deadline).total_seconds(), 1)}
               for pk, version, deadline in tables.filter(
                   status=TableStatus.RUNNING, deadline__lt=now - timedelta(seconds=late_seconds))
               .values_list("pk", "version", "deadline")}
    idle = list(tables.annotate(n=Count("seats")).filter(n__gte=2, current_hand__isnull=True)
                .values_list("pk", flat=True))
    hands = Hand.objects.filter(table__in=tables)
    return {
        "tables": tables.count(), "balances": balances, "chips_on_tables": chips,
        "chips_conserved": balances + chips == 0, "overdue_deadlines": sorted(overdue),
        "overdue": {str(pk): late for pk, late in sorted(overdue.items())},
        "seated_without_hand": idle, "hands_finished": hands.filter(ended_at__isnull=False).count(),
    }


def shown_cards(prefix: str, reveals: list[dict[str, Any]]) -> Shown:
    """The cards really shown in the hands these reveals are about (the prefix's tables
    only): the ``CardsShown`` events of the stored, omniscient round log (finished or
    running), never a projection."""
    wanted = {(r["table"], r["hand"]) for r in reveals}
    tables = Table.objects.filter(name__startswith=f"{prefix}-",
                                  pk__in={table for table, _ in wanted})
    shown: Shown = {}
    hands = [hand for hand in Hand.objects.filter(
        table__in=tables, number__in={number for _, number in wanted})
        if (hand.table_id, hand.number) in wanted]
    handlog.attach_steps([hand for hand in hands if hand.ended_at is None])  # (running)
    for hand in hands:
        for event in hand.events:
            if event.get("type") == "CardsShown":
                shown[hand.table_id, hand.number, event["player"]] = event["cards"]
    return shown


def judge_reveals(reveals: list[dict[str, Any]], shown: Shown) -> dict[str, Any]:
    """Each reveal is confirmed if those cards of that seat were shown in that hand."""
    leaks = []
    for r in reveals:
        truth = shown.get((r["table"], r["hand"], r["seat"]))
        if truth != r["cards"]:
            leaks.append(f"table {r['table']} v{r['version']}: snapshot showed seat "
                         f"{r['seat']}'s cards {r['cards']} in hand {r['hand']}; database: "
                         f"{'never shown' if truth is None else 'shown as ' + truth}")
    return {"checked": len(reveals), "confirmed": len(reveals) - len(leaks), "leaks": leaks}


class Command(BaseCommand):
    help = ("Check chip conservation, stuck tables and (--reveals) snapshot reveals of a "
            "load run; prints JSON.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--prefix", default="lt")
        parser.add_argument("--late", type=float, default=5.0)
        parser.add_argument("--reveals", default="",
                            help="JSON list of snapshot reveals to verify: {table, hand, "
                                 "seat, cards, version}")

    def handle(self, *args: Any, **options: Any) -> None:
        result = check(options["prefix"], options["late"])
        if options["reveals"]:
            reveals = json.loads(Path(options["reveals"]).read_text())
            result["reveals"] = judge_reveals(reveals, shown_cards(options["prefix"], reveals))
        self.stdout.write(json.dumps(result))
