"""Read-only views of tables: snapshots per viewer, hand histories, chip totals."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.db.models import Sum
from django.utils import timezone

from accounts.models import Player
from engine.projection import Viewer
from engine.registry import get_game

from . import fanout
from .errors import TableError
from .models import ChatMessage, Connection, Hand, Seat, Table, TableStatus

Json = dict[str, Any]
CHAT_IN_SNAPSHOT = 30


def controlled_seats(state: Any, players: dict[str, Player], user: Any,
                     bot: Player | None) -> list[int]:
    """Seats a connection may act for and see: the bot itself, or the user's own players."""
    out = []
    for number, occupant in enumerate(state.seats):
        if occupant is None:
            continue
        player = players.get(occupant.player_id)
        if bot is not None:
            if occupant.player_id == str(bot.pk):
                out.append(number)
        elif player is not None and player.owner_id == user.pk:
            out.append(number)
    return out


def viewer_for(user: Any, seats: list[int]) -> Viewer:
    if getattr(user, "can_see_all_cards", False):
        return Viewer.superuser()
    return Viewer.of(*seats)


def table_info(table: Table) -> Json:
    return {
        "id": table.pk, "name": table.name, "game": table.game, "game_name": table.game_name,
        "structure": table.structure, "small_blind": table.small_blind,
        "big_blind": table.big_blind, "ante": table.ante, "seats": table.seat_count,
        "min_buy_in": table.min_buy_in, "max_buy_in": table.max_buy_in,
        "turn_seconds": table.turn_seconds, "status": table.status,
    }


def snapshot(table_id: int, user: Any, bot: Player | None = None,
             now: datetime | None = None) -> Json:
    """The whole table as this viewer may see it, at one version (one row read)."""
    now = now or timezone.now()
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise TableError("table_not_found", f"There is no table {table_id}.")
    game = get_game(table.game)
    state = game.load(table.state)
    rows = {s.number: s for s in Seat.objects.filter(table=table).select_related("player")}
    ids = [int(s.player_id) for s in state.seats if s is not None]
    players = {str(p.pk): p for p in Player.objects.filter(pk__in=ids)}
    mine = controlled_seats(state, players, user, bot)
    view = game.view(state, viewer_for(user, mine))
    seats = []
    for number, occupant in enumerate(state.seats):
        if occupant is None:
            seats.append(None)
            continue
        player = players.get(occupant.player_id)
        row = rows.get(number)
        seats.append({
            "seat": number, "player": int(occupant.player_id),
            "name": player.name if player else "", "is_bot": bool(player and player.is_bot),
            "stack": occupant.stack, "state": row.state if row else occupant.status,
        })
    chat = [{"id": m.pk, "name": m.name, "text": m.text, "at": m.created_at.isoformat()}
            for m in reversed(ChatMessage.objects.filter(table=table).order_by("-id")
                              [:CHAT_IN_SNAPSHOT])]
    turn = None
    if table.to_act_seat is not None and table.to_act_seat in mine:
        turn = fanout.your_turn(game, state, table, now)
    return {
        "type": "snapshot", "table": table.pk, "version": table.version,
        "info": table_info(table), "hand": table.current_hand_id,
        "state": view, "seats": seats, "turn": fanout.turn_info(table, now),
        "you": {"user": user.username, "seats": mine,
                "bot": bot.pk if bot is not None else None,
                "sees_all_cards": bool(getattr(user, "can_see_all_cards", False))},
        "watchers": Connection.objects.filter(table=table).count(),
        "chat": chat,
        "your_turn": turn,
    }


def open_tables() -> Any:
    """Tables the lobby lists (closed ones left it, V8)."""
    return Table.objects.exclude(status=TableStatus.CLOSED)


def chips_on_tables() -> int:
    """Every chip at every table: stacks plus what is in the pots of running hands.

    A seat's stack is written back only when its hand ends, so during a hand the
    seats still hold the starting stacks: their sum is exactly the chips in play.
    """
    total = 0
    for table in Table.objects.only("game", "state"):
        state = get_game(table.game).load(table.state)
        total += sum(s.stack for s in state.seats if s is not None)
    return total


def total_balances() -> int:
    """Sum of every player's balance (the ledger's cached sums)."""
    return int(Player.objects.aggregate(total=Sum("balance"))["total"] or 0)


_DEALT = re.compile(r"^d dh p(\d+) (\S+)$")


def hand_history(hand_id: int, user: Any) -> Json:
    """A stored hand as ``user`` may see it (V35): a superuser sees every card; a
    player's owner sees that player's cards; cards shown at showdown are public;
    mucked or unshown cards stay hidden."""
    hand = Hand.objects.select_related("table").filter(pk=hand_id, ended_at__isnull=False).first()
    if hand is None:
        raise TableError("hand_not_found", f"There is no finished hand {hand_id}.")
    everything = bool(getattr(user, "can_see_all_cards", False))
    players = list(hand.players.select_related("player"))
    visible_seats = {
        p.seat for p in players
        if everything or p.shown
        or (p.player is not None and user is not None and p.player.owner_id == user.pk)
    }
    by_position = {p.position: p for p in players}
    events = []
    for event in hand.events:
        if event.get("type") == "HoleCardsDealt" and event.get("player") not in visible_seats:
            event = {**event, "cards": "??" * (len(event.get("cards", "")) // 2)}
        events.append(event)

    def phh_line(line: str) -> str:
        match = _DEALT.match(line.strip().strip('",'))
        if not match:
            return line
        player = by_position.get(int(match.group(1)) - 1)
        if player is not None and player.seat in visible_seats:
            return line
        return line.replace(match.group(2), "??" * (len(match.group(2)) // 2))

    phh = re.sub(r'"d dh p\d+ \S+"', lambda m: '"' + phh_line(m.group(0).strip('"')) + '"',
                 hand.phh)
    return {
        "id": hand.pk, "table": hand.table_id, "table_name": hand.table.name,
        "number": hand.number, "started_at": hand.started_at.isoformat(),
        "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
        "button": hand.button,
        "players": [{
            "seat": p.seat, "position": p.position, "name": p.name,
            "player": p.player_id, "starting_stack": p.starting_stack, "net": p.net,
            "cards": p.hole_cards if p.seat in visible_seats else "??" * (len(p.hole_cards) // 2),
            "shown": p.shown,
        } for p in players],
        "events": events,
        "phh": phh,
    }
