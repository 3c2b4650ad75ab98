"""Server-side ("house") bots: a player with ``house_strategy`` set is played here.

The bot comes from ``settings.TABLES["HOUSE_BOT_FACTORY"]`` (``botkit.house.make_bot``
by default: ``make_bot(strategy, game=key, params=...) -> bot`` with ``bot.act(view)
-> move dict``; ``params`` only when the player has any, ``Player.house_params``).

**One instance per seat** (docs/house-bots.md): each house bot seated at a table has
its own instance in this process, keyed by (table, seat) and valid for one player,
style, parameters and sitting (the Seat row). It sees the table as a bot sees it
offline (``botkit.match``): before each decision, every event of the table stored
since its last observation is passed to ``observe`` as its seat may see it (the
game's projection for ``Viewer.of(seat)``, from the stored log and its hidden
list, as :func:`tables.selectors.visible_events`; the runtime's own notes such as
``PlayerDisconnected`` are left out, as offline), and each finished round it took
part in to ``hand_over`` with the final view (the round replayed from its stored
start state and calls, :func:`final_view`). The worker's housekeeping
(:func:`sync`) also tells the instances of rounds that ended since, and drops the
instances of bots no longer seated.

**Rebuilt from the log**: a new instance (first decision, a restart of the process,
another worker process, a changed style or parameters) first replays the rounds of
the table since the bot sat down, at most ``TABLES["HOUSE_BOT_REPLAY_HANDS"]`` (200)
of the most recent, so that its opponent model equals the one an instance that had
watched all along would have (within that bound).
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Max
from django.utils.module_loading import import_string

from engine.game import RoundEnded, Viewer, decision_view
from engine.registry import Game, get_game

from . import handlog
from .models import Hand, Seat
from .selectors import visible_events

log = logging.getLogger(__name__)
Json = dict[str, Any]
REPLAY_HANDS = 200  # default of TABLES["HOUSE_BOT_REPLAY_HANDS"]
# A round dealt by the very command that seated the bot started a moment before its
# Seat row was written (Hand.started_at is the command's time): allow for that.
SEATING_SLACK = timedelta(seconds=5)
ROUND_FIELDS = ("id", "table_id", "number", "started_at", "seats", "events", "hidden", "calls")

# Instances registered by hand (tests): (factory, player id, style, game) -> a bot used
# at every seat of that player instead of a fresh one per seat.
_bots: dict[tuple[str, int, str, str], Any] = {}
_lock = threading.RLock()


@dataclass(eq=False)
class SeatBot:
    """One house bot's instance at one seat, and how far it has seen the table."""

    bot: Any
    identity: tuple[Any, ...]  # (factory, player id, style, params JSON, game)
    table_id: int
    seat: int
    session: int  # the Seat row's id: a new sitting is a new instance
    since: Any  # when it sat down (datetime)
    hand_id: int | None = None  # the round it has seen up to ``seen`` events of
    seen: int = 0
    ended: bool = False  # told that ``hand_id`` ended

    def wants(self, hook: str) -> bool:
        from botkit.bot import overrides

        return overrides(self.bot, hook)

    @property
    def learns(self) -> bool:
        """Whether it has anything to be told (most styles have neither hook: no query)."""
        return self.wants("observe") or self.wants("hand_over")


_instances: dict[tuple[int, int], SeatBot] = {}


def _factory_path() -> str:
    return str(settings.TABLES["HOUSE_BOT_FACTORY"])


def _make(strategy: str, game: str, params: Json) -> Any:
    factory = import_string(_factory_path())
    if params:
        return factory(strategy, game=game, params=params)
    return factory(strategy, game=game)


def plays(strategy: str, game: str) -> bool:
    """True if the house-bot factory has a bot of style ``strategy`` for ``game``
    (it raises ``KeyError`` for a style it does not have)."""
    try:
        import_string(_factory_path())(strategy, game=game)
    except KeyError:
        return False
    return True


def _identity(player: Any, game: str) -> tuple[Any, ...]:
    params = getattr(player, "house_params", None) or {}
    return (_factory_path(), player.pk, player.house_strategy,
            json.dumps(params, sort_keys=True), game)


def _new(table_id: int, seat: int, player: Any, game: str, row: Seat) -> SeatBot:
    identity = _identity(player, game)
    pinned = _bots.get((identity[0], player.pk, player.house_strategy, game))
    bot = pinned if pinned is not None else _make(
        player.house_strategy, game, getattr(player, "house_params", None) or {})
    return SeatBot(bot=bot, identity=identity, table_id=table_id, seat=seat,
                   session=row.pk, since=row.sat_at)


# ------------------------------------------------------------------ the log


def _visible(hand: Hand, seat: int, start: int) -> list[Json]:
    """The round's stored events from index ``start`` as ``seat`` may see them (the
    game's projection: a private event becomes its stored public form, or nothing),
    the runtime's notes left out."""
    return visible_events(hand, Viewer.of(seat), start, notes=False)


def final_state(game: Game, hand: Hand) -> Any:
    """The game state at the end of a stored round: replayed from its start state,
    chance input and calls (as :func:`tables.selectors.replay_round`)."""
    state = game.load(hand.start_state)
    if any(isinstance(e, RoundEnded) for e in game.start_round(state, hand.chance)):
        return state
    for events in handlog.replay(game, state, hand.calls):
        if any(isinstance(e, RoundEnded) for e in events):
            break
    return state


