"""Redis away, at unit level (any database, any channel layer): the pieces that make an
outage degrade cleanly (docs/security.md, "Outages: what each one does"). The real
servers with a real Redis stopped for 20 s: tests/scale/test_outage.py."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from pokersite.asgi import application
from tables import fanout, outage, services, worker
from tables.models import Connection, Seat, Table

from .helpers import sit, turn

pytestmark = pytest.mark.django_db(transaction=True)  # (publishing happens on commit)
AWAY = "Error 111 connecting to 127.0.0.1:6379. Connection refused."


@pytest.fixture(autouse=True)
def _fresh_breaker() -> Iterator[None]:
    fanout.health.__init__()  # type: ignore[misc]
    yield
    fanout.health.__init__()  # type: ignore[misc]


@contextlib.contextmanager
def layer_away(*methods: str) -> Iterator[dict[str, mock.AsyncMock]]:
    """These methods of the process's channel layer fail as they do with Redis down."""
    layer = get_channel_layer()
    mocks = {m: mock.AsyncMock(side_effect=ConnectionError(AWAY)) for m in methods}
    with contextlib.ExitStack() as stack:
        for name, failing in mocks.items():
            stack.enter_context(mock.patch.object(layer, name, failing))
        yield mocks


@pytest.fixture
def token(bob: Any) -> str:
    from accounts.services import create_bot

    return create_bot(owner=bob, name="Steady")[1]


async def receive_all(communicator: WebsocketCommunicator) -> tuple[list[dict[str, Any]],
                                                                    int | None]:
    """Messages until the socket is closed or quiet for 0.3 s, and the close code."""
    got: list[dict[str, Any]] = []
    while not await communicator.receive_nothing(timeout=0.3, interval=0.01):
        message = await communicator.receive_output(timeout=1)
        if message["type"] == "websocket.close":
            return got, message.get("code")
        got.append(json.loads(message["text"]))
    return got, None


# ----------------------------------------------------------------- logging


def test_an_error_is_logged_once_per_window_with_a_count_of_the_rest() -> None:
    records: list[logging.LogRecord] = []
    logger = logging.getLogger("tests.outage.filter")
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    limit = outage.RateLimitFilter(seconds=60)
    logger.addFilter(limit)
    try:
        for group in range(500):
            try:
                raise ConnectionError(AWAY)
            except ConnectionError:
                logger.warning("group_send to table.%s failed", group, exc_info=True)
        logger.warning("another error %s", 1)  # a distinct error has its own window
        assert [r.getMessage() for r in records] == ["group_send to table.0 failed",
                                                     "another error 1"]
        assert records[0].exc_info is not None  # the first one with its traceback
        limit._seen = {k: [v[0] - 61, v[1]] for k, v in limit._seen.items()}  # a minute on
        try:
            raise ConnectionError(AWAY)
        except ConnectionError:
            logger.warning("group_send to table.%s failed", 7, exc_info=True)
        last = records[-1]
        assert len(records) == 3 and last.exc_info is None  # one line, no traceback
        assert "499 more like this suppressed" in last.getMessage()
        assert AWAY in last.getMessage()
    finally:
        logger.removeHandler(handler)
        logger.removeFilter(limit)


def test_the_outage_loggers_are_rate_limited() -> None:
    for name in ("tables.worker", "tables.fanout", "tables.consumers",
                 "channels_redis.pubsub", "lobby.consumers", "research.consumers"):
        assert any(isinstance(f, outage.RateLimitFilter)
                   for f in logging.getLogger(name).filters), name


# ----------------------------------------------------------------- fan-out


@pytest.mark.asyncio
async def test_publishing_to_a_layer_that_is_away_fails_fast_and_quietly(
        caplog: pytest.LogCaptureFixture) -> None:
    batch = [(fanout.public_group(1), {"type": "events", "version": 5, "events": []})]
    with caplog.at_level(logging.WARNING), layer_away("group_send") as mocks:
        results = [await fanout.apublish([batch, batch]) for _ in range(200)]
    assert not any(results)
    # The breaker: one attempt, then a second per RETRY_SECONDS; the rest are dropped.
    assert mocks["group_send"].await_count <= 3
    assert fanout.health.down and fanout.health.dropped >= 390
    warnings = [r for r in caplog.records if r.name == "tables.fanout"]
    assert 1 <= len(warnings) <= 3, [r.getMessage() for r in warnings]
    fanout.health.retry_at = 0.0  # a second later, Redis is back: the next send goes out
    assert await fanout.apublish([batch])
    assert not fanout.health.down
    assert await fanout.aprobe()
    with layer_away("group_send"):
        assert not await fanout.aprobe()


