"""Background work for every table: turn timers, house bots, presence, closing.

Run as its own process (``python manage.py run_worker``) next to the Daphne
processes, as many as you like: each step locks the table row it changes and
re-checks the stored deadline under the lock, so exactly one process fires a
timer. With the in-memory channel layer (one process, no Redis) events sent from
another process would never reach the websockets, so there the same loop runs
as a task inside the Daphne process instead (``TABLES["WORKER_IN_PROCESS"]``).

A worker that cannot publish does not fire: each tick first asks the channel layer
whether it takes a message (:func:`tables.fanout.aprobe`, one PUBLISH nobody
listens to). While it does not (Redis away), turn timers, house bots and the
presence sweep are paused (:class:`Pause`) — players would not hear of their turn,
so their clock must not run. When publishing has worked again for
``RESUME_GRACE_SECONDS`` (time for the Daphne processes to subscribe again),
:func:`tables.services.resume_turns` gives every running turn a full turn from then
and publishes a fresh version of each such table (clients resync). Commands keep
committing meanwhile (they go to PostgreSQL, not Redis). A tick that fails to reach
PostgreSQL pauses the same way (nobody could act meanwhile), and the presence sweep
waits ``PRESENCE_TIMEOUT`` after any pause. docs/security.md, "Outages".
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
from django.db.utils import InterfaceError, OperationalError
from django.utils import timezone
from django.utils.module_loading import import_string

from . import fanout, house, owner, services
from .outage import Outage

log = logging.getLogger(__name__)
HOUSEKEEPING_SECONDS = 1.0


def default_tick() -> float:
    """How often the loop looks for due timers and house-bot turns (seconds)."""
    return float(settings.TABLES.get("WORKER_TICK_SECONDS", 0.1))


Sender = Callable[[fanout.Batch], None]  # the standalone worker's publisher (below)


def tick(now: datetime | None = None, send: Sender | None = None) -> int:
    """Fire due turn timers and let house bots act; returns how many tables changed.
    ``send``: how the standalone worker publishes each committed change (below).
    With live tables (``TABLES["OWNERS"]``) their owners do this (tables.owner)."""
    if settings.TABLES.get("OWNERS"):
        return 0
    with fanout.collecting(send) if send else contextlib.nullcontext():
        return services.fire_due_timers(now) + services.run_house_bots(now)


def housekeeping(now: datetime | None = None, send: Sender | None = None, *,
                 paused: bool = False) -> int:
    """Drop silent connections, stand up long-disconnected players, close abandoned tables,
    bring this process's house-bot instances up to date (:func:`tables.house.sync`), then
    run the ``TABLES["WORKER_HOOKS"]`` (e.g. incremental statistics). ``paused``
    (the channel layer is away): only the hooks, nothing that players must hear of."""
    changed = 0
    if not paused:
        with fanout.collecting(send) if send else contextlib.nullcontext():
            # (with live tables, their owners sweep theirs: tables.owner.Host.sweep)
            owned = owner.owned_sync if owner.enabled() else None
            changed = (services.sweep_presence(now, owned=owned)
                       + services.close_abandoned_tables(now))
        house.sync()  # house-bot instances: rounds that ended, bots that left their seat
    for path in settings.TABLES.get("WORKER_HOOKS", ()):
        import_string(path)()
    return changed


FIRE, HOLD, RESUME = "fire", "hold", "resume"


class Pause(Outage):
    """Whether the worker may fire timers now: the outage state of one worker.

    :meth:`step` takes whether the channel layer took the tick's probe and answers
    ``FIRE`` (all well), ``HOLD`` (unreachable, or reachable again for less than
    ``RESUME_GRACE_SECONDS``) or ``RESUME`` (once, at the end of an outage: give the
    turns their time back, then :meth:`resumed`). A publish that fails while firing
    starts an outage too, and so does PostgreSQL out of reach (nobody could act
    either: the same pause and, when a tick works again, the same full turn).
    """

    def __init__(self, grace: float | None = None) -> None:
        super().__init__("channel layer",
                         "turn timers, house bots and the presence sweep are paused", grace,
                         logger=log)

    @property
    def paused(self) -> bool:
        return self.down

    @property
    def sweeping(self) -> bool:
        """Whether the presence sweep may drop silent connections: not while paused, nor
        for ``PRESENCE_TIMEOUT`` after (a heartbeat the Daphne processes could not
        write during a database outage must not make a live player look gone)."""
        grace = float(settings.TABLES.get("PRESENCE_TIMEOUT", 12))
        return not self.paused and time.monotonic() - self.resumed_at >= grace

    def step(self, reachable: bool) -> str:
        if not reachable:
            self.fail()
            return HOLD
        if not self.down:
            return FIRE
        return RESUME if self.answered() else HOLD

    def resumed(self, tables: int) -> None:
        log.warning("channel layer back: timers resume after a %.1f s pause; %d running "
                    "turns got a full turn from now", self.end(), tables)


def step(pause: Pause, reachable: bool, send: Sender | None = None,
         now: datetime | None = None) -> str:
    """One tick of the worker under ``pause``: fire, hold, or resume (see :class:`Pause`)."""
    now = now or timezone.now()
    action = pause.step(reachable)
    if action == RESUME and settings.TABLES.get("OWNERS"):
        pause.resumed(0)  # (live tables: their owners keep the time)
    elif action == RESUME:
        with fanout.collecting(send) if send else contextlib.nullcontext():
            tables = services.resume_turns(now)
        pause.resumed(tables)
    elif action == FIRE:
        failures = fanout.health.failures
        tick(now, send=send)
        if fanout.health.failures != failures:  # the layer went away under this tick
            pause.fail()
    return action


def database_reachable() -> bool:
    """Whether a fresh database connection works (an error such as a deadlock or a
    busy SQLite file is no outage)."""
    from django.db import connection

    try:
        connection.close()
        connection.ensure_connection()
    except Exception:
        return False
    return True


class Publisher:
    """Publish each change as it commits, from one event loop kept for the worker's life:
    ``async_to_sync`` from a plain thread runs a fresh loop per call, and the channel
    layer opens its Redis connections per loop. :meth:`probe` asks on the same loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def send(self, batch: fanout.Batch) -> None:
        self.loop.run_until_complete(fanout.apublish([batch]))

    def probe(self) -> bool:
        return self.loop.run_until_complete(fanout.aprobe())


