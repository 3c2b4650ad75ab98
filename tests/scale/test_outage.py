"""Redis stopped for 20 s under play, on the real servers (docs/security.md, "Outages:
what each one does").

The test starts its own redis-server on a free port (never the shared one), two
Daphne processes and the table worker against it and the test's PostgreSQL
database. Three bots play a table over websockets on both processes, answering
every turn at once, and a spectator watches; all of them ping every second and ask
for a snapshot when a pong's version is ahead of what they have seen (as the
browser client and the SDK do). Then Redis stops for 20 s and starts again on the
same port. Shown: the REST API answers (no 500) and a new websocket is refused
cleanly (1013) during the outage; play goes on through it (commands commit to
PostgreSQL; clients find their turns through pong); nobody is timed out, sat out
or disconnected; chips are conserved; and after Redis is back every client gets
live events again, its version catches up with the table's, and more hands finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tables.helpers import assert_chips_conserved
from tests.tables.test_multiprocess import database_url, free_port

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
OUTAGE_SECONDS = 20.0
TURN_SECONDS = 5  # shorter than the outage: a turn nobody hears of would time out
PING_EVERY = 1.0


def wait_for_port(port: int, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"{what} did not start on {port}"
            time.sleep(0.05)


class Redis:
    """A redis-server of this test's own (no persistence), stopped and started at will."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, "redis-server")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()  # only our own process, by its handle
            self.process.wait(timeout=10)
            self.process = None


class Servers:
    """Two Daphne processes and the worker (as tests/tables/test_multiprocess.py)."""

    def __init__(self, redis_port: int, logs: Path, *, owners: bool) -> None:
        self.ports = [free_port(), free_port()]
        self.logs = logs
        self.env = {**os.environ, "DATABASE_URL": database_url(), "DB_POOL": "0",
                    "TABLES_OWNERS": "1" if owners else "0",
                    "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
                    "CHANNELS_PREFIX": f"outage{os.getpid()}", "TABLES_WORKER_IN_PROCESS": "0",
                    "HOUSE_BOT_DELAY": "0", "LOG_LEVEL": "WARNING"}
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        for port in self.ports:
            with open(self.logs / f"daphne-{port}.log", "wb") as log:
                self.processes.append(subprocess.Popen(
                    [sys.executable, "-m", "pokersite.serve", "-b", "127.0.0.1", "-p", str(port),
                     "pokersite.asgi:application"], cwd=ROOT, env=self.env,
                    stdout=log, stderr=subprocess.STDOUT))
        with open(self.logs / "worker.log", "wb") as log:
            self.processes.append(subprocess.Popen(
                [sys.executable, "manage.py", "run_worker"], cwd=ROOT, env=self.env,
                stdout=log, stderr=subprocess.STDOUT))
        for port in self.ports:
            wait_for_port(port, "daphne")

    def kill(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
            process.wait()
        self.processes = []


class Player:
    """A websocket client that answers every turn at once, pings every second and asks
    for a snapshot when a pong's version is ahead of what it has seen, or when an
    ``events`` message names its seat to act and the turn's ``your_turn`` does not
    follow (``botkit.client.TurnWatch``: Redis stopped between the two sends)."""

    def __init__(self, name: str, token: str, port: int, table_id: int,
                 seat: int | None) -> None:
        self.name, self.token, self.port, self.seat = name, token, port, seat
        self.uri = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/"
        self.version = 0
        self.events_at: list[tuple[float, int]] = []  # (monotonic, version) of live events
        self.resyncs = 0
        self.turn_resyncs = 0
        self.turns = 0
        self.acks = 0
        self.errors: list[str] = []
        self.connects = 0

    async def run(self, stop: asyncio.Event) -> None:
        import websockets

        while not stop.is_set():
            try:
                async with websockets.connect(
                        self.uri, additional_headers={"Authorization": f"Bearer {self.token}"},
                        open_timeout=5) as ws:
                    self.connects += 1
                    if self.seat is not None and self.connects == 1:
                        await ws.send(json.dumps({"type": "sit", "seat": self.seat,
                                                  "buy_in": 200}))
                    await self.play(ws, stop)
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError) as error:
                self.errors.append(f"connection: {type(error).__name__}: {error}")
                await asyncio.sleep(0.5)

    async def play(self, ws: Any, stop: asyncio.Event) -> None:
        from botkit.client import TurnWatch

        watch = TurnWatch()
        pinged = time.monotonic()
        while not stop.is_set():
            if time.monotonic() - pinged >= PING_EVERY:
                await ws.send(json.dumps({"type": "ping"}))
                pinged = time.monotonic()
            if watch.overdue():
                self.turn_resyncs += 1
                await ws.send(json.dumps({"type": "snapshot"}))
            try:
                text = await asyncio.wait_for(ws.recv(), 0.1)
            except TimeoutError:
                continue
            message = json.loads(text)
            watch.saw(message)
            kind = message["type"]
            if kind == "events":
                self.events_at.append((time.monotonic(), message["version"]))
            if kind in ("snapshot", "events"):
                self.version = max(self.version, message["version"])
            elif kind == "pong" and message["version"] > self.version:
                self.resyncs += 1
                await ws.send(json.dumps({"type": "snapshot"}))
            elif kind == "ack":
                self.acks += 1
            elif kind == "error":
                self.errors.append(message["code"])
            elif kind == "your_turn" and self.seat is not None:
                self.turns += 1
                legal = message["legal"]
                action = ("muck" if legal["can_muck"] else "check" if legal["can_check"]
                          else "call")
                await ws.send(json.dumps({"type": "act", "hand": message["hand"],
                                          "version": message["version"],
                                          "action": {"kind": action}}))


