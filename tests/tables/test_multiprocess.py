"""Two Daphne processes + one worker + PostgreSQL + Redis: one table, clients on both
processes; kill -9 everything mid-hand, restart, and finish the hand with no chip lost."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .helpers import assert_chips_conserved

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return (f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
            f"/{s['NAME']}")


class Servers:
    def __init__(self) -> None:
        self.ports = [free_port(), free_port()]
        self.env = {**os.environ, "DATABASE_URL": database_url(), "DB_POOL": "0",
                    "REDIS_URL": os.environ["REDIS_URL"],
                    "CHANNELS_PREFIX": f"mp{os.getpid()}", "TABLES_WORKER_IN_PROCESS": "0",
                    "HOUSE_BOT_DELAY": "0", "LOG_LEVEL": "WARNING"}
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        for port in self.ports:
            self.processes.append(subprocess.Popen(
                [sys.executable, "-m", "pokersite.serve", "-b", "127.0.0.1", "-p", str(port),
                 "pokersite.asgi:application"], cwd=ROOT, env=self.env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.processes.append(subprocess.Popen(
            [sys.executable, "manage.py", "run_worker"], cwd=ROOT, env=self.env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 30
        for port in self.ports:
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "daphne did not start"
                    time.sleep(0.1)

    def kill(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
            process.wait()
        self.processes = []


class Remote:
    """A bot client over a real socket (the `websockets` library, as in docs/protocol.md)."""

    def __init__(self, name: str, token: str, port: int, table_id: int) -> None:
        self.name, self.token, self.port, self.table_id = name, token, port, table_id
        self.received: list[dict[str, Any]] = []
        self.pending: dict[str, Any] | None = None
        self.acting = True

    async def run(self, stop: asyncio.Event, sit: int | None) -> None:
        import websockets

        uri = f"ws://127.0.0.1:{self.port}/ws/tables/{self.table_id}/"
        async with websockets.connect(
                uri, additional_headers={"Authorization": f"Bearer {self.token}"}) as ws:
            if sit is not None:
                await ws.send(json.dumps({"type": "sit", "seat": sit, "buy_in": 200}))
            while not stop.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), 0.2)
                except TimeoutError:
                    await ws.send(json.dumps({"type": "ping"}))
                    continue
                message = json.loads(text)
                self.received.append(message)
                if message["type"] == "your_turn" and self.acting:
                    legal = message["legal"]
                    kind = ("muck" if legal["can_muck"] else "check" if legal["can_check"]
                            else "call")
                    await ws.send(json.dumps({"type": "act", "hand": message["hand"],
                                              "version": message["version"],
                                              "action": {"kind": kind}}))

    def events(self) -> list[dict[str, Any]]:
        return [e for m in self.received if m["type"] == "events" for e in m["events"]]


async def play_until(remotes: list[Remote], done: Any, sit: bool, timeout: float) -> bool:
    stop = asyncio.Event()
    tasks = [asyncio.create_task(r.run(stop, i if sit else None)) for i, r in enumerate(remotes)]
    start = time.monotonic()
    ok = False
    while time.monotonic() - start < timeout:
        await asyncio.sleep(0.1)
        if done():
            ok = True
            break
        for task in tasks:
            if task.done() and task.exception():
                raise task.exception()  # type: ignore[misc]
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return ok


def test_two_processes_kill_and_restart_mid_hand(bob: Any, alice: Any) -> None:
    from accounts.services import create_bot
    from tables.models import Hand, Table
    from tables.services import create_table

    table = create_table(creator=alice, name="MP", turn_seconds=3, settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6})
    tokens = [create_bot(owner=bob, name=f"Remote{i}")[1] for i in range(3)]
    servers = Servers()
    try:
        servers.start()
        remotes = [Remote(f"r{i}", token, servers.ports[i % 2], table.pk)
                   for i, token in enumerate(tokens)]

        def mid_second_hand() -> bool:  # one hand over, and an action in the next
            events = remotes[0].events()
            ends = [i for i, e in enumerate(events) if e["type"] == "HandEnded"]
            return bool(ends) and any(e["type"] in {"PlayerCalled", "PlayerChecked"}
                                      for e in events[ends[0]:])

        assert asyncio.run(play_until(remotes, mid_second_hand, sit=True, timeout=60))
        # Clients on both processes saw the same public history, version by version.
        by_version = [{m["version"]: m["events"] for m in r.received if m["type"] == "events"}
                      for r in remotes[:2]]
        common = set(by_version[0]) & set(by_version[1])
        assert len(common) > 5
        assert all(by_version[0][v] == by_version[1][v] for v in common)
        servers.kill()
        assert_chips_conserved()
        running = Table.objects.get(pk=table.pk).current_hand
        assert running is not None and running.ended_at is None
        servers.start()
        for remote in remotes:
            remote.received = []
        # Reconnected (to the restarted processes), the clients get a snapshot and
        # their pending your_turn, and play the interrupted hand to its end.
        assert asyncio.run(play_until(
            remotes, lambda: any(e["type"] == "HandEnded" for e in remotes[0].events()),
            sit=False, timeout=60))
        running.refresh_from_db()
        assert running.ended_at is not None
        # Timers still fire after the restart: a player who stops answering times out.
        for remote in remotes:
            remote.acting = False
            remote.received = []
        assert asyncio.run(play_until(
            remotes, lambda: any(e["type"] == "PlayerTimedOut" for e in remotes[0].events()),
            sit=False, timeout=20))
    finally:
        servers.kill()
    assert_chips_conserved()
    assert Hand.objects.filter(table=table, ended_at__isnull=False).count() >= 2
