"""``manage.py run_worker``: timers, house bots, presence sweeps, closing tables."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand

from tables import worker


class Command(BaseCommand):
    help = "Run the table worker: turn timers, house bots, presence, abandoned tables."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="Run one step and exit.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["once"]:
            worker.tick()
            worker.housekeeping()
            return
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        self.stdout.write("Table worker running (Ctrl-C to stop).")
        worker.run(stop)