def in_thread(call: Callable[..., Any], *args: Any) -> Any:
    """A database read from a worker thread, which closes its connection afterwards."""

    def run() -> Any:
        from django.db import connection

        try:
            return call(*args)
        finally:
            connection.close()

    return asyncio.to_thread(run)


def table_state(table_id: int) -> tuple[int, int]:
    """(the table's committed version, finished hands)."""
    from tables.models import Hand, Table

    return (Table.objects.get(pk=table_id).version,
            Hand.objects.filter(table_id=table_id, ended_at__isnull=False).count())


def traceback_heads(log: str) -> list[str]:
    """Each traceback of ``log`` as "<the line before it> -> <its exception line>",
    digits dropped (what tells which error logged it, to read when a count is off)."""
    lines, heads = log.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            end = next((j for j in range(i + 1, len(lines))
                        if lines[j] and not lines[j].startswith(" ")), i)
            head = f"{lines[i - 1][:100] if i else ''} -> {lines[end][:100]}"
            heads.append(re.sub(r"\d+", "#", head))
    return heads


CHAINED = ("During handling of the above exception", "The above exception was the direct")


def logged_tracebacks(log: str) -> int:
    """Records logged with a traceback: a chained exception's second "Traceback" (after
    "During handling of the above exception...") belongs to the same record."""
    lines = log.splitlines()
    return sum(1 for i, line in enumerate(lines) if line.startswith("Traceback")
               and not (i >= 2 and lines[i - 2].startswith(CHAINED)))


def get(port: int, path: str, token: str) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


async def handshake_during_outage(port: int, table_id: int, token: str) -> tuple[Any, Any]:
    """A new websocket while Redis is away: (its messages, its close code)."""
    import websockets

    messages = []
    try:
        async with websockets.connect(
                f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
                additional_headers={"Authorization": f"Bearer {token}"}, open_timeout=5) as ws:
            with contextlib.suppress(websockets.ConnectionClosed):
                async for text in ws:
                    messages.append(json.loads(text))
    except websockets.exceptions.InvalidStatus as error:  # e.g. HTTP 500
        return messages, f"HTTP {error.response.status_code}"
    return messages, ws.close_code


async def scenario(table_id: int, tokens: list[str], servers: Servers, redis: Redis,
                   report: dict[str, Any]) -> list[Player]:
    ports = servers.ports
    players = [Player(f"p{i}", tokens[i], ports[i % 2], table_id, seat=i) for i in range(3)]
    players.append(Player("spectator", tokens[3], ports[1], table_id, seat=None))
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.run(stop)) for p in players]

    async def until(done: Callable[[], Any], timeout: float, what: str) -> bool:
        start = time.monotonic()
        while True:
            if await done():
                return True
            for task in tasks:
                if task.done() and task.exception():
                    raise task.exception()  # type: ignore[misc]
            if time.monotonic() - start > timeout:
                report["stuck"] = f"no {what} within {timeout:.0f} s"
                return False
            await asyncio.sleep(0.2)

    async def hands_at_least(n: int) -> bool:
        return (await in_thread(table_state, table_id))[1] >= n

    try:
        if not await until(lambda: hands_at_least(3), 30, "three hands before the outage"):
            return players
        before = await in_thread(table_state, table_id)
        redis.stop()
        stopped = time.monotonic()
        report["hands_before"] = before[1]
        statuses: list[int] = []
        refused: list[Any] = []
        while time.monotonic() - stopped < OUTAGE_SECONDS:
            for port in ports:
                for path in ("/api/v1/tables/", "/api/v1/me/", f"/api/v1/tables/{table_id}/"):
                    statuses.append(await asyncio.to_thread(get, port, path, tokens[3]))
            if not refused:
                refused.append(await handshake_during_outage(ports[0], table_id, tokens[3]))
            await asyncio.sleep(2)
        during = await in_thread(table_state, table_id)
        redis.start()
        back = time.monotonic()
        report.update(rest_statuses=statuses, refused=refused[0],
                      hands_during_outage=during[1] - before[1],
                      versions_during_outage=during[0] - before[0],
                      outage_seconds=round(back - stopped, 1))

        async def live_again() -> bool:  # every client receives events through Redis again
            return all(any(at > back for at, _v in p.events_at) for p in players)

        if not await until(live_again, 30, "live events after Redis came back"):
            return players
        report["live_again_after_s"] = round(max(
            min(at for at, _v in p.events_at if at > back) for p in players) - back, 2)
        if not await until(lambda: hands_at_least(during[1] + 3), 30, "three more hands"):
            return players
        report["hands_after_outage_s"] = round(time.monotonic() - back, 2)
        version = (await in_thread(table_state, table_id))[0]

        async def caught_up() -> bool:
            return all(p.version >= version for p in players)

        if await until(caught_up, 10, "catching up with the table's version"):
            report["caught_up_after_s"] = round(time.monotonic() - back, 2)
    finally:
        servers.kill()  # first: clients closing their sockets would sit their players out
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    return players