def final_view(game: Game, hand: Hand, seat: int) -> Json | None:
    """What ``hand_over`` gets for ``seat``: the bot view of the round's final state
    (``None`` for a round stored without its start state)."""
    if hand.start_state is None:
        return None
    return decision_view(game, final_state(game, hand), seat)


def _feed(instance: SeatBot, game: Game, hand: Hand, *, finished: bool) -> None:
    """Tell the instance what it has not seen of ``hand``."""
    if instance.hand_id == hand.pk:
        if instance.ended:
            return
        start = instance.seen
    else:
        start = 0
    if instance.wants("observe"):
        for event in _visible(hand, instance.seat, start):
            instance.bot.observe(event)
    instance.hand_id, instance.seen, instance.ended = hand.pk, len(hand.events), False
    if finished:
        instance.ended = True
        if instance.seat in hand.seats and instance.wants("hand_over"):
            if hand.start_state is None and hand.pk is not None:
                hand = Hand.objects.get(pk=hand.pk)
            view = final_view(game, hand, instance.seat)
            if view is not None:
                instance.bot.hand_over(view)


def _catch_up(instance: SeatBot, game: Game, current: Hand | None) -> None:
    """Feed the finished rounds since the instance's last observation (a new one: the
    rounds since the bot sat down, the most recent ``HOUSE_BOT_REPLAY_HANDS``), then
    the running round ``current`` so far."""
    if current is not None and instance.hand_id == current.pk:
        _feed(instance, game, current, finished=False)  # the usual case: no query
        return
    rounds = Hand.objects.filter(table_id=instance.table_id, ended_at__isnull=False)
    if current is not None:
        rounds = rounds.exclude(pk=current.pk)
    if instance.hand_id is None:
        limit = int(settings.TABLES.get("HOUSE_BOT_REPLAY_HANDS", REPLAY_HANDS))
        recent = rounds.filter(started_at__gte=instance.since - SEATING_SLACK)
        ids = list(recent.order_by("-pk").values_list("pk", flat=True)[:limit])
        rounds = rounds.filter(pk__in=ids)
    elif instance.ended:
        rounds = rounds.filter(pk__gt=instance.hand_id)
    else:
        rounds = rounds.filter(pk__gte=instance.hand_id)
    fields = ROUND_FIELDS
    if instance.wants("hand_over"):
        fields = (*fields, "start_state", "chance")
    for hand in rounds.order_by("pk").only(*fields):
        _feed(instance, game, hand, finished=True)
    if current is not None:
        _feed(instance, game, current, finished=False)


# ------------------------------------------------------------ for the worker


def seat_bot(run: Any, seat: int, player: Any) -> Any:
    """The bot instance of ``player`` at ``seat`` of the locked table ``run``
    (:class:`tables.runtime.TableRun`), up to date with everything its seat has seen:
    the house-bot pass asks it to act right after."""
    table_id, game_key = run.table.pk, run.table.game
    key = (table_id, seat)
    with _lock:
        instance = _instances.get(key)
        current = run.hand_row
        fresh_round = instance is None or current is None or instance.hand_id != current.pk
        if fresh_round or instance is None or instance.identity != _identity(player, game_key):
            row = run.seat_row(seat)
            if row is None:  # not mirrored yet (seated by this very command)
                row = Seat(pk=0, table_id=table_id, number=seat, player_id=player.pk)
                row.sat_at = run.now
            if (instance is None or instance.identity != _identity(player, game_key)
                    or instance.session != row.pk):
                instance = _instances[key] = _new(table_id, seat, player, game_key, row)
        if not instance.learns:
            return instance.bot
        try:
            _catch_up(instance, run.game, current)
        except Exception:  # observing must never stop the table; the bot plays on
            log.exception("house bot at table %s seat %s: catching up failed", table_id, seat)
        return instance.bot


def instance(table_id: int, seat: int) -> Any | None:
    """The bot instance at that seat in this process, if any (tests, diagnostics)."""
    with _lock:
        found = _instances.get((table_id, seat))
        return None if found is None else found.bot


def drop(table_id: int, seat: int | None = None) -> None:
    """Forget the instance at ``seat`` (every seat of the table if ``None``)."""
    with _lock:
        for key in [k for k in _instances if k[0] == table_id and seat in (None, k[1])]:
            del _instances[key]


def reset() -> None:
    """Forget every instance (as a restart of the process does)."""
    with _lock:
        _instances.clear()


def sync() -> int:
    """The worker's housekeeping: drop the instances of bots that left their seat (or
    sat down again), and tell the others of the rounds that ended since they last saw
    their table (``observe`` the rest, ``hand_over``). Returns how many were told."""
    with _lock:
        if not _instances:
            return 0
        tables = {table_id for table_id, _ in _instances}
        rows = {(r.table_id, r.number): r for r in Seat.objects.filter(table_id__in=tables)}
        for key, found in list(_instances.items()):
            row = rows.get(key)
            if row is None or row.pk != found.session or row.player_id != found.identity[1]:
                del _instances[key]
        latest = dict(Hand.objects.filter(table_id__in=tables, ended_at__isnull=False)
                      .values("table_id").annotate(last=Max("pk"))
                      .values_list("table_id", "last"))
        told = 0
        for found in list(_instances.values()):
            if not found.learns:
                continue
            last = latest.get(found.table_id)
            if last is None or (found.hand_id is not None and (
                    found.hand_id > last or (found.hand_id == last and found.ended))):
                continue
            try:
                _catch_up(found, get_game(found.identity[4]), None)
                told += 1
            except Exception:
                log.exception("house bot at table %s seat %s: catching up failed",
                              found.table_id, found.seat)
        return told
