"""Messages to clients, built inside the transaction and sent after the commit.

Groups (one ``group_send`` each per batch):

* ``table.<id>``           — the public view (spectators, players)
* ``table.<id>.all``       — superusers (every card); they join it instead of the public one
* ``table.<id>.p.<player>`` — one player's private messages (own hidden values, ``your_turn``)

The channel layer only delivers; it may drop messages. Every message carries the
table version, and a client that sees a gap asks for a snapshot.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from engine.game import Event, Viewer

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
    return {"type": kind, "text": json.dumps(message, separators=(",", ":")),
            "version": message.get("version") or 0}


def publish(batch: Batch) -> None:
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
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in batch:
        try:
            async_to_sync(layer.group_send)(group, layer_message(group, message))
        except Exception:  # delivery is best effort; the database is the truth
            log.exception("group_send to %s failed", group)


async def apublish(batches: list[Batch]) -> None:
    """:func:`publish` from an event loop, in order (batches collected by :func:`collecting`)."""
    layer = get_channel_layer()
    if layer is None:
        return
    for batch in batches:
        for group, message in batch:
            try:
                await layer.group_send(group, layer_message(group, message))
            except Exception:  # delivery is best effort; the database is the truth
                log.exception("group_send to %s failed", group)
