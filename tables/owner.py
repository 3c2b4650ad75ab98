"""Live tables, each owned by one server process (``TABLES["OWNERS"]``; docs/scale.md).

The owning process holds the table in memory (a :class:`~tables.runtime.TableRun`
kept between commands), applies its commands in order on its event loop, runs its
turn timers and house bots there, and writes behind: every change goes to
PostgreSQL with the next **group commit**, one transaction every ``OWNER_COMMIT_MS``
for all the tables that changed (one multi-row statement per kind of row). A
command is acknowledged, and its events are sent, only after that commit: what a
client has seen is durable, and a crash loses only commands not yet acknowledged.

* **Ownership** is a lease in Redis (``owner:<table>`` → the owner's process
  channel, ``OWNER_LEASE_SECONDS``, renewed twice a second). The process a table's
  first connection reaches takes it (so a load balancer that sends every
  connection of table T to process ``T mod N`` makes each table's traffic local);
  other processes forward commands to the owner over the channel layer.
* **Takeover**: a process that dies stops renewing; another process adopts each of
  its running tables (:meth:`Host.adopt`), reloads it from the last commit, gives
  the player to act a full turn and sends everyone a fresh version (clients
  resync). The hand goes on from its last durable action. A killed process is
  noticed in about a second, before its leases run out: its renewals stopped and
  its lease thread's Redis connection is gone (the kernel closes a dead process's
  sockets; a starved process keeps its own, and its tables until its leases lapse).
* **Money** (buy-ins, cash-outs), seats that appear or go, presence and every
  command but ``act``, turn timeouts and house-bot moves run as before, in one
  transaction of their own (:mod:`tables.services`): the owner first commits what
  it holds for the table and drops its copy, which is loaded again afterwards.
* A write that finds the table's version changed by someone else (a process that
  ran a command the classic way meanwhile) fails the whole group commit; the
  owner drops that table's copy, refuses its pending commands with ``conflict``
  and commits the rest again.
* **Admission**: while this process is late (its event loop lags more than
  ``OWNER_BUSY_LAG_MS``, or a group commit takes too long; optionally, its loop's
  thread is busy more than ``OWNER_BUSY_PERCENT`` of the time), or plays
  ``OWNER_MAX_TABLES`` tables, new tables and new seats are refused with
  ``server_busy``; tables already playing keep their pace.
  The refusal says when to try again (``wait_seconds``, drawn between
  ``OWNER_BUSY_RETRY_SECONDS`` and twice that, so that the refused do not all come
  back at once).
* **Timers** fire on the event loop at the deadline; if the loop itself was late,
  the deadline moves by that lateness once per turn, so that an action waiting
  to be read is not overtaken by the timer; and a turn whose act has reached the
  owner and waits (a load, a transaction, a commit) is not timed out meanwhile.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import functools
import gc
import itertools
import json
import logging
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any, TypeVar

import psycopg
from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, connection, models
from django.db.models import Q
from django.db.models.base import ModelState
from django.dispatch import receiver
from django.utils import timezone
from redis.exceptions import RedisError, ResponseError

from accounts.credentials import REVOKED, announced, still_valid
from accounts.models import Player, User

from . import fanout, handlog, pipeline, presence, rowsql, selectors, services
from .errors import TableError
from .models import Hand, Seat, Table, TableStatus
from .outage import HANDSHAKE_LAYER_TIMEOUT, UNAVAILABLE, Outage
from .runtime import HAND_DEFER, RUNTIME_FIELDS, NeedsTransaction, TableRun

log = logging.getLogger(__name__)
# A turn held for its waiting act is looked at again when the act is done, and after
# this meanwhile (a safety net).
HELD_RECHECK_SECONDS = 1.0
Json = dict[str, Any]
M = TypeVar("M", bound=models.Model)
RECHECK_SECONDS = 1.0  # every connection's credential is checked this often
# A turn watched from another process times out only if Redis answered this recently
# (the lease thread asks it twice a second): else the player may not have heard of it.
BROKER_FRESH_SECONDS = 1.5
# Commands that always run in a transaction of their own (money moves, a seat appears
# or goes). Every other command (an act, poker's sit_in/sit_out/wait_for_bb, away,
# back...) is applied on the live copy; one that turns out to need the transaction
# (chips added between rounds, a seat sat out by a disconnect) runs there instead.
CLASSIC = ("sit", "leave")
BUSY = "The server is at capacity: no new tables or seats now; try again in {} seconds."


def _prefix() -> str:
    """The key prefix in Redis (read at each use: tests give each run its own)."""
    return os.environ.get("CHANNELS_PREFIX", "poker")


def _redis_url() -> str:
    return getattr(settings, "REDIS_URL", "") or os.environ.get("REDIS_URL", "")


def enabled() -> bool:
    return bool(settings.TABLES.get("OWNERS")) and _vendor() == "postgresql"


@functools.cache
def _vendor() -> str:
    """The database's vendor, read once: asked several times per message, and
    ``connection.vendor`` goes through the connection proxy's context-local lookup
    each time (3 % of a loaded owner's event loop, docs/benchmarks.md)."""
    return connection.vendor


def lease_seconds() -> float:
    """How long an ownership lease holds (``OWNER_LEASE_SECONDS``, docs/scale.md)."""
    return float(conf("OWNER_LEASE_SECONDS", 3.0))


def renew_seconds() -> float:
    """How often a process renews its leases: twice a second, at least four times
    per lease (a renewal may come more than a second late on a starved machine: a
    2-second lease renewed every half second lapsed there, and the other process took
    tables that were still played)."""
    return min(0.5, lease_seconds() / 4)


def lease_client_name(channel: str) -> str:
    """The Redis client name of a process's lease connection (``CLIENT LIST`` tells
    the others whether it is still connected)."""
    return f"lease:{channel}"


def conf(name: str, default: Any) -> Any:
    return settings.TABLES.get(name, default)


class LoopBusy:
    """The share of wall time the thread that made it was busy since the last sample:
    running, or ready to run and waiting for a CPU (Linux's ``schedstat``); only the
    time it waited for something to do (the event loop's poll) counts as idle.

    A share of capacity, not a time: at 100 % the loop takes on no more work, however
    fast the machine (the loop's lateness is milliseconds, and rose steeply only once
    the loop was saturated). ``sample()`` is None where the kernel does not tell.
    In the owner's report line (``busy``); admission by it only with
    ``OWNER_BUSY_PERCENT``, off by default: measured, it did no better than the lag
    in a storm (docs/scale.md, "Admission")."""

    PATH = "/proc/thread-self/schedstat"

    def __init__(self) -> None:
        try:
            self.fd: int | None = os.open(self.PATH, os.O_RDONLY)
        except OSError:
            self.fd = None
        self.at, self.used = time.monotonic(), self._read()

    def _read(self) -> int | None:
        if self.fd is None:
            return None
        try:  # "<ns on a CPU> <ns waiting for one> <time slices>"
            ran, waited, _slices = os.pread(self.fd, 128, 0).split()
            return int(ran) + int(waited)
        except (OSError, ValueError):
            return None

    def sample(self) -> float | None:
        now, used = time.monotonic(), self._read()
        if used is None or self.used is None or now <= self.at:
            return None
        share = (used - self.used) / 1e9 / (now - self.at)
        self.at, self.used = now, used
        return min(1.0, max(0.0, share))

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def busy_error() -> TableError:
    """``server_busy``, with a time to try again spread over clients refused together."""
    low = max(1, int(conf("OWNER_BUSY_RETRY_SECONDS", 5)))
    wait = random.randint(low, 2 * low)
    return TableError("server_busy", BUSY.format(wait), wait_seconds=wait)


class Conflict(Exception):
    def __init__(self, found: dict[int, int]) -> None:
        super().__init__(f"tables changed meanwhile: {sorted(found)}")
        self.found = found  # table id -> the version found in the database
        self.table_ids = set(found)


# ---------------------------------------------------------------- one live table


class Live:
    """One table held in memory: the run, the writes and messages not committed yet,
    the commands waiting for that commit, and its timer."""

    def __init__(self, host: Host, run: TableRun) -> None:
        self.host = host
        self.run = run
        run.sink = self
        self.table_id: int = run.table.pk
        self.durable_version: int = run.table.version  # what the database holds
        self.rows: dict[tuple[type, int], tuple[models.Model, set[str]]] = {}
        self.new_hands: dict[int, Hand] = {}
        self.inserts: list[models.Model] = []
        self.outbox: list[fanout.Batch] = []
        self.waiters: list[asyncio.Future[None]] = []
        self.dirty = False
        self.dead = False
        self.timer: asyncio.TimerHandle | None = None
        self.landed: asyncio.Future[None] | None = None  # the commit under way
        self.extended_for = ""  # the decision whose deadline moved for the loop's lateness
        self.remote = True  # other processes may have connections to it (relay its events)
        self.published = run.table.version  # the last version sent
        self.since = 0.0  # when its oldest change not yet in a commit was made
        # The round whose start the stored state is (its later calls replay on it), and
        # how long the running round's logs are in the database (row and steps).
        self.state_hand: int | None = None  # (none yet: the first commit writes it)
        hand = run.hand_row
        self.logged: tuple[int, handlog.Lengths] | None = (
            None if hand is None else (hand.pk, handlog.lengths(hand)))

    # -- the sink of TableRun (write-behind)
    def write(self, row: models.Model, fields: tuple[str, ...]) -> None:
        entry = self.rows.setdefault((type(row), row.pk), (row, set()))
        entry[1].update(fields)
        self.dirty = True

    def insert(self, rows: list[models.Model]) -> None:
        self.inserts.extend(rows)
        self.dirty = True

    def new_hand(self, hand: Hand) -> None:
        hand.pk = self.host.next_hand_id()
        self.new_hands[hand.pk] = hand
        self.dirty = True

    def changed(self, run: TableRun, batch: fanout.Batch) -> None:
        self.dirty = True
        self.outbox.append(batch)
        self.host.dirty(self)

    @property
    def in_commit(self) -> bool:
        """Whether a commit of this table is under way (cut, not yet landed)."""
        return self.landed is not None and not self.landed.done()

    # -- the group commit
    def cut(self) -> Cut:
        """What the next commit writes for this table, copied now (the live objects
        change on while the commit runs in its thread)."""
        run, table = self.run, self.run.table
        hand = run.hand_row
        ended = [pk for (model, pk), (_, fields) in self.rows.items()
                 if model is Hand and "ended_at" in fields and pk not in self.new_hands]
        if hand is not None and hand.pk not in self.new_hands:  # what its logs gained
            if self.logged is not None and self.logged[0] == hand.pk:
                if (step := handlog.step(hand, self.logged[1])) is not None:
                    self.inserts.append(step)
            else:  # (cannot be: a new round is inserted whole) - its logs whole
                self.write(hand, handlog.LOGS)
        lean = hand is not None and hand.pk == self.state_hand
        if not lean:  # a round started or none runs: the state itself
            table.state = run.game.dump(run.state)
            table.replay_from = None if hand is None else len(hand.calls)
            self.state_hand = None if hand is None else hand.pk
        self.logged = None if hand is None else (hand.pk, handlog.lengths(hand))
        cut = Cut(
            live=self, table=_clone(table), expected=self.durable_version,
            hands=[_snapshot(h) for h in self.new_hands.values()],
            updates=[(_snapshot(row), tuple(sorted(fields)))
                     for (model, pk), (row, fields) in self.rows.items()
                     if not (model is Hand and pk in self.new_hands)],
            inserts=self.inserts, outbox=self.outbox, waiters=self.waiters, since=self.since,
            lean=lean, ended=ended)
        self.landed = asyncio.get_running_loop().create_future()
        cut.waiters.append(self.landed)
        self.durable_version = table.version
        self.rows, self.new_hands, self.inserts = {}, {}, []
        self.outbox, self.waiters, self.dirty = [], [], False
        return cut

    def fail(self, error: TableError) -> None:
        """Drop this copy: every command waiting for it gets ``error``."""
        self.dead = True
        self.run.sink = None
        if self.timer is not None:
            self.timer.cancel()
        for waiter in self.waiters:
            if not waiter.done():
                waiter.set_exception(error)
        self.waiters = []
        if self.landed is not None and not self.landed.done():
            self.landed.set_result(None)

    # -- the turn timer
    def schedule(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        table = self.run.table
        due = [d for d in (table.deadline, table.bot_due) if d is not None]
        if self.dead or not due or table.status != TableStatus.RUNNING:
            return
        loop = asyncio.get_running_loop()
        delay = (min(due) - timezone.now()).total_seconds()
        self.timer = loop.call_at(loop.time() + max(0.0, delay), self.host.fire, self)


class Timings:
    """Durations by name since the last report: count, mean and worst."""

    def __init__(self) -> None:
        self.seen: dict[str, list[float]] = {}

    def add(self, name: str, seconds: float) -> None:
        entry = self.seen.setdefault(name, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += seconds
        entry[2] = max(entry[2], seconds)

    def report(self) -> str:
        """``name count x mean/max ms`` for each, and start again."""
        text = ", ".join(f"{name} {count}x {total / count * 1000:.1f}/{worst * 1000:.0f} ms"
                         for name, (count, total, worst) in sorted(self.seen.items()))
        self.seen = {}
        return text or "nothing timed"


LEAN_FIELDS = tuple(f for f in RUNTIME_FIELDS if f not in ("state", "replay_from"))
"""A table row's fields written while its round runs (its state: when the round
starts, :mod:`tables.handlog`)."""
DELETE_STEPS = "DELETE FROM tables_handstep WHERE hand_id = ANY(%s)"


def _clone(row: M) -> M:
    """A shallow copy of a model instance: what ``copy.copy`` makes (its own
    ``_state``), without the pickling protocol it goes through for a model (ten
    times the time; a commit copies every row it writes)."""
    clone = row.__class__.__new__(row.__class__)
    data = row.__dict__.copy()
    state = data["_state"] = object.__new__(ModelState)
    state.__dict__ = row._state.__dict__.copy()
    if "fields_cache" in state.__dict__:
        state.fields_cache = dict(state.fields_cache)
    clone.__dict__ = data
    return clone


def _snapshot(row: M) -> M:
    """A copy of the row whose JSON lists no later change reaches."""
    clone = _clone(row)
    for name, value in row.__dict__.items():
        if isinstance(value, list):
            clone.__dict__[name] = list(value)
    return clone


class Cut:
    def __init__(self, *, live: Live, table: Table, expected: int, hands: list[Hand],
                 updates: list[tuple[models.Model, tuple[str, ...]]],
                 inserts: list[models.Model], outbox: list[fanout.Batch],
                 waiters: list[asyncio.Future[None]], since: float, lean: bool,
                 ended: list[int]) -> None:
        self.live, self.table, self.expected = live, table, expected
        self.since = since
        self.lean = lean  # the table row without its state (a round runs on)
        self.ended = ended  # rounds that ended (not new here): their steps go
        self.hands, self.updates, self.inserts = hands, updates, inserts
        self.outbox, self.waiters = outbox, waiters


# A table row's guarded update fails unless it wrote its row (version as expected).
GUARD = "WITH written AS ({}) SELECT 1 / count(*) FROM written"


async def write_cuts(conn: psycopg.AsyncConnection[Any], cuts: list[Cut],
                     timings: Timings | None = None) -> None:
    """One transaction for every table in ``cuts``, on the host's own connection, in
    one round trip; :class:`Conflict` (nothing written) if another writer moved a
    table's version meanwhile.

    The commit runs in the event loop (psycopg's asynchronous connection), not in a
    thread: a thread that waits on PostgreSQL must win the interpreter lock back
    from the busy loop each time it is answered (every switch interval, 2.5 ms), and
    that made a loaded process's commits, and the acknowledgements waiting for them,
    several times slower than their work. Each statement is executed once per row,
    its parameters bound by the server and prepared from the values as they are
    (``rowsql.update_many``); the few statements are prepared once per connection.
    ``BEGIN``, the guarded table rows, the other rows and ``COMMIT`` are written
    together and answered in one round trip (:mod:`tables.pipeline`): on a loaded
    machine each round trip waits for PostgreSQL and then for the busy event loop.
    A table row whose version moved makes its statement fail (a division by zero:
    no row written), which aborts the transaction, so the ``COMMIT`` writes nothing;
    the versions are read afterwards to tell which tables conflicted."""
    began = time.monotonic()

    def sent() -> None:
        if timings is not None:
            timings.add("commit sending", time.monotonic() - began)

    try:
        await pipeline.write(conn, _statements(cuts), sent)
    except psycopg.errors.DivisionByZero:
        async with conn.cursor() as cursor:
            await cursor.execute("SELECT id, version FROM tables_table WHERE id = ANY(%s)",
                                 [[c.table.pk for c in cuts]])
            found = dict(await cursor.fetchall())
        versions = ((c.table.pk, found.get(c.table.pk, -1), c.expected) for c in cuts)
        moved = {pk: version for pk, version, expected in versions  # (-1: gone)
                 if version != expected}
        if not moved:  # (cannot be: versions only grow) - fail the commit as a whole
            raise
        raise Conflict(moved) from None


def _statements(cuts: list[Cut]) -> list[pipeline.Statement]:
    """The guarded table rows (with their state, or without: a round runs on), the new
    rows (rounds first: other rows refer to them), the other rows' updates, by model
    and fields, and the steps of the rounds that ended."""
    statements: list[pipeline.Statement] = []
    for lean, fields in ((False, RUNTIME_FIELDS), (True, LEAN_FIELDS)):
        if group := [c for c in cuts if c.lean is lean]:
            sql, rows = rowsql.update_many(Table, fields, [c.table for c in group],
                                           expected=[c.expected for c in group])
            statements.append((GUARD.format(sql), rows))
    inserts: list[models.Model] = [h for c in cuts for h in c.hands]  # hands first (keys)
    updates: dict[tuple[type, tuple[str, ...]], list[models.Model]] = {}
    for cut in cuts:
        for row, fields in cut.updates:
            updates.setdefault((type(row), fields), []).append(row)
        inserts.extend(cut.inserts)
    statements += rowsql.insert_many(inserts)
    statements += [rowsql.update_many(model, fields, objs)
                   for (model, fields), objs in updates.items()]
    if ended := [pk for c in cuts for pk in c.ended]:
        statements.append((DELETE_STEPS, [[ended]]))
    return statements


def load_many(table_ids: list[int]) -> list[TableRun]:
    """Tables from the database, everything a command reads loaded: five queries
    however many (thread)."""
    tables = list(Table.objects.filter(pk__in=table_ids))
    hands = Hand.objects.defer(*HAND_DEFER).in_bulk(
        [t.current_hand_id for t in tables if t.current_hand_id is not None])
    handlog.attach_steps([hands[t.current_hand_id] for t in tables  # (one query)
                          if t.replay_from is not None and t.current_hand_id in hands])
    seats: dict[int, dict[int, Seat]] = {}
    for seat in Seat.objects.filter(table_id__in=table_ids):
        seats.setdefault(seat.table_id, {})[seat.number] = seat
    now = timezone.now()
    runs = []
    for table in tables:
        if table.current_hand_id in hands:
            table.current_hand = hands[table.current_hand_id]
        run = TableRun(table, now)
        run._seat_rows_loaded = seats.get(table.pk, {})
        runs.append(run)
    wanted = {int(o.player_id) for run in runs for o in run.seats if o is not None}
    players = {str(p.pk): p for p in Player.objects.select_related("owner").filter(
        pk__in=wanted)}
    for run in runs:
        for occupant in run.seats:
            if occupant is not None and occupant.player_id in players:
                run.player_cache(players[occupant.player_id])
        run._house = {pk: p.house_strategy for pk, p in run._players.items()}
    return runs


# ---------------------------------------------------------------- the process's host


class Host:
    """This process's live tables and the machinery around them (one per process)."""

    def __init__(self) -> None:
        self.lives: dict[int, Live] = {}
        self.pending: dict[int, Live] = {}  # changed since the last cut
        self.channel = ""
        self.redis: Any = None
        self.hand_ids: collections.deque[int] = collections.deque()
        self.refilling: asyncio.Task[None] | None = None
        self.wake = asyncio.Event()
        self.requests: dict[str, asyncio.Future[Json]] = {}
        self.closed: dict[int, asyncio.Event] = {}  # tables in a transaction of their own
        self.generation: collections.Counter[int] = collections.Counter()  # such transactions
        self.taking: collections.Counter[int] = collections.Counter()  # being loaded
        self.admitted: set[int] = set()  # tables whose first seat was admitted
        # Acts received and not yet answered, by table and the decision version they
        # answer: a turn is not timed out while its act waits here (:meth:`_fire`).
        self.acts_waiting: collections.Counter[tuple[int, int]] = collections.Counter()
        self.lobby_tail: asyncio.Task[None] | None = None  # the last lobby news sent
        # Tables being played (as the last look for orphans saw them, :meth:`adopt`):
        # a connection to one is never refused as busy (its owner died: it is taken
        # over here whatever the load, and its players must reach it).
        self.running: set[int] = set()
        self.loading: dict[int, asyncio.Future[TableRun | None]] = {}
        self.loader_task: asyncio.Task[None] | None = None
        self.ids = itertools.count(1)
        self.lag = 0.0  # the event loop's recent lateness (s)
        self.load = 0.0  # the same, smoothed
        self.loop_busy: float | None = None  # the loop thread's busy share, smoothed
        self.commit_seconds = 0.0  # the last group commit's duration
        self.users: dict[tuple[str, int], tuple[float, Any]] = {}
        self.started = False
        self.ready = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        self.spawned: set[asyncio.Task[Any]] = set()  # background work (:meth:`spawn`)
        # The group commit's connections, one per lane (:meth:`_commit_loop`).
        self.writers: dict[int, psycopg.AsyncConnection[Any]] = {}
        self.commit_began = -1e9  # when the last commit started (loop time)
        self.loader = concurrent.futures.ThreadPoolExecutor(1, "owner-load")
        self.stats: collections.Counter[str] = collections.Counter()
        self.timings = Timings()  # durations for the periodic report
        # This process's connections per table and the groups each receives.
        self.local: dict[int, dict[Any, frozenset[str]]] = {}
        self.subscribed: set[int] = set()  # relay channels this process listens to
        self.pubsub: Any = None
        self.checked_at = 0.0  # the last check of every connection's credential
        # Credential groups (accounts.credentials) joined once for the whole process,
        # with this process's connections in each: join_credentials().
        self.credential_members: dict[str, set[Any]] = {}
        # Where clients reach this process (the discovery endpoint, route()).
        self.url = os.environ.get("TABLES_OWNER_URL", "")
        # Redis out of reach (the lease thread or a relay finds out,
        # :meth:`_broker_failed`), and the tables whose turn timer is held meanwhile.
        self.outage = Outage("Redis", "turn timers of tables watched from other "
                                      "processes are held, adopting is paused", logger=log)
        self.held: set[int] = set()
        self.resuming: set[int] = set()  # tables about to get their time back (_give_time_back)
        self.adopt_after = 0.0  # no adopting before (the owners take their leases back)
        self.broker_seen = time.monotonic()  # Redis last answered the lease thread
        # Other processes found dead (:meth:`find_dead`): their leases are taken at once.
        self.dead: dict[str, float] = {}  # their channel -> when found (monotonic)
        self.forwarded_to: dict[str, str] = {}  # a forwarded command's owner, by request
        self.detect_deaths = True  # False where Redis refuses CLIENT LIST

    # -- lifecycle
    async def start(self) -> None:
        if self.started:
            await self.ready.wait()
            return
        self.started = True
        try:
            await self._start()
        finally:
            self.ready.set()

    async def _start(self) -> None:
        layer = get_channel_layer()
        if layer is not None:
            self.channel = await layer.new_channel(
                f"owner.{socket.gethostname()}.{os.getpid()}.")
        self.redis = _redis_client()
        if self.redis is not None:
            # Connected now: handshakes subscribe at once, and concurrent first calls
            # would each take a connection from the pool (redis-py's PubSub.connect),
            # leaking all but one until the pool is empty.
            self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await self.pubsub.connect()
            except Exception as error:  # (Redis away: connected by the first use)
                log.warning("Redis unreachable at start: %r", error)
        loop = asyncio.get_running_loop()
        for job in (self._receive_loop, self._lease_loop, self._lag_loop,
                    self._adopt_loop, self._relay_loop, self._credential_loop,
                    self._sweep_loop, self._report_loop):
            self.tasks.append(loop.create_task(job()))
        for lane in range(max(1, int(conf("OWNER_COMMIT_LANES", 2)))):
            self.tasks.append(loop.create_task(self._commit_loop(lane)))
        await self._refill_ids()

    async def stop(self) -> None:
        """Stop this host's work and close its database connections. Its leases are
        not given back: as after a crash, other processes take its tables over when
        they expire (tests; a process that ends)."""
        for task in [*self.tasks, *self.spawned, self.loader_task]:
            if task is not None:
                task.cancel()
        for future in self.loading.values():  # (loads asked for and not begun)
            future.cancel()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self.loader, lambda: connection.close())
        self.loader.shutdown()
        for writer in self.writers.values():
            await writer.close()
        if self.redis is not None:
            await self.redis.aclose()

    async def writer_connection(self, lane: int = 0) -> psycopg.AsyncConnection[Any]:
        """A commit lane's own connection (opened on first use, again after a failure),
        with the settings of Django's."""
        writer = self.writers.get(lane)
        if writer is None or writer.closed:
            params = {k: v for k, v in connection.get_connection_params().items()
                      if k not in ("cursor_factory", "context", "prepare_threshold")}
            params.setdefault("connect_timeout", 10)
            writer = self.writers[lane] = await psycopg.AsyncConnection.connect(
                **params, autocommit=True, prepare_threshold=0)
        return writer

    async def drop_writer(self, lane: int = 0) -> None:
        writer = self.writers.pop(lane, None)
        if writer is not None:
            with contextlib.suppress(Exception):
                await writer.close()

    async def db(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call`` in the loader thread (its own database connection)."""
        def run() -> Any:
            close_old_connections()
            return call(*args)
        return await asyncio.get_running_loop().run_in_executor(self.loader, run)

    # -- hand ids, reserved in blocks from the sequence
    def next_hand_id(self) -> int:
        if len(self.hand_ids) < 200 and (self.refilling is None or self.refilling.done()):
            self.refilling = asyncio.get_running_loop().create_task(self._refill_ids())
        if not self.hand_ids:
            raise NeedsTransaction("no reserved hand ids")
        return self.hand_ids.popleft()

    async def _refill_ids(self) -> None:
        def reserve() -> list[int]:
            with connection.cursor() as cursor:
                cursor.execute("SELECT nextval(pg_get_serial_sequence('tables_hand', 'id')) "
                               "FROM generate_series(1, 1000)")
                return [row[0] for row in cursor.fetchall()]
        try:
            self.hand_ids.extend(await self.db(reserve))
        except Exception:
            log.warning("reserving hand ids failed", exc_info=True)

    # -- ownership
    def lease_key(self, table_id: int) -> str:
        return f"{_prefix()}:owner:{table_id}"

    async def owner_of(self, table_id: int) -> str | None:
        if self.redis is None:
            return self.channel
        with _broker_unavailable():
            value = await self.redis.get(self.lease_key(table_id))
        return value.decode() if value else None

    async def _take(self, table_id: int) -> bool:
        if self.redis is None:
            return True
        ms = int(lease_seconds() * 1000)
        with _broker_unavailable():
            lost = await self.redis.eval(LEASE, 1, self.lease_key(table_id), self.channel, ms,
                                         "renew", *self.dead)
        return not lost

    async def _release(self, table_id: int) -> None:
        if self.redis is not None:
            await self.redis.eval(RELEASE, 1, self.lease_key(table_id), self.channel)

    def late(self) -> bool:
        """Whether this process runs late: its event loop (smoothed) or its commits; or,
        if ``OWNER_BUSY_PERCENT`` is set (0: off, the default), its loop's thread is
        busy more than that (smoothed, :class:`LoopBusy`)."""
        limit = conf("OWNER_BUSY_PERCENT", 0)
        return ((bool(limit) and (self.loop_busy or 0.0) * 100 > limit)
                or self.load > conf("OWNER_BUSY_LAG_MS", 150) / 1000
                or self.commit_seconds > conf("OWNER_BUSY_COMMIT_MS", 250) / 1000)

    def busy(self, live: Live | None = None) -> bool:
        """Whether this process is at capacity (admission control) for a new table:
        it runs late, or it plays ``OWNER_MAX_TABLES`` tables (with somebody seated).
        A table already played here (``live`` admitted, or somebody seated) is never
        refused: seating its other players is part of admitting it."""
        if live is not None and (live.table_id in self.admitted or any(live.run.seats)):
            return False
        if self.late() or self.full():
            return True
        if live is not None:
            self.admitted.add(live.table_id)  # counted from its first seat on
        return False

    def full(self) -> bool:
        """Whether this process plays ``OWNER_MAX_TABLES`` tables (0: no cap)."""
        limit = conf("OWNER_MAX_TABLES", 0)
        return bool(limit) and len(self.playing()) >= limit

    def playing(self) -> set[int]:
        """The tables played here: somebody seated, or a first seat admitted."""
        # (Admitted tables count while not live too: a sit runs in a transaction of
        # its own, the table out of memory meanwhile.)
        return self.admitted | {t for t, live in self.lives.items() if any(live.run.seats)}

    def new_here(self, table_id: int) -> bool:
        """Whether ``table_id`` is new to this process for admission: neither admitted
        here nor known as running (a dead owner's table is taken whatever the load)."""
        return table_id not in self.admitted and table_id not in self.running

    async def screen(self, table_id: int) -> None:
        """Refuse (``server_busy``) a connection to ``table_id`` that :meth:`live` would
        refuse: running late, the table new here, not held here and not owned
        elsewhere. Asked first thing, so that a refusal costs a Redis read, not a
        database call, the groups and a load of the table (the refused come back,
        again and again)."""
        if table_id in self.lives or table_id in self.closed or not self.new_here(table_id) \
                or not self.late():
            return
        owner = await self.owner_of(table_id)
        if owner is None or owner == self.channel:
            self.stats["refused"] += 1
            raise busy_error()

    async def live(self, table_id: int, *, admit: bool = True,
                   seat: bool = False) -> Live | None:
        """The live copy of a table this process owns (taking it if nobody does), or
        ``None`` if another process owns it. ``admit``: refused while this process runs
        late; ``seat`` (a sit): also when it plays its most tables, before loading."""
        while True:
            live = self.lives.get(table_id)
            if live is not None:
                return live
            if table_id in self.closed:  # a transaction of its own is running for it
                await self.closed[table_id].wait()
                continue
            owner = await self.owner_of(table_id)
            if owner is not None and owner != self.channel and owner not in self.dead:
                return None
            # (its owner died, or nobody played it since a start)
            orphan = owner is None or owner in self.dead
            # (The cap counts tables played, not watched; a table not loaded here has
            # nobody seated, so a sit at it would be a new table played here, unless
            # its first seat was admitted and it is out of memory for a moment.)
            if self.new_here(table_id) and ((admit and self.late()) or (seat and self.full())):
                self.stats["refused"] += 1
                raise busy_error()
            if not await self._take(table_id):
                return None
            if table_id in self.closed or table_id in self.lives:
                continue
            generation = self.generation[table_id]
            self.taking[table_id] += 1  # (its lease is renewed while it loads)
            try:
                run = await self.fetch(table_id)
            finally:
                self.taking[table_id] -= 1
                if not self.taking[table_id]:
                    del self.taking[table_id]
            if table_id in self.closed or table_id in self.lives \
                    or self.generation[table_id] != generation:
                continue  # a transaction ran meanwhile: what was read may be old
            break
        if run is None:
            await self._release(table_id)
            raise TableError("table_not_found", f"There is no table {table_id}.")
        live = self.lives[table_id] = Live(self, run)
        if orphan and (run.table.deadline is not None or run.table.bot_due is not None):
            self.resume(live)  # (a reconnecting client came before the takeover loop)
            self.stats["adopted"] += 1
        else:
            live.schedule()
        self.stats["loaded"] += 1
        return live

    def evict(self, live: Live, error: TableError | None = None, *,
              reload: bool = False) -> None:
        """Drop the live copy (its uncommitted commands fail with ``error``); with
        ``reload``, load it again at once (its timers go on here)."""
        live.fail(error or TableError("conflict", "The table changed meanwhile; ask for a "
                                                  "snapshot and try again."))
        if self.lives.get(live.table_id) is live:
            del self.lives[live.table_id]
        self.pending.pop(live.table_id, None)
        if reload:
            self.spawn(self._reload(live.table_id))

    async def _reload(self, table_id: int) -> None:
        try:
            await self.live(table_id, admit=False)
        except TableError:
            pass  # (closed or gone meanwhile)
        except Exception:
            log.warning("reloading table %s failed", table_id, exc_info=True)

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        """Run ``coroutine`` in the background, keeping a reference to its task (the
        event loop keeps only a weak one)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self.spawned.add(task)
        task.add_done_callback(self.spawned.discard)
        return task

    async def presence(self, at_table: int, call: Callable[..., bool], **kwargs: Any) -> bool:
        """A connection comes or goes (:func:`tables.services.connect`, ``disconnect``).
        The usual connection changes nothing and is registered beside the live copy;
        otherwise in a transaction of its own, the table's commands and timers waiting
        meanwhile, which changes the table only when a player is sat out or back (the
        live copy is then loaded again). At a table owned elsewhere, the owner's next
        commit finds the version moved and reloads."""
        from .consumers import db

        # The usual connection and disconnection, which change nothing at the table,
        # run beside the commands (PostgreSQL): in a storm of connections they held
        # the sits behind them in the process's one database thread for tens of
        # seconds (docs/benchmarks.md, fifteenth session).
        if call is services.connect:
            quiet = await db(call, only_quietly=True, beside=True, **kwargs)
            if quiet is not None:
                return bool(quiet)
        elif call is services.disconnect:  # (a sweep too: silent since, under its lock)
            quiet = await db(services.disconnect_quietly, beside=True,
                             channel_name=kwargs["channel_name"],
                             silent_since=kwargs.get("silent_since"))
            if quiet is not None:
                return bool(quiet)
        async with self.closing(at_table):
            live = self.lives.get(at_table)
            if live is not None:
                await self.settled(live, closing=True)
            changed = bool(await db(call, **kwargs))
        if changed and live is not None and not live.dead:
            self.evict(live, reload=True)
        return changed

    # -- commands
    async def command(self, table_id: int, user: Any, bot: Player | None,
                      command: Json) -> int:
        """Run one client command (already authenticated) at its owner; its version."""
        started = time.monotonic()
        try:
            with self.waiting(table_id, command):
                return await self._command(table_id, user, bot, command)
        finally:
            self.timings.add("command", time.monotonic() - started)

    @contextlib.contextmanager
    def waiting(self, table_id: int, command: Json) -> Iterator[None]:
        """While an ``act`` is worked on here, its turn is not timed out (:meth:`_fire`)."""
        version = command.get("version") if command.get("type") == "act" else None
        if type(version) is not int:
            yield
            return
        key = (table_id, version)
        self.acts_waiting[key] += 1
        try:
            yield
        finally:
            self._unhold(key)

    def hold_turn(self, table_id: int, user: Any, bot: Player | None,
                  command: Json) -> Callable[[], None] | None:
        """An ``act`` read from a connection of this process but queued behind that
        connection's earlier messages: if it is for the turn now running at a table
        live here, played by one of the connection's seats, that turn is not timed out
        until the returned release is called (when the act has run, or the connection
        went). Others' acts hold nothing: nobody holds another player's turn."""
        live = self.lives.get(table_id)
        version = command.get("version")
        if live is None or live.dead or type(version) is not int:
            return None
        run = live.run
        if version != run.table.decision_version or not any(
                run.plays(seat, user, bot) for seat in run.to_act()):
            return None
        key = (table_id, version)
        self.acts_waiting[key] += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._unhold(key)
        return release

    def _unhold(self, key: tuple[int, int]) -> None:
        self.acts_waiting[key] -= 1
        if self.acts_waiting[key] <= 0:
            del self.acts_waiting[key]
            live = self.lives.get(key[0])
            if live is not None and not live.dead:
                live.schedule()  # (a turn held past its deadline is looked at now)

    async def _command(self, table_id: int, user: Any, bot: Player | None,
                       command: Json) -> int:
        services.check_command(user, bot, command)
        for _ in range(3):
            while table_id in self.closed:  # a transaction of its own first
                await self.closed[table_id].wait()
            sit = command.get("type") == "sit"
            live = await self.live(table_id, admit=sit, seat=sit)
            if live is None:
                answer = await self.forward(table_id, user, bot, command)
                if answer.get("moved"):
                    continue
                if "error" in answer:
                    raise TableError(answer["error"], answer["message"],
                                     wait_seconds=answer.get("wait_seconds"))
                return int(answer["version"])
            if command["type"] == "sit" and self.busy(live):
                self.stats["refused"] += 1
                raise busy_error()
            return await self.run_command(live, user, bot, command)
        raise TableError("unavailable", "The table's server is moving; try again.")

    async def run_command(self, live: Live, user: Any, bot: Player | None,
                          command: Json) -> int:
        if command["type"] not in CLASSIC and await self.settled(live) is not None:
            version = self.fast(live, lambda run: services.apply_command(run, user, bot,
                                                                          command))
            if version is not None:
                await self.committed(live)
                return version
        result = await self.classic(live.table_id, services.execute, table_id=live.table_id,
                                    user=user, bot=bot, command=command)
        return int(result.version)

    def fast(self, live: Live, apply: Callable[[TableRun], int]) -> int | None:
        """Apply on the live copy. ``None``: it needs a transaction (not applied)."""
        run = live.run
        run.next_command(timezone.now())
        try:
            version = apply(run)
        except TableError:
            if run.touched:  # the copy may be half changed
                self.evict(live, reload=True)
            raise
        except NeedsTransaction:
            self.evict(live)
            return None
        except Exception:
            log.exception("live table %s: a command failed; running it in a transaction",
                          live.table_id)
            self.evict(live)
            return None
        self.stats["fast"] += 1
        live.schedule()
        return version

    async def settled(self, live: Live, *, closing: bool = False) -> Live | None:
        """Wait until nothing of the table is uncommitted, so that a command that fails
        half way (or needs a transaction) can drop the copy and lose nothing: the
        database then holds exactly the state before it; and (unless ``closing``:
        the caller holds the table, :meth:`closing`) until no transaction of its own
        runs for the table. The live copy, or ``None``."""
        while not live.dead:
            if not closing and live.table_id in self.closed:
                await self.closed[live.table_id].wait()
            elif live.dirty:
                with contextlib.suppress(TableError):
                    await self.committed(live)
            elif live.in_commit:
                await asyncio.shield(live.landed)
            else:
                return live
        return None

    async def committed(self, live: Live) -> None:
        """Wait until the live table's last change is committed and sent (also when it
        is already in a commit under way)."""
        if not live.dirty:
            if live.in_commit:
                await asyncio.shield(live.landed)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        live.waiters.append(waiter)
        await waiter

    async def snapshot(self, table_id: int, user: Any, bot: Player | None,
                       guard: Any = None) -> Json | None:
        """The snapshot of a table live here, built from the live copy once everything
        of it is committed and sent (so at the version of the last event out, never
        ahead of what a crash could lose): only the chat lines and the watchers are
        read (with ``guard``'s credential check). ``None``: not live here, or it
        changed on meanwhile (the caller reads the database). After a takeover a
        crowd of reconnecting clients asks for one each: the database snapshot was
        most of the owner's work then (docs/benchmarks.md, twentieth session)."""
        from .consumers import db

        live = self.lives.get(table_id)
        if live is None or live.run._seat_rows_loaded is None:
            return None
        chat, watchers = await db(selectors.snapshot_extras, read_only=True, guard=guard,
                                  table_id=table_id)
        for _ in range(3):  # (a busy table: a commit or two; then the database's)
            if live.dead or self.lives.get(table_id) is not live or table_id in self.closed:
                return None
            if live.dirty or live.in_commit:
                with contextlib.suppress(TableError):
                    await self.committed(live)
                continue
            run = live.run
            rows, players = run._seat_rows_loaded, run._players
            if rows is None or any(o is not None and o.player_id not in players
                                   for o in run.seats):
                return None
            return selectors.build_snapshot(run.table, run.state, rows, players, user, bot,
                                            timezone.now(), chat, watchers)
        return None

    @contextlib.asynccontextmanager
    async def closing(self, table_id: int) -> Any:
        """Hold the table for a transaction of its own: its commands and timers wait
        (and loads that began before it start again: what they read may be old)."""
        while table_id in self.closed:
            await self.closed[table_id].wait()
        done = asyncio.Event()
        self.closed[table_id] = done
        self.generation[table_id] += 1
        try:
            yield
        finally:
            if self.closed.get(table_id) is done:
                del self.closed[table_id]
            done.set()

    async def classic(self, at_table: int, call: Callable[..., Any], **kwargs: Any) -> Any:
        """Run a service in its own transaction: first commit what this process holds
        for the table and drop its copy, which is loaded again afterwards (its timers
        run here). Commands for the table wait meanwhile."""
        from .consumers import db

        began = time.monotonic()
        async with self.closing(at_table):
            live = self.lives.get(at_table)
            if live is not None:
                await self.settled(live, closing=True)
                if not live.dead:
                    self.evict(live, TableError("conflict", "The table changed meanwhile."))
            self.stats["classic"] += 1
            held = time.monotonic()
            self.timings.add("own transaction waits", held - began)
            result = await db(call, **kwargs)
            self.timings.add("own transaction", time.monotonic() - held)
        if at_table not in self.lives:  # (not waited for: the answer, and the player's
            self.spawn(self._reload(at_table))  # act behind it, would wait for the loader)
        return result

    # -- timers and house bots
    def fire(self, live: Live) -> None:
        if live.dead:
            return
        table = live.run.table
        now = timezone.now()
        key = table.decision_key
        if self.held_back(live, now):
            return
        if table.deadline is not None and table.deadline <= now and self.lag > 0.02 \
                and live.extended_for != key:
            live.extended_for = key  # the loop was late: the turn gets that time back
            table.deadline = now + timedelta(seconds=self.lag)
            live.schedule()
            return
        self.spawn(self._fire(live))

    def held_back(self, live: Live, now: datetime) -> bool:
        """Whether a turn due now at a table watched from other processes waits: while
        Redis is away (held: nobody elsewhere hears of the turn), or while it has not
        answered lately (it may be away and not found out yet: the lease thread asks
        it twice a second, later on a loaded machine; the timer looks again shortly,
        and times the turn out once Redis is known to answer), and once Redis is back
        until the table has got its full turn from then (:meth:`_broker_answered`: a
        timer due in between must not time out the turn that is about to start over)."""
        table = live.run.table
        if not live.remote or table.deadline is None or table.deadline > now:
            return False
        if live.table_id in self.resuming:  # (Redis is back: a full turn comes instead)
            return True
        if self.outage.down:
            self.held.add(live.table_id)
            return True
        if self.redis is not None and \
                time.monotonic() - self.broker_seen > BROKER_FRESH_SECONDS:
            if live.timer is not None:
                live.timer.cancel()
            live.timer = asyncio.get_running_loop().call_later(0.25, self.fire, live)
            return True
        return False

    async def _fire(self, live: Live) -> None:
        if await self.settled(live) is None:
            return
        table, now = live.run.table, timezone.now()
        if table.deadline is not None and table.deadline <= now:
            if self.held_back(live, now):
                return
            if self.acts_waiting[(live.table_id, table.decision_version)]:
                # The player's act for this turn is here, waiting (for the table's
                # load, a commit, its connection's earlier messages): it is not timed
                # out meanwhile; looked at again when the act is done (_unhold), and
                # every second all the same.
                self.stats["timeouts_held"] += 1
                if live.timer is not None:
                    live.timer.cancel()
                live.timer = asyncio.get_running_loop().call_later(HELD_RECHECK_SECONDS,
                                                                   self.fire, live)
                return
            call, what = services.time_out, "timeout"
        elif table.bot_due is not None and table.bot_due <= now:
            call, what = services.house_move, "house"
        else:  # a command came first
            live.schedule()
            return
        self.stats[what] += 1
        done = self.fast(live, call)
        if done is False:  # no house bot to act after all
            table.bot_due = None
            live.schedule()
        elif done is None:
            job = services.fire_due_timers if what == "timeout" else services.run_house_bots
            await self.classic(live.table_id, _one_table(job), table_id=live.table_id)

    # -- the group commit
    def dirty(self, live: Live) -> None:
        if live.table_id not in self.pending:
            live.since = time.monotonic()  # its oldest change not yet in a commit
        self.pending[live.table_id] = live
        self.wake.set()

    def _take_pending(self) -> list[Live]:
        """The changed tables a commit may take now: not those whose previous commit
        is still under way in another lane (a table's commits land in order); they
        stay pending, and that commit's lane wakes the committers when it is done."""
        lives = []
        for table_id, live in list(self.pending.items()):
            if live.in_commit and not live.dead:
                continue
            del self.pending[table_id]
            if not live.dead and live.dirty:
                lives.append(live)
        return lives

    async def _commit_loop(self, lane: int = 0) -> None:
        """One lane of the group commit. Commits start at most once per window: a change
        waits for the window only if the last commit started less than a window ago
        (under load the commit just written was the wait, and changes gathered
        meanwhile go at once). With two lanes (``OWNER_COMMIT_LANES``) a commit starts
        while the one before waits for PostgreSQL and for the busy loop's turns to
        read its answer: under load that wait, not the work, was most of a command's
        time to its acknowledgement."""
        window = conf("OWNER_COMMIT_MS", 10) / 1000
        loop = asyncio.get_running_loop()
        while True:
            await self.wake.wait()
            if (wait := self.commit_began + window - loop.time()) > 0:
                await asyncio.sleep(wait)
                continue  # (look again: another lane may have taken them meanwhile)
            lives = self._take_pending()
            self.wake.clear()
            if not lives:
                continue
            self.commit_began = loop.time()
            cutting = time.monotonic()
            cuts = [live.cut() for live in lives]
            self.timings.add("cut", time.monotonic() - cutting)
            while cuts:
                started = time.monotonic()
                try:
                    await write_cuts(await self.writer_connection(lane), cuts, self.timings)
                except Conflict as conflict:
                    for cut in cuts:
                        if cut.table.pk in conflict.table_ids:
                            self.stats["conflicts"] += 1
                            log.warning("table %s changed elsewhere (version %s, expected "
                                        "%s): its live copy is loaded again", cut.table.pk,
                                        conflict.found[cut.table.pk], cut.expected)
                            self.evict(cut.live, reload=True)
                            for waiter in cut.waiters:
                                if not waiter.done():
                                    waiter.set_exception(TableError(
                                        "conflict", "The table changed meanwhile; try again."))
                    cuts = [c for c in cuts if c.table.pk not in conflict.table_ids]
                    continue
                except Exception:
                    log.exception("group commit of %d tables failed", len(cuts))
                    await self.drop_writer(lane)  # a broken connection must not stay
                    for cut in cuts:
                        self.evict(cut.live, TableError("unavailable", "Saving failed; try "
                                                        "again."))
                        for waiter in cut.waiters:
                            if not waiter.done():
                                waiter.set_exception(TableError("unavailable",
                                                                "Saving failed; try again."))
                    break
                wrote = time.monotonic()
                self.commit_seconds = wrote - started
                self.stats["commits"] += 1
                self.stats["committed_tables"] += len(cuts)
                await self.publish(cuts)
                self.timings.add("commit", self.commit_seconds)
                self.timings.add("publish", time.monotonic() - wrote)
                break
            if self.pending:  # (tables that waited for this commit to land)
                self.wake.set()

    # -- fan-out: to this process's connections directly, to the others through Redis
    def relay_key(self, table_id: int) -> str:
        return f"{_prefix()}:relay:{table_id}"

    def attach(self, table_id: int, consumer: Any, groups: list[str]) -> None:
        """A connection of this process watches the table (instead of joining its
        channel-layer groups): the owner's events reach it from here."""
        entry = self.local.setdefault(table_id, {})
        entry[consumer] = frozenset(groups)
        if len(entry) == 1 and self.redis is not None:
            self.spawn(self._watch(table_id))

    def detach(self, table_id: int, consumer: Any) -> None:
        entry = self.local.get(table_id)
        if entry is None:
            return
        entry.pop(consumer, None)
        if not entry:
            del self.local[table_id]
            if table_id in self.subscribed and self.pubsub is not None:
                self.subscribed.discard(table_id)
                self.spawn(
                    self.pubsub.unsubscribe(self.relay_key(table_id)))

    async def _watch(self, table_id: int) -> None:
        """Listen to the table's relay; tell its owner (elsewhere) that someone does."""
        try:
            if table_id not in self.subscribed and self.pubsub is not None:
                self.subscribed.add(table_id)
                await self.pubsub.subscribe(self.relay_key(table_id))
            owner = await self.owner_of(table_id)
            if owner is not None and owner != self.channel:
                await self.send(owner, {"type": "owner.watch", "table": table_id})
        except Exception:
            log.warning("watching table %s failed", table_id, exc_info=True)

    async def publish(self, cuts: list[Cut]) -> None:
        """After a commit: each batch to this process's connections of the table; then
        the commands waiting for the commit are answered (their events are already
        on their way: an answer never overtakes them here); then the batches to the
        relay if other processes may have connections, and lobby news to the lobby
        group (Redis round trips no answer waits for)."""
        lobby: list[fanout.Batch] = []
        remote: list[tuple[Live, int, list[tuple[str, Json]]]] = []
        for cut in cuts:
            live, table_id = cut.live, cut.table.pk
            for batch in cut.outbox:
                messages = []
                for group, message in batch:
                    if group == fanout.LOBBY_GROUP:
                        lobby.append([(group, message)])
                    else:
                        messages.append((group, fanout.layer_message(group, message)))
                await self.deliver(table_id, messages)
                if messages and live.remote:
                    remote.append((live, table_id, messages))
            live.published = cut.table.version
        now = time.monotonic()
        for cut in cuts:
            self.timings.add("durable", now - cut.since)  # per table: changed -> answered
            for waiter in cut.waiters:
                if not waiter.done():
                    waiter.set_result(None)
        # In order (a table's batches, cut by cut), in one round trip.
        heard = await self.relay_many([(table_id, messages) for _, table_id, messages in remote])
        self.stats["relayed"] += len(remote)
        for (live, table_id, _), listeners in zip(remote, heard, strict=True):
            if listeners is not None and listeners - (table_id in self.subscribed) <= 0:
                live.remote = False  # until a process says it watches
        if lobby:
            await fanout.apublish(lobby)

    async def relay(self, table_id: int, messages: list[tuple[str, Json]]) -> int | None:
        """Publish to the processes listening to the table; how many listen."""
        return (await self.relay_many([(table_id, messages)]))[0]

    async def relay_many(self, batches: list[tuple[int, list[tuple[str, Json]]]],
                         ) -> list[int | None]:
        """Publish each batch to the processes listening to its table, in order, in one
        round trip (a pipeline): how many listen to each. (One ``await`` per batch
        made a loaded process's publishing, and the next commit waiting for it, take
        a loop turn per table: seconds after a takeover, when every table taken over
        is relayed once.)"""
        if self.redis is None or not batches:
            return [None] * len(batches)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for table_id, messages in batches:
                    pipe.publish(self.relay_key(table_id), relay_payload(self.channel,
                                                                         messages))
                return [int(n) for n in await pipe.execute()]
        except (RedisError, OSError) as error:  # Redis away (no traceback: expected)
            log.warning("relaying %d batches failed: %r", len(batches), error)
            if self.started:  # (at once: the lease thread looks twice a second)
                self._broker_failed()
        except Exception:
            log.warning("relaying %d batches failed", len(batches), exc_info=True)
        return [None] * len(batches)

    async def publish_plain(self, batches: list[fanout.Batch]) -> None:
        """What a transaction of its own committed (:mod:`tables.services`): to this
        process's connections and to every other process's; the lobby news after
        them, in the background in a running host (:meth:`lobby_news`)."""
        lobby: list[fanout.Batch] = []
        for batch in batches:
            tables: dict[int, list[tuple[str, Json]]] = {}
            for group, message in batch:
                table_id = table_of(group)
                if table_id is None:
                    lobby.append([(group, message)])
                else:
                    tables.setdefault(table_id, []).append(
                        (group, fanout.layer_message(group, message)))
            for table_id, messages in tables.items():
                await self.deliver(table_id, messages)
                if self.redis is None and self.started:
                    continue
                if self.redis is None:  # a process without a running host (the worker)
                    self.redis = _redis_client()
                if self.redis is not None:
                    began = time.monotonic()
                    await self.relay(table_id, messages)
                    self.timings.add("own relay", time.monotonic() - began)
        if lobby and self.started:
            self.lobby_news(lobby)
        elif lobby:  # a process without a running host (the worker): at once
            await fanout.apublish(lobby, direct=True)

    def lobby_news(self, lobby: list[fanout.Batch]) -> None:
        """Send news to the lobby group after the news sent before, without waiting: in
        a storm of sits one lobby ``group_send`` took up to 3.3 s (docs/benchmarks.md,
        fourteenth session), and the command's answer, the player's next message behind
        it on its connection, and a commit lane waited for it. (The relay to other
        processes stays in line: a table's events must reach them in order.)"""
        previous = self.lobby_tail

        async def send() -> None:
            if previous is not None:
                with contextlib.suppress(Exception):
                    await previous
            await fanout.apublish(lobby, direct=True)  # (never raises)

        self.lobby_tail = self.spawn(send())

    async def deliver(self, table_id: int, messages: list[tuple[str, Json]]) -> None:
        watchers = self.local.get(table_id)
        if not watchers:
            return
        for consumer, groups in list(watchers.items()):
            for group, message in messages:
                if group in groups:
                    try:
                        await consumer.table_message(message)
                    except Exception:  # a closing socket: its disconnect detaches it
                        log.debug("delivery to a closing connection failed", exc_info=True)

    def auth_key(self, group: str) -> str:
        return f"{_prefix()}:auth:{group}"

    async def join_credentials(self, consumer: Any, groups: list[str]) -> bool:
        """Close ``consumer`` at once when its credential ends (an announcement to one
        of ``groups``, :func:`accounts.credentials.announce`, published to this
        process by :func:`announce_revoked`). The process, not each connection,
        listens, on its own Redis subscription (the relays' one): a handshake makes no
        channel-layer call, and after an owner is killed a thousand reconnecting
        clients do not queue behind each other's subscriptions. False if Redis failed
        (the connection is refused, ``unavailable``); the once-a-second credential
        check (:meth:`_credential_loop`) is the backstop for a lost announcement."""
        new = [g for g in groups if g not in self.credential_members]
        for group in groups:
            self.credential_members.setdefault(group, set()).add(consumer)
        if not new or self.pubsub is None:
            return True
        try:  # (one write; Redis's confirmations are read by the relay loop)
            await asyncio.wait_for(self.pubsub.subscribe(*map(self.auth_key, new)),
                                   HANDSHAKE_LAYER_TIMEOUT)
        except Exception as error:
            log.warning("Redis unavailable: refusing a websocket: %r", error)
            self.leave_credentials(consumer, groups)
            return False
        return True

    def leave_credentials(self, consumer: Any, groups: list[str]) -> None:
        """The connection closed: a group none of this process's connections needs is
        no longer listened to (best effort: an announcement is then only ignored)."""
        gone = []
        for group in groups:
            members = self.credential_members.get(group)
            if members is None:
                continue
            members.discard(consumer)
            if not members:
                del self.credential_members[group]
                gone.append(self.auth_key(group))
        if gone and self.pubsub is not None:
            self.spawn(self._unsubscribe(gone))

    async def _unsubscribe(self, keys: list[str]) -> None:
        try:
            await self.pubsub.unsubscribe(*keys)
        except Exception as error:
            log.warning("unsubscribing %d credential groups failed: %r", len(keys), error)

    def revoked(self, group: str, reason: str) -> None:
        """A credential group's announcement: close its connections here."""
        for consumer in list(self.credential_members.get(group, ())):
            self.spawn(
                consumer.auth_revoked({"type": REVOKED, "reason": reason}))

    async def _credential_loop(self) -> None:
        """Every second, whether the credentials of this process's connections still
        hold, in one query for all the bots (instead of one per command); a connection
        whose credential ended is closed (``session_ended``, docs/security.md)."""
        from .consumers import ENDED

        while True:
            await asyncio.sleep(RECHECK_SECONDS)
            try:
                consumers = [c for watchers in self.local.values() for c in watchers
                             if getattr(c, "credential", None) is not None]
                if not consumers:
                    continue
                valid = await self.db(still_valid, list({c.credential for c in consumers}))
                self.checked_at = time.monotonic()
                for consumer in consumers:
                    if consumer.credential not in valid:
                        self.spawn(consumer.refuse(
                            TableError("session_ended", ENDED)))
            except Exception:
                log.warning("checking credentials failed", exc_info=True)

    def credentials_checked(self) -> bool:
        """Whether :meth:`_credential_loop` has checked every connection lately."""
        return time.monotonic() - self.checked_at < 2 * RECHECK_SECONDS

    async def _relay_loop(self) -> None:
        """Events of tables owned elsewhere, for this process's connections."""
        if self.pubsub is None:
            return
        await self.pubsub.subscribe(self.relay_key(0))
        auth = self.auth_key("")
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
                if message is None:
                    continue
                channel = message["channel"].decode()
                if channel.startswith(auth):
                    self.revoked(channel[len(auth):], message["data"].decode())
                    continue
                table_id = int(channel.rsplit(":", 1)[1])
                data = json.loads(message["data"])
                if data["from"] == self.channel:
                    continue  # (its own: delivered here already)
                await self.deliver(table_id, [
                    (group, {"type": "table.message", "text": text, "version": version})
                    for group, text, version in data["m"]])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:  # Redis away (no traceback: expected)
                log.warning("relay receive failed: %r", error)
                await asyncio.sleep(0.5)
            except Exception:
                log.warning("relay receive failed", exc_info=True)
                await asyncio.sleep(0.5)

    # -- forwarding to the owner
    async def forward(self, table_id: int, user: Any, bot: Player | None,
                      command: Json) -> Json:
        owner = await self.owner_of(table_id)
        if owner is None or owner == self.channel or owner in self.dead:
            return {"moved": True}
        rid = f"{self.channel}:{next(self.ids)}"
        started = time.monotonic()
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self.requests[rid] = future
        self.forwarded_to[rid] = owner  # (answered "moved" at once if it is found dead)
        self.stats["forwarded"] += 1
        try:
            await self.send(owner, {
                "type": "owner.command", "rid": rid, "reply": self.channel,
                "table": table_id, "user": user.pk, "bot": bot.pk if bot else None,
                "command": command})
            # A busy owner answers late, a dead one never: wait while its lease holds
            # (looked at four times per lease: a takeover goes on at once).
            while True:
                try:
                    return await asyncio.wait_for(asyncio.shield(future),
                                                  lease_seconds() / 4)
                except TimeoutError:
                    if await self.owner_of(table_id) != owner or owner in self.dead:
                        return {"moved": True}  # it died (found dead, or its lease ran out)
                    if future.done() or self.requests.get(rid) is not future:
                        continue
                    if time.monotonic() - started > conf("OWNER_FORWARD_TIMEOUT", 30.0):
                        return {"error": "unavailable", "message": (
                            "The table's server does not answer; ask for a snapshot "
                            "before you try again.")}
        finally:
            self.requests.pop(rid, None)
            self.forwarded_to.pop(rid, None)

    async def _receive_loop(self) -> None:
        layer = get_channel_layer()
        if layer is None or not self.channel:
            return
        while True:
            try:
                message = await layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("owner channel receive failed", exc_info=True)
                await asyncio.sleep(0.5)
                continue
            kind = message.get("type")
            if kind == "owner.reply":
                future = self.requests.get(message["rid"])
                if future is not None and not future.done():
                    future.set_result(message)
            elif kind == "owner.command":
                self.spawn(self._serve(message))
            elif kind == "owner.watch":
                live = self.lives.get(message["table"])
                if live is not None:
                    live.remote = True

    async def _serve(self, message: Json) -> None:
        reply: Json = {"type": "owner.reply", "rid": message["rid"]}
        try:
            table_id = message["table"]
            with self.waiting(table_id, message["command"]):
                live = await self.live(table_id, admit=False)
                if live is None:
                    reply["moved"] = True
                else:
                    user = await self._cached(User, message["user"])
                    bot = await self._cached(Player, message["bot"]) if message["bot"] else None
                    reply["version"] = await self.run_command(live, user, bot,
                                                              message["command"])
        except TableError as error:
            reply.update(error=error.code, message=error.message,
                         wait_seconds=error.wait_seconds)
        except Exception:
            log.exception("a forwarded command failed")
            reply.update(error="unavailable", message="The command failed; try again.")
        try:
            await self.send(message["reply"], reply)
        except TableError:
            log.warning("answering a forwarded command failed: Redis unreachable")

    async def send(self, channel: str, message: Json) -> None:
        """Send to another process on the channel layer. The first send after Redis
        restarted fails on a connection it closed: once more, then ``unavailable``."""
        layer = get_channel_layer()
        with _broker_unavailable():
            try:
                await layer.send(channel, message)
            except (RedisError, OSError):
                await layer.send(channel, message)

    async def _cached(self, model: type[models.Model], pk: int) -> Any:
        key = (model.__name__, pk)
        hit = self.users.get(key)
        if hit is not None and time.monotonic() - hit[0] < 10:
            return hit[1]
        obj = await self.db(lambda: model.objects.get(pk=pk))
        self.users[key] = (time.monotonic(), obj)
        return obj

    # -- background
    async def _lag_loop(self) -> None:
        """Measure the event loop's lateness: ``lag`` (the worst of the last second, for
        the timers) and ``load`` (smoothed over about two seconds, for admission)."""
        step = 0.05
        recent: collections.deque[float] = collections.deque(maxlen=20)
        meter = LoopBusy()  # (made here: it measures the thread that runs the loop)
        steps = 0
        try:
            while True:
                start = time.monotonic()
                await asyncio.sleep(step)
                late = max(0.0, time.monotonic() - start - step)
                recent.append(late)
                self.lag = max(recent)
                self.load += (late - self.load) * 0.025
                steps += 1
                if steps % 10 == 0 and (busy := meter.sample()) is not None:  # each 0.5 s
                    last = self.loop_busy
                    self.loop_busy = busy if last is None else last + (busy - last) / 5
        finally:
            meter.close()

    async def _report_loop(self) -> None:
        """Every ``OWNER_REPORT_SECONDS`` (0: never) log one line of this process's
        load at INFO: what an operator reads to see where an owner's time goes."""
        every = conf("OWNER_REPORT_SECONDS", 0)
        if not every:
            return
        began = began_cpu = 0.0

        def collecting(phase: str, info: dict[str, int]) -> None:  # the collector's pauses
            nonlocal began, began_cpu
            if phase == "start":
                began, began_cpu = time.monotonic(), time.thread_time()
            elif began:  # wall time, and the CPU it took (the rest: waiting for a CPU)
                self.timings.add(f"gc{info['generation']}", time.monotonic() - began)
                self.timings.add(f"gc{info['generation']} cpu", time.thread_time() - began_cpu)

        gc.callbacks.append(collecting)
        last = collections.Counter(self.stats)
        try:
            while True:
                await asyncio.sleep(every)
                now = collections.Counter(self.stats)
                done = now - last
                last = now
                commits = done["commits"] or 1
                log.info("owner %s: %d tables live, %d playing; %.1f commits/s of %.1f tables; "
                         "%s; loop lag %.0f ms (smoothed %.0f), busy %.0f %%; "
                         "%d fast commands, %d in a transaction of their own, %d loaded, "
                         "%d refused; "
                         "%d relayed, %d connections, %d credential groups, %d relay channels",
                         self.channel, len(self.lives), len(self.playing()),
                         done["commits"] / every, done["committed_tables"] / commits,
                         self.timings.report(), self.lag * 1000, self.load * 1000,
                         (self.loop_busy or 0.0) * 100,
                         done["fast"], done["classic"], done["loaded"], done["refused"],
                         done["relayed"],
                         sum(map(len, self.local.values())), len(self.credential_members),
                         len(self.subscribed))
        finally:
            gc.callbacks.remove(collecting)

    async def _lease_loop(self) -> None:
        """Renew the leases of every table held here (loaded, loading, or in a
        transaction of its own), twice a second, in a thread with its own Redis
        connection: a late event loop (overload, a long pause) must not let them expire
        while this process is alive, or another process would take its tables."""
        if self.redis is None:
            return
        loop = asyncio.get_running_loop()
        stop = threading.Event()
        thread = threading.Thread(target=self._renew, args=(loop, stop), daemon=True,
                                  name="owner-leases")
        thread.start()
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            stop.set()

    def _renew(self, loop: asyncio.AbstractEventLoop, stop: threading.Event) -> None:
        import redis

        url = _redis_url()
        # (named: while this connection is open, the others know this process lives)
        client = redis.Redis.from_url(url, client_name=lease_client_name(self.channel))
        ms = int(lease_seconds() * 1000)
        while not stop.wait(renew_seconds()):
            try:
                ids = sorted(set(list(self.lives) + list(self.taking) + list(self.closed)))
                client.zadd(self.hosts_key(), {self.channel: time.time() + ms / 1000})
                self.broker_seen = time.monotonic()
                if self.outage.down:
                    loop.call_soon_threadsafe(self._broker_answered)
                if self.url:
                    client.hset(self.hosts_key() + ":urls", self.channel, self.url)
                if not ids:
                    continue
                lost = client.eval(LEASE, len(ids), *[self.lease_key(i) for i in ids],
                                   self.channel, ms, "renew")
                if lost:
                    loop.call_soon_threadsafe(self._lost, [ids[int(i) - 1] for i in lost])
            except RuntimeError:  # a table came or went while listing: next second
                continue
            except RedisError:  # (said once, by _broker_failed, until Redis answers)
                loop.call_soon_threadsafe(self._broker_failed)
            except Exception:
                log.warning("renewing table leases failed", exc_info=True)
        client.close()

    # -- Redis out of reach
    def _broker_failed(self) -> None:
        """Redis does not answer: the other processes hear nothing of the tables owned
        here, nor can they forward their players' commands. Play goes on for this
        process's own connections; the turn timers of tables watched elsewhere are held
        (:meth:`fire`), and no process adopts tables (their leases lapse meanwhile)."""
        self.outage.fail()

    def _broker_answered(self) -> None:
        """Redis answers again: once it has for ``RESUME_GRACE_SECONDS`` (the other
        processes subscribe again meanwhile), every table watched elsewhere or held
        gets a full turn from now and a fresh version (clients resync), as the worker
        does for the classic runtime (:mod:`tables.worker`)."""
        if not self.outage.answered():
            return
        held, outage = self.held, self.outage.end()
        self.held = set()
        # The leases lapsed: this process's lease thread took its own back already;
        # adopting waits a lease more so that no owner's tables are taken from it.
        self.adopt_after = time.monotonic() + lease_seconds()
        lives = [live for live in self.lives.values() if live.remote or live.table_id in held]
        self.resuming.update(live.table_id for live in lives)  # (no timeout meanwhile)
        log.warning("Redis back: timers resume after a %.1f s outage; %d tables (%d held) "
                    "get a full turn from now", outage, len(lives), len(held))
        self.tasks.append(asyncio.get_running_loop().create_task(self._give_time_back(lives)))

    async def _give_time_back(self, lives: list[Live]) -> None:
        async def one(live: Live) -> None:
            try:
                if await self.settled(live) is not None:
                    self.resume(live)
            finally:
                self.resuming.discard(live.table_id)

        await asyncio.gather(*map(one, lives))

    def _lost(self, table_ids: list[int]) -> None:
        for table_id in table_ids:
            live = self.lives.get(table_id)
            if live is not None:
                log.warning("lost the lease of table %s", table_id)
                self.evict(live)

    def hosts_key(self) -> str:
        return f"{_prefix()}:owner:hosts"

    async def _sweep_loop(self) -> None:
        """The presence sweep of the tables this process owns, once a second (the
        worker leaves them alone, :func:`owned_sync`): through :meth:`classic`, so
        that it never changes a table behind its live copy."""
        while True:
            await asyncio.sleep(1.0)
            try:
                await self.sweep()
            except Exception:
                log.warning("the presence sweep failed", exc_info=True)

    async def sweep(self, now: Any = None) -> int:
        """Drop this process's tables' silent connections, stand up their players
        disconnected past the grace period (:func:`tables.services.sweep_presence`)."""
        ids = sorted(self.lives)
        if not ids:
            return 0
        now = now or timezone.now()
        silent, expired = await self.db(services.presence_due, now, ids)
        # This process's own connections: what it heard, not the late batched write.
        heard, timeout = presence.writer().heard_within, conf("PRESENCE_TIMEOUT", 12)
        silent = [(t, c) for t, c in silent if not heard(c, timeout)]
        count = 0
        for table_id, channel_name in silent:
            log.info("sweeping silent connection %s", channel_name)
            await self.presence(table_id, services.disconnect, channel_name=channel_name,
                                now=now, silent_since=services.silent_before(now))
            count += 1
        for table_id, number in expired:
            count += bool(await self.classic(table_id, services.stand_up_disconnected,
                                             table_id=table_id, number=number, now=now))
        return count

    async def _adopt_loop(self) -> None:
        """Take over running tables that nobody owns (their owner died, or nobody has
        connected since the server started), twice a second, and at once when a
        process is found dead (looked for four times a second)."""
        for tick in itertools.count(1):
            await asyncio.sleep(0.25)
            try:
                if self.outage.down:
                    continue
                known = set(self.dead)
                dead = await self.find_dead()
                if dead - known or tick % 2 == 0:
                    self.unload_idle()
                    await self.adopt(dead)
            except Exception:
                log.warning("adopting tables failed", exc_info=True)

    async def fetch(self, table_id: int) -> TableRun | None:
        """The table from the database; loads asked for at the same moment (a
        thousand reconnecting clients, a takeover) share one :func:`load_many`."""
        future = self.loading.get(table_id)
        if future is None:
            future = self.loading[table_id] = asyncio.get_running_loop().create_future()
            if self.loader_task is None or self.loader_task.done():
                self.loader_task = asyncio.get_running_loop().create_task(self._load_batches())
        return await asyncio.shield(future)

    async def _load_batches(self) -> None:
        await asyncio.sleep(0.002)  # (let the others that come at once join)
        while self.loading:
            batch, self.loading = self.loading, {}
            try:
                runs = {run.table.pk: run for run in await self.db(load_many, list(batch))}
            except Exception as error:
                for future in batch.values():
                    future.set_exception(error)
                continue
            for table_id, future in batch.items():
                future.set_result(runs.get(table_id))

    def unload_idle(self) -> None:
        """Forget tables nobody sits at or watches here (memory; their lease goes)."""
        if self.outage.down:
            return  # (their leases could not be given back)
        for table_id, live in list(self.lives.items()):
            if (live.dirty or any(live.run.seats) or self.local.get(table_id)
                    or table_id in self.closed or live.in_commit):
                continue
            self.evict(live)
            self.admitted.discard(table_id)
            self.spawn(self._release(table_id))

    async def adopt(self, dead: set[str] | None = None) -> list[int]:
        """Take over, at once and all together, the running tables that nobody owns
        (no lease, or a lease of a process found dead: ``dead``, else looked for
        here); the tables taken."""
        if self.outage.down or time.monotonic() < self.adopt_after:
            return []  # (Redis away or just back: leases lapsed, their owners still play)
        began = time.monotonic()
        if dead is None:
            dead = await self.find_dead()
        listing = time.monotonic()
        self.running = set(await self.db(_running_tables))
        listed = time.monotonic()
        ids = [i for i in sorted(self.running)
               if i not in self.lives and i not in self.closed and i not in self.taking]
        if not ids:
            return []
        if self.redis is not None:  # (free leases and the dead's; one round trip)
            ms = int(lease_seconds() * 1000)
            lost = await self.redis.eval(LEASE, len(ids), *[self.lease_key(i) for i in ids],
                                         self.channel, ms, "take", *dead)
            taken = set(ids) - {ids[int(i) - 1] for i in lost}
            ids = [i for i in ids if i in taken]
        leased = time.monotonic()
        generations = {i: self.generation[i] for i in ids}
        self.taking.update(ids)
        loading = time.monotonic()
        try:
            runs = await self.db(load_many, ids)
        finally:
            self.timings.add("takeover load", time.monotonic() - loading)
            self.taking.subtract(ids)
            for i in ids:
                if self.taking[i] <= 0:
                    del self.taking[i]
        adopted = []
        for run in runs:
            table_id = run.table.pk
            if (table_id in self.lives or table_id in self.closed
                    or self.generation[table_id] != generations[table_id]):
                continue  # loaded here meanwhile, or a transaction ran: what was read may be old
            live = self.lives[table_id] = Live(self, run)
            self.resume(live)
            self.stats["adopted"] += 1
            adopted.append(table_id)
        if adopted:
            log.info("took over %d tables in %.0f ms (looking for the dead %.0f ms, listing "
                     "%.0f ms, leases %.0f ms, loading %.0f ms)", len(adopted),
                     (time.monotonic() - began) * 1000, (listing - began) * 1000,
                     (listed - listing) * 1000, (leased - listed) * 1000,
                     (time.monotonic() - leased) * 1000)
        return adopted

    async def find_dead(self) -> set[str]:
        """The other processes found dead: their lease renewals stopped one and a half
        renewals ago and their lease connection is gone from Redis's ``CLIENT LIST`` (a killed
        process's sockets are closed by its kernel at once). Their tables are taken
        now, not when their leases run out; a process alive but starved keeps its
        connection, so its tables stay its own until its leases lapse. Where Redis
        refuses ``CLIENT LIST`` (a managed service), the leases alone tell."""
        now = time.monotonic()
        self.dead = {h: at for h, at in self.dead.items() if now - at < 2 * lease_seconds()}
        if self.redis is None or not self.detect_deaths:
            return set(self.dead)
        # (a host's score is when its leases end, its last renewal a lease before)
        stale = time.time() - 1.5 * renew_seconds() + lease_seconds()
        hosts = {h.decode(): end for h, end in await self.redis.zrangebyscore(
            self.hosts_key(), time.time(), "+inf", withscores=True)}
        for host in [h for h in self.dead if hosts.get(h, 0) > stale]:
            del self.dead[host]  # (renewing again: it was not dead)
        suspects = {h for h, end in hosts.items() if end <= stale} - {self.channel} \
            - set(self.dead)
        if not suspects:
            return set(self.dead)
        try:
            names = {c.get("name") for c in await self.redis.client_list()}
        except ResponseError as error:  # (no permission for CLIENT LIST)
            log.warning("finding dead processes by their Redis connections is off "
                        "(%s): their tables wait for their leases to run out", error)
            self.detect_deaths = False
            return set(self.dead)
        for host in sorted(suspects):
            if lease_client_name(host) not in names:
                self.dead[host] = now
                log.warning("process %s is gone (no lease renewal, no Redis connection): "
                            "its tables are taken over", host)
                # Commands forwarded to it and not answered are tried here now, as
                # when its lease runs out (their next look at its lease).
                for rid, to in list(self.forwarded_to.items()):
                    future = self.requests.get(rid)
                    if to == host and future is not None and not future.done():
                        future.set_result({"moved": True})
                await self.redis.zrem(self.hosts_key(), host)
        return set(self.dead)

    def resume(self, live: Live) -> None:
        """A table taken over: the turn gets its full time from now and everybody a
        fresh version with the turn (clients resync)."""
        run, now = live.run, timezone.now()
        table = run.table
        run.next_command(now)
        if table.deadline is not None:
            seconds = (services.conf("SHOWDOWN_SECONDS") if run.status().quick
                       else table.turn_seconds)
            table.deadline = max(table.deadline, now + timedelta(seconds=seconds))
        if table.bot_due is not None:
            table.bot_due = max(table.bot_due,
                                now + timedelta(seconds=services.conf("HOUSE_BOT_DELAY")))
        try:
            run.finish()
        except Exception:
            log.exception("resuming table %s failed", live.table_id)
            self.evict(live)
            return
        # (finish() sent everybody the fresh version; the player to act gets the turn
        # again, with its new deadline)
        live.outbox.append([(g, m) for g, m in fanout.build_batch(run, new_turn=True)
                            if m["type"] == "your_turn"])
        live.schedule()


def route(table_id: int) -> Json:
    """Where a client should connect for the table (``GET /api/v1/tables/<id>/route/``):
    its owner's address if a process owns it, else the process that the rule
    ``table id mod processes`` (over the processes' addresses in order) gives, which
    takes it with the first connection. ``None`` where no address is known."""
    url = _redis_url()
    answer: Json = {"table": table_id, "owner": None, "by_rule": None, "processes": 0,
                    "path": f"/ws/tables/{table_id}/"}
    if not enabled() or not url:
        return answer
    prefix = _prefix()
    client = _sync_redis(url)
    owner = client.get(f"{prefix}:owner:{table_id}")
    hosts = {h.decode() for h in client.zrangebyscore(f"{prefix}:owner:hosts",
                                                      time.time(), "+inf")}
    urls = {k.decode(): v.decode()
            for k, v in client.hgetall(f"{prefix}:owner:hosts:urls").items()}
    live = sorted({urls[h] for h in hosts if h in urls})
    answer["processes"] = len(hosts)
    if owner is not None:
        answer["owner"] = urls.get(owner.decode())
    if live:
        answer["by_rule"] = live[table_id % len(live)]
    return answer


@receiver(announced)
def announce_revoked(sender: Any, *, groups: tuple[str, ...], reason: str,
                     **kwargs: Any) -> None:
    """A credential ended (:func:`accounts.credentials.announce`): tell every process's
    host, which closes its table connections in those groups (:meth:`Host.revoked`)."""
    url = _redis_url()
    if not enabled() or not url:
        return
    client, prefix = _sync_redis(url), _prefix()
    for group in groups:
        client.publish(f"{prefix}:auth:{group}", reason)


def relay_payload(sender: str, messages: list[tuple[str, Json]]) -> str:
    return json.dumps({"from": sender,
                       "m": [[g, m["text"], m["version"]] for g, m in messages]})


def table_of(group: str) -> int | None:
    """The table of a fan-out group (``table.<id>…``), else ``None``."""
    if not group.startswith("table."):
        return None
    try:
        return int(group.split(".")[1])
    except (IndexError, ValueError):
        return None


@contextlib.contextmanager
def _broker_unavailable() -> Iterator[None]:
    """Redis out of reach: who owns a table cannot be known, so a command or a
    handshake for a table not held here is refused ``unavailable`` (try again), not
    crashed (tables held here play on without Redis)."""
    try:
        yield
    except (RedisError, OSError) as error:
        raise TableError("unavailable", UNAVAILABLE["message"]) from error


def _redis_client() -> Any:
    url = _redis_url()
    if not url:
        return None
    import redis.asyncio as aioredis

    # Many tasks at once (a thousand connections arriving) wait for a connection
    # instead of failing.
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=64, timeout=10)
    return aioredis.Redis(connection_pool=pool)


_sync_clients: dict[str, Any] = {}


def _sync_redis(url: str) -> Any:
    """One blocking Redis client per address for this process's threads (REST
    commands, the worker): its connection pool is thread-safe and kept, instead of a
    connection opened and closed per call."""
    client = _sync_clients.get(url)
    if client is None:
        import redis

        client = _sync_clients.setdefault(url, redis.Redis.from_url(
            url, socket_connect_timeout=2, socket_timeout=5))
    return client


def relay_sync(batch: fanout.Batch) -> bool:
    """:func:`tables.fanout.publish` outside an event loop (a REST command): the table
    messages to every process's connections through the relay. False: nothing to do
    here (no Redis), publish as usual."""
    url = _redis_url()
    if not url:
        return False
    client = _sync_redis(url)
    tables: dict[int, list[tuple[str, Json]]] = {}
    rest: fanout.Batch = []
    for group, message in batch:
        table_id = table_of(group)
        if table_id is None:
            rest.append((group, message))
        else:
            tables.setdefault(table_id, []).append((group, fanout.layer_message(group,
                                                                                 message)))
    prefix = _prefix()
    for table_id, messages in tables.items():
        client.publish(f"{prefix}:relay:{table_id}", relay_payload("", messages))
    if rest:
        fanout.publish(rest, direct=True)
    return True


# The leases KEYS for ARGV[1] (ARGV[2] ms): taken if free or held by a process found
# dead (ARGV[4...]), renewed if already its own and ARGV[3] is "renew"; the indexes
# of the others. (Taking over, "take": a lease of its own is not a table to adopt.)
LEASE = """
local dead = {}
for j = 4, #ARGV do dead[ARGV[j]] = true end
local lost = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('GET', key)
  if owner == ARGV[1] and ARGV[3] == 'renew' then
    redis.call('PEXPIRE', key, ARGV[2])
  elseif not owner or dead[owner] then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def owned_sync(table_ids: list[int]) -> set[int]:
    """Of ``table_ids``, those a live process owns now (the worker's presence sweep
    leaves them to it, :meth:`Host.sweep`)."""
    url = _redis_url()
    if not url or not table_ids:
        return set()
    leases = _sync_redis(url).mget([f"{_prefix()}:owner:{t}" for t in table_ids])
    return {t for t, lease in zip(table_ids, leases, strict=True) if lease}


def _running_tables() -> list[int]:
    return list(Table.objects.filter(status=TableStatus.RUNNING).filter(
        Q(deadline__isnull=False) | Q(bot_due__isnull=False)).values_list("pk", flat=True))


def _one_table(job: Callable[..., int]) -> Callable[..., int]:
    """A worker job (fire timers, house bots) limited to one table."""
    def run(table_id: int) -> int:
        from .runtime import locked_table

        with locked_table(table_id, skip_locked=True) as run:
            if run is None:
                return 0
            now = run.now
            if job is services.fire_due_timers:
                if run.table.deadline is None or run.table.deadline > now:
                    return 0
                services.time_out(run)
                return 1
            if run.table.bot_due is None or run.table.bot_due > now:
                return 0
            return int(services.house_move(run))
    return run


def command_sync(table_id: int, user: Any, bot: Player | None, command: Json) -> int | None:
    """A command from a synchronous view (the REST API) run like a websocket's: at the
    table's owner, through this process's host on the server's event loop (so that a
    bot playing over HTTP never changes a table behind its owner's live copy). The new
    version; ``None`` where no server event loop runs this thread's requests (the
    caller then runs it in a transaction of its own)."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if (not enabled() or loop is None or not loop.is_running()
            or getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid()):
        return None

    async def run() -> int:
        await host().start()
        return await host().command(table_id, user, bot, command)

    return int(async_to_sync(run)())


_host: Host | None = None


def host() -> Host:
    global _host
    if _host is None:
        _host = Host()
    return _host


def reset() -> None:
    """Forget this process's host (tests)."""
    global _host
    if _host is not None:
        for task in _host.tasks:
            task.cancel()
    _host = None
