"""Messages to clients, built inside the transaction and sent after the commit.

Groups (one ``group_send`` each per batch):

* ``table.<id>``           — the public view (spectators, players)
* ``table.<id>.all``       — superusers (every card); they join it instead of the public one
* ``table.<id>.p.<player>`` — one player's private messages (own hidden values, ``your_turn``)

The channel layer only delivers; it may drop messages. Every message carries the
table version, and a client that sees a gap asks for a snapshot.

When the channel layer fails (Redis away), publishing never fails the command that
committed: the error is logged (rate-limited, :mod:`tables.outage`), and
:data:`health` (a per-process circuit breaker) drops what follows unsent for a
second instead of waiting on each message, then tries again. The worker asks
:func:`aprobe` before it fires timers (docs/security.md, "Outages").
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from engine.game import Event, Viewer

from . import outage, wire

if TYPE_CHECKING:
    from .runtime import TableRun

Json = dict[str, Any]
Batch = list[tuple[str, Json]]
log = logging.getLogger(__name__)


def public_group(table_id: int) -> str:
    return f"table.{table_id}"


def omniscient_group(table_id: int) -> str:
    return f"table.{table_id}.all"


def player_group(table_id: int, player_id: int | str) -> str:
    return f"table.{table_id}.p.{player_id}"


def project(game: Any, event: Event | Json, viewer: Viewer) -> Json | None:
    """Runtime events (plain dicts) are public; engine events go through the projection."""
    if isinstance(event, dict):
        return dict(event)
    result: Json | None = game.project_event(event, viewer)
    return result


def time_left(deadline: datetime | None, now: datetime) -> float | None:
    if deadline is None:
        return None
    return max(0.0, round((deadline - now).total_seconds(), 3))


def turn_info(table: Any, now: datetime) -> Json | None:
    """Public: whose turn it is and until when (everyone watching sees the time left)."""
    if table.to_act_seat is None:
        return None
    return {
        "seat": table.to_act_seat,
        "hand": table.current_hand_id,
        "deadline": table.deadline.isoformat() if table.deadline else None,
        "time_left": time_left(table.deadline, now),
    }


def your_turn(game: Any, state: Any, table: Any, now: datetime, seat: int) -> Json:
    """The decision for ``seat``: ``view`` is exactly what a house bot's ``act(view)``
    receives (:func:`engine.game.decision_view`, here through the game's cached
    ``view_maker``, which gives the same dict); ``moves`` the generic descriptors,
    ``legal`` the game's own fields (poker: ``can_check``, ``min_raise_to``...)."""
    view = game.view_maker(state)(state, seat, time_left(table.deadline, now))
    return {
        "type": "your_turn",
        "table": table.pk,
        "version": table.decision_version,
        "hand": table.current_hand_id,
        "seat": seat,
        "legal": view["legal"],
        "moves": view["moves"],
        "time_left": view["time_left"],
        "deadline": table.deadline.isoformat() if table.deadline else None,
        "view": view,
    }


def build_batch(run: TableRun, *, new_turn: bool) -> Batch:
    """Every message one accepted command produces, with their groups."""
    table, game, state, now = run.table, run.game, run.state, run.now
    version, turn = table.version, turn_info(table, now)
    batch: Batch = []
    for group, viewer in ((public_group(table.pk), Viewer.spectator()),
                          (omniscient_group(table.pk), Viewer.superuser())):
        events = [p for e in run.events if (p := project(game, e, viewer)) is not None]
        batch.append((group, {"type": "events", "table": table.pk, "version": version,
                              "events": events, "turn": turn}))
    private: dict[int, list[Event]] = {}
    for event in run.events:
        if not isinstance(event, dict) and event.audience is not None:
            private.setdefault(event.audience, []).append(event)
    seats = run.seats if private or new_turn else []
    for seat, events in private.items():
        occupant = seats[seat] if seat < len(seats) else None
        if occupant is None:
            continue
        viewer = Viewer.of(seat)
        batch.append((player_group(table.pk, occupant.player_id), {
            "type": "private", "table": table.pk, "version": version, "seat": seat,
            "events": [p for e in events if (p := project(game, e, viewer)) is not None],
        }))
    if new_turn:
        for seat in run.to_act():
            occupant = seats[seat]
            if occupant is not None:
                batch.append((player_group(table.pk, occupant.player_id),
                              your_turn(game, state, table, now, seat)))
    return batch


LOBBY_GROUP = "lobby"


def announce_to_lobby(table_id: int, reason: str) -> Batch:
    """The message that tells open lobbies a table appeared, changed seats or closed.

    Only occupancy and status changes are announced (not every stack change), so the
    lobby group's traffic does not grow with the number of hands played.
    """
    return [(LOBBY_GROUP, {"type": "table_changed", "table": table_id, "reason": reason})]


_collecting = threading.local()


