"""Read-only queries for the lobby, the table page, hand lists and statistics.

Everything here reads; every write goes through :mod:`tables.services`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from accounts.models import Player
from tables import selectors as table_selectors
from tables.models import Hand, HandPlayer, Seat, Table, TableStatus

Json = dict[str, Any]
STATS_WINDOW = timedelta(hours=1)  # average pot and hands/hour look at the last hour
SORT_KEYS = ("name", "game_name", "structure", "big_blind", "seat_count", "taken", "free",
             "avg_pot", "hands_per_hour", "turn_seconds", "min_buy_in")
MAX_ROWS = 500


@dataclass(frozen=True)
class TableFilter:
    """What the lobby asked for; every field optional (V5, V6)."""

    text: str = ""  # table name or game name contains
    structure: str = ""  # NL / PL / FL
    min_big_blind: int | None = None
    max_big_blind: int | None = None
    seats: int | None = None  # table size
    min_free: int | None = None
    max_turn_seconds: int | None = None
    player: str = ""  # tables where a player of this name sits
    sort: str = "name"
    descending: bool = False

    @classmethod
    def from_query(cls, query: Any) -> TableFilter:
        def number(name: str) -> int | None:
            raw = str(query.get(name, "")).strip()
            return int(raw) if raw.isdigit() else None

        sort = query.get("sort", "name")
        return cls(
            text=query.get("q", "").strip()[:80],
            structure=query.get("structure", "").strip().upper()[:2],
            min_big_blind=number("bb_min"), max_big_blind=number("bb_max"),
            seats=number("seats"), min_free=number("free"),
            max_turn_seconds=number("turn_max"),
            player=query.get("player", "").strip()[:40],
            sort=sort if sort in SORT_KEYS else "name",
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

    Three queries whatever the number of tables: tables (with the seat count),
    their seats with players, and the last hour's hands.
    """
    now = now or timezone.now()
    tables: QuerySet[Table] = Table.objects.exclude(status=TableStatus.CLOSED).annotate(
        taken=Count("seats", distinct=True))
    if flt.text:
        tables = tables.filter(Q(name__icontains=flt.text) | Q(game_name__icontains=flt.text))
    if flt.structure in ("NL", "PL", "FL"):
        tables = tables.filter(structure=flt.structure)
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
        out.append({
            "id": table.pk, "name": table.name, "game_name": table.game_name,
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
    out.sort(key=lambda row: (row[flt.sort] if not isinstance(row[flt.sort], str)
                              else row[flt.sort].lower()), reverse=flt.descending)
    return out


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