@pytest.mark.parametrize("runtime", ["classic", "owners"])
def test_redis_away_for_20_seconds_under_play(tmp_path: Path, bob: Any, alice: Any,
                                              runtime: str) -> None:
    """Both runtimes. Classic: every process commits its clients' commands to
    PostgreSQL, so play goes on through the outage. Live tables (``TABLES_OWNERS``):
    the table's owner plays on for the connections it holds, while the players
    connected to the other process can neither hear of their turn nor reach the owner;
    their turn timers are held, and when Redis is back each such turn starts over,
    full length (tables.owner, ``Host._broker_answered``)."""
    from accounts.services import create_bot
    from tables.models import Hand
    from tables.services import create_table

    table = create_table(creator=alice, name="Outage", turn_seconds=TURN_SECONDS, settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6})
    tokens = [create_bot(owner=bob, name=f"Steady{i}")[1] for i in range(4)]
    redis = Redis(tmp_path)
    redis.start()
    servers = Servers(redis.port, tmp_path, owners=runtime == "owners")
    report: dict[str, Any] = {}
    started = time.monotonic()
    try:
        servers.start()
        players = asyncio.run(scenario(table.pk, tokens, servers, redis, report))
    finally:
        servers.kill()
        redis.stop()
    report["seconds"] = round(time.monotonic() - started, 1)
    worker_log = (tmp_path / "worker.log").read_text(errors="replace")
    daphne_logs = "".join(p.read_text(errors="replace")
                          for p in sorted(tmp_path.glob("daphne-*.log")))
    events = [e for h in Hand.objects.filter(table=table).order_by("number") for e in h.events]
    lost = [e for e in events if e["type"] in ("PlayerTimedOut", "PlayerSatOut",
                                               "PlayerDisconnected", "PlayerStoodUp")]
    statuses = report.pop("rest_statuses", [])
    report.update(
        rest_requests_during_outage=len(statuses),
        rest_statuses={str(code): statuses.count(code) for code in sorted(set(statuses))},
        lost_turns=len(lost),
        hands=Hand.objects.filter(table=table, ended_at__isnull=False).count(),
        turns_answered={p.name: p.turns for p in players if p.seat is not None},
        resyncs_by_pong={p.name: p.resyncs for p in players},
        resyncs_by_turn={p.name: p.turn_resyncs for p in players},
        client_errors={p.name: p.errors[:5] for p in players if p.errors},
        worker_log_lines=len(worker_log.splitlines()),
        worker_tracebacks=logged_tracebacks(worker_log),
        daphne_log_lines=len(daphne_logs.splitlines()),
        daphne_tracebacks=logged_tracebacks(daphne_logs),
        daphne_traceback_heads=sorted(set(traceback_heads(daphne_logs))))
    print(json.dumps(report, indent=1))
    refused = report.pop("refused", ([], None))
    # The REST API kept answering (its throttle fails open), never a 500.
    assert statuses and set(statuses) == {200}, report
    # A new websocket was refused cleanly: told "unavailable", closed 1013 (not 500/1011).
    messages, code = refused
    assert [m.get("code") for m in messages] == ["unavailable"] and code == 1013, report
    # Nobody lost a turn, was sat out or disconnected: every answer counted.
    assert not lost, lost[:5]
    assert all(p.connects == 1 for p in players), [(p.name, p.errors) for p in players]
    if runtime == "classic":
        # Play went on during the outage (commands commit to PostgreSQL; turns found by pong).
        assert report["hands_during_outage"] >= 1, report
        assert sum(report["resyncs_by_pong"].values()) > 0
    else:
        # The owner held the turns of the players it could not reach, then gave them back.
        held = [int(n) for n in re.findall(r"Redis back: .*\((\d+) held\)", daphne_logs)]
        assert len(held) == 2 and max(held) >= 1, daphne_logs[-5000:]  # (a line per process)
    assert_chips_conserved()
    # Quiet logs: one line per distinct error per 10 s, not a traceback per message.
    assert report["worker_tracebacks"] <= 2 and report["worker_log_lines"] <= 30, worker_log
    assert report["daphne_tracebacks"] <= 8, daphne_logs[-5000:]
    # Afterwards: live events again, play on, every client caught up with the table.
    assert "stuck" not in report, report
    assert report["seconds"] < 90
