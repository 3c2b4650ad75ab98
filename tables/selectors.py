"""Read-only views of tables: snapshots per viewer, round histories, exports, chip
totals, leaderboards.

Privacy has one road: live messages and snapshots go through the game's
projection (:meth:`engine.game.Game.view`, ``project_event``); a stored round
keeps each private event with its audience and the public form the game's
projection gave it, so history and replay show exactly what the viewer saw (or
could have seen) live; exports are the game's, for the same viewer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Sum
from django.utils import timezone

from accounts.models import Player
from engine.errors import EngineError
from engine.game import RoundEnded, Viewer
from engine.registry import get_game

from . import fanout, handlog
from .errors import TableError
from .models import ChatMessage, Connection, Hand, Seat, Standing, Table, TableStatus

Json = dict[str, Any]
CHAT_IN_SNAPSHOT = 30


def controlled_seats(seats: list[Any], players: dict[str, Player], user: Any,
                     bot: Player | None) -> list[int]:
    """Seats a connection may act for and see: the bot itself, or the user's own players."""
    out = []
    for number, occupant in enumerate(seats):
        if occupant is None:
            continue
        player = players.get(occupant.player_id)
        if bot is not None:
            if occupant.player_id == str(bot.pk):
                out.append(number)
        elif player is not None and player.owner_id == user.pk:
            out.append(number)
    return out


def sees_all(user: Any, bot: Player | None) -> bool:
    """Omniscience belongs to a superuser's own viewing connection, never to a bot's
    (a bot owned by a superuser plays with what its seat may see)."""
    return bot is None and bool(getattr(user, "can_see_all_cards", False))


def viewer_for(user: Any, seats: list[int], bot: Player | None = None) -> Viewer:
    if sees_all(user, bot):
        return Viewer.superuser()
    return Viewer.of(*seats)


def game_info(key: str) -> Json | None:
    """The game's self-description (``None`` if the game is no longer registered)."""
    try:
        return get_game(key).info.to_json()
    except EngineError:
        return None


def table_info(table: Table) -> Json:
    """The table's public description: the game, its settings and listing facts (the
    poker facts also flat, as protocol v1 clients read them)."""
    info = {
        "id": table.pk, "name": table.name, "game": table.game, "game_name": table.game_name,
        "game_info": game_info(table.game),
        "settings": table.settings, "facts": table.facts,
        "seats": table.seat_count, "turn_seconds": table.turn_seconds, "status": table.status,
        "standings": table.standings,
    }
    for key, value in table.facts.items():
        info.setdefault(key, value)
    return info


def snapshot(table_id: int, user: Any, bot: Player | None = None,
             now: datetime | None = None) -> Json:
    """The whole table as this viewer may see it, at one version (one row read).

    Four queries: the table row (fixed SQL, :mod:`tables.rowsql`), its seats with
    their players, the last chat lines, the connections' count; for a live table's
    running round also the round, its steps and the version again
    (:func:`tables.handlog.read_table`). (A live table's
    owner builds it from its copy instead, :meth:`tables.owner.Host.snapshot`.)"""
    read = handlog.read_table(table_id)
    if read is None:
        raise TableError("table_not_found", f"There is no table {table_id}.")
    table, state = read
    game = get_game(table.game)
    rows = {s.number: s for s in Seat.objects.filter(table_id=table.pk).select_related("player")}
    players = {str(s.player_id): s.player for s in rows.values()}
    missing = [int(s.player_id) for s in game.seats(state)
               if s is not None and s.player_id not in players]  # (Seat rows mirror them)
    if missing:
        players.update((str(p.pk), p) for p in Player.objects.filter(pk__in=missing))
    chat, watchers = snapshot_extras(table.pk)
    return build_snapshot(table, state, rows, players, user, bot, now or timezone.now(),
                          chat, watchers)


def snapshot_extras(table_id: int) -> tuple[list[Json], int]:
    """What a snapshot tells beside the game: the last chat lines, the watchers."""
    chat = [{"id": m.pk, "name": m.name, "text": m.text, "at": m.created_at.isoformat()}
            for m in reversed(ChatMessage.objects.filter(table_id=table_id).order_by("-id")
                              [:CHAT_IN_SNAPSHOT])]
    return chat, Connection.objects.filter(table_id=table_id).count()