# ---------------------------------------------------------------- REST API


def test_the_api_answers_when_the_throttle_cache_is_away(
        token: str, caplog: pytest.LogCaptureFixture) -> None:
    from rest_framework.test import APIClient

    from api import throttles

    class Away:
        def get(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError(AWAY)

        set = get

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    throttles.cache_failures.last = -throttles.WARN_EVERY
    with caplog.at_level(logging.WARNING, "api.throttles"), \
            mock.patch.object(throttles.ScopeThrottle, "cache", Away()):
        statuses = [client.get(path).status_code
                    for path in ("/api/v1/tables/", "/api/v1/me/") * 10]
    assert statuses == [200] * 20
    warnings = [r.getMessage() for r in caplog.records if r.name == "api.throttles"]
    assert len(warnings) == 1 and "throttling is off" in warnings[0], warnings


# --------------------------------------------------------------- websockets


@pytest.mark.asyncio
@pytest.mark.parametrize("path", ["/ws/tables/{table}/", "/ws/lobby/", "/ws/matches/1/"])
async def test_a_handshake_without_the_channel_layer_is_refused_cleanly(
        table: Any, token: str, path: str) -> None:
    communicator = WebsocketCommunicator(
        application, path.format(table=table.pk),
        headers=[(b"authorization", f"Bearer {token}".encode()),
                 (b"origin", b"http://localhost"), (b"host", b"localhost")])
    with layer_away("new_channel"):
        connected, _ = await communicator.connect()
        got, code = await receive_all(communicator)
    assert connected  # accepted (no HTTP 500), told why, and closed "try again later"
    assert [m["code"] for m in got] == ["unavailable"]
    assert code == outage.TRY_AGAIN_LATER == 1013
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_a_failing_group_add_refuses_the_table_socket_cleanly(table: Any,
                                                                    token: str) -> None:
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/",
                                         headers=[(b"authorization", f"Bearer {token}".encode())])
    with layer_away("group_add"):
        connected, _ = await communicator.connect()
        got, code = await receive_all(communicator)
    assert connected and [m["code"] for m in got] == ["unavailable"] and code == 1013
    assert not await database_sync_to_async(Connection.objects.exists)()
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_a_command_commits_and_is_acked_when_publishing_fails_and_pong_shows_it(
        table: Any, token: str) -> None:
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/",
                                         headers=[(b"authorization", f"Bearer {token}".encode())])
    connected, _ = await communicator.connect()
    assert connected
    got, _ = await receive_all(communicator)
    seen = next(m for m in got if m["type"] == "snapshot")["version"]
    with layer_away("group_send"):
        await communicator.send_json_to({"type": "sit", "seat": 3, "buy_in": 200,
                                         "request_id": "s"})
        got, code = await receive_all(communicator)
        assert code is None, "a failed publish must not close the socket"
        acks = [m for m in got if m["type"] == "ack"]
        assert [m["request_id"] for m in acks] == ["s"] and acks[0]["version"] > seen
        assert not [m for m in got if m["type"] in ("error", "events")]  # nothing delivered
        assert await database_sync_to_async(
            Seat.objects.filter(table=table, number=3).exists)()  # committed
        # The events never arrived; pong says how far the table is, so the client resyncs.
        await communicator.send_json_to({"type": "ping", "request_id": "p"})
        got, code = await receive_all(communicator)
    committed = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()
    assert got == [{"type": "pong", "version": committed, "request_id": "p"}]
    assert committed >= acks[0]["version"] > seen
    await communicator.disconnect()


# ------------------------------------------------------------------ worker


def _stored_events(table: Any) -> list[str]:
    from tables.models import Hand

    return [e["type"] for h in Hand.objects.filter(table=table) for e in h.events]


def test_an_outage_ends_after_answering_for_the_grace_without_a_failure() -> None:
    clock = [100.0]
    with mock.patch.object(outage.time, "monotonic", lambda: clock[0]):
        state = outage.Outage("Redis", "timers are held", grace=2.0)
        assert not state.down and not state.answered()  # no outage: nothing to end
        state.fail()
        clock[0] += 5
        state.fail()  # (still the same outage)
        assert state.down and state.outages == 1
        assert not state.answered()  # answering starts the grace
        clock[0] += 1.5
        state.fail()  # a failure within the grace starts it over
        assert not state.answered()
        clock[0] += 1.9
        assert not state.answered()
        clock[0] += 0.1
        assert state.answered() and state.down  # over, until the caller ends it
        assert state.end() == pytest.approx(8.5) and not state.down
        assert state.resumed_at == clock[0] and not state.answered()
        state.fail()
        assert state.down and state.outages == 2


