"""Read-only queries for the lobby, the table page, hand lists and statistics.

Everything here reads; every write goes through :mod:`tables.services`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from accounts.models import Player
from engine.errors import EngineError
from engine.registry import GAMES
from tables import handlog
from tables import selectors as table_selectors
from tables.models import Hand, HandPlayer, Seat, Standing, Table, TableStatus

Json = dict[str, Any]
STATS_WINDOW = timedelta(hours=1)  # average pot and hands/hour look at the last hour
# Columns every table has (sorted on the row itself); any other sort key is a listing
# fact (``Table.facts``): Hold'em's structure, big_blind, min_buy_in..., another game's own.
ROW_SORT_KEYS = ("name", "game_name", "seat_count", "taken", "free", "avg_pot",
                 "hands_per_hour", "turn_seconds")
SORT_KEYS = (*ROW_SORT_KEYS, "structure", "big_blind", "min_buy_in")  # the lobby's buttons
FACT_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
MAX_ROWS = 500
# Tables the lobby lists: closed ones (abandoned) and finished ones (the game ended,
# standings stored) have left it.
GONE = (TableStatus.CLOSED, TableStatus.FINISHED)


@dataclass(frozen=True)
class TableFilter:
    """What the lobby asked for; every field optional (V5, V6).

    ``structure`` and the big-blind bounds are Hold'em's listing facts: they match only
    tables whose game has those facts (another game's tables are left out)."""

    text: str = ""  # table name or game name contains
    game: str = ""  # a game's key (engine.registry.GAMES)
    structure: str = ""  # NL / PL / FL
    min_big_blind: int | None = None
    max_big_blind: int | None = None
    seats: int | None = None  # table size
    min_free: int | None = None
    max_turn_seconds: int | None = None
    player: str = ""  # tables where a player of this name sits
    sort: str = "name"  # a row column (ROW_SORT_KEYS) or any listing fact's key
    descending: bool = False

    @classmethod
    def from_query(cls, query: Any) -> TableFilter:
        def number(name: str) -> int | None:
            raw = str(query.get(name, "")).strip()
            ok = raw.isascii() and raw.isdigit() and len(raw) <= 12  # "²" is a digit too
            return int(raw) if ok else None

        def text(name: str, length: int) -> str:  # no NUL: PostgreSQL refuses it
            return str(query.get(name, "")).replace("\x00", "").strip()[:length]

        sort = str(query.get("sort", "name"))
        return cls(
            text=text("q", 80), game=text("game", 32),
            structure=text("structure", 2).upper(),
            min_big_blind=number("bb_min"), max_big_blind=number("bb_max"),
            seats=number("seats"), min_free=number("free"),
            max_turn_seconds=number("turn_max"),
            player=text("player", 40),
            sort=sort if FACT_KEY.fullmatch(sort) else "name",
            descending=query.get("dir") == "desc",
        )


def _pot_of(events: list[Json]) -> int:
    return sum(int(e.get("amount", 0)) for e in events if e.get("type") == "PotAwarded")


def _recent_hand_figures(table_ids: list[int], now: datetime) -> dict[int, tuple[int, int]]:
    """``{table: (hands in the last hour, total of their pots)}`` in one query."""
    figures: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    rows = (Hand.objects.filter(table_id__in=table_ids, ended_at__gte=now - STATS_WINDOW)
            .values_list("table_id", "events"))
    for table_id, events in rows.iterator(chunk_size=500):
        entry = figures[table_id]
        entry[0] += 1
        entry[1] += _pot_of(events or [])
    return {k: (v[0], v[1]) for k, v in figures.items()}


def lobby_tables(flt: TableFilter, now: datetime | None = None) -> list[Json]:
    """Open tables matching the filter, with their seated players, sorted.

    Three queries whatever the number of tables and games: tables (with the seat
    count), their seats with players, and the last hour's hands. Sorting is done here
    (at most :data:`MAX_ROWS` rows), so any listing fact can be a sort key.
    """
    now = now or timezone.now()
    tables: QuerySet[Table] = Table.objects.exclude(status__in=GONE).annotate(
        taken=Count("seats", distinct=True))
    if flt.text:
        tables = tables.filter(Q(name__icontains=flt.text) | Q(game_name__icontains=flt.text))
    if flt.game:
        tables = tables.filter(game=flt.game)
    if flt.structure in ("NL", "PL", "FL"):
        tables = tables.filter(structure=flt.structure)
    if flt.min_big_blind is not None or flt.max_big_blind is not None:
        # Hold'em's fact: a table of a game without a big blind does not match.
        tables = tables.filter(facts__has_key="big_blind")
    if flt.min_big_blind is not None:
        tables = tables.filter(big_blind__gte=flt.min_big_blind)
    if flt.max_big_blind is not None:
        tables = tables.filter(big_blind__lte=flt.max_big_blind)
    if flt.seats is not None:
        tables = tables.filter(seat_count=flt.seats)
    if flt.max_turn_seconds is not None:
        tables = tables.filter(turn_seconds__lte=flt.max_turn_seconds)
    if flt.player:
        tables = tables.filter(seats__player__name__icontains=flt.player).distinct()
    seats = Seat.objects.select_related("player").order_by("number")
    tables = tables.prefetch_related(Prefetch("seats", queryset=seats, to_attr="seat_rows"))
    rows = list(tables.order_by("name")[:MAX_ROWS])
    figures = _recent_hand_figures([t.pk for t in rows], now)
    out = []
    for table in rows:
        count, pots = figures.get(table.pk, (0, 0))
        free = table.seat_count - table.taken
        if flt.min_free is not None and free < flt.min_free:
            continue
        facts = table.facts if isinstance(table.facts, dict) else {}
        out.append({
            "id": table.pk, "name": table.name, "game": table.game,
            "game_name": table.game_name, "rules": table.rules, "facts": facts,
            "cells": fact_cells(table.game, facts),
            "structure": table.structure, "small_blind": table.small_blind,
            "big_blind": table.big_blind, "ante": table.ante, "stakes":
                f"{table.small_blind}/{table.big_blind}",
            "seat_count": table.seat_count, "taken": table.taken, "free": free,
            "min_buy_in": table.min_buy_in, "max_buy_in": table.max_buy_in,
            "turn_seconds": table.turn_seconds, "status": table.status,
            "avg_pot": round(pots / count, 1) if count else 0,
            "hands_per_hour": count,
            "players": [{"seat": s.number, "name": s.player.name, "stack": s.stack,
                         "is_bot": s.player.is_bot, "state": s.state,
                         "match": bool(flt.player)
                         and flt.player.lower() in s.player.name.lower()}
                        for s in table.seat_rows],
            "url": f"/tables/{table.pk}/",
        })
    return sort_rows(out, flt.sort, flt.descending)


def _sort_value(row: Json, key: str) -> Any:
    return row.get(key) if key in ROW_SORT_KEYS else row["facts"].get(key)


def _order(value: Any) -> tuple[int, Any]:
    """Numbers before text (case-insensitive) before anything else."""
    if isinstance(value, bool | int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value.lower())
    return (2, repr(value))


def sort_rows(rows: list[Json], key: str, descending: bool = False) -> list[Json]:
    """Rows by a row column or a listing fact; rows without the value (another game's
    tables, no maximum buy-in) come last either way; ties keep the name order."""
    present = [r for r in rows if _sort_value(r, key) is not None]
    missing = [r for r in rows if _sort_value(r, key) is None]
    present.sort(key=lambda r: _order(_sort_value(r, key)), reverse=descending)
    return present + missing


# --------------------------------------------------------- the fact columns


@dataclass(frozen=True)
class Column:
    """A lobby column from a game's listing facts: ``key`` names the cell in a row's
    ``cells``, ``sort`` the fact it sorts by."""

    key: str
    label: str
    sort: str
    num: bool = False

    def to_json(self) -> Json:
        return {"key": self.key, "label": self.label, "sort": self.sort, "num": self.num}


def _holdem_cells(facts: Json) -> dict[str, str]:
    small, big, ante = facts.get("small_blind"), facts.get("big_blind"), facts.get("ante")
    if facts.get("bring_in"):  # stud: small bet / big bet, bring-in
        stakes = f"{big}/{2 * big} bi{facts['bring_in']}" if isinstance(big, int) else ""
    elif "small_blind" not in facts:  # no blinds (sökö): the minimum bet
        stakes = f"bet {big}"
    else:
        stakes = f"{small}/{big}"
    stakes += f" a{ante}" if ante else ""
    return {"structure": str(facts.get("structure", "")), "stakes": stakes}


# Games whose facts read better folded into columns of their own (Hold'em keeps the
# lobby's first columns: Limit, and Stakes as "small/big aAnte" sorted by the big blind).
# Every poker variant (the games drawn by the poker board) lists the same way.
COLUMN_OVERRIDES: dict[str, tuple[tuple[Column, ...], Any]] = {
    key: ((Column("structure", "Limit", "structure"),
           Column("stakes", "Stakes", "big_blind", num=True)), _holdem_cells)
    for key, game in GAMES.items() if key == "holdem" or game.info.client == "holdem"
}


def _schema_properties(game: str) -> dict[str, Json]:
    try:
        props = GAMES[game].settings_schema().get("properties", {})
    except (KeyError, AttributeError, TypeError):
        return {}
    return {k: v for k, v in props.items() if isinstance(v, dict)} if isinstance(
        props, dict) else {}


def _default_fact_keys(game: str) -> list[str]:
    """The facts a table of ``game`` with the default settings lists (no table needed)."""
    engine_game = GAMES.get(game)
    if engine_game is None:
        return []
    try:
        return list(engine_game.listing(engine_game.validate_settings({})).facts)
    except (EngineError, TypeError, KeyError, ValueError, AttributeError):
        return []


def label_of(game: str, key: str, props: dict[str, Json] | None = None) -> str:
    """A fact's or setting's label: the settings schema's ``title`` if the key is a
    setting, else the key in words."""
    spec = (props if props is not None else _schema_properties(game)).get(key, {})
    return str(spec.get("title") or key.replace("_", " ").capitalize())


def text_of(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(text_of(v) for v in value)
    return str(value)


def game_columns(game: str, seen: Iterable[str] = ()) -> list[Column]:
    """The fact columns of a game: its override, else one per listing fact (the facts
    of its default settings and those its tables have), in settings-schema order."""
    if game in COLUMN_OVERRIDES:
        return list(COLUMN_OVERRIDES[game][0])
    props = _schema_properties(game)
    keys = dict.fromkeys([*_default_fact_keys(game), *seen])
    order = {name: i for i, name in enumerate(props)}
    ordered = sorted(keys, key=lambda k: (order.get(k, len(order)), k))
    return [Column(k, label_of(game, k, props), k) for k in ordered if FACT_KEY.fullmatch(k)]


def fact_cells(game: str, facts: Json) -> dict[str, str]:
    """A table's cells in its game's fact columns, as text."""
    if game in COLUMN_OVERRIDES:
        return COLUMN_OVERRIDES[game][1](facts)
    return {k: text_of(v) for k, v in facts.items()}


def lobby_columns(rows: list[Json], game: str = "") -> list[Json]:
    """The fact columns of a listing: those of the filtered game, else of every game
    listed (registry order; a column key shared by two games is one column), else of
    the default game. A cell of a column another game defines stays empty."""
    if game:
        games = [game]
    else:
        present = {r["game"] for r in rows}
        games = [k for k in GAMES if k in present] + sorted(present - set(GAMES))
        games = games or list(GAMES)[:1]
    seen: dict[str, dict[str, None]] = defaultdict(dict)
    for row in rows:
        seen[row["game"]].update(dict.fromkeys(row["facts"]))
    columns: dict[str, Column] = {}
    for key in games:
        for column in game_columns(key, seen.get(key, {})):
            columns.setdefault(column.key, column)
    numeric = {c.key for c in columns.values() if any(
        isinstance(r["facts"].get(c.sort), int | float)
        and not isinstance(r["facts"].get(c.sort), bool) for r in rows)}
    return [{**c.to_json(), "num": c.num or c.key in numeric} for c in columns.values()]


# --------------------------------------------------------------- leaderboards

RULES_DIGEST = re.compile(r"[0-9a-f]{40}")  # tables.runtime.rules_digest


def rule_sets(game: str, digests: Iterable[str]) -> dict[str, Json]:
    """``{digest: {"rules", "game_name", "settings"}}`` of a game's rule sets (one
    query): the settings of a table created with them."""
    wanted = set(digests)
    out: dict[str, Json] = {}
    if not wanted:
        return out
    rows = (Table.objects.filter(game=game, rules__in=wanted).order_by("rules", "id")
            .values_list("rules", "game_name", "settings"))
    for digest, game_name, settings in rows:
        out.setdefault(digest, {"rules": digest, "game_name": game_name,
                                "settings": settings})
    return out


def finished_rule_sets(game: str, limit: int = 50) -> list[Json]:
    """The rule sets of ``game`` with at least one finished game (two queries)."""
    digests = list(Standing.objects.filter(game=game).order_by("rules")
                   .values_list("rules", flat=True).distinct()[:limit])
    found = rule_sets(game, digests)
    return sorted(found.values(), key=lambda r: (r["game_name"].lower(), r["rules"]))


def settings_rows(game: str, settings: Json) -> list[tuple[str, str]]:
    """A rule set's settings as (label, value) for people: schema order and titles,
    enum values by their ``enumTitles``."""
    props = _schema_properties(game)
    order = {name: i for i, name in enumerate(props)}
    out = []
    for key in sorted(settings, key=lambda k: (order.get(k, len(order)), k)):
        value = settings[key]
        titles = props.get(key, {}).get("enumTitles") or {}
        text = str(titles.get(str(value), text_of(value))) if isinstance(titles, dict) \
            else text_of(value)
        out.append((label_of(game, key, props), text))
    return out


def leaderboard(game: str, rules: str = "", limit: int = 10, rule_set: str = "") -> list[Json]:
    """:func:`tables.selectors.leaderboard` with each entry's table name, rule set and
    that rule set's name (one query more)."""
    entries = table_selectors.leaderboard(game, rules or None, limit, rule_set=rule_set or None)
    tables = {pk: (name, digest, game_name) for pk, name, digest, game_name in
              Table.objects.filter(pk__in={e["table"] for e in entries})
              .values_list("pk", "name", "rules", "game_name")} if entries else {}
    for entry in entries:
        name, digest, game_name = tables.get(entry["table"], ("", "", ""))
        entry.update(table_name=name, rules=digest, game_name=game_name)
    return entries


# ------------------------------------------------------------ the table page


def seatable_players(user: Any, table: Table) -> list[Json]:
    """Who this user may put into a free seat: own live players and bots not seated
    here; for testers and superusers also the house bots (V33)."""
    if not getattr(user, "is_authenticated", False):
        return []
    seated = set(Seat.objects.filter(table=table).values_list("player_id", flat=True))
    out = []
    for player in Player.objects.live().filter(owner=user).order_by("-kind", "name"):
        if player.pk in seated:
            continue
        if player.is_bot and not user.can_manage_bots:
            continue
        if not player.is_bot and not user.can_play:
            continue
        out.append({"id": player.pk, "name": player.name, "kind": player.kind,
                    "house": False})
    if user.can_manage_bots:
        house = (Player.objects.live().exclude(house_strategy="").exclude(pk__in=seated)
                 .exclude(owner=user).order_by("name"))
        out += [{"id": p.pk, "name": p.name, "kind": "bot", "house": True,
                 "strategy": p.house_strategy} for p in house]
    return out


def house_seats(table: Table) -> list[int]:
    """Seats at this table held by house bots (testers may remove them)."""
    return list(Seat.objects.filter(table=table).exclude(player__house_strategy="")
                .values_list("number", flat=True))


def current_hand_log(table: Table, user: Any) -> Json:
    """The running round's events so far, as ``user`` may see them (the same
    projection as the live messages: :func:`tables.selectors.visible_events`)."""
    hand = table.current_hand
    if hand is None:
        return {"hand": None, "number": None, "events": []}
    if table.replay_from is not None:  # (a live table's round: its logs in steps too)
        handlog.attach_steps([hand])
    own: list[int] = []
    if getattr(user, "is_authenticated", False):
        own = list(Seat.objects.filter(table=table, player__owner=user)
                   .values_list("number", flat=True))
    viewer = table_selectors.viewer_for(user, own)
    return {"hand": hand.pk, "number": hand.number,
            "events": table_selectors.visible_events(hand, viewer)}


def account_summary(user: Any) -> Json:
    """The user's game account for the table's account panel (V32)."""
    from accounts.selectors import ledger_of, players_of

    players = list(players_of(user))
    seats = {s.player_id: s for s in Seat.objects.filter(player__in=players)
             .select_related("table")}
    ledger = list(ledger_of(user)[:15])
    return {
        "balance": sum(p.balance for p in players),
        "players": [{"id": p.pk, "name": p.name, "kind": p.kind, "balance": p.balance,
                     "table": seats[p.pk].table.name if p.pk in seats else None,
                     "table_id": seats[p.pk].table_id if p.pk in seats else None}
                    for p in players],
        "ledger": [{"at": e.created_at.isoformat(), "player": e.player.name, "kind":
                    e.get_kind_display(), "amount": e.amount, "note": e.note}
                   for e in ledger],
    }


# ---------------------------------------------------------- histories, stats


def hands_of_table(table: Table, limit: int = 200) -> list[Hand]:
    return list(Hand.objects.filter(table=table, ended_at__isnull=False)
                .prefetch_related("players").order_by("-number")[:limit])


def hands_of_player(player: Player, limit: int = 200) -> list[HandPlayer]:
    return list(HandPlayer.objects.filter(player=player, hand__ended_at__isnull=False)
                .select_related("hand", "hand__table").order_by("-hand_id")[:limit])


def chart_points(curve: list[int], width: int = 640, height: int = 220,
                 pad: int = 28) -> Json:
    """SVG coordinates of the cumulative-winnings line (server-rendered, no JS)."""
    lo, hi = min(*curve, 0), max(*curve, 0)
    span = (hi - lo) or 1
    steps = max(len(curve) - 1, 1)

    def xy(i: int, v: int) -> tuple[float, float]:
        x = pad + (width - 2 * pad) * i / steps
        y = pad + (height - 2 * pad) * (hi - v) / span
        return round(x, 1), round(y, 1)

    points = " ".join(f"{x},{y}" for x, y in (xy(i, v) for i, v in enumerate(curve)))
    zero_y = xy(0, 0)[1]
    return {"points": points, "zero_y": zero_y, "width": width, "height": height,
            "hi": hi, "lo": lo, "last": curve[-1], "hands": len(curve) - 1,
            "pad": pad, "right": width - pad, "bottom": height - pad}