def build_snapshot(table: Table, state: Any, rows: dict[int, Seat], players: dict[str, Player],
                   user: Any, bot: Player | None, now: datetime, chat: list[Json],
                   watchers: int) -> Json:
    """The snapshot of ``table`` in game ``state`` (its Seat rows and players given) as
    this viewer may see it: the game's own projection, nothing read here."""
    game = get_game(table.game)
    occupants = game.seats(state)
    mine = controlled_seats(occupants, players, user, bot)
    view = game.view(state, viewer_for(user, mine, bot))
    seats = []
    for number, occupant in enumerate(occupants):
        if occupant is None:
            seats.append(None)
            continue
        player = players.get(occupant.player_id)
        row = rows.get(number)
        seats.append({
            "seat": number, "player": int(occupant.player_id),
            "name": player.name if player else "", "is_bot": bool(player and player.is_bot),
            "is_house": bool(player and player.house_strategy),
            "stack": occupant.chips, "state": row.state if row else occupant.status,
        })
    turn = None
    if table.to_act_seat is not None:
        seat = next((s for s in game.status(state).to_act if s in mine), None)
        if seat is not None:
            turn = fanout.your_turn(game, state, table, now, seat)
    return {
        "type": "snapshot", "table": table.pk, "version": table.version,
        "info": table_info(table), "hand": table.current_hand_id,
        "state": view, "seats": seats, "turn": fanout.turn_info(table, now),
        "you": {"user": user.username, "seats": mine,
                "bot": bot.pk if bot is not None else None,
                "skip_formalities": [n for n in mine if n in rows and rows[n].skip_formalities],
                "sees_all_cards": sees_all(user, bot)},
        "watchers": watchers,
        "chat": chat,
        "your_turn": turn,
    }


def open_tables() -> Any:
    """Tables the lobby lists (closed and finished ones left it, V8)."""
    return Table.objects.exclude(status__in=(TableStatus.CLOSED, TableStatus.FINISHED))


def chips_on_tables() -> int:
    """Every chip at every table of an economy game: what the seats hold.

    Poker writes a seat's stack back only when its hand ends, so during a hand the
    seats still hold the starting stacks: their sum is exactly the chips in play.
    """
    total = 0
    for table in Table.objects.only("game", "state"):
        game = get_game(table.game)
        if game.info.economy:
            total += sum(s.chips for s in game.seats(game.load(table.state)) if s is not None)
    return total


def total_balances() -> int:
    """Sum of every player's balance (the ledger's cached sums)."""
    return int(Player.objects.aggregate(total=Sum("balance"))["total"] or 0)


def history_viewer(hand: Hand, user: Any, players: list[Any]) -> Viewer:
    """Who may see what in a stored round: a superuser everything; a user the seats of
    the participants they own (their players, their bots); anyone else the public."""
    if getattr(user, "can_see_all_cards", False):
        return Viewer.superuser()
    if user is None or not getattr(user, "is_authenticated", False):
        return Viewer.spectator()
    return Viewer.of(*(p.seat for p in players
                       if p.player is not None and p.player.owner_id == user.pk))


def visible_events(hand: Hand, viewer: Viewer, start: int = 0,
                   notes: bool = True) -> list[Json]:
    """The round's event log (from index ``start``) as ``viewer`` may see it: a private
    event becomes the public form stored with it (or disappears) unless the viewer may
    see its audience. ``notes=False`` leaves out the runtime's own (not the game's)."""
    hidden = {index: (audience, public) for index, audience, public in hand.hidden}
    skipped = [] if notes else [call[1] for call in hand.calls if call and call[0] == "note"]
    out = []
    for index in range(start, len(hand.events)):
        event = hand.events[index]
        if skipped and event in skipped:
            continue
        if index in hidden:
            audience, public = hidden[index]
            if not viewer.can_see(audience):
                if public is not None:
                    out.append(public)
                continue
        out.append(event)
    return out


def _finished_hand(hand_id: int) -> Hand:
    hand = Hand.objects.select_related("table").filter(pk=hand_id, ended_at__isnull=False).first()
    if hand is None:
        raise TableError("hand_not_found", f"There is no finished hand {hand_id}.")
    return hand


