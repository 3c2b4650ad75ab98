"""Background work for every table: turn timers, house bots, presence, closing.

Run as its own process (``python manage.py run_worker``) next to the Daphne
processes, as many as you like: each step locks the table row it changes and
re-checks the stored deadline under the lock, so exactly one process fires a
timer. With the in-memory channel layer (one process, no Redis) events sent from
another process would never reach the websockets, so there the same loop runs
as a task inside the Daphne process instead (``TABLES["WORKER_IN_PROCESS"]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.utils.module_loading import import_string

from . import fanout, services

log = logging.getLogger(__name__)
HOUSEKEEPING_SECONDS = 1.0


def default_tick() -> float:
    """How often the loop looks for due timers and house-bot turns (seconds)."""
    return float(settings.TABLES.get("WORKER_TICK_SECONDS", 0.1))


Sender = Callable[[fanout.Batch], None]  # the standalone worker's publisher (below)


def tick(now: datetime | None = None, send: Sender | None = None) -> int:
    """Fire due turn timers and let house bots act; returns how many tables changed.
    ``send``: how the standalone worker publishes each committed change (below)."""
    with fanout.collecting(send) if send else contextlib.nullcontext():
        return services.fire_due_timers(now) + services.run_house_bots(now)


def housekeeping(now: datetime | None = None, send: Sender | None = None) -> int:
    """Drop silent connections, stand up long-disconnected players, close abandoned tables,
    then run the ``TABLES["WORKER_HOOKS"]`` (e.g. incremental statistics)."""
    with fanout.collecting(send) if send else contextlib.nullcontext():
        changed = services.sweep_presence(now) + services.close_abandoned_tables(now)
    for path in settings.TABLES.get("WORKER_HOOKS", ()):
        import_string(path)()
    return changed


def _loop_sender() -> Sender:
    """Publish each change as it commits, from one event loop kept for the worker's life:
    ``async_to_sync`` from a plain thread runs a fresh loop per call, and the channel
    layer opens its Redis connections per loop."""
    loop = asyncio.new_event_loop()

    def send(batch: fanout.Batch) -> None:
        loop.run_until_complete(fanout.apublish([batch]))

    return send


def run(stop: threading.Event | None = None, tick_seconds: float | None = None) -> None:
    """The worker loop (blocking)."""
    stop = stop or threading.Event()
    pause = default_tick() if tick_seconds is None else tick_seconds
    last_housekeeping = 0.0
    send = _loop_sender()
    while not stop.is_set():
        try:
            tick(send=send)
            if time.monotonic() - last_housekeeping >= HOUSEKEEPING_SECONDS:
                housekeeping(send=send)
                last_housekeeping = time.monotonic()
        except Exception:  # keep going: a database hiccup must not stop every table
            log.exception("table worker step failed")
        finally:
            close_old_connections()
        stop.wait(pause)


_task: asyncio.Task[None] | None = None


async def _run_in_loop() -> None:
    last_housekeeping = 0.0
    while True:
        try:
            await database_sync_to_async(tick)()
            if time.monotonic() - last_housekeeping >= HOUSEKEEPING_SECONDS:
                await database_sync_to_async(housekeeping)()
                last_housekeeping = time.monotonic()
        except Exception:
            log.exception("in-process table worker step failed")
        await asyncio.sleep(default_tick())


def ensure_in_process_worker() -> None:
    """Start the worker as a task of the running event loop, once (see module doc)."""
    global _task
    if not settings.TABLES.get("WORKER_IN_PROCESS") or (_task is not None and not _task.done()):
        return
    _task = asyncio.get_running_loop().create_task(_run_in_loop())
