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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import websockets

Json = dict[str, Any]
HEARTBEAT = 5.0  # docs/protocol.md: a ping every 5 s
SNAPSHOT_EVERY = 10.0  # a spectator checks a snapshot this often
_background: set[asyncio.Task[None]] = set()


def spawn(coroutine: Any) -> None:
    """Run a coroutine in the background, keeping a reference until it is done."""
    task = asyncio.ensure_future(coroutine)
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
    snapshots_checked: int = 0
    messages: int = 0
    tables_with_hands: int = 0


class Window:
    """The measurement window, shared by every client of the process."""

    def __init__(self) -> None:
        self.start = float("inf")
        self.end = float("inf")
        self.stopping = False

    def inside(self, at: float | None = None) -> bool:
        at = time.time() if at is None else at
        return self.start <= at <= self.end


class TableClients:
    """The generator's view of one table: pacing and the update-latency bookkeeping."""

    def __init__(self, spec: Json, stats: Stats, window: Window) -> None:
        self.id: int = spec["id"]
        self.spec = spec
        self.stats, self.window = stats, window
        self.seated = len(spec["bots"])
        self.next_action_at = 0.0  # monotonic: the pace
        self.arrivals: dict[int, list[float]] = {}  # version -> arrival times at seats
        self.acts: dict[int, float] = {}  # version -> when the act was sent
        self.last_event = time.monotonic()
        self.hands = 0

    def arrived(self, version: int, at: float) -> None:
        self.arrivals.setdefault(version, []).append(at)
        self.last_event = at
        self._complete(version)

    def acked(self, version: int, sent: float) -> None:
        self.acts[version] = sent
        self._complete(version)

    def _complete(self, version: int) -> None:
        sent, seen = self.acts.get(version), self.arrivals.get(version, ())
        if sent is None or len(seen) < self.seated:
            return
        if self.window.inside():
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

    def __init__(self, table: TableClients, bot: Json, url: str, stats: Stats,
                 window: Window, connected: list[int]) -> None:
        self.table, self.bot, self.url = table, bot, url
        self.stats, self.window, self.connected = stats, window, connected
        self.version = 0
        self.ws: Any = None
        self.ready = asyncio.Event()

    async def send(self, data: Json) -> None:
        await self.ws.send(json.dumps(data, separators=(",", ":")))

    async def run(self, gate: asyncio.Semaphore) -> None:
        headers = {"Authorization": f"Bearer {self.bot['token']}"}
        first = True
        while not self.window.stopping:
            try:
                async with gate:
                    ws = await websockets.connect(
                        self.url, additional_headers=headers, open_timeout=60,
                        ping_interval=None, max_size=2**20, compression=None)
            except (OSError, TimeoutError, websockets.WebSocketException):
                self.stats.connect_failures += 1
                await asyncio.sleep(1 + random.random())
                continue
            self.ws = ws
            self.connected[0] += 1
            self.stats.connected_peak = max(self.stats.connected_peak, self.connected[0])
            beat = asyncio.create_task(self.heartbeat())
            try:
                await self.opened(first)
                first = False
                async for text in ws:
                    self.stats.messages += 1
                    self.handle(json.loads(text), time.monotonic())
            except websockets.ConnectionClosed:
                pass
            finally:
                beat.cancel()
                self.connected[0] -= 1
                self.ready.set()
            if not self.window.stopping:
                self.stats.disconnects += 1
                if len(self.stats.disconnect_examples) < 10:
                    self.stats.disconnect_examples.append(
                        f"{self.role} at table {self.table.id}: code {ws.close_code} "
                        f"{ws.close_reason or ''}".strip())
                self.lost_events()
                await asyncio.sleep(1)

    async def heartbeat(self) -> None:
        await asyncio.sleep(random.random() * HEARTBEAT)
        while True:
            await self.send({"type": "ping"})
            await asyncio.sleep(HEARTBEAT)

    async def opened(self, first: bool) -> None:
        """Called once connected (again after a reconnect)."""

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    def handle(self, message: Json, at: float) -> None:
        kind = message.get("type")
        if kind == "error":
            code = message.get("code", "?")
            self.stats.errors[code] += 1
            self.stats.error_examples.setdefault(code, f"{self.role}: {message.get('message')}")
        if kind == "snapshot":
            self.version = max(self.version, message["version"])
            self.ready.set()
        elif kind == "events":
            version = message["version"]
            if self.version and version > self.version + 1:
                self.stats.gaps += 1
                self.lost_events()
                spawn(self.send({"type": "snapshot"}))
            if version > self.version:
                self.version = version
            self.on_events(message, version, at)
        elif kind in ("your_turn", "private"):
            self.on_private(message, at)

    def on_events(self, message: Json, version: int, at: float) -> None:
        pass

    def lost_events(self) -> None:
        """The connection dropped: events until the next snapshot may be missing."""

    def on_private(self, message: Json, at: float) -> None:
        pass


