"""The SDK's websocket client notices a silent gap: a ``pong`` carries the table's
committed version, and when it is ahead of what arrived, the client asks for a
snapshot by itself (docs/protocol.md, "ack, pong, error"). No server, no Django."""

from __future__ import annotations

import json
from typing import Any

from botkit.client import WebsocketClient


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
