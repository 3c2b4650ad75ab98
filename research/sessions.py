"""Research sessions (docs/sessions.md): a named set of hands and what it gives.

A :class:`~research.models.Session` names some tables, a time window and some
players, each optional. :func:`session_hands` is its hands: finished rounds of those
tables (every table when none is chosen), started in ``[start, end)``, in which at
least one chosen player sat. From them:

* :func:`compute` — per player every statistic of the statistics page plus the
  counters :mod:`botkit.stats` adds (fold to bet per street, 3-bet, fold to 3-bet,
  c-bet), the net from the stored round results and the cumulative-winnings series;
* :func:`ledger_nets` — the same nets read from the accounts ledger (buy-ins and
  cash-outs at the session's tables plus the chips still on them), which equal the
  hands' nets when the session covers the players' whole stays;
* :func:`phh_chunks` / :func:`csv_chunks` — one ``.phhs`` file and one CSV (one row
  per player per hand, :data:`CSV_COLUMNS`), streamed: hands are read with
  ``.iterator()`` in chunks, never all at once.

The same for a batch match (:class:`~research.models.MatchRun`): its stored ``.phhs``
text (small matches, ``RESEARCH["PHH_MAX_HANDS"]``) is replayed through the engine
(:func:`match_stats`, :func:`match_csv_chunks`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.core.handlers.asgi import ASGIRequest
from django.db import transaction
from django.db.models import QuerySet, Sum
from django.http import StreamingHttpResponse
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from accounts.models import LedgerEntry, LedgerKind, Player
from accounts.validators import text_problem
from botkit.positions import position_name
from botkit.stats import PhhHand, hand_stats, phhs_hands
from botkit.stats import PlayerStats as Counters
from engine.registry import GAMES
from tables.models import Hand, HandPlayer, Seat, Table
from tables.selectors import export_round, history_viewer

from .models import MatchRun, Session
from .selectors import thinned_cumulative

Json = dict[str, Any]

MAX_TABLES = 100
MAX_PLAYERS = 100
MAX_NAME = 120
MAX_NOTES = 5000
SERIES_POINTS = 500  # points per cumulative-winnings line, about
CHART_LINES = 10  # lines on the chart: the players with the most hands
SERIES_LINES = 50  # series in the API answer: the players with the most hands
CHUNK = 500  # hands per database round trip when streaming
MATCH_CACHE_SECONDS = 24 * 3600


class SessionError(ValueError):
    """Refused session input: a stable ``code``, a sentence and the field it is about."""

    def __init__(self, code: str, message: str, field_name: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field_name

    def to_json(self) -> Json:
        return {"code": self.code, "message": self.message, "field": self.field}


# ------------------------------------------------------------------ input


def parse_time(value: Any, name: str, *, end: bool = False) -> datetime | None:
    """An ISO date or date-time (``2026-11-25``, ``2026-11-25T14:00``, with or without
    an offset; naive times are the server's time zone). A bare date as ``end`` means
    the end of that day. Empty is None. Raises :class:`SessionError` ``bad_time``."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time.min)
        if end:
            moment = datetime.combine(value, time.max)
    elif isinstance(value, str) and len(value) <= 40:
        text = value.strip()
        try:  # a bare date first: parse_datetime reads one as midnight
            day = parse_date(text) if len(text) == 10 else None
            parsed = None if day is not None else parse_datetime(text)
        except ValueError:
            parsed = day = None
        if parsed is not None:
            moment = parsed
        elif day is not None:
            moment = datetime.combine(day, time.max if end else time.min)
        else:
            raise SessionError("bad_time", f"“{name}” is an ISO date or date-time "
                               "(e.g. 2026-11-25 or 2026-11-25T14:00:00Z).", name)
    else:
        raise SessionError("bad_time", f"“{name}” is an ISO date or date-time.", name)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _list(value: Any, name: str, limit: int) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list | tuple):
        raise SessionError("invalid_request", f"“{name}” is a list.", name)
    if len(value) > limit:
        raise SessionError(f"too_many_{name}", f"A session names at most {limit} {name}.", name)
    return list(value)