def hand_history(hand_id: int, user: Any) -> Json:
    """A stored round as ``user`` may see it (V35): a superuser sees everything; a
    player's owner sees that player's hidden values; what was revealed (cards shown at
    showdown) is public; everything else stays hidden."""
    hand = _finished_hand(hand_id)
    players = list(hand.players.select_related("player"))
    viewer = history_viewer(hand, user, players)
    return {
        "id": hand.pk, "table": hand.table_id, "table_name": hand.table.name,
        "game": hand.table.game,
        "number": hand.number, "started_at": hand.started_at.isoformat(),
        "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
        "button": hand.button,
        "players": [{
            "seat": p.seat, "position": p.position, "name": p.name,
            "player": p.player_id, "net": p.net, "score": p.score,
            **_player_detail(p, viewer),
        } for p in players],
        "events": visible_events(hand, viewer),
        "phh": export_round(hand, viewer, players),
        "policies": _policies(hand, viewer),
    }


def _policies(hand: Hand, viewer: Viewer) -> list[Json]:
    """The bots' stated move probabilities of the seats ``viewer`` may see, in order,
    each with the move made (a policy can tell what a bot holds: never anyone else's)."""
    out = []
    for entry in hand.policies:
        if not viewer.can_see(entry["seat"]):
            continue
        call = hand.calls[entry["call"]] if entry["call"] < len(hand.calls) else None
        action = call[2] if call and call[0] == "apply" and len(call) > 2 else None
        item = {"seat": entry["seat"], "action": action, "policy": entry["policy"]}
        if "reason" in entry:  # an act's reason (docs/mcp.md); ``policy`` may then be None
            item["reason"] = entry["reason"]
        out.append(item)
    return out


def _player_detail(p: Any, viewer: Viewer) -> Json:
    """Public detail, plus the secret part for whoever may see that seat. Poker's
    ``cards`` read ``??`` per hidden card unless shown or visible."""
    detail = dict(p.detail)
    secret = p.secret if viewer.can_see(p.seat) else {}
    shown = detail.get("shown")
    cards = secret.get("cards") or shown
    if "cards" in p.secret:  # a game with hidden cards: say how many, not which
        detail["cards"] = cards or detail.get("public") or "??" * (len(p.secret["cards"]) // 2)
        detail["shown"] = bool(shown)
    detail.update({k: v for k, v in secret.items() if k != "cards"})
    return detail


def export_round(hand: Hand, viewer: Viewer, players: list[Any] | None = None) -> str:
    """The round in its game's history format (PHH for poker) as ``viewer`` may see it."""
    if players is None:
        players = list(hand.players.all())
    names = {p.position: p.name for p in players}
    meta = {"names": [names.get(i, f"seat {seat}") for i, seat in enumerate(hand.seats)],
            "table": hand.table.name, "number": hand.number}
    try:
        return get_game(hand.table.game).export_round(hand.record, viewer, meta)
    except (TypeError, KeyError, ValueError):
        return ""


def hand_export(hand_id: int, user: Any) -> str:
    """:func:`export_round` of a finished round for ``user``."""
    hand = _finished_hand(hand_id)
    players = list(hand.players.select_related("player"))
    return export_round(hand, history_viewer(hand, user, players), players)


def replay_round(hand: Hand) -> list[Json]:
    """Play a stored round again from its start state, chance input and game calls:
    the events it gives (up to the round's end) equal the stored log exactly."""
    if hand.start_state is None:
        raise TableError("not_replayable", "This round was stored before replays were kept.")
    game = get_game(hand.table.game)
    state = game.load(hand.start_state)
    events: list[Json] = []

    def take(new: list[Any]) -> bool:
        for event in new:
            events.append(event if isinstance(event, dict) else event.to_json())
            if isinstance(event, RoundEnded):
                return True
        return False

    if take(game.start_round(state, hand.chance)):
        return events
    for new in handlog.replay(game, state, hand.calls):
        if take(new):
            break
    return events


def leaderboard(game: str, rules: str | None = None, limit: int = 10,
                rule_set: str | None = None) -> list[Json]:
    """The best finishes of a game (per settings digest if ``rules`` is given):
    highest score, earliest first. With ``rule_set``, the top list of one rule-set
    identity of the game (``Game.rule_set_id``, whatever the other settings), where
    only the standings the game admits enter (``Game.on_leaderboard``: the dice
    game's seed rule, every solitaire game but only the winner of a game of several
    players); the other boards list every finish."""
    rows = Standing.objects.filter(game=game)
    if rules:
        rows = rows.filter(rules=rules)
    if rule_set:
        rows = rows.filter(rule_set=rule_set, listed=True)
    return [{"rank": i + 1, "name": s.name, "player": s.player_id, "score": s.score,
             "place": s.rank, "table": s.table_id, "finished_at": s.finished_at.isoformat()}
            for i, s in enumerate(rows.order_by("-score", "finished_at")[:limit])]
