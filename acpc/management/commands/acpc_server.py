"""``manage.py acpc_server``: the ACPC protocol listener (docs/acpc.md)."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand

from acpc import server


class Command(BaseCommand):
    help = ("Serve the ACPC protocol (VERSION:2.0.0) on a TCP port: bots join live tables "
            "and batch matches.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default=os.environ.get("ACPC_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("ACPC_PORT", "18791")))
        parser.add_argument("--poll", type=float, default=0.005,
                            help="Seconds between looks at a table (default 0.005).")
        parser.add_argument("--with-worker", action="store_true",
                            help="Also run the table worker (turn timers, house bots) here.")

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        if options["with_worker"]:
            from tables import worker

            threading.Thread(target=worker.run, args=(stop,), daemon=True).start()
        ready = threading.Event()
        threading.Thread(target=lambda: ready.wait() or self.stdout.write(
            f"ACPC listener on {options['host']}:{options['port']} (VERSION:2.0.0)"),
            daemon=True).start()
        server.serve(options["host"], options["port"], options["poll"], ready=ready, stop=stop)