def test_the_worker_holds_while_it_cannot_publish_and_then_gives_a_full_turn(
        table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, _hand, decision, _ = turn(table.pk)
    expired = timezone.now() - timedelta(seconds=5)
    Table.objects.filter(pk=table.pk).update(deadline=expired, bot_due=expired)
    version = Table.objects.get(pk=table.pk).version
    pause = worker.Pause(grace=0)
    with mock.patch.object(services, "fire_due_timers", wraps=services.fire_due_timers) as fire, \
            mock.patch.object(services, "run_house_bots", wraps=services.run_house_bots) as bots:
        for _ in range(5):
            assert worker.step(pause, reachable=False) == worker.HOLD
        assert fire.call_count == bots.call_count == 0
        assert pause.paused
        with mock.patch.object(fanout, "publish", wraps=fanout.publish) as published:
            now = timezone.now()
            assert worker.step(pause, reachable=True, now=now) == worker.RESUME
        assert not pause.paused and fire.call_count == 0
    after = Table.objects.get(pk=table.pk)
    # A full turn from the resume (table.turn_seconds = 20), a fresh version, the same turn.
    assert after.deadline == now + timedelta(seconds=20)
    assert after.bot_due == now + timedelta(seconds=0)  # (HOUSE_BOT_DELAY is 0 in tests)
    assert after.version == version + 1 and after.decision_version == decision
    messages = [m for call in published.call_args_list for _g, m in call.args[0]]
    assert {m["type"] for m in messages} >= {"events", "your_turn"}
    assert next(m for m in messages if m["type"] == "your_turn")["seat"] == seat
    # The timer runs again: nothing is due now, but at the new deadline it fires.
    assert worker.step(pause, reachable=True) == worker.FIRE
    assert "PlayerTimedOut" not in _stored_events(table)
    worker.step(pause, reachable=True, now=after.deadline + timedelta(seconds=1))
    assert "PlayerTimedOut" in _stored_events(table)


def test_a_publish_that_fails_while_firing_starts_the_pause(table: Any) -> None:
    pause = worker.Pause(grace=0)

    def fire(now: Any = None) -> int:
        fanout.health.failed(ConnectionError(AWAY))
        return 1

    with mock.patch.object(services, "fire_due_timers", fire):
        assert worker.step(pause, reachable=True) == worker.FIRE
    assert pause.paused and pause.outages == 1
    with mock.patch.object(services, "sweep_presence") as sweep:
        worker.housekeeping(paused=pause.paused)
    assert sweep.call_count == 0  # nobody is sat out while nobody can be told
    assert worker.step(pause, reachable=True) == worker.RESUME


@pytest.mark.parametrize("reachable", [False, True])
def test_the_worker_pauses_when_postgresql_is_away_but_not_on_a_deadlock(
        reachable: bool) -> None:
    import threading

    from django.db.utils import OperationalError

    stop, pauses = threading.Event(), []

    def failing_step(pause: worker.Pause, *args: Any, **kwargs: Any) -> str:
        pauses.append(pause)
        stop.set()
        raise OperationalError("deadlock detected" if reachable else "connection refused")

    with mock.patch.object(worker, "step", failing_step), \
            mock.patch.object(worker, "database_reachable", return_value=reachable), \
            mock.patch.object(worker.Publisher, "probe", return_value=True):
        worker.run(stop, tick_seconds=0)
    assert pauses[0].paused is not reachable


def test_after_a_pause_the_presence_sweep_waits_for_fresh_heartbeats(table: Any) -> None:
    pause = worker.Pause(grace=0)
    assert pause.sweeping
    pause.fail()
    assert pause.paused and not pause.sweeping
    assert worker.step(pause, reachable=True) == worker.RESUME
    # Live connections could not write heartbeats meanwhile: nobody is swept before
    # PRESENCE_TIMEOUT has passed since the resume.
    assert not pause.paused and not pause.sweeping
    pause.resumed_at -= 13
    assert pause.sweeping