@contextmanager
def collecting(send: Callable[[Batch], None] | None = None) -> Iterator[list[Batch]]:
    """Inside this block (in one thread) :func:`publish` only collects the committed
    batches; the caller sends them with :func:`apublish` from its event loop. So a
    consumer's database thread never waits for Redis round trips. With ``send``
    each committed batch goes to ``send(batch)`` at once instead (the worker)."""
    batches: list[Batch] = []
    previous = getattr(_collecting, "batches", None), getattr(_collecting, "send", None)
    _collecting.batches, _collecting.send = batches, send
    try:
        yield batches
    finally:
        _collecting.batches, _collecting.send = previous


def layer_message(group: str, message: Json) -> Json:
    """The channel-layer message for one client message, encoded once: every
    connection in the group forwards the same text instead of re-encoding it."""
    kind = "lobby.message" if group == LOBBY_GROUP else "table.message"
    return {"type": kind, "text": wire.dumps(message),
            "version": message.get("version") or 0}


PUBLISH_TIMEOUT = outage.LAYER_TIMEOUT  # one group_send that takes longer has failed (s)
PROBE_TIMEOUT = 1.0
PROBE_GROUP = "outage.probe"  # nobody listens: a publish to it only asks "is Redis there?"


class LayerHealth:
    """Whether this process can publish: a circuit breaker around ``group_send``.

    After a failed send the breaker is open: for ``RETRY_SECONDS`` messages are
    dropped unsent (each would fail, maybe only after :data:`PUBLISH_TIMEOUT`, and a
    command's ``ack`` waits for its fan-out), then one send tries again; the first
    success closes it. Dropped messages are like lost ones: clients resync on the
    version gap (or on ``pong``'s version, docs/protocol.md).
    """

    RETRY_SECONDS = 1.0

    def __init__(self) -> None:
        self.down_since: float | None = None
        self.retry_at = 0.0
        self.failures = 0  # ever, in this process (the worker compares before and after)
        self.dropped = 0  # in the current outage

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def may_send(self) -> bool:
        if self.down_since is None:
            return True
        now = time.monotonic()
        if now >= self.retry_at:
            self.retry_at = now + self.RETRY_SECONDS  # one attempt per period
            return True
        self.dropped += 1
        return False

    def sent(self) -> None:
        if self.down_since is not None:
            log.warning("channel layer reachable again after %.1f s (%d messages not sent)",
                        time.monotonic() - self.down_since, self.dropped)
            self.down_since, self.dropped = None, 0

    def failed(self, error: BaseException) -> None:
        self.failures += 1
        now = time.monotonic()
        if self.down_since is None:
            self.down_since = now
            log.warning("channel layer unreachable, live updates are not sent: %s: %s",
                        type(error).__name__, error)
        self.retry_at = now + self.RETRY_SECONDS


health = LayerHealth()


async def _send(layer: Any, group: str, message: Json) -> None:
    await asyncio.wait_for(layer.group_send(group, layer_message(group, message)),
                           PUBLISH_TIMEOUT)


def _owners() -> bool:
    """Live tables (tables.owner): connections watch through their process's host,
    not through the channel layer's table groups."""
    from . import owner

    return owner.enabled()


def publish(batch: Batch, *, direct: bool = False) -> None:
    """Send after the commit. A lost message is not fatal: clients resync on a gap."""
    send = getattr(_collecting, "send", None)
    if send is not None:
        try:
            send(batch)
        except Exception:  # delivery is best effort; the database is the truth
            log.exception("sending a batch failed")
        return
    pending = getattr(_collecting, "batches", None)
    if pending is not None:
        pending.append(batch)
        return
    if not direct and _owners():
        from . import owner

        if owner.relay_sync(batch):
            return
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in batch:
        if not health.may_send():
            continue
        try:
            async_to_sync(_send)(layer, group, message)
            health.sent()
        except Exception as error:  # delivery is best effort; the database is the truth
            health.failed(error)
            log.warning("group_send to %s failed", group, exc_info=True)


async def apublish(batches: list[Batch], *, direct: bool = False) -> bool:
    """:func:`publish` from an event loop, in order (batches collected by :func:`collecting`).
    Never raises; False if some message was not sent (logged, rate-limited)."""
    if not direct and batches and _owners():
        from . import owner

        try:
            await owner.host().publish_plain(batches)
        except Exception:
            log.warning("publishing to live tables' connections failed", exc_info=True)
            return False
        return True
    layer = get_channel_layer()
    if layer is None:
        return True
    complete = True
    for batch in batches:
        for group, message in batch:
            if not health.may_send():
                complete = False
                continue
            try:
                await _send(layer, group, message)
                health.sent()
            except Exception as error:  # delivery is best effort; the database is the truth
                complete = False
                health.failed(error)
                log.warning("group_send to %s failed", group, exc_info=True)
    return complete


async def aprobe() -> bool:
    """Whether the channel layer takes a message now (one publish nobody listens to)."""
    layer = get_channel_layer()
    if layer is None:
        return True
    try:
        await asyncio.wait_for(layer.group_send(PROBE_GROUP, {"type": "outage.probe"}),
                               PROBE_TIMEOUT)
    except Exception as error:
        health.failed(error)
        return False
    health.sent()
    return True
