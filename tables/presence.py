"""Batched presence: one database write per process every few seconds, not one per
connection.

A websocket that sends anything is marked as heard from (a set, in memory); every
``PRESENCE_WRITE_EVERY`` seconds one task per process writes ``last_seen`` for all
of them at once (:func:`tables.services.heartbeat_many`). The worker's sweep drops
connections silent for ``PRESENCE_TIMEOUT`` seconds, which is several write
periods. A connection the sweep already dropped while it was silent registers
again (the player is back).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any, Protocol

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection

from . import services
from .wire import reads_in_own_thread

log = logging.getLogger(__name__)


class Present(Protocol):
    channel_name: str

    async def register_again(self) -> None: ...


class PresenceWriter:
    """The per-process (per event loop) batch of heartbeats."""

    def __init__(self) -> None:
        self.heard: set[str] = set()
        self.consumers: dict[str, Present] = {}
        self.last_heard: dict[str, float] = {}  # channel name: when (monotonic)
        # Connections whose message the server is still working on (a slow command:
        # a sit in a transaction of its own at the start of a busy run). Their next
        # messages wait behind it unread, so they count as heard until it is done:
        # the slowness is the server's, and the player must not be sat out for it.
        self.working: set[str] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, consumer: Present) -> None:
        self.consumers[consumer.channel_name] = consumer
        self.last_heard[consumer.channel_name] = time.monotonic()
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run())

    def remove(self, consumer: Present) -> None:
        self.consumers.pop(consumer.channel_name, None)
        self.last_heard.pop(consumer.channel_name, None)
        self.heard.discard(consumer.channel_name)
        self.working.discard(consumer.channel_name)

    def heard_from(self, consumer: Present) -> None:
        self.heard.add(consumer.channel_name)
        self.last_heard[consumer.channel_name] = time.monotonic()

    @contextlib.contextmanager
    def working_on(self, consumer: Present) -> Iterator[None]:
        """While the server works on one of the connection's messages (the consumer
        reads the next one only after it), the connection is heard from."""
        self.working.add(consumer.channel_name)
        try:
            yield
        finally:
            self.working.discard(consumer.channel_name)
            if consumer.channel_name in self.consumers:
                self.heard_from(consumer)

    def heard_within(self, channel_name: str, seconds: float) -> bool:
        """Whether this process holds that connection and heard from it in the last
        ``seconds`` (or is still working on a message of it): alive, whatever its
        ``last_seen`` says (the batched write of a busy process lands late; the
        owner's sweep must not sit its player out)."""
        if channel_name in self.working:
            return True
        at = self.last_heard.get(channel_name)
        return at is not None and time.monotonic() - at < seconds

    async def flush(self) -> None:
        names, self.heard = self.heard | self.working, set()
        if not names:
            return
        # Not in the process's shared database thread, nor in the pool that serves
        # snapshots: there the write would queue behind every pending table command
        # or a thousand connections' first snapshots, and heartbeats would land after
        # the sweep's timeout and drop live players (measured at 1,000 tables:
        # docs/benchmarks.md). A thread and a database connection of its own.
        if reads_in_own_thread():
            gone = await asyncio.get_running_loop().run_in_executor(
                _thread, _heartbeat_many, names)
        else:  # (SQLite: one writer; the shared thread)
            gone = await database_sync_to_async(services.heartbeat_many)(channel_names=names)
        for name in gone:  # each re-registers on its own: the next flush never waits
            consumer = self.consumers.get(name)
            if consumer is not None:
                _background(consumer.register_again())

    async def run(self) -> None:
        while self.consumers:
            await asyncio.sleep(settings.TABLES["PRESENCE_WRITE_EVERY"])
            try:
                await self.flush()
            except Exception:  # a database hiccup: the next round writes again
                log.exception("presence flush failed")


_thread = concurrent.futures.ThreadPoolExecutor(1, "presence")


def _heartbeat_many(names: set[str]) -> set[str]:
    close_old_connections()
    try:
        return services.heartbeat_many(channel_names=names)
    finally:  # (back to the pool: no connection kept open by an idle thread)
        connection.close()


_tasks: set[asyncio.Task[None]] = set()


def _background(coroutine: Any) -> None:
    task = asyncio.get_running_loop().create_task(coroutine)
    _tasks.add(task)  # keep a reference until it is done
    task.add_done_callback(_tasks.discard)


_writers: dict[Any, PresenceWriter] = {}


def writer() -> PresenceWriter:
    """The writer of the running event loop (tests run several loops in one process)."""
    loop = asyncio.get_running_loop()
    found = _writers.get(loop)
    if found is None:
        for old in [key for key in _writers if key.is_closed()]:
            del _writers[old]
        found = _writers[loop] = PresenceWriter()
    return found
