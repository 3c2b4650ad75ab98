"""The SDK's websocket client notices a silent gap: a ``pong`` carries the table's
committed version, and when it is ahead of what arrived, the client asks for a
snapshot by itself (docs/protocol.md, "ack, pong, error"). No server, no Django."""

from __future__ import annotations

import json
from typing import Any

from botkit.client import TurnWatch, WebsocketClient


class FakeConnection:
    """What ``websockets.sync`` gives the client: ``recv`` and ``send``."""

    def __init__(self, frames: list[dict[str, Any]]) -> None:
        self.frames = [json.dumps(f) for f in frames]
        self.sent: list[dict[str, Any]] = []

    def recv(self, timeout: float | None = None) -> str:
        if not self.frames:
            raise TimeoutError
        return self.frames.pop(0)

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


def play(frames: list[dict[str, Any]]) -> tuple[WebsocketClient, FakeConnection,
                                                list[dict[str, Any] | None]]:
    client = WebsocketClient("http://127.0.0.1:8000", "pkb_x", 1)
    connection = FakeConnection(frames)
    client.connection = connection
    stream = client.messages(idle=0.01)
    got = [next(stream) for _ in range(len(frames))]
    return client, connection, got


def test_a_pong_ahead_of_the_last_version_asks_for_a_snapshot() -> None:
    client, connection, got = play([
        {"type": "snapshot", "version": 40, "hand": 3},
        {"type": "events", "version": 41, "events": []},
        {"type": "pong", "version": 41},  # nothing missed
        {"type": "pong", "version": 45},  # 42..45 never arrived (the server's broker was away)
    ])
    assert [m["type"] for m in got if m] == ["snapshot", "events", "pong", "pong"]
    assert client.version == 41 and client.resyncs == 1
    assert [m["type"] for m in connection.sent] == ["snapshot"]


def test_versions_come_from_snapshots_and_events_only() -> None:
    client, connection, _ = play([
        {"type": "snapshot", "version": 7, "hand": 1},
        {"type": "your_turn", "version": 9, "hand": 1},  # a decision's version, not the table's
        {"type": "ack", "version": 9},
        {"type": "pong", "version": 8},
        {"type": "pong"},  # the match websocket's pong has no version
    ])
    assert client.version == 7 and client.resyncs == 1
    assert [m["type"] for m in connection.sent] == ["snapshot"]


def test_when_quiet_it_pings() -> None:
    client = WebsocketClient("http://127.0.0.1:8000", "pkb_x", 1)
    connection = FakeConnection([])
    client.connection = connection
    assert next(client.messages(idle=0.01)) is None
    assert [m["type"] for m in connection.sent] == ["ping"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def turn(seat: int, hand: int = 3, deadline: str = "2026-12-07T20:00:05+00:00") -> dict[str, Any]:
    return {"seat": seat, "hand": hand, "deadline": deadline, "time_left": 5.0}


def watch_of(seats: list[int]) -> tuple[TurnWatch, Clock]:
    clock = Clock()
    watch = TurnWatch(grace=1.0, clock=clock)
    watch.saw({"type": "snapshot", "version": 40, "hand": 3, "turn": None,
               "you": {"seats": seats}})
    return watch, clock


def test_a_turn_of_ours_announced_without_its_your_turn_is_overdue_once() -> None:
    watch, clock = watch_of([1])
    watch.saw({"type": "events", "version": 41, "events": [], "turn": turn(1)})
    assert not watch.overdue() and watch.wait() == 1.0
    clock.now += 0.9
    assert not watch.overdue()
    clock.now += 0.2
    assert watch.overdue()  # the broker went away between the events and the your_turn
    assert not watch.overdue() and watch.wait() is None  # asked once per turn
    # The same turn goes on (someone sat down): nothing new is awaited.
    watch.saw({"type": "events", "version": 42, "events": [], "turn": turn(1)})
    clock.now += 5
    assert not watch.overdue()


def test_its_your_turn_in_time_or_another_seats_turn_awaits_nothing() -> None:
    watch, clock = watch_of([1])
    watch.saw({"type": "events", "version": 41, "events": [], "turn": turn(1)})
    watch.saw({"type": "your_turn", "version": 41, "hand": 3, "seat": 1,
               "deadline": turn(1)["deadline"]})
    watch.saw({"type": "events", "version": 42, "events": [], "turn": turn(0, deadline="b")})
    watch.saw({"type": "events", "version": 43, "events": [], "turn": None})
    clock.now += 10
    assert not watch.overdue() and watch.wait() is None


def test_a_your_turn_that_overtook_its_events_counts() -> None:
    watch, clock = watch_of([])
    # private and your_turn name the seats of this connection (it sat after its snapshot)
    watch.saw({"type": "private", "version": 41, "seat": 2, "events": []})
    watch.saw({"type": "your_turn", "version": 42, "hand": 3, "seat": 2,
               "deadline": turn(2)["deadline"]})
    watch.saw({"type": "events", "version": 42, "events": [], "turn": turn(2)})
    clock.now += 10
    assert not watch.overdue()
    watch.saw({"type": "events", "version": 44, "events": [], "turn": turn(2, deadline="c")})
    clock.now += 1
    assert watch.overdue()


def test_the_client_asks_for_a_snapshot_when_its_turn_does_not_come() -> None:
    client = WebsocketClient("http://127.0.0.1:8000", "pkb_x", 1)
    client.turns.grace = 0.0
    connection = FakeConnection([
        {"type": "snapshot", "version": 40, "hand": 3, "turn": None, "you": {"seats": [0]}},
        {"type": "events", "version": 41, "events": [], "turn": turn(0)},
    ])
    client.connection = connection
    stream = client.messages(idle=0.01)
    assert [next(stream)["type"] for _ in range(2)] == ["snapshot", "events"]  # type: ignore[index]
    assert [m["type"] for m in connection.sent] == ["snapshot"]  # at once: no grace here
    assert next(stream) is None and [m["type"] for m in connection.sent] == ["snapshot", "ping"]
    assert client.resyncs == 1