def run(stop: threading.Event | None = None, tick_seconds: float | None = None) -> None:
    """The worker loop (blocking)."""
    stop = stop or threading.Event()
    wait = default_tick() if tick_seconds is None else tick_seconds
    last_housekeeping = 0.0
    publisher = Publisher()
    pause = Pause()
    while not stop.is_set():
        try:
            step(pause, publisher.probe(), publisher.send)
            if time.monotonic() - last_housekeeping >= HOUSEKEEPING_SECONDS:
                housekeeping(send=publisher.send, paused=not pause.sweeping)
                last_housekeeping = time.monotonic()
        except (OperationalError, InterfaceError):
            log.exception("table worker step failed")  # (rate-limited: tables.outage)
            if not database_reachable():  # PostgreSQL away (not a deadlock): pause as well
                pause.fail()
        except Exception:  # keep going: one broken table must not stop every table
            log.exception("table worker step failed")
        finally:
            close_old_connections()
        stop.wait(wait)


_task: asyncio.Task[None] | None = None


async def _run_in_loop() -> None:
    last_housekeeping = 0.0
    pause = Pause()
    while True:
        try:
            reachable = await fanout.aprobe()
            await database_sync_to_async(step)(pause, reachable)
            if time.monotonic() - last_housekeeping >= HOUSEKEEPING_SECONDS:
                await database_sync_to_async(housekeeping)(paused=not pause.sweeping)
                last_housekeeping = time.monotonic()
        except (OperationalError, InterfaceError):
            log.exception("in-process table worker step failed")
            if not await database_sync_to_async(database_reachable)():
                pause.fail()
        except Exception:
            log.exception("in-process table worker step failed")
        await asyncio.sleep(default_tick())


def ensure_in_process_worker() -> None:
    """Start the worker as a task of the running event loop, once (see module doc)."""
    global _task
    if not settings.TABLES.get("WORKER_IN_PROCESS") or (_task is not None and not _task.done()):
        return
    _task = asyncio.get_running_loop().create_task(_run_in_loop())