class Seated(Client):
    """A bot that sits and plays."""

    role = "seat"

    def __init__(self, *args: Any, seat: int, pace: float, timeout_fraction: float,
                 counts_hands: bool, rng: random.Random) -> None:
        super().__init__(*args)
        self.seat, self.pace, self.timeout_fraction = seat, pace, timeout_fraction
        self.counts_hands, self.rng = counts_hands, rng
        self.sent: dict[str, float] = {}  # request_id -> monotonic send time
        self.skipped_last = False
        self.awaiting_timeout: float | None = None  # announced deadline (epoch)
        self.counter = 0

    async def opened(self, first: bool) -> None:
        if first:
            await self.send({"type": "sit", "seat": self.seat,
                             "buy_in": self.table.spec["buy_in"], "request_id": "sit"})

    def handle(self, message: Json, at: float) -> None:
        kind = message.get("type")
        if kind == "ack":
            sent = self.sent.pop(str(message.get("request_id")), None)
            if sent is not None:
                if self.window.inside():
                    self.stats.actions += 1
                    self.stats.ack_ms.append((at - sent) * 1000)
                self.table.acked(message["version"], sent)
            return
        if kind == "error" and message.get("code") == "already_seated":
            return  # after a reconnect the seat was kept (docs/protocol.md)
        super().handle(message, at)

    def on_events(self, message: Json, version: int, at: float) -> None:
        self.table.arrived(version, at)
        for event in message["events"]:
            kind = event["type"]
            if kind == "HoleCardsDealt" and event["player"] != self.seat \
                    and event["cards"].strip("?"):
                self.stats.leaks.append(f"table {self.table.id} seat {self.seat} saw {event}")
            elif kind == "HandEnded" and self.counts_hands and self.window.inside():
                self.stats.hands += 1
                self.table.hands += 1
            elif kind == "PlayerTimedOut" and event["player"] == self.seat \
                    and self.awaiting_timeout is not None:
                if self.window.inside():
                    self.stats.timer_late_ms.append((time.time() - self.awaiting_timeout) * 1000)
                self.awaiting_timeout = None
            elif kind == "PlayerSatOut" and event["player"] == self.seat \
                    and not self.window.stopping:
                spawn(self.sit_in(event.get("reason") == "busted"))

    async def sit_in(self, busted: bool) -> None:
        if busted:
            await self.send({"type": "add_chips", "amount": self.table.spec["buy_in"]})
        await self.send({"type": "sit_in"})

    def on_private(self, message: Json, at: float) -> None:
        if message["type"] == "your_turn" and not self.window.stopping:
            spawn(self.act(message))

    async def act(self, turn: Json) -> None:
        table = self.table
        if (not self.skipped_last and self.window.inside()
                and self.rng.random() < self.timeout_fraction):
            self.skipped_last = True
            self.awaiting_timeout = _deadline(turn.get("deadline"))
            table.next_action_at = time.monotonic() + 1 / self.pace
            return
        self.skipped_last = False
        now = time.monotonic()
        wait = table.next_action_at - now
        table.next_action_at = max(now, table.next_action_at) + 1 / self.pace
        if wait > 0:
            await asyncio.sleep(wait)
        if self.window.stopping:
            return
        self.counter += 1
        request_id = f"a{self.counter}"
        self.sent[request_id] = time.monotonic()
        try:
            await self.send({"type": "act", "hand": turn["hand"], "version": turn["version"],
                             "action": choose(turn["legal"], self.rng),
                             "request_id": request_id})
        except websockets.ConnectionClosed:
            self.sent.pop(request_id, None)


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
                with contextlib.suppress(websockets.ConnectionClosed):
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
                    ready: Any, connect_concurrency: int, seed: int) -> Stats:
    """Connect every client of these tables, play until the window closes, report."""
    stats, window = Stats(), Window()
    connected = [0]
    gate = asyncio.Semaphore(connect_concurrency)
    rng = random.Random(seed)
    groups: list[TableClients] = []
    spectators: list[Spectator] = []
    seated: list[Seated] = []
    watchers: list[Client] = []
    counter = 0

    def url(table_id: int) -> str:
        nonlocal counter
        counter += 1  # round robin over the Daphne processes
        return f"ws://127.0.0.1:{ports[counter % len(ports)]}/ws/tables/{table_id}/"

    for spec in tables:
        group = TableClients(spec, stats, window)
        groups.append(group)
        if spec.get("spectator"):
            spectators.append(Spectator(group, spec["spectator"], url(spec["id"]), stats,
                                        window, connected))
        for bot in spec.get("watchers", []):
            watchers.append(Client(group, bot, url(spec["id"]), stats, window, connected))
        for seat, bot in enumerate(spec["bots"]):
            seated.append(Seated(group, bot, url(spec["id"]), stats, window, connected,
                                 seat=seat, pace=pace, timeout_fraction=timeout_fraction,
                                 counts_hands=seat == 0, rng=random.Random(rng.random())))
    tasks: list[asyncio.Task[None]] = []
    # Spectators first, so that they see every chip arrive.
    for client in [*spectators, *watchers]:
        tasks.append(asyncio.create_task(client.run(gate)))
    await _all_ready([*spectators, *watchers])
    for client in seated:
        tasks.append(asyncio.create_task(client.run(gate)))
    await _all_ready(seated)
    ready.set()
    while window_times[0] == 0:  # the parent sets the window once every process is ready
        await asyncio.sleep(0.05)
    window.start, window.end = window_times[0], window_times[1]
    stuck_after = 2 * turn_seconds + 5
    opened = time.monotonic()  # a table is judged from the window's start, not from its
    while time.time() < window.end:  # clients' creation (the last ones sit just in time)
        await asyncio.sleep(1)
        now = time.monotonic()
        if window.inside():
            for group in groups:
                if now - max(group.last_event, opened) > stuck_after:
                    stats.stuck_tables.add(group.id)
    # A last snapshot for the chip check, then close.
    for spectator in spectators:
        with contextlib.suppress(websockets.ConnectionClosed, AttributeError):
            await spectator.send({"type": "snapshot", "request_id": "final"})
    await asyncio.sleep(2)
    window.stopping = True
    stats.connected_at_end = connected[0]
    for spectator in spectators:
        spectator.finish()
        if spectator.checker is not None:
            spectator.checker.cancel()
    await asyncio.gather(*(c.close() for c in [*seated, *spectators, *watchers]),
                         return_exceptions=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    stats.tables_with_hands = sum(1 for g in groups if g.hands)
    return stats


async def _all_ready(clients: list[Any], timeout: float = 300) -> None:
    """Wait until every client got its first snapshot (or gave up connecting)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in clients)), timeout)
