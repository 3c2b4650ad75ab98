"""``manage.py acpc_log``: finished hands as ACPC ``STATE`` lines (docs/acpc.md, "Logs")."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from botkit.acpc import AcpcError, phh_to_state_lines
from engine.game import Viewer
from research.models import MatchRun
from tables.models import Hand
from tables.selectors import export_round


class Command(BaseCommand):
    help = ("Write finished hold'em hands as ACPC STATE lines (every hole card): a live "
            "table's (--table) or a stored batch match's (--match).")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--table", type=int)
        parser.add_argument("--match", type=int)
        parser.add_argument("--last", type=int, default=0, help="Only the last N hands.")

    def handle(self, *args: Any, **options: Any) -> None:
        if (options["table"] is None) == (options["match"] is None):
            raise CommandError("Give --table ID or --match ID.")
        if options["match"] is not None:
            run = MatchRun.objects.filter(pk=options["match"]).first()
            if run is None or not run.phh:
                raise CommandError("No such match, or it stored no hands (PHH).")
            texts = [run.phh]
        else:
            hands = (Hand.objects.filter(table_id=options["table"], ended_at__isnull=False)
                     .select_related("table").order_by("-number"))
            if options["last"]:
                hands = hands[: options["last"]]
            texts = [export_round(hand, Viewer.superuser())
                     for hand in reversed(list(hands))]
        try:
            if options["table"] is not None:  # one .phhs file: [n] before each hand
                texts = ["\n".join(f"[{i}]\n{t}" for i, t in enumerate(texts, 1) if t)]
            for line in phh_to_state_lines("\n".join(texts)):
                self.stdout.write(line)
        except AcpcError as error:
            raise CommandError(str(error)) from None
