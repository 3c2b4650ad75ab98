"""``manage.py loadtest_cleanup --prefix lt``: retire a load run's tables.

The ledger is append-only and hands refer to their tables, so nothing is
deleted: the prefix's tables are closed (they leave the lobby, the worker no
longer fires their timers), their seats and connections are removed so the
presence sweep has nothing left to do for them, and the bots' tokens are
cleared. For a clean slate drop the benchmark database (``bin/scaleout reset``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from tables.models import Connection, Seat, Table, TableStatus


class Command(BaseCommand):
    help = "Close a load run's tables and revoke its bots' tokens."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--prefix", default="lt")

    def handle(self, *args: Any, **options: Any) -> None:
        prefix = options["prefix"]
        closed = 0
        # One table per transaction: a running server may be locking tables too
        # (disconnects), and one big UPDATE over many rows could deadlock with it.
        ids = Table.objects.filter(name__startswith=f"{prefix}-").exclude(
            status=TableStatus.CLOSED).order_by("pk").values_list("pk", flat=True)
        for table_id in list(ids):
            with transaction.atomic():
                Table.objects.select_for_update().filter(pk=table_id).first()
                Connection.objects.filter(table_id=table_id).delete()
                Seat.objects.filter(table_id=table_id).delete()
                closed += Table.objects.filter(pk=table_id).update(
                    status=TableStatus.CLOSED, closed_at=timezone.now(), deadline=None,
                    bot_due=None, to_act_seat=None)
        Player.objects.filter(name__startswith=f"{prefix}-").update(token_hash=None)
        self.stdout.write(f"closed {closed} tables of '{prefix}'")