def resolve_tables(value: Any) -> list[Table]:
    """Tables by id (or by name): ``unknown_table`` for one that does not exist."""
    found: list[Table] = []
    for item in _list(value, "tables", MAX_TABLES):
        table = None
        if isinstance(item, int) and not isinstance(item, bool) and 0 < item < 2**62:
            table = Table.objects.filter(pk=item).first()
        elif isinstance(item, str) and item.isdigit() and len(item) < 19:
            table = Table.objects.filter(pk=int(item)).first()
        elif isinstance(item, str) and len(item) <= 80:
            table = Table.objects.filter(name=item).first()
        if table is None:
            raise SessionError("unknown_table", f"There is no table {str(item)[:80]!r}.",
                               "tables")
        if table not in found:
            found.append(table)
    return found


def resolve_players(value: Any) -> list[Player]:
    """Players by name (any case) or id: ``unknown_player`` for one that does not exist."""
    found: list[Player] = []
    for item in _list(value, "players", MAX_PLAYERS):
        player = None
        if isinstance(item, int) and not isinstance(item, bool) and 0 < item < 2**62:
            player = Player.objects.filter(pk=item).first()
        elif isinstance(item, str) and len(item) <= 64:
            player = Player.objects.filter(name__iexact=item).first()
        if player is None:
            raise SessionError("unknown_player", f"There is no player {str(item)[:64]!r}.",
                               "players")
        if player not in found:
            found.append(player)
    return found


def validate(data: Mapping[str, Any], *, partial: bool = False) -> Json:
    """Checked session fields (only those given when ``partial``): ``name``,
    ``tables`` (Table rows), ``players`` (Player rows), ``start``, ``end``, ``notes``.
    Raises :class:`SessionError` with a stable code."""
    out: Json = {}
    if "name" in data or not partial:
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise SessionError("invalid_name", "A session needs a name.", "name")
        name = name.strip()
        if len(name) > MAX_NAME:
            raise SessionError("invalid_name", f"A name is at most {MAX_NAME} characters.",
                               "name")
        if (problem := text_problem(name)) is not None:
            raise SessionError("invalid_text", problem, "name")
        out["name"] = name
    if "notes" in data:
        notes = data.get("notes") or ""
        if not isinstance(notes, str) or len(notes) > MAX_NOTES:
            raise SessionError("invalid_notes", f"Notes are text of at most {MAX_NOTES} "
                               "characters.", "notes")
        if (problem := text_problem(notes, multiline=True)) is not None:
            raise SessionError("invalid_text", problem, "notes")
        out["notes"] = notes
    for key in ("start", "end"):
        if key in data:
            out[key] = parse_time(data.get(key), key, end=key == "end")
    if "tables" in data:
        out["tables"] = resolve_tables(data.get("tables"))
    if "players" in data:
        out["players"] = resolve_players(data.get("players"))
    return out


@transaction.atomic
def save_session(*, user: Any, data: Mapping[str, Any], session: Session | None = None) -> Session:
    """Create a session for ``user`` or change ``session`` (only the fields given)."""
    clean = validate(data, partial=session is not None)
    start = clean.get("start", session.start if session else None)
    end = clean.get("end", session.end if session else None)
    if start is not None and end is not None and start >= end:
        raise SessionError("bad_time_window", "The start must be before the end.", "end")
    if session is None:
        session = Session(created_by=user)
    for key in ("name", "notes", "start", "end"):
        if key in clean:
            setattr(session, key, clean[key])
    session.save()
    if "tables" in clean:
        session.tables.set(clean["tables"])
    if "players" in clean:
        session.players.set(clean["players"])
    return session


def sees_every_session(user: Any) -> bool:
    return bool(getattr(user, "can_manage_users", False))


