"""The load generator's clients: seated bots, spectators and idle watchers.

One asyncio process runs a slice of the tables (``run_slice``); ``bench/load.py``
starts several such processes and merges what they return (:class:`Stats`).

* A **seated bot** sits, answers ``your_turn`` at the set pace (the table does
  about ``pace`` actions per second), times action→``ack`` by ``request_id`` and,
  with the other seated bots of its table, action→``events`` at every seat. Some
  turns it lets run out on purpose, to measure timer lateness (arrival of the
  server's ``PlayerTimedOut`` against the deadline it announced).
* A **spectator** (one per sampled table) checks privacy and chips: no
  ``private``/``your_turn`` ever, no hole card in a ``HoleCardsDealt``, and in its
  periodic snapshots no hole card that was not shown, stacks + pots equal to the
  seated stacks, and the table's chips equal to what the events put there. A hole
  card in a snapshot that no ``CardsShown`` it saw explains (it may have missed
  messages) is a *reveal*: ``bench/load.py`` has the database verify it.
* A **watcher** only holds its connection and heartbeats.

Routing (:class:`Net`): ``spread`` deals the connections round robin over the
Daphne ports; ``owner`` sends every client of table T to ``ports[T % len(ports)]``
(the hash-by-table rule of a load balancer in front of owner processes).

Admission control: a ``server_busy`` error (on connect, then close code 4503; or
the reply to a ``sit``) while a table's clients connect and sit is retried, as the
message asks: the connection after 1-2 s, the sit after 2, 4, 8 s (with jitter),
for ``ADMIT_PATIENCE`` seconds from the table's first refusal. A table whose seats
are not all taken by then (or when every other table is seated) is *refused*: its
clients close and it is left out of every measurement; the window opens once they
have closed (and ``REFUSED_SETTLE`` seconds more). Later ``server_busy`` replies are
counted, never errors.

Fault injection (``kill_port``): once ``bench/load.py`` has killed that port's
process, a client whose socket drops there reconnects to the next live port,
resyncs from a snapshot (it asks for one if none came within a second) and plays
on; a seated bot whose ``act`` has no answer within 2 s re-sends it once, then asks
for a snapshot (which brings the pending ``your_turn``). The refusals this causes
(``stale_version``, ``wrong_hand``, ``not_your_turn``) are *fault errors*, counted
apart, while the fault lasts.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
import websockets
from websockets import ConnectionClosed, State, WebSocketException

Json = dict[str, Any]
HEARTBEAT = 5.0  # docs/protocol.md: a ping every 5 s
SNAPSHOT_EVERY = 10.0  # a spectator checks a snapshot this often
BUSY = "server_busy"  # admission control refused the command or connection
BUSY_CLOSE = 4503  # the close code after a server_busy on connect
ACK_RETRY = 2.0  # fault mode: re-send an act unanswered this long, then ask a snapshot
ADMIT_PATIENCE = 60.0  # s: how long a table's clients retry a server_busy admission
REFUSED_SETTLE = 5.0  # s: after the refused tables' clients closed, before the window
RESYNC_ASK = 1.0  # fault mode: ask for a snapshot if the reconnect brought none by then
# Refusals a fault causes (an act that crossed a takeover, a re-sent duplicate).
FAULT_ERRORS = frozenset({"stale_version", "wrong_hand", "not_your_turn"})
LATE = FAULT_ERRORS  # an act refused with one of these came after its turn had ended
_background: set[asyncio.Task[None]] = set()


async def _quietly(coroutine: Any) -> None:
    with contextlib.suppress(ConnectionClosed):
        await coroutine


def spawn(coroutine: Any) -> None:
    """Run a coroutine in the background, keeping a reference until it is done (a send
    on a connection that closed meanwhile is dropped)."""
    task = asyncio.ensure_future(_quietly(coroutine))
    _background.add(task)
    task.add_done_callback(_background.discard)


@dataclass
class Stats:
    """What one generator process measured (merged by bench/load.py)."""

    connected_peak: int = 0
    connected_at_end: int = 0
    connect_failures: int = 0
    disconnects: int = 0
    actions: int = 0  # acts acknowledged inside the measurement window
    hands: int = 0  # HandEnded inside the window (counted once per table)
    ack_ms: list[float] = field(default_factory=list)
    ack_at: list[float] = field(default_factory=list)  # epoch of each ack in ack_ms (window)
    sent_at: list[float] = field(default_factory=list)  # epoch of each act sent (window)
    # The generator's own event loop: how late a 20 ms sleep woke (window), ms. Every
    # latency it measures includes this much of its own delay.
    loop_lag_ms: list[float] = field(default_factory=list)
    # Its garbage collector's passes in the window: (generation, ms) each.
    gc_ms: list[tuple[int, float]] = field(default_factory=list)
    update_ms: list[float] = field(default_factory=list)
    timer_late_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    error_examples: dict[str, str] = field(default_factory=dict)
    leaks: list[str] = field(default_factory=list)
    # Snapshot hole cards no CardsShown seen explains, for the database to verify:
    # {"table", "hand", "seat", "cards", "version"} (see manage.py loadtest_check).
    reveals: list[Json] = field(default_factory=list)
    chip_violations: list[str] = field(default_factory=list)
    disconnect_examples: list[str] = field(default_factory=list)
    gaps: int = 0  # events with a version gap (followed by a resync)
    stuck_tables: set[int] = field(default_factory=set)
    # Per stuck table: when its silence began (seconds into the window), the highest
    # version its clients had seen then, how many of its clients were connected, and
    # (at the end) whether an event came after it and how long the silence lasted.
    stuck_details: dict[int, Json] = field(default_factory=dict)
    snapshots_checked: int = 0
    messages: int = 0
    tables_with_hands: int = 0
    # Admission control: server_busy replies by where they came (connect, sit, act,
    # other); tables refused while their clients connected and sat.
    busy: Counter[str] = field(default_factory=Counter)
    tables_admitted: int = 0
    tables_refused: list[int] = field(default_factory=list)
    # Acts refused as too late (LATE codes): the seconds of the turn left when its
    # your_turn arrived (None: no deadline), the seconds the generator held it, and
    # the seconds from sending it to the refusal.
    late_acts: list[tuple[float | None, float, float]] = field(default_factory=list)
    late_before_sit_ack: int = 0
    # Fault injection (--kill-port): clients whose socket the kill dropped, how many
    # of them resynced from a snapshot on another port, acts re-sent, snapshots asked.
    fault_drops: int = 0
    resynced: int = 0
    not_resynced: int = 0
    retransmits: int = 0
    resync_requests: int = 0
    fault_errors: Counter[str] = field(default_factory=Counter)
    # Per affected table: seconds from the kill to its first event of a higher version.
    takeover_s: dict[int, float] = field(default_factory=dict)
    tables_affected: int = 0
    no_takeover: list[int] = field(default_factory=list)  # affected, no event after it


class Window:
    """The measurement window, shared by every client of the process."""

    def __init__(self) -> None:
        self.start = float("inf")
        self.end = float("inf")
        self.stopping = False

    def inside(self, at: float | None = None) -> bool:
        at = time.time() if at is None else at
        return self.start <= at <= self.end


class Net:
    """Where the clients connect (the ports, the routing rule) and the injected fault.

    ``times`` is the array bench/load.py shares: window start, window end, the planned
    kill (epoch) and the actual kill (epoch, 0 until done)."""

    def __init__(self, ports: list[int], route: str, kill_port: int | None, times: Any,
                 turn_seconds: int) -> None:
        self.ports, self.route, self.kill_port, self.times = ports, route, kill_port, times
        self.turn_seconds = turn_seconds
        self.settle = 2 * turn_seconds + 5  # how long a fault's refusals are expected
        self.counter = 0
        self.last_fault = 0.0  # epoch of the last fault action (kill, reconnect, retry)

    def first_port(self, table_id: int) -> int:
        if self.route == "owner":  # hash by table: every client of a table on one port
            return self.ports[table_id % len(self.ports)]
        self.counter += 1  # round robin over the Daphne processes
        return self.ports[self.counter % len(self.ports)]

    @property
    def faults(self) -> bool:
        return self.kill_port is not None

    def killed_at(self) -> float:
        return float(self.times[3]) if self.faults and len(self.times) > 3 else 0.0

    def near_planned_kill(self) -> bool:
        """Around the planned kill no turn is left to time out on purpose (it would
        pass for a slow takeover)."""
        if not self.faults or len(self.times) < 3 or not self.times[2]:
            return False
        now = time.time()
        return self.times[2] - self.turn_seconds - 2 <= now <= self.times[2] + self.settle

    def dead(self, port: int) -> bool:
        return port == self.kill_port and self.killed_at() > 0

    def next_port(self, port: int) -> int:
        """The next live port after ``port`` in the list."""
        start = self.ports.index(port) if port in self.ports else -1
        for step in range(1, len(self.ports) + 1):
            candidate = self.ports[(start + step) % len(self.ports)]
            if not self.dead(candidate):
                return candidate
        return port

    def fault_event(self) -> None:
        self.last_fault = time.time()

    def in_fault(self) -> bool:
        """From the kill until ``settle`` seconds after the last fault action."""
        killed = self.killed_at()
        now = time.time()
        return bool(killed) and killed <= now <= max(killed, self.last_fault) + self.settle


def _note_silence(stats: Stats, group: TableClients, window: Window, now: float,
                  opened: float) -> None:
    """The first silence of a stuck table, for the report (``stuck_details``)."""
    if group.id in stats.stuck_details:
        return
    began = max(group.last_event, opened)
    group.first_silence = began
    stats.stuck_details[group.id] = {
        "silent_from_s": round(time.time() - (now - began) - window.start, 1),
        "version": group.high,
        "connected": sum(1 for c in group.clients if c.open),
        "clients": len(group.clients)}


class TableClients:
    """The generator's view of one table: pacing and the update-latency bookkeeping."""

    def __init__(self, spec: Json, stats: Stats, window: Window, net: Net | None = None) -> None:
        self.id: int = spec["id"]
        self.spec = spec
        self.stats, self.window, self.net = stats, window, net
        self.seated = len(spec["bots"])
        self.next_action_at = 0.0  # monotonic: the pace (0: no turn yet)
        self.arrivals: dict[int, list[float]] = {}  # version -> arrival times at seats
        self.acts: dict[int, float] = {}  # version -> when the act was sent
        self.last_event = time.monotonic()
        self.first_silence = 0.0  # monotonic: when its first stuck silence began
        self.silence_ended = 0.0  # monotonic: the first event after it (0: none yet)
        self.hands = 0
        self.clients: list[Client] = []
        self.admitting = True  # clients still connecting and sitting
        self.refused = False  # not admitted: left out of everything
        self.busy_since = 0.0  # monotonic: its first server_busy while admitting
        self.high = 0  # highest version any client of the table saw
        self.high_at_kill = 0  # ... before the kill
        self.takeover_at: float | None = None  # epoch of the first higher one after it

    def silence(self, now: float) -> tuple[float, bool]:
        """The first stuck silence: its length in seconds (until the first event after
        it, else until ``now``) and whether the table went on after it."""
        end = self.silence_ended or now
        return round(end - self.first_silence, 1), bool(self.silence_ended)

    def next_slot(self, now: float, period: float, pacing: str, rng: random.Random) -> float:
        """When the table's next act goes out (monotonic) for a turn that came at ``now``.

        ``grid`` (the default): each table keeps a schedule of its own, one act every
        ``period`` from a random phase, as independent players would. A turn that came
        late is answered at once and the schedule stays (a slot missed by more than a
        period is skipped). ``reset`` (the generator before 2026-11-28): the schedule
        starts again from the late turn, so tables whose turns the server delivered in
        the same moment (one group commit) act in the same moment ever after, and a
        server that was late once gets its load in bursts from then on."""
        due = self.next_action_at
        if pacing == "reset":
            due = max(now, due)
        elif not due:
            due = now + rng.random() * period
        elif due < now - period:
            due += math.ceil((now - period - due) / period) * period
        self.next_action_at = due + period
        return max(now, due)

    def measuring(self) -> bool:
        return self.window.inside() and not self.refused

    def saw(self, version: int) -> None:
        """An events message of ``version`` reached a client of the table."""
        if version <= self.high:
            return
        self.high = version
        if self.net is None or not self.net.faults:
            return
        killed, now = self.net.killed_at(), time.time()
        if not killed or now <= killed:
            self.high_at_kill = version
        elif self.takeover_at is None and version > self.high_at_kill:
            self.takeover_at = now

    def patient(self) -> bool:
        """A server_busy while admitting: whether its clients try again (within
        ``ADMIT_PATIENCE`` of the table's first one)."""
        now = time.monotonic()
        self.busy_since = self.busy_since or now
        return now - self.busy_since < ADMIT_PATIENCE

    def refuse(self) -> None:
        """Admission control refused the table: its clients close."""
        if self.refused:
            return
        self.refused = True
        for client in self.clients:
            client.give_up()

    def arrived(self, version: int, at: float) -> None:
        self.arrivals.setdefault(version, []).append(at)
        if self.first_silence and not self.silence_ended and at > self.first_silence:
            self.silence_ended = at
        self.last_event = at
        self._complete(version)

    def acked(self, version: int, sent: float) -> None:
        self.acts[version] = sent
        self._complete(version)

    def _complete(self, version: int) -> None:
        sent, seen = self.acts.get(version), self.arrivals.get(version, ())
        if sent is None or len(seen) < self.seated:
            return
        if self.measuring():
            self.stats.update_ms.append((max(seen) - sent) * 1000)
        del self.acts[version]
        del self.arrivals[version]
        if len(self.arrivals) > 64:  # versions some seat never saw (a gap): drop them
            for old in sorted(self.arrivals)[:-32]:
                self.arrivals.pop(old, None)
                self.acts.pop(old, None)


