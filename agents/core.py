"""What the MCP tools do, synchronously (the server runs each call off the event loop).

Every function acts as one bot player (``bot``, authenticated by its token; its owner
is the acting user, as for the REST API and the websocket) and goes through the
project's services: nothing here knows a game's rules. A refusal is a
:class:`tables.errors.TableError` with a stable code; nothing is changed then.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from django.db import DataError

from accounts.models import Player
from lobby.selectors import TableFilter, lobby_tables
from research import selectors as research_selectors
from research import services as research_services
from tables import selectors, services
from tables.errors import TableError
from tables.models import Hand, Table, TableStatus

from . import render

Json = dict[str, Any]
MAX_NAME = 80
MAX_KIND = 40
MAX_PARAMS_BYTES = 4000  # an act's params as JSON
MAX_SETTINGS_BYTES = 20000  # a created table's settings as JSON
HUD_REFRESH_SECONDS = 10.0
_hud_lock = threading.Lock()
_hud_updated = 0.0


def authenticated_bot(bot_id: int, token_hash: str) -> Player:
    """The bot whose token authenticated the request, if that token is still its own."""
    bot: Player | None = (Player.objects.live().select_related("owner").filter(
        pk=bot_id, token_hash=token_hash, owner__is_active=True).first())
    if bot is None or bot.owner is None:
        raise TableError("invalid_token", "This bot token is no longer valid.")
    return bot


def _table_id(value: Any) -> int:
    if type(value) is not int or not 0 < value < 2**63:
        raise TableError("malformed_message", "table_id is a table's id (a whole number).")
    return int(value)


def _json_size(value: Any, limit: int, what: str) -> None:
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError):
        raise TableError("malformed_message", f"{what} is not JSON.") from None
    if size > limit:
        raise TableError("too_large", f"{what} is at most {limit} bytes of JSON.")


# ------------------------------------------------------------------ reading


def me(bot: Player) -> Json:
    seats = list(bot.seats.select_related("table").exclude(
        table__status__in=(TableStatus.CLOSED, TableStatus.FINISHED)))
    return {"bot": {"id": bot.pk, "name": bot.name, "balance": bot.balance},
            "owner": bot.owner.username if bot.owner else None,
            "may_create_tables": bool(bot.owner and bot.owner.can_create_tables),
            "may_start_matches": bool(bot.owner and bot.owner.can_manage_bots),
            "seats": [{"table": s.table_id, "table_name": s.table.name, "seat": s.number,
                       "stack": s.stack, "state": s.state} for s in seats]}


def list_tables(bot: Player, game: str = "", free_seats: int | None = None,
                max_turn_seconds: int | None = None) -> Json:
    if not isinstance(game, str) or len(game) > 32:
        raise TableError("malformed_message", "game is a game's key, e.g. holdem or dice.")
    rows = lobby_tables(TableFilter(game=game, min_free=free_seats,
                                    max_turn_seconds=max_turn_seconds))
    tables = []
    for row in rows[:100]:
        table = {
            "id": row["id"], "name": row["name"], "game": row["game"],
            "game_name": row["game_name"], "seats": row["seat_count"], "free": row["free"],
            "turn_seconds": row["turn_seconds"], "status": row["status"],
            "settings": row["facts"],
            "players": [{"seat": p["seat"], "name": p["name"], "stack": p["stack"]}
                        for p in row["players"]],
        }
        if any(p["name"] == bot.name for p in row["players"]):
            table["you_sit_here"] = True
        tables.append(table)
    return {"tables": tables, "count": len(rows)}


def _hud(snapshot: Json, fresh: bool = False) -> dict[str, Json]:
    """Every opponent's VPIP / PFR / AF, for games that count them (poker), counted
    over all their stored hands. The incremental counters are brought up to date at
    most every HUD_REFRESH_SECONDS per process, or now when ``fresh``."""
    info = snapshot.get("info") or {}
    stats = (info.get("game_info") or {}).get("stats") or []
    if "vpip" not in stats:
        return {}
    global _hud_updated
    with _hud_lock:
        if fresh or time.monotonic() - _hud_updated > HUD_REFRESH_SECONDS:
            research_services.update_stats()
            _hud_updated = time.monotonic()
    mine = set((snapshot.get("you") or {}).get("seats") or [])
    out = {}
    for seat in snapshot.get("seats") or []:
        if not seat or seat["seat"] in mine:
            continue
        data = research_selectors.player_stats(seat["name"], series=False)
        if data is None:
            continue
        s = data["stats"]
        out[seat["name"]] = {"hands": s.get("hands", 0), "vpip": s.get("vpip"),
                             "pfr": s.get("pfr"), "af": s.get("af")}
    return out


def last_hand(table_id: int, bot: Player) -> Json | None:
    """The table's last finished round as the bot's owner may see it (results only)."""
    hand = (Hand.objects.filter(table_id=table_id, ended_at__isnull=False)
            .order_by("-id").values_list("pk", flat=True).first())
    if hand is None:
        return None
    history = selectors.hand_history(hand, bot.owner)
    players = []
    for p in history["players"]:
        entry = {"seat": p["seat"], "name": p["name"], "net": p["net"]}
        if p.get("score") is not None:
            entry["score"] = p["score"]
        if p.get("cards"):
            entry["cards"] = p["cards"]
        players.append(entry)
    return {"hand": history["id"], "number": history["number"], "players": players}


def state(table_id: Any, bot: Player, *, with_last: bool = False) -> Json:
    """The bot's view: ``text`` for the model, the rest (JSON) for programs. With
    ``with_last`` (get_state, and a wait that did not end on the bot's turn) also the
    last finished hand's result and an up-to-date HUD."""
    table_id = _table_id(table_id)
    snap = selectors.snapshot(table_id, bot.owner, bot)
    turn = snap.pop("your_turn")
    hud = _hud(snap, fresh=with_last)
    out: Json = {
        "table": table_id, "version": snap["version"], "hand": snap["hand"],
        "seats_mine": snap["you"]["seats"], "your_turn": turn is not None,
        "game": snap["info"]["game"], "status": snap["info"]["status"],
        "turn_seconds": snap["info"]["turn_seconds"],
        "moves": turn["moves"] if turn else [],
        "time_left": turn["time_left"] if turn else None,
        "view": turn["view"] if turn else snap["state"],
        "seats": snap["seats"], "hud": hud,
        "seat_commands": ["away", "back",
                          *((snap["info"].get("game_info") or {}).get("seat_commands") or [])],
        "chat": snap["chat"][-5:],
    }
    if snap["info"].get("standings"):
        out["standings"] = snap["info"]["standings"]
    text = render.render(snap, turn, hud)
    if with_last:
        out["last_hand"] = last_hand(table_id, bot)
        if out["last_hand"]:
            text += "\nLast finished hand: " + render.compact(out["last_hand"])
    out["text"] = text
    return out


def get_state(bot: Player, table_id: Any) -> Json:
    return state(table_id, bot, with_last=True)


# ------------------------------------------------------------------ commands


def create_table(bot: Player, name: Any, game: Any = "holdem", settings: Any = None,
                 turn_seconds: Any = 60) -> Json:
    if not isinstance(name, str) or len(name) > MAX_NAME:
        raise TableError("bad_name", "A table name is 1 to 80 characters.")
    if not isinstance(game, str) or len(game) > 32:
        raise TableError("unknown_game", "game is a game's key, e.g. holdem or dice.")
    settings = {} if settings is None else settings
    if not isinstance(settings, dict):
        raise TableError("bad_settings", "settings is a JSON object.")
    _json_size(settings, MAX_SETTINGS_BYTES, "settings")
    assert bot.owner is not None
    try:
        table = services.create_table(creator=bot.owner, name=name, game=game,
                                      settings=settings, turn_seconds=turn_seconds)
    except (DataError, OverflowError):
        raise TableError("bad_settings", "A setting is too large.") from None
    return {"table": table.pk, "name": table.name, "game": table.game,
            "game_name": table.game_name, "seats": table.seat_count,
            "turn_seconds": table.turn_seconds, "settings": table.settings}


def sit(bot: Player, table_id: Any, seat: Any = None, buy_in: Any = None,
        options: Any = None, auto_muck: bool = True) -> Json:
    table_id = _table_id(table_id)
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise TableError("table_not_found", f"There is no table {table_id}.")
    options = {} if options is None else options
    if not isinstance(options, dict) or any(k in ("type", "seat", "player") for k in options):
        raise TableError("malformed_message", "options is a JSON object of the game's seat "
                         "options (poker: buy_in).")
    _json_size(options, MAX_PARAMS_BYTES, "options")
    command: Json = {"type": "sit", **services.default_seat_options(table), **options}
    if buy_in is not None:
        command["buy_in"] = buy_in
    if seat is None:
        taken = {s.number for s in table.seats.all()}
        seat = next((n for n in range(table.seat_count) if n not in taken), None)
        if seat is None:
            raise TableError("table_full", "Every seat at this table is taken.")
    command["seat"] = seat
    assert bot.owner is not None
    services.execute(table_id=table_id, user=bot.owner, command=command, bot=bot)
    if auto_muck:  # the game's formalities (poker: show or muck) answered by the server
        services.execute(table_id=table_id, user=bot.owner, bot=bot,
                         command={"type": "skip_formalities", "on": True})
    return state(table_id, bot)


def act(bot: Player, table_id: Any, kind: Any, params: Any = None, reason: Any = None) -> Json:
    table_id = _table_id(table_id)
    if not isinstance(kind, str) or not 1 <= len(kind) <= MAX_KIND:
        raise TableError("malformed_action", "kind is one of your legal moves' kinds.")
    params = {} if params is None else params
    if not isinstance(params, dict) or "kind" in params:
        raise TableError("malformed_action", "params is a JSON object of the move's "
                         "parameters (e.g. {\"amount\": 12}).")
    _json_size(params, MAX_PARAMS_BYTES, "params")
    assert bot.owner is not None
    snap = selectors.snapshot(table_id, bot.owner, bot)
    turn = snap["your_turn"]
    if not snap["you"]["seats"]:
        raise TableError("not_seated", "You have no seat at this table.")
    if turn is None:
        raise TableError("not_your_turn", "It is not your turn to act.")
    command: Json = {"type": "act", "hand": turn["hand"], "version": turn["version"],
                     "seat": turn["seat"], "action": {**params, "kind": kind}}
    if reason is not None:
        command["reason"] = reason
    services.execute(table_id=table_id, user=bot.owner, command=command, bot=bot)
    out = state(table_id, bot)
    out["accepted"] = {"kind": kind, **params}
    return out


def seat_command(bot: Player, table_id: Any, command: Any, params: Any = None) -> Json:
    """One of the game's own seat commands (poker: sit_out, sit_in, wait_for_bb,
    add_chips with ``amount``), or away / back."""
    table_id = _table_id(table_id)
    if not isinstance(command, str) or command in ("sit", "leave", "act") \
            or len(command) > MAX_KIND:
        raise TableError("unknown_type", "command is one of the game's seat commands "
                         "(see seat_commands in get_state), or away / back.")
    params = {} if params is None else params
    if not isinstance(params, dict) or any(k in ("type", "seat", "player") for k in params):
        raise TableError("malformed_message", "params is a JSON object (e.g. {\"amount\": 200}).")
    _json_size(params, MAX_PARAMS_BYTES, "params")
    assert bot.owner is not None
    services.execute(table_id=table_id, user=bot.owner, bot=bot,
                     command={**params, "type": command})
    return state(table_id, bot)


def chat(bot: Player, table_id: Any, text: Any) -> Json:
    table_id = _table_id(table_id)
    assert bot.owner is not None
    message = services.chat(table_id=table_id, user=bot.owner, text=text, bot=bot)
    return {"table": table_id, "id": message.pk, "name": message.name,
            "message": message.text}


def leave(bot: Player, table_id: Any) -> Json:
    table_id = _table_id(table_id)
    assert bot.owner is not None
    result = services.execute(table_id=table_id, user=bot.owner, command={"type": "leave"},
                              bot=bot)
    bot.refresh_from_db(fields=["balance"])
    still = bot.seats.filter(table_id=table_id).exists()
    return {"table": table_id, "version": result.version, "balance": bot.balance,
            "left": not still,
            "note": "" if not still else "You leave when the current hand ends."}


# ------------------------------------------------------------------ matches


def start_match(bot: Player, settings: Any) -> Json:
    assert bot.owner is not None
    if not bot.owner.can_manage_bots:
        raise TableError("not_allowed", "Only a tester's or superuser's bot may start matches.")
    if not isinstance(settings, dict):
        raise TableError("bad_match", "The match is a JSON object.")
    _json_size(settings, MAX_SETTINGS_BYTES, "The match")
    if any(not isinstance(b, str) for b in settings.get("bots") or []):
        raise TableError("bad_match", "bots are house bot names (remote bots cannot be "
                         "started from here).")
    try:
        match = research_services.create_match(settings_data=settings, user=bot.owner)
    except ValueError as error:
        raise TableError("bad_match", str(error)) from None
    return _match(research_selectors.match_json(match))


def match_status(bot: Player, match_id: Any) -> Json:
    if type(match_id) is not int or not 0 < match_id < 2**63:
        raise TableError("malformed_message", "match_id is a match's id.")
    match = research_selectors.matches().filter(pk=match_id).first()
    if match is None:
        raise TableError("match_not_found", f"There is no match {match_id}.")
    return _match(research_selectors.match_json(match))


def _match(data: Json) -> Json:
    results = data.get("results") or {}
    return {"id": data["id"], "title": data["title"], "status": data["status"],
            "settings": data["settings"], "error": data["error"],
            "error_code": data["error_code"],
            "results": {k: results[k] for k in ("hands", "seconds", "bots", "crosstable")
                        if k in results}}