def sessions_of(user: Any) -> QuerySet[Session]:
    """The sessions ``user`` may see: their own; a superuser every one."""
    sessions = Session.objects.select_related("created_by").prefetch_related("tables",
                                                                             "players")
    if sees_every_session(user):
        return sessions
    return sessions.filter(created_by_id=getattr(user, "pk", None))


def session_json(session: Session) -> Json:
    return {
        "id": session.pk, "name": session.name,
        "created_by": session.created_by.username if session.created_by_id else None,
        "tables": [{"id": t.pk, "name": t.name}
                   for t in sorted(session.tables.all(), key=lambda t: t.pk)],
        "players": [{"id": p.pk, "name": p.name}
                    for p in sorted(session.players.all(), key=lambda p: p.pk)],
        "start": session.start.isoformat() if session.start else None,
        "end": session.end.isoformat() if session.end else None,
        "notes": session.notes,
        "created_at": session.created_at.isoformat(),
        "updated_at": session.updated_at.isoformat(),
    }


# ------------------------------------------------------------------ hands


def filter_hands(*, tables: Iterable[int] | None = None, start: datetime | None = None,
                 end: datetime | None = None,
                 players: Iterable[int] | None = None) -> QuerySet[Hand]:
    """Finished rounds of ``tables`` (all when None or empty), started in
    ``[start, end)``, with at least one of ``players`` (player ids) among them, in
    the order they were played."""
    hands = Hand.objects.filter(ended_at__isnull=False)
    table_ids = list(tables or [])
    if table_ids:
        hands = hands.filter(table_id__in=table_ids)
    if start is not None:
        hands = hands.filter(started_at__gte=start)
    if end is not None:
        hands = hands.filter(started_at__lt=end)
    player_ids = list(players or [])
    if player_ids:
        hands = hands.filter(pk__in=HandPlayer.objects.filter(player_id__in=player_ids)
                             .values("hand_id"))
    return hands.order_by("pk")


def session_hands(session: Session) -> QuerySet[Hand]:
    return filter_hands(tables=session.tables.values_list("pk", flat=True),
                        start=session.start, end=session.end,
                        players=session.players.values_list("pk", flat=True))


def _streamed(hands: QuerySet[Hand]) -> Iterator[Hand]:
    return hands.select_related("table").prefetch_related("players").iterator(chunk_size=CHUNK)


def _has_stats(game: str) -> bool:
    entry = GAMES.get(game)
    return bool(entry is not None and entry.info.stats)


def _key(row: HandPlayer) -> str:
    return str(row.player_id) if row.player_id is not None else f"name:{row.name}"


@dataclass
class _Series:
    """Cumulative nets sampled every ``step`` hands of the session, for every player."""

    step: int
    hands: list[int] = field(default_factory=list)
    lines: dict[str, list[int]] = field(default_factory=dict)

    def sample(self, index: int, totals: Mapping[str, int]) -> None:
        for key, total in totals.items():
            self.lines.setdefault(key, [0] * len(self.hands)).append(total)
        self.hands.append(index)