def _deadline(text: str | None) -> float | None:
    return datetime.fromisoformat(text).timestamp() if text else None


def choose(legal: Json, rng: random.Random) -> Json:
    """A cheap, mostly passive policy: hands go to showdown often, stacks rarely bust."""
    if (legal.get("can_muck") or legal.get("can_show")) and not legal.get("can_fold"):
        return {"kind": "muck"}
    roll = rng.random()
    sized = legal.get("sized_kind")
    if sized and roll < 0.08:
        return {"kind": sized, "amount": legal["min_raise_to"]}
    if legal.get("can_check"):
        return {"kind": "check"}
    if roll > 0.9:
        return {"kind": "fold"}
    return {"kind": "call"}


class Client:
    """One websocket: a seated bot, a spectator or a watcher."""

    role = "watcher"

    def __init__(self, table: TableClients, bot: Json, net: Net, stats: Stats,
                 window: Window, connected: list[int]) -> None:
        self.table, self.bot, self.net = table, bot, net
        self.stats, self.window, self.connected = stats, window, connected
        self.port = self.home_port = net.first_port(table.id)
        self.version = 0
        self.ws: Any = None
        self.ready = asyncio.Event()
        self.snapshot_here = False  # a snapshot came on the current connection
        self.busy_here = False  # server_busy on connect on the current connection
        self.busy_wait: float | None = None  # what its server_busy said: s to wait
        self.resyncing = False  # dropped by the kill, no snapshot since
        self.open = False  # a connection is up
        table.clients.append(self)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/tables/{self.table.id}/"

    def measuring(self) -> bool:
        return self.table.measuring()

    async def send(self, data: Json) -> None:
        await self.ws.send(orjson.dumps(data).decode())

    async def run(self, gate: asyncio.Semaphore) -> None:
        headers = {"Authorization": f"Bearer {self.bot['token']}"}
        first = True
        while not self.window.stopping and not self.table.refused:
            try:
                async with gate:
                    ws = await websockets.connect(
                        self.url, additional_headers=headers, open_timeout=60,
                        ping_interval=None, max_size=2**20, compression=None)
            except (OSError, TimeoutError, WebSocketException):
                if self.resyncing or self.net.dead(self.port):  # the kill: the next port
                    self.stats.fault_errors["connect_failed"] += 1
                    self.port = self.net.next_port(self.port)
                    self.net.fault_event()
                    await asyncio.sleep(0.1 + 0.2 * random.random())
                    continue
                self.stats.connect_failures += 1
                await asyncio.sleep(1 + random.random())
                continue
            if self.table.refused or self.window.stopping:
                await ws.close()
                break
            self.ws, self.open = ws, True
            self.snapshot_here = self.busy_here = False
            self.connected[0] += 1
            self.stats.connected_peak = max(self.stats.connected_peak, self.connected[0])
            beat = asyncio.create_task(self.heartbeat())
            try:
                await self.opened(first)
                first = False
                if self.resyncing:
                    spawn(self.ask_snapshot(ws))
                async for text in ws:
                    self.stats.messages += 1
                    self.handle(orjson.loads(text), time.monotonic())
            except ConnectionClosed:
                pass
            finally:
                beat.cancel()
                self.open = False
                self.connected[0] -= 1
                self.ready.set()
                self.connection_lost()
            if self.window.stopping or self.table.refused:
                break
            if ws.close_code == BUSY_CLOSE or self.busy_here:
                if not self.busy_here:  # the close without its error message
                    self.busy("connect")
                if self.table.refused:
                    break
                # busy after admission: when the refusal said (else 1-2 s)
                await asyncio.sleep(self.busy_wait or 1 + random.random())
                continue
            if self.net.dead(self.port):
                self.fault_dropped()
                continue
            self.stats.disconnects += 1
            if len(self.stats.disconnect_examples) < 10:
                self.stats.disconnect_examples.append(
                    f"{self.role} at table {self.table.id}: code {ws.close_code} "
                    f"{ws.close_reason or ''}".strip())
            self.lost_events()
            await asyncio.sleep(1)

    def fault_dropped(self) -> None:
        """The kill took this connection's process: resync on the next live port."""
        self.stats.fault_drops += 1
        self.stats.fault_errors["connection_lost"] += 1
        self.resyncing = True
        self.net.fault_event()
        self.lost_events()
        self.port = self.net.next_port(self.port)

    async def ask_snapshot(self, ws: Any) -> None:
        """After a fault reconnect: the connect snapshot, or else ask for one."""
        await asyncio.sleep(RESYNC_ASK)
        if self.resyncing and self.ws is ws and not self.window.stopping:
            self.stats.resync_requests += 1
            await self.send({"type": "snapshot", "request_id": "resync"})

    def connection_lost(self) -> None:
        """The current connection ended (whatever the reason)."""

    def give_up(self) -> None:
        """The table was refused: close and stop."""
        self.ready.set()
        if self.ws is not None:
            spawn(self.close())

    async def heartbeat(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await asyncio.sleep(random.random() * HEARTBEAT)
            while True:
                await self.send({"type": "ping"})
                await asyncio.sleep(HEARTBEAT)

    async def opened(self, first: bool) -> None:
        """Called once connected (again after a reconnect)."""

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    def busy_kind(self, request_id: str) -> str:
        return "other" if self.snapshot_here else "connect"

    def busy(self, where: str) -> None:
        """A server_busy: while the table is being admitted, tried again (the caller)
        until the table's patience ends; then the table is refused."""
        self.stats.busy[where] += 1
        if where == "connect":
            self.busy_here = True
            self.busy_wait = None  # (a close without its error frame says no time)
        if self.table.admitting and not self.table.patient():
            self.table.refuse()

    def is_retry(self, request_id: str) -> bool:
        return False

    def error(self, message: Json) -> None:
        code = message.get("code", "?")
        if code == BUSY:
            self.busy(self.busy_kind(str(message.get("request_id"))))
            self.busy_wait = message.get("wait_seconds")  # when to try again
            return
        if self.net.faults and code in FAULT_ERRORS and (
                self.net.in_fault() or self.is_retry(str(message.get("request_id")))):
            self.stats.fault_errors[code] += 1
            return
        self.stats.errors[code] += 1
        request = f" ({message['request_id']})" if message.get("request_id") else ""
        self.stats.error_examples.setdefault(
            code, f"{self.role}{request}: {message.get('message')}")

    def handle(self, message: Json, at: float) -> None:
        kind = message.get("type")
        if kind == "error":
            self.error(message)
        if kind == "snapshot":
            self.version = max(self.version, message["version"])
            self.snapshot_here = True
            if self.resyncing:
                self.resyncing = False
                self.stats.resynced += 1
            self.ready.set()
        elif kind == "events":
            version = message["version"]
            self.table.saw(version)
            if self.version and version > self.version + 1:
                self.stats.gaps += 1
                self.lost_events()
                spawn(self.send({"type": "snapshot"}))
            if version > self.version:
                self.version = version
            self.on_events(message, version, at)
        elif kind in ("your_turn", "private"):
            self.on_private(message, at)
        elif kind == "pong" and self.net.in_fault() and message.get("version", 0) > self.version:
            spawn(self.behind(message["version"]))

    async def behind(self, version: int) -> None:
        """Fault window: the table committed a version we never got (its fan-out may have
        died with the killed process): a snapshot if it is still missing in 0.5 s
        (docs/protocol.md, pong)."""
        await asyncio.sleep(0.5)
        if self.version < version and not self.window.stopping:
            self.stats.resync_requests += 1
            self.net.fault_event()
            await self.send({"type": "snapshot", "request_id": "behind"})

    def on_events(self, message: Json, version: int, at: float) -> None:
        pass

    def lost_events(self) -> None:
        """The connection dropped: events until the next snapshot may be missing."""

    def on_private(self, message: Json, at: float) -> None:
        pass


@dataclass
class Attempt:
    """An act in flight (with its re-sent copy in fault mode)."""

    sent: float  # monotonic: when the first copy went out
    turn: tuple[Any, Any]  # (hand, version) of its your_turn
    command: Json
    ids: list[str] = field(default_factory=list)
    answered: bool = False
    left: float | None = None  # s of the turn left when its your_turn arrived
    held: float = 0.0  # s from the your_turn's arrival to the act sent
    before_sit_ack: bool = False  # sent before this client's sit was acknowledged


class Seated(Client):
    """A bot that sits and plays."""

    role = "seat"

    def __init__(self, *args: Any, seat: int, pace: float, timeout_fraction: float,
                 counts_hands: bool, rng: random.Random, pacing: str = "grid") -> None:
        super().__init__(*args)
        self.seat, self.pace, self.timeout_fraction = seat, pace, timeout_fraction
        self.pacing = pacing
        self.counts_hands, self.rng = counts_hands, rng
        self.pending: dict[str, Attempt] = {}  # request_id -> its act
        self.retries: set[str] = set()  # request_ids of re-sent acts
        self.turn: tuple[Any, Any] | None = None  # (hand, version) of the last your_turn
        self.skipped_last = False
        self.awaiting_timeout: float | None = None  # announced deadline (epoch)
        self.counter = 0
        self.settled = asyncio.Event()  # the sit was acknowledged, or the table refused
        self.sat = False  # the sit was acknowledged
        self.backoff = 2.0  # s: the next sit after a server_busy

    async def opened(self, first: bool) -> None:
        if first or not self.sat:  # (a connection lost before its sit was answered)
            await self.sit()

    async def sit(self) -> None:
        await self.send({"type": "sit", "seat": self.seat,
                         "buy_in": self.table.spec["buy_in"], "request_id": "sit"})

    def connection_lost(self) -> None:
        for attempt in self.pending.values():  # never answered now: the turn comes again
            attempt.answered = True
        self.pending.clear()

    def give_up(self) -> None:
        self.settled.set()
        super().give_up()

    async def sit_again(self, ws: Any, wait: float | None) -> None:
        """The sit was refused server_busy: again after the time the refusal said (else
        a growing pause), on this connection (a new one sits by itself)."""
        if wait is None:
            wait = self.backoff * (0.75 + 0.5 * random.random())
            self.backoff = min(8.0, self.backoff * 2)
        await asyncio.sleep(wait)
        if self.ws is ws and self.open and not (self.sat or self.table.refused
                                                or self.window.stopping):
            await self.sit()

    def busy_kind(self, request_id: str) -> str:
        if request_id == "sit":
            return "sit"
        if request_id in self.pending or request_id in self.retries:
            return "act"
        return super().busy_kind(request_id)

    def is_retry(self, request_id: str) -> bool:
        return request_id in self.retries

    def answered(self, request_id: str) -> Attempt | None:
        """The first answer to an act (either copy); None for a later one or none."""
        attempt = self.pending.pop(request_id, None)
        if attempt is None or attempt.answered:
            return None
        attempt.answered = True
        for other in attempt.ids:
            self.pending.pop(other, None)
        return attempt

    def handle(self, message: Json, at: float) -> None:
        kind = message.get("type")
        request_id = str(message.get("request_id"))
        if kind in ("ack", "error") and request_id == "sit":
            self.sat = self.sat or kind == "ack" or message.get("code") == "already_seated"
            if kind == "error" and message.get("code") == BUSY:
                self.busy("sit")
                if self.table.admitting and not self.table.refused:
                    spawn(self.sit_again(self.ws, message.get("wait_seconds")))
                return
            self.settled.set()
        if kind == "ack":
            attempt = self.answered(request_id)
            if attempt is not None:
                if self.measuring():
                    self.stats.actions += 1
                    self.stats.ack_ms.append((at - attempt.sent) * 1000)
                    self.stats.ack_at.append(time.time())  # (at: monotonic)
                self.table.acked(message["version"], attempt.sent)
            return
        if kind == "error":
            if message.get("code") == BUSY:
                self.busy(self.busy_kind(request_id))
                self.answered(request_id)
                return
            attempt = self.answered(request_id)
            if attempt is not None and message.get("code") in LATE:
                self.stats.late_acts.append((attempt.left, attempt.held,
                                             time.monotonic() - attempt.sent))
                self.stats.late_before_sit_ack += attempt.before_sit_ack
            if message.get("code") == "already_seated":
                return  # after a reconnect the seat was kept (docs/protocol.md)
        super().handle(message, at)

    def on_events(self, message: Json, version: int, at: float) -> None:
        self.table.arrived(version, at)
        for event in message["events"]:
            kind = event["type"]
            if kind == "HoleCardsDealt" and event["player"] != self.seat \
                    and event["cards"].strip("?"):
                self.stats.leaks.append(f"table {self.table.id} seat {self.seat} saw {event}")
            elif kind == "HandEnded" and self.counts_hands and self.measuring():
                self.stats.hands += 1
                self.table.hands += 1
            elif kind == "PlayerTimedOut" and event["player"] == self.seat \
                    and self.awaiting_timeout is not None:
                if self.measuring():
                    self.stats.timer_late_ms.append((time.time() - self.awaiting_timeout) * 1000)
                self.awaiting_timeout = None
            elif kind == "PlayerSatOut" and event["player"] == self.seat \
                    and not self.window.stopping:
                spawn(self.sit_in(event.get("reason", "")))

    async def sit_in(self, reason: str) -> None:
        if reason == "busted":
            await self.send({"type": "add_chips", "amount": self.table.spec["buy_in"]})
        # (the request names what sat the player out: an error's example shows it)
        await self.send({"type": "sit_in", "request_id": f"sit_in-after-{reason}-v{self.version}"})

    def on_private(self, message: Json, at: float) -> None:
        if message["type"] == "your_turn" and not self.window.stopping:
            self.turn = (message.get("hand"), message.get("version"))
            spawn(self.act(message, time.time()))

    async def act(self, turn: Json, arrived: float) -> None:
        table = self.table
        if (not self.skipped_last and self.window.inside()
                and self.rng.random() < self.timeout_fraction
                and not self.net.near_planned_kill()):
            self.skipped_last = True
            self.awaiting_timeout = _deadline(turn.get("deadline"))
            table.next_slot(time.monotonic(), 1 / self.pace, self.pacing, self.rng)  # (used)
            return
        self.skipped_last = False
        now = time.monotonic()
        wait = table.next_slot(now, 1 / self.pace, self.pacing, self.rng) - now
        if wait > 0:
            await asyncio.sleep(wait)
        if self.window.stopping or table.refused:
            return
        self.counter += 1
        request_id = f"a{self.counter}"
        command = {"type": "act", "hand": turn["hand"], "version": turn["version"],
                   "action": choose(turn["legal"], self.rng), "request_id": request_id}
        attempt = Attempt(time.monotonic(), (turn.get("hand"), turn.get("version")), command,
                          [request_id], held=time.time() - arrived,
                          before_sit_ack=not self.sat)
        deadline = _deadline(turn.get("deadline"))
        if deadline is not None:
            attempt.left = deadline - arrived
        self.pending[request_id] = attempt
        if self.measuring():
            self.stats.sent_at.append(time.time())
        try:
            await self.send(command)
        except ConnectionClosed:
            self.pending.pop(request_id, None)
            return
        if self.net.faults:
            spawn(self.watch(attempt))

    async def watch(self, attempt: Attempt) -> None:
        """Fault mode, after the kill: an act unanswered for 2 s is re-sent (a duplicate
        is refused with stale_version); 2 s more, and a snapshot is asked for."""
        for step in (1, 2):
            await asyncio.sleep(ACK_RETRY)
            if (attempt.answered or self.window.stopping or self.table.refused
                    or not self.net.killed_at() or self.turn != attempt.turn):
                return
            self.net.fault_event()
            if step == 1:
                request_id = f"{attempt.ids[0]}r"
                attempt.ids.append(request_id)
                self.pending[request_id] = attempt
                self.retries.add(request_id)
                self.stats.retransmits += 1
                await self.send({**attempt.command, "request_id": request_id})
            else:
                self.stats.resync_requests += 1
                await self.send({"type": "snapshot", "request_id": "resync"})


class Spectator(Client):
    """Watches one table and checks that it leaks nothing and loses no chip."""

    role = "spectator"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.hand_number = 0
        self.shown: dict[tuple[int, int], str] = {}  # (hand number, seat) -> cards shown
        # from snapshots: (hand number, seat, cards) -> version first seen
        self.visible: dict[tuple[int, int, str], int] = {}
        self.deltas: list[tuple[int, int]] = []  # (version, chips put on/taken off the table)
        self.base: tuple[int, int] | None = None  # (version, chips) of the first snapshot
        self.final: tuple[int, int] | None = None
        self.checker: asyncio.Task[None] | None = None
        self.missed = False  # events may be missing (a gap or a reconnect)

    def lost_events(self) -> None:
        self.missed = True

    async def opened(self, first: bool) -> None:
        if self.checker is None:
            self.checker = asyncio.create_task(self.poll())

    async def poll(self) -> None:
        while not self.window.stopping:
            await asyncio.sleep(SNAPSHOT_EVERY * (0.5 + random.random()))
            if self.ws is not None and not self.window.stopping:
                with contextlib.suppress(ConnectionClosed):
                    await self.send({"type": "snapshot", "request_id": "check"})

    def on_private(self, message: Json, at: float) -> None:
        self.stats.leaks.append(f"table {self.table.id}: spectator got {message['type']}")

    def handle(self, message: Json, at: float) -> None:
        super().handle(message, at)
        if message.get("type") == "snapshot":
            self.check_snapshot(message)

    def on_events(self, message: Json, version: int, at: float) -> None:
        for event in message["events"]:
            kind = event["type"]
            if kind == "HandStarted":
                self.hand_number = event["number"]
            elif kind == "HoleCardsDealt" and event["cards"].strip("?"):
                self.stats.leaks.append(f"table {self.table.id}: spectator saw {event}")
            elif kind == "CardsShown":
                self.shown[self.hand_number, event["player"]] = event["cards"]
            elif kind == "PlayerSeated":
                self.deltas.append((version, event["stack"]))
            elif kind == "ChipsAdded":
                self.deltas.append((version, event["amount"]))
            elif kind == "PlayerLeft":
                self.deltas.append((version, -event["cash_out"]))

    def check_snapshot(self, snap: Json) -> None:
        self.stats.snapshots_checked += 1
        state, version = snap["state"], snap["version"]
        seated = sum(s["stack"] for s in state["seats"] if s)
        if self.base is None:
            self.base = (version, seated)
        self.final = (version, seated)
        hand = state.get("hand")
        if not hand:
            return
        for player in hand["players"]:
            if player["cards"].strip("?"):
                self.visible.setdefault((state["hand_number"], player["player"],
                                         player["cards"]), version)
        if hand.get("is_over"):
            return
        in_hand = {p["player"] for p in hand["players"]}
        total = (sum(p["stack"] for p in hand["players"])
                 + sum(p["amount"] for p in hand["pots"])
                 + sum(s["stack"] for s in state["seats"] if s and s["seat"] not in in_hand))
        if total != seated:
            self.stats.chip_violations.append(
                f"table {self.table.id} v{version}: stacks + pots {total} != seated {seated}")

    def finish(self) -> None:
        """End-of-run checks that need every event up to the last snapshot."""
        for (hand, seat, cards), version in self.visible.items():
            if self.shown.get((hand, seat)) != cards:  # a missed CardsShown, or a leak
                self.stats.reveals.append({"table": self.table.id, "hand": hand, "seat": seat,
                                           "cards": cards, "version": version})
        if self.base is None or self.final is None or self.stats.gaps or self.missed:
            return
        (v0, chips0), (v1, chips1) = self.base, self.final
        expected = chips0 + sum(d for v, d in self.deltas if v0 < v <= v1)
        if chips1 != expected:
            self.stats.chip_violations.append(
                f"table {self.table.id}: {chips1} chips at v{v1}, events say {expected}")


async def run_slice(tables: list[Json], ports: list[int], *, pace: float,
                    timeout_fraction: float, turn_seconds: int, window_times: Any,
                    ready: Any, connect_concurrency: int, seed: int, route: str = "spread",
                    kill_port: int | None = None, pacing: str = "grid",
                    collector: str = "frozen") -> Stats:
    """Connect every client of these tables, play until the window closes, report."""
    stats, window = Stats(), Window()
    net = Net(ports, route, kill_port, window_times, turn_seconds)
    connected = [0]
    gate = asyncio.Semaphore(connect_concurrency)
    rng = random.Random(seed)
    groups: list[TableClients] = []
    spectators: list[Spectator] = []
    seated: list[Seated] = []
    watchers: list[Client] = []

    for spec in tables:
        group = TableClients(spec, stats, window, net)
        groups.append(group)
        if spec.get("spectator"):
            spectators.append(Spectator(group, spec["spectator"], net, stats, window,
                                        connected))
        for bot in spec.get("watchers", []):
            watchers.append(Client(group, bot, net, stats, window, connected))
        for seat, bot in enumerate(spec["bots"]):
            seated.append(Seated(group, bot, net, stats, window, connected,
                                 seat=seat, pace=pace, timeout_fraction=timeout_fraction,
                                 counts_hands=seat == 0, rng=random.Random(rng.random()),
                                 pacing=pacing))
    tasks: list[asyncio.Task[None]] = []
    # Spectators first, so that they see every chip arrive.
    for client in [*spectators, *watchers]:
        tasks.append(asyncio.create_task(client.run(gate)))
    await _all_ready([*spectators, *watchers])
    for client in seated:
        tasks.append(asyncio.create_task(client.run(gate)))
    await _all_ready(seated)
    # Every seat taken or its table refused (retries included): admission is over,
    # and a table not fully seated by then is refused.
    await _all_ready(seated, "settled", ADMIT_PATIENCE + 60)
    for group in groups:
        if not all(c.sat for c in group.clients if isinstance(c, Seated)):
            group.refuse()
        group.admitting = False
    # The refused tables' clients close before the window opens (thousands of closes
    # at once are the end of admission, not the admitted tables' play): waited for, at
    # most a minute, and the servers given a few seconds to let go of their tables.
    refused = [c for g in groups if g.refused for c in g.clients]
    if refused:
        await _all_closed(refused, 60)
        await asyncio.sleep(REFUSED_SETTLE)
    stats.tables_refused = [g.id for g in groups if g.refused]
    stats.tables_admitted = len(groups) - len(stats.tables_refused)
    if collector == "frozen":
        _settle_collector()
    ready.set()
    while window_times[0] == 0:  # the parent sets the window once every process is ready
        await asyncio.sleep(0.05)
    window.start, window.end = window_times[0], window_times[1]
    lag = asyncio.create_task(_loop_lag(stats, window))
    pauses = _collector_pauses(stats, window)
    stuck_after = 2 * turn_seconds + 5
    opened = time.monotonic()  # a table is judged from the window's start, not from its
    while time.time() < window.end:  # clients' creation (the last ones sit just in time)
        await asyncio.sleep(1)
        now = time.monotonic()
        if window.inside():
            for group in groups:
                if not group.refused and now - max(group.last_event, opened) > stuck_after:
                    stats.stuck_tables.add(group.id)
                    _note_silence(stats, group, window, now, opened)
    # A last snapshot for the chip check, then close.
    for spectator in spectators:
        with contextlib.suppress(ConnectionClosed, AttributeError):
            await spectator.send({"type": "snapshot", "request_id": "final"})
    await asyncio.sleep(2)
    window.stopping = True
    lag.cancel()
    gc.callbacks.remove(pauses)
    stats.connected_at_end = connected[0]
    for table, detail in stats.stuck_details.items():
        group = next(g for g in groups if g.id == table)
        detail["silence_s"], detail["recovered"] = group.silence(time.monotonic())
    everyone = [*seated, *spectators, *watchers]
    _fault_figures(stats, net, groups, everyone)
    for spectator in spectators:
        spectator.finish()
        if spectator.checker is not None:
            spectator.checker.cancel()
    await asyncio.gather(*(c.close() for c in everyone), return_exceptions=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    stats.tables_with_hands = sum(1 for g in groups if g.hands)
    return stats


LAG_TICK = 0.02  # seconds


def _settle_collector() -> None:
    """Before the window: what the generator holds from now on (its clients, their
    connections, the tables) is frozen out of the collector's passes, and the young
    generation made larger, as in the server (pokersite/asgi.py). With Python's
    defaults the passes took a fifth of the generator's time in the overload run (full
    passes over every client's objects of up to 0.5 s every few seconds), and each
    pause counted in every latency it measured (docs/benchmarks.md, sixteenth session)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def _collector_pauses(stats: Stats, window: Window) -> Callable[[str, dict[str, int]], None]:
    """Record each collector pass inside the window (generation, wall ms)."""
    began = 0.0

    def collecting(phase: str, info: dict[str, int]) -> None:
        nonlocal began
        if phase == "start":
            began = time.monotonic()
        elif began and window.inside():
            stats.gc_ms.append((info["generation"], (time.monotonic() - began) * 1000))

    gc.callbacks.append(collecting)
    return collecting


async def _loop_lag(stats: Stats, window: Window) -> None:
    """How late the generator's loop wakes: a sleep of ``LAG_TICK``, measured."""
    while True:
        began = time.monotonic()
        await asyncio.sleep(LAG_TICK)
        if window.inside():
            stats.loop_lag_ms.append((time.monotonic() - began - LAG_TICK) * 1000)


def _fault_figures(stats: Stats, net: Net, groups: list[TableClients],
                   clients: list[Client]) -> None:
    """Takeover per affected table: every table with a client on the killed port, and
    every table whose first event after the kill came more than 1 s after it."""
    killed = net.killed_at()
    if not killed:
        return
    stats.not_resynced = sum(1 for c in clients if c.resyncing and not c.table.refused)
    for group in groups:
        if group.refused:
            continue
        took = None if group.takeover_at is None else group.takeover_at - killed
        on_port = any(c.home_port == net.kill_port for c in group.clients)
        if on_port or took is None or took > 1.0:
            stats.tables_affected += 1
            if took is None:
                stats.no_takeover.append(group.id)
            else:
                stats.takeover_s[group.id] = round(took, 3)


async def _all_closed(clients: list[Any], timeout: float) -> None:
    """Wait until none of these clients has an open connection (or ``timeout``)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and any(
            c.ws is not None and c.ws.state is not State.CLOSED for c in clients):
        await asyncio.sleep(0.1)


async def _all_ready(clients: list[Any], event: str = "ready", timeout: float = 300) -> None:
    """Wait until every client got its first snapshot (or gave up connecting)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(getattr(c, event).wait() for c in clients)),
                               timeout)
