"""``manage.py update_stats``: count newly finished hands into the stored statistics."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from research import services


class Command(BaseCommand):
    help = "Count finished hands into the stored player statistics (idempotent)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--loop", type=float, default=0,
                            help="keep running, every N seconds (0: once and exit)")

    def handle(self, *args: Any, **options: Any) -> None:
        while True:
            counted = services.update_all_stats()
            self.stdout.write(f"Counted {counted} hands.")
            if not options["loop"]:
                return
            time.sleep(options["loop"])