def compute(hands: QuerySet[Hand], *, points: int = SERIES_POINTS,
            chosen: Sequence[int] = ()) -> Json:
    """Statistics of a set of hands, per player: ``{"hands": n, "players": [{"id",
    "name", "chosen", "hands", "net", "net_bb", "stats": {...}}],
    "cumulative": {"step", "hands": [...], "series": {name: [...]}}}``.

    ``net`` is the sum of the stored round results (``HandPlayer.net``); the tracker
    statistics (``stats``) count the poker hands (games with statistics). Players are
    listed by net, best first; ``chosen`` marks the session's players.
    """
    total = hands.count()
    series = _Series(step=max(1, total // points) if points else 1)
    counters: dict[str, Counters] = {}
    nets: dict[str, int] = {}
    rounds: dict[str, int] = {}
    names: dict[str, str] = {}
    index = 0
    for hand in _streamed(hands):
        index += 1
        rows = list(hand.players.all())
        if _has_stats(hand.table.game):
            _, per_seat = hand_stats(hand.events)
            big_blind = hand.table.big_blind or 1
            for row in rows:
                stats = per_seat.get(row.seat)
                if stats is None:
                    continue
                stats.net_bb = stats.net / big_blind
                for position in stats.positions.values():
                    position.net_bb = stats.net_bb
                counters.setdefault(_key(row), Counters()).merge(stats)
        for row in rows:
            key = _key(row)
            names.setdefault(key, row.name)
            nets[key] = nets.get(key, 0) + row.net
            rounds[key] = rounds.get(key, 0) + 1
        if index % series.step == 0 or index == total:
            series.sample(index, nets)
    ids = [int(k) for k in names if k.isdigit()]
    names.update({str(pk): name for pk, name in
                  Player.objects.filter(pk__in=ids).values_list("pk", "name")})
    players = []
    for key in sorted(names, key=lambda k: (-nets[k], names[k].lower())):
        stats = counters.get(key)
        players.append({
            "id": int(key) if key.isdigit() else None, "name": names[key],
            "chosen": key.isdigit() and int(key) in chosen,
            "hands": rounds[key], "net": nets[key],
            "net_bb": stats.net_bb if stats else None,
            "stats": stats.summary() if stats else None,
        })
    busiest = sorted(names, key=lambda k: (-rounds[k], names[k].lower()))[:SERIES_LINES]
    return {
        "hands": total, "players": players,
        "cumulative": {"step": series.step, "hands": series.hands,
                       "series": {names[k]: series.lines.get(k, []) for k in busiest}},
    }


def session_stats(session: Session) -> Json:
    """:func:`compute` of the session's hands, with the ledger's nets per player."""
    chosen = list(session.players.values_list("pk", flat=True))
    data = compute(session_hands(session), chosen=chosen)
    ledger = ledger_nets(session)
    for row in data["players"]:
        covered = ledger is not None and row["id"] and (not chosen or row["id"] in chosen)
        row["ledger"] = ledger.get(row["id"], 0) if covered and ledger is not None else None
    data["ledger_checked"] = ledger is not None
    return data


def ledger_nets(session: Session) -> dict[int, int] | None:
    """Each player's chips won or lost at the session's tables according to the
    accounts ledger: buy-ins and cash-outs posted for those tables plus the chips
    still in front of the player there. Comparable with the hands' nets only when
    the session is whole tables (no time window); with chosen players, only theirs
    (their every hand at those tables is in the session). None otherwise."""
    table_ids = list(session.tables.values_list("pk", flat=True))
    if not table_ids or session.start is not None or session.end is not None:
        return None
    chosen = list(session.players.values_list("pk", flat=True))
    entries = LedgerEntry.objects.filter(table_id__in=table_ids,
                                         kind__in=(LedgerKind.BUY_IN, LedgerKind.CASH_OUT))
    seats = Seat.objects.filter(table_id__in=table_ids)
    if chosen:
        entries, seats = entries.filter(player_id__in=chosen), seats.filter(player_id__in=chosen)
    result: dict[int, int] = {}
    for player_id, amount in entries.values_list("player_id").annotate(total=Sum("amount")):
        result[player_id] = result.get(player_id, 0) + int(amount or 0)
    for player_id, chips in seats.values_list("player_id").annotate(total=Sum("stack")):
        result[player_id] = result.get(player_id, 0) + int(chips or 0)
    return result


def player_hands(player: Player, *, start: datetime | None = None, end: datetime | None = None,
                 table: int | None = None) -> QuerySet[Hand]:
    """The finished hands of ``player`` in a period and at a table (each optional)."""
    return filter_hands(tables=[table] if table is not None else None, start=start, end=end,
                        players=[player.pk])


def player_stats_filtered(player: Player, *, start: datetime | None = None,
                          end: datetime | None = None, table: int | None = None) -> Json:
    """The statistics page's numbers for ``player`` computed from the hands of a period
    and a table (on the fly): ``{"stats": summary, "cumulative": {...}}``."""
    hands = player_hands(player, start=start, end=end, table=table)
    counters = Counters()
    nets: list[int] = []
    for hand in _streamed(hands):
        rows = [row for row in hand.players.all() if row.player_id == player.pk]
        if not rows:
            continue
        nets.append(sum(row.net for row in rows))
        if not _has_stats(hand.table.game):
            continue
        _, per_seat = hand_stats(hand.events)
        for row in rows:
            stats = per_seat.get(row.seat)
            if stats is not None:
                stats.net_bb = stats.net / (hand.table.big_blind or 1)
                for position in stats.positions.values():
                    position.net_bb = stats.net_bb
                counters.merge(stats)
    summary = counters.summary()
    summary["hands"], summary["net"] = len(nets), sum(nets)
    return {"stats": summary, "cumulative": thinned_cumulative(nets, SERIES_POINTS)}


# ---------------------------------------------------------------- exports

CSV_COLUMNS = (
    "hand_id", "table_id", "table", "game", "hand_number", "started_at", "ended_at",
    "player_id", "player", "seat", "position", "net", "net_bb", "vpip", "pfr", "three_bet",
    "cbet", "saw_flop", "showdown", "won_at_showdown", "won",
)
"""One row per player per hand; documented in docs/sessions.md."""


class _Line:
    """A file-like object whose ``write`` hands back the line (for ``csv.writer``)."""

    def write(self, text: str) -> str:
        return text


def _csv_line(writer: Any, row: Sequence[Any]) -> str:
    return str(writer.writerow(row))


def _flag(stats: Counters, name: str) -> int:
    return int(bool(getattr(stats, name)))


def _cells(stats: Counters | None, position: Any, net: int, big_blind: int) -> list[Any]:
    """The ``position`` .. ``won`` columns of one player in one hand; the tracker
    flags are blank in a game without tracker statistics."""
    net_bb = round(net / big_blind, 4) if big_blind else ""
    if stats is None:
        return [position, net, net_bb, "", "", "", "", "", "", "", int(net > 0)]
    position = next(iter(stats.positions), position)
    return [position, net, net_bb, *(_flag(stats, name) for name in (
        "vpip", "pfr", "three_bets", "cbets", "saw_flop", "showdowns", "won_at_showdown")),
        int(net > 0)]


def csv_chunks(hands: QuerySet[Hand]) -> Iterator[str]:
    """The CSV file of ``hands`` (header first), line by line. ``net`` is the stored
    round result (equal to the statistics' net for poker)."""
    writer = csv.writer(_Line())
    yield _csv_line(writer, CSV_COLUMNS)
    for hand in _streamed(hands):
        per_seat: Mapping[int, Counters] = {}
        if _has_stats(hand.table.game):
            per_seat = hand_stats(hand.events)[1]
        for row in hand.players.all():
            yield _csv_line(writer, [
                hand.pk, hand.table_id, hand.table.name, hand.table.game, hand.number,
                hand.started_at.isoformat(),
                hand.ended_at.isoformat() if hand.ended_at else "",
                row.player_id or "", row.name, row.seat,
                *_cells(per_seat.get(row.seat), row.position, row.net, hand.table.big_blind)])


def phh_chunks(hands: QuerySet[Hand], user: Any) -> Iterator[str]:
    """The ``.phhs`` file of ``hands`` (each hand a ``[<hand id>]`` table) as ``user``
    may see them: hidden cards ``????`` except for a superuser and the user's own
    players. Rounds of games whose export is not PHH are left out."""
    rows = (hands.select_related("table").prefetch_related("players__player")
            .iterator(chunk_size=CHUNK))
    for hand in rows:
        entry = GAMES.get(hand.table.game)
        if entry is None or entry.info.export_format != "phh":
            continue
        players = list(hand.players.all())
        text = export_round(hand, history_viewer(hand, user, players), players)
        if text:
            yield f"[{hand.pk}]\n{text.rstrip()}\n\n"


# ------------------------------------------------------------ batch match


def match_hands(match: MatchRun) -> Iterator[PhhHand]:
    """The hands of the match's stored ``.phhs`` replayed through the engine
    (:func:`botkit.stats.phhs_hands`); none when the match kept no PHH."""
    if match.phh:
        yield from phhs_hands(match.phh)


def match_big_blind(match: MatchRun) -> int:
    return int(match.settings.get("big_blind") or 1)


def match_stats(match: MatchRun) -> Json | None:
    """Per bot every statistic (:mod:`botkit.stats`, new counters included) of a done
    match: computed from its stored PHH (and cached), or for a match too long to keep
    its hands as counted while it was played (``results["stats"]``); None for a game
    without these statistics."""
    if match.status != "done":
        return None
    if not match.phh:  # a long match: counted while it was played (research.services)
        counted = (match.results or {}).get("stats")
        if not counted:
            return None
        hands = max((row.get("hands", 0) for row in counted.values()), default=0)
        return {"hands": hands, "bots": [{"name": name, **counted[name]}
                                         for name in sorted(counted)]}
    digest = hashlib.sha256(match.phh.encode()).hexdigest()[:24]
    key = f"research:match-stats:{match.pk}:{digest}"
    cached = cache.get(key)
    if cached is not None:
        return dict(cached)
    from botkit.stats import StatsAccumulator

    acc = StatsAccumulator()
    hands = 0
    big_blind = match_big_blind(match)
    for hand in match_hands(match):
        hands += 1
        acc.add_hand(hand.events, dict(enumerate(hand.players)), big_blind=big_blind)
    bots = [{"name": name, **acc.summary(name)} for name in sorted(acc.players)]
    data = {"hands": hands, "bots": bots}
    cache.set(key, data, MATCH_CACHE_SECONDS)
    return data


def match_csv_chunks(match: MatchRun) -> Iterator[str]:
    """The match's CSV (the session columns; ``hand_id`` is the hand's number in the
    match, ``table`` is ``match <id>``, ``seat`` the PHH player index from 0)."""
    writer = csv.writer(_Line())
    yield _csv_line(writer, CSV_COLUMNS)
    big_blind = match_big_blind(match)
    game = match.settings.get("game", "holdem")
    for hand in match_hands(match):
        order, per_seat = hand_stats(hand.events)
        number = int(hand.name) if hand.name.isdigit() else hand.name
        for seat, name in enumerate(hand.players):
            position = position_name(order.index(seat), len(order)) if seat in order else ""
            yield _csv_line(writer, [
                number, "", f"match {match.pk}", game, number, "", "", "", name,
                seat, *_cells(per_seat.get(seat), position, hand.nets[seat], big_blind)])


def _take(chunks: Iterator[str], count: int) -> list[str]:
    return list(itertools.islice(chunks, count))


async def _async_chunks(chunks: Iterator[str], batch: int = CHUNK) -> AsyncIterator[str]:
    """``chunks`` for an ASGI server, read ``batch`` at a time in the one thread that
    serves synchronous code (the same database connection and cursor throughout)."""
    while parts := await sync_to_async(_take, thread_sensitive=True)(chunks, batch):
        for part in parts:
            yield part


def download(request: Any, chunks: Iterator[str], content_type: str,
             filename: str) -> StreamingHttpResponse:
    """A streamed attachment. Under ASGI (Daphne) the chunks go through an asynchronous
    iterator: Django would read a synchronous one whole into memory first."""
    raw = getattr(request, "_request", request)  # a DRF request wraps Django's
    content: Any = _async_chunks(chunks) if isinstance(raw, ASGIRequest) else chunks
    response = StreamingHttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def csv_text(chunks: Iterable[str]) -> str:
    """Join streamed chunks (tests, small exports)."""
    out = io.StringIO()
    for chunk in chunks:
        out.write(chunk)
    return out.getvalue()

