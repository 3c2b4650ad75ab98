"""Every change of a table goes through here: one transaction, the table row locked.

* :func:`create_table` — a new table.
* :func:`execute` — every client command (sit, leave, away, back, act, and the
  game's own seat commands such as poker's sit_out, sit_in, wait_for_bb, add_chips),
  for the websocket consumer and the REST API alike.
* :func:`close_table` — close a table (its creator when empty, a superuser any).
* :func:`chat` — store and relay a chat line.
* presence: :func:`connect`, :func:`heartbeat`, :func:`heartbeat_many`, :func:`disconnect`,
  :func:`sweep_presence`.
* background work: :func:`fire_due_timers`, :func:`run_house_bots`,
  :func:`close_abandoned_tables` (the worker calls them; each is safe to run in
  several processes at once: the row lock and the stored deadline decide who fires).

Errors: :class:`tables.errors.TableError` (stable ``code``); nothing changes on error.
Events go to clients only after the commit (:mod:`tables.fanout`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Player, User
from accounts.validators import text_problem
from botkit.aivat import PolicyError, validate_policy
from engine.errors import EngineError
from engine.game import MAX_CHIPS, WentAway, check_move, decision_view
from engine.registry import get_game

from . import fanout, house
from .errors import TableError
from .models import ChatMessage, Connection, Seat, SeatState, Table, TableStatus
from .runtime import TableRun, conf, locked_table, rules_digest

Json = dict[str, Any]
log = logging.getLogger(__name__)
PROCESS = f"{socket.gethostname()}:{os.getpid()}"
BASE_COMMANDS = ("sit", "leave", "away", "back", "act", "skip_formalities")
# Every command any registered game accepts (the consumers pass these on).
COMMANDS = (*BASE_COMMANDS, "sit_out", "sit_in", "wait_for_bb", "add_chips")
# Input bounds (docs/security.md): a whole number in a command (a seat, a player or hand
# id, a version) fits the 64-bit columns it is compared with; an amount or any other
# number the game takes is at most MAX_CHIPS (engine.game), or the game's own maximum.
MAX_WHOLE = 2**63 - 1
MAX_SETTINGS_DEPTH = 8


@dataclass(frozen=True)
class CommandResult:
    """An accepted command: the table's version after it."""

    table_id: int
    version: int


# ---------------------------------------------------------------- tables


def create_table(*, creator: User, name: str, game: str = "holdem", settings: Json,
                 turn_seconds: int | None = None) -> Table:
    """A new, empty table. ``settings`` are the game's (validated by the engine)."""
    if not getattr(creator, "can_create_tables", False):
        raise TableError("not_allowed", "Your account may not create tables.")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise TableError("bad_name", "A table name is 1 to 80 characters.")
    problem = text_problem(name)
    if problem:
        raise TableError("invalid_text", f"The table name: {problem}")
    turn = conf("TURN_SECONDS") if turn_seconds is None else turn_seconds
    if type(turn) is not int or not 3 <= turn <= 3600:
        raise TableError("bad_settings", "The turn time is 3 to 3600 seconds.")
    try:
        engine_game = get_game(game)
        validated = engine_game.validate_settings(settings)
        settings_json = engine_game.settings_json(validated)
        listing = engine_game.listing(validated)
        state = engine_game.create(validated)
    except EngineError as error:
        raise TableError.from_engine(error) from None
    _check_bounded(settings_json, "setting")
    _check_bounded(listing.facts, "listing fact")
    facts = listing.facts

    def fact(key: str, default: Any) -> Any:
        value = facts.get(key, default)
        return value if type(value) is type(default) or value is None else default

    try:
        with transaction.atomic():
            table = Table.objects.create(
                name=name.strip(), game=game, game_name=listing.name,
                settings=settings_json, facts=facts, rules=rules_digest(game, settings_json),
                structure=fact("structure", ""), small_blind=fact("small_blind", 0),
                big_blind=fact("big_blind", 0), ante=fact("ante", 0),
                seat_count=listing.seats, min_buy_in=fact("min_buy_in", 0),
                max_buy_in=facts.get("max_buy_in"),
                turn_seconds=turn, creator=creator, state=engine_game.dump(state),
            )
            announcement = fanout.announce_to_lobby(table.pk, "created")
            transaction.on_commit(lambda: fanout.publish(announcement))
            return table
    except IntegrityError:
        raise TableError("name_taken", f"There is already a table called “{name}”.") from None


def _check_bounded(value: Any, what: str, depth: int = 0) -> None:
    """What a game stores from its settings (the settings, the listing facts) holds no
    number beyond ±MAX_CHIPS, no unstorable text, no deep nesting, whatever the game
    accepted: the columns and every reader can take it."""
    if depth > MAX_SETTINGS_DEPTH:
        raise TableError("bad_settings", f"A {what} is nested too deeply.")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int | float):
        if not -MAX_CHIPS <= value <= MAX_CHIPS:
            raise TableError("bad_settings", f"A {what} is out of range (at most {MAX_CHIPS}).")
    elif isinstance(value, str):
        if text_problem(value):
            raise TableError("invalid_text", f"A {what}: {text_problem(value)}")
    elif isinstance(value, dict | list | tuple):
        for key in value if isinstance(value, dict) else ():
            _check_bounded(key, what, depth + 1)
        for item in value.values() if isinstance(value, dict) else value:
            _check_bounded(item, what, depth + 1)


def default_seat_options(table: Table) -> Json:
    """What a player sits down with at ``table`` unless they choose (poker: a buy-in)."""
    game = get_game(table.game)
    return game.default_seat_options(game.load(table.state))


# -------------------------------------------------------------- commands


def _field(command: Json, name: str, kind: type, *, required: bool = True,
           default: Any = None) -> Any:
    if name not in command:
        if required:
            raise TableError("malformed_message", f"The field “{name}” is missing.")
        return default
    value = command[name]
    if kind is int and (type(value) is not int or not -MAX_WHOLE <= value <= MAX_WHOLE):
        raise TableError("malformed_message", f"The field “{name}” must be a whole number"
                         f" (at most {MAX_WHOLE}).")
    if kind is not int and not isinstance(value, kind):
        raise TableError("malformed_message", f"The field “{name}” has the wrong type.")
    return value


def _check_user(user: Any, bot: Player | None) -> None:
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        raise TableError("not_authenticated", "Log in (or send a bot token) first.")
    if bot is not None and (bot.owner_id != user.pk or bot.is_deleted):
        raise TableError("not_authenticated", "This bot token is not valid.")


def _my_seat(run: TableRun, user: User, bot: Player | None, command: Json,
             prefer: int | None = None) -> int:
    """The seat the command is about: given by ``seat``, or the caller's only one."""
    controlled = run.controlled_seats(user, bot)
    if "seat" in command:
        seat = _field(command, "seat", int)
        if seat not in controlled:
            raise TableError("not_your_seat", f"You do not control seat {seat}.")
        return int(seat)
    if not controlled:
        raise TableError("not_seated", "You have no seat at this table.")
    if prefer is not None and prefer in controlled:
        return prefer
    if len(controlled) > 1:
        raise TableError("seat_required", "You control several seats: say which (“seat”).")
    return controlled[0]


def _choose_player(run: TableRun, user: User, bot: Player | None, command: Json) -> Player:
    if bot is not None:
        if "player" in command and command["player"] != bot.pk:
            raise TableError("not_allowed", "A bot connection may only seat the bot itself.")
        player = bot
    elif "player" in command:
        player_id = _field(command, "player", int)
        player = Player.objects.live().filter(pk=player_id).first()
        # One's own players; testers may also seat any house bot (V33).
        if player is None or (player.owner_id != user.pk and not (
                player.house_strategy and user.can_manage_bots)):
            raise TableError("not_your_player", "That is not one of your players.")
    else:
        seated = {s.player_id for s in run.seats if s is not None}
        humans = [p for p in Player.objects.live().filter(owner=user, kind="human")
                  if str(p.pk) not in seated]
        humans.sort(key=lambda p: (p.name.lower() != user.username.lower(), p.name))
        if not humans:
            raise TableError("already_seated", "All your players already sit at this table.")
        player = humans[0]
    strategy = player.house_strategy
    if strategy and not house.plays(strategy, run.table.game):
        raise TableError("bot_cannot_play", f"The house bot's style {strategy!r} does not "
                         f"play {run.game.info.title}.")
    if player.is_bot and not user.can_manage_bots:
        raise TableError("not_allowed", "Only testers and superusers may seat bots.")
    if not player.is_bot and not user.can_play:
        raise TableError("not_allowed", "Your account may not play.")
    return player


def _options(run: TableRun, command: Json, skip: set[str]) -> Json:
    """The command's remaining fields, checked against the game's JSON schema for them
    (no others for ``sit``, required fields present, integers and booleans of the right
    type)."""
    schema = run.game.info.seat_options if command.get("type") == "sit" else {}
    options = {k: v for k, v in command.items() if k not in skip}
    if command.get("type") == "sit" and (  # a misspelt option is not silently lost
            unknown := sorted(set(options) - set(schema.get("properties", {})))):
        raise TableError("malformed_message", f"Unknown field(s) of “sit”: {unknown}.")
    for name in schema.get("required", ()):
        if name not in options:
            raise TableError("malformed_message", f"The field “{name}” is missing.")
    for name, spec in schema.get("properties", {}).items():
        if name not in options:
            continue
        kind = spec.get("type")
        value = options[name]
        if kind == "integer" and type(value) is not int:
            raise TableError("malformed_message", f"The field “{name}” must be a whole number.")
        most = min(spec.get("maximum", MAX_CHIPS), MAX_CHIPS)
        if kind == "integer" and not -MAX_CHIPS <= value <= most:
            raise TableError("bad_amount", f"The field “{name}” is at most {most}.")
        if kind == "boolean" and type(value) is not bool:
            raise TableError("malformed_message", f"The field “{name}” must be true or false.")
    return options


COMMAND_FIELDS = {"type", "seat", "player", "request_id"}


def _sit(run: TableRun, user: User, bot: Player | None, command: Json) -> None:
    seat = _field(command, "seat", int)
    options = _options(run, command, COMMAND_FIELDS)
    player = _choose_player(run, user, bot, command)
    run.player_cache(player)
    # The buy-in (economy games) is booked from the game's BuyIn event (TableRun.record).
    run.engine(run.game.seat, seat, str(player.pk), options)
    if bot is None and player.is_bot and not player.house_strategy and not Connection.objects \
            .filter(table=run.table, bot=player).exists():
        # A remote bot seated from its owner's session while the bot itself is not
        # connected: treated as disconnected at once (sat out before the next round,
        # back when it connects, stood up after the grace period), never dealt in to
        # wait for turn timers. The Seat row is flagged once it exists (_flag_unconnected).
        with contextlib.suppress(TableError):  # a game without sitting out: it waits
            run.engine(run.game.away, seat, "disconnected")
        run.note({"type": "PlayerDisconnected", "player": seat, "reason": NOT_CONNECTED})


NOT_CONNECTED = "not_connected"


def _flag_unconnected(run: TableRun) -> None:
    """After :meth:`TableRun.finish` of a ``sit`` (the Seat rows exist): flag the seats
    that :func:`_sit` sat out because their bot was not connected, as :func:`disconnect`
    does, so that the bot's connection brings it back and the sweep stands it up after
    the grace period."""
    for event in run.events:
        if not (isinstance(event, dict) and event.get("type") == "PlayerDisconnected"
                and event.get("reason") == NOT_CONNECTED):
            continue
        row = run.seat_row(event["player"])
        if row is None or row.disconnected_at is not None:
            continue
        row.disconnected_at = run.now
        row.sat_out_by_disconnect = True
        row.state = SeatState.DISCONNECTED
        run.save_seat(row)


def _leave(run: TableRun, user: User, bot: Player | None, command: Json) -> None:
    seat = _house_bot_seat(run, user, bot, command)
    if seat is None:
        seat = _my_seat(run, user, bot, command)
    run.engine(run.game.unseat, seat)


def _house_bot_seat(run: TableRun, user: User, bot: Player | None,
                    command: Json) -> int | None:
    """The seat of a house bot that this tester (or superuser) asks to remove (V34)."""
    if bot is not None or "seat" not in command or not user.can_manage_bots:
        return None
    seat = _field(command, "seat", int)
    seats = run.seats
    occupant = seats[seat] if 0 <= seat < len(seats) else None
    if occupant is None or not run.house_strategy(occupant.player_id):
        return None
    return int(seat)


def _went_away(run: TableRun, seat: int, events: list[Any]) -> None:
    """Stepping away on request: a reconnect must not bring the player back."""
    if any(isinstance(e, WentAway) and e.player == seat for e in events):
        row = run.seat_row(seat)
        if row is not None and row.sat_out_by_disconnect:
            row.sat_out_by_disconnect = False
            run.save_seat(row)


def _away(run: TableRun, user: User, bot: Player | None, command: Json) -> None:
    seat = _my_seat(run, user, bot, command)
    _went_away(run, seat, run.engine(run.game.away, seat, "request"))


def _back(run: TableRun, user: User, bot: Player | None, command: Json) -> None:
    seat = _my_seat(run, user, bot, command)
    run.engine(run.game.back, seat)


def _game_command(run: TableRun, user: User, bot: Player | None, command: Json) -> None:
    """One of the game's own seat commands (poker: sit_out, sit_in, wait_for_bb,
    add_chips — its chips are booked when they reach the stack, TableRun.record)."""
    name = command["type"]
    if name not in run.game.info.seat_commands:
        raise TableError("unknown_type", f"Unknown command type {name!r}.")
    seat = _my_seat(run, user, bot, command)
    options = _options(run, command, COMMAND_FIELDS)
    _went_away(run, seat, run.engine(run.game.seat_command, seat, name, options))


def _act(run: TableRun, user: User, bot: Player | None, command: Json) -> None:
    """An action for the current decision. ``hand`` and ``version`` must echo the
    ``your_turn`` message: a duplicate or late action is refused, never applied twice."""
    hand = _field(command, "hand", int)
    version = _field(command, "version", int)
    action = _field(command, "action", dict)
    table = run.table
    if table.current_hand_id is None or hand != table.current_hand_id:
        raise TableError("wrong_hand", "That hand is over; this action is for another hand.")
    to_act = run.to_act()
    if not to_act:
        raise TableError("not_your_turn", "Nobody is to act now.")
    seat = _my_seat(run, user, bot, command, prefer=to_act[0])
    if seat not in to_act:
        controlled = run.controlled_seats(user, bot)
        seat = next((s for s in to_act if s in controlled), seat)
        if "seat" in command or seat not in to_act:
            raise TableError("not_your_turn", "It is not your turn to act.")
    if version != table.decision_version:
        raise TableError("stale_version",
                         f"This turn began at version {table.decision_version}, not {version}.")
    reason = _reason(command)
    if "policy" in command:  # a bot's probabilities for its moves (docs/protocol.md)
        moves = run.game.legal_moves(run.state, seat)
        try:
            check_move(moves, action)
        except EngineError as error:  # an illegal move is refused as such
            raise TableError.from_engine(error) from None
        try:
            policy = validate_policy(moves, command["policy"], action)
        except PolicyError as error:
            raise TableError("invalid_policy", str(error)) from None
        run.policy(seat, policy, reason)
    elif reason is not None:
        run.policy(seat, None, reason)
    run.engine(run.game.apply, seat, action)


MAX_REASON = 2000  # characters of an act's ``reason`` (docs/mcp.md)


def _reason(command: Json) -> str | None:
    """An act's optional ``reason``: why the player chose the move, in its own words
    (an LLM agent's, docs/mcp.md). Stored with the hand like a policy, shown only to
    whoever may see the seat's cards, never to opponents during the hand."""
    if command.get("reason") is None:
        return None
    reason = command["reason"]
    if not isinstance(reason, str):
        raise TableError("malformed_message", "The field “reason” must be text.")
    if len(reason) > MAX_REASON:
        raise TableError("reason_too_long", f"A reason is at most {MAX_REASON} characters.")
    problem = text_problem(reason, multiline=True)
    if problem:
        raise TableError("invalid_text", f"The reason: {problem}")
    return reason.strip() or None


def _skip_formalities(run: TableRun, user: User, bot: Player | None, command: Json) -> None:
    """``on``: answer the game's formalities (poker: show or muck) at once with their
    default move (muck) instead of being asked; a pending one is answered now."""
    seat = _my_seat(run, user, bot, command)
    on = _field(command, "on", bool)
    row = run.seat_row(seat)
    if row is None:  # seated by this very command batch: nothing stored yet
        raise TableError("not_seated", "You have no seat at this table.")
    if row.skip_formalities != on:
        row.skip_formalities = on
        run.write_seat(row, ("skip_formalities",))


HANDLERS = {"sit": _sit, "leave": _leave, "away": _away, "back": _back, "act": _act,
            "skip_formalities": _skip_formalities}


def _clear_disconnect_flag(run: TableRun, user: User, bot: Player | None) -> None:
    """Acting (e.g. sitting in by REST) means the player is there."""
    seats = run.seats
    for seat in run.controlled_seats(user, bot):
        row = run.seat_row(seat)
        occupant = seats[seat]
        if row is not None and row.sat_out_by_disconnect and occupant is not None \
                and not occupant.away:
            row.sat_out_by_disconnect = False
            run.save_seat(row)


def execute(*, table_id: int, user: Any, command: Json, bot: Player | None = None,
            now: datetime | None = None) -> CommandResult:
    """Apply one client command to a table; raises TableError (nothing changed)."""
    check_command(user, bot, command)
    kind = command["type"]
    with locked_table(table_id, now=now) as run:
        assert run is not None
        version = apply_command(run, user, bot, command)
        if kind == "sit":
            _flag_unconnected(run)
    return CommandResult(table_id, version)


def apply_command(run: TableRun, user: Any, bot: Player | None, command: Json) -> int:
    """One checked command (:func:`execute`) on the loaded table: in its transaction,
    or on the owner's live copy (tables.owner). Returns the new version."""
    kind = command["type"]
    handler = HANDLERS.get(kind, _game_command)
    if run.table.status == TableStatus.CLOSED:
        raise TableError("table_closed", "This table is closed.")
    if run.table.status == TableStatus.FINISHED and kind != "leave":
        raise TableError("game_over", "This game is over; its standings are final.")
    handler(run, user, bot, command)
    if kind != "act":
        # An action never needs it: a seat sat out by a disconnect stays sitting out
        # (and so keeps its flag, see below) until its player sits in — a command
        # that comes here — or reconnects (connect() clears the flag).
        _clear_disconnect_flag(run, user, bot)
    return run.finish()


def check_command(user: Any, bot: Player | None, command: Any) -> None:
    """What :func:`execute` checks before it touches the table."""
    _check_user(user, bot)
    if not isinstance(command, dict):
        raise TableError("malformed_message", "A command is a JSON object.")
    kind = command.get("type")
    if not isinstance(kind, str) or len(kind) > 40:
        raise TableError("unknown_type", f"Unknown command type {kind!r}.")


# ------------------------------------------------------------------ chat


def _speaker_name(table: Table, user: User, bot: Player | None) -> tuple[str, Player | None]:
    if bot is not None:
        return bot.name, bot
    seat = (Seat.objects.filter(table=table, player__owner=user).select_related("player")
            .order_by("number").first())
    if seat is not None:
        return seat.player.name, seat.player
    return user.username, None


def chat(*, table_id: int, user: Any, text: Any, bot: Player | None = None,
         now: datetime | None = None) -> ChatMessage:
    """Store a chat line and relay it to everyone watching (V10, V36). Plain text:
    clients must never render it as HTML."""
    _check_user(user, bot)
    if not isinstance(text, str) or not text.strip():
        raise TableError("malformed_message", "A chat message is non-empty text.")
    text = text.strip()
    if len(text) > conf("CHAT_MAX_LENGTH"):
        raise TableError("chat_too_long",
                         f"A chat message is at most {conf('CHAT_MAX_LENGTH')} characters.")
    problem = text_problem(text)  # one line: no newline, no NUL (PostgreSQL text), ...
    if problem:
        raise TableError("invalid_text", f"A chat message: {problem}")
    now = now or timezone.now()
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise TableError("table_not_found", f"There is no table {table_id}.")
    if table.status == TableStatus.CLOSED:
        raise TableError("table_closed", "This table is closed.")
    recent = ChatMessage.objects.filter(table=table, user=user,
                                        created_at__gte=now - timedelta(minutes=1)).count()
    if recent >= conf("CHAT_PER_MINUTE"):
        raise TableError("rate_limited", "Too many chat messages; wait a moment.")
    name, player = _speaker_name(table, user, bot)
    with transaction.atomic():
        message = ChatMessage.objects.create(table=table, user=user, player=player, name=name,
                                             text=text)
        data = {"type": "chat", "table": table.pk, "version": table.version, "id": message.pk,
                "name": name, "text": text, "at": message.created_at.isoformat()}
        batch = [(fanout.public_group(table.pk), data), (fanout.omniscient_group(table.pk), data)]
        transaction.on_commit(lambda: fanout.publish(batch))
    return message


# -------------------------------------------------------------- presence


def _controls(connection: Connection, player: Player) -> bool:
    """Whether ``connection`` is there for ``player``: a bot only through its own
    connection (its token), never through its owner's browser, which cannot answer
    its turns; a person's player through the owner's own (non-bot) connection."""
    if connection.bot_id is not None:
        return connection.bot_id == player.pk
    return not player.is_bot and connection.user_id == player.owner_id


def _live_controller(run: TableRun, player: Player) -> bool:
    connections = Connection.objects.filter(table=run.table)
    if player.is_bot:
        return connections.filter(bot_id=player.pk).exists()
    return connections.filter(Q(bot_id=player.pk) | Q(bot__isnull=True,
                                                       user_id=player.owner_id)).exists()


def _check_connection_count(user: Any, bot: Player | None, channel_name: str) -> None:
    """At most ``MAX_CONNECTIONS_PER_USER`` open table connections per person (their
    browser tabs) and ``MAX_CONNECTIONS_PER_BOT`` per bot, across every process."""
    conf = settings.TABLES
    if bot is not None:
        limit, mine = conf["MAX_CONNECTIONS_PER_BOT"], Connection.objects.filter(bot=bot)
    else:
        limit = conf["MAX_CONNECTIONS_PER_USER"]
        mine = Connection.objects.filter(user=user, bot__isnull=True)
    if mine.exclude(channel_name=channel_name).count() >= limit:
        raise TableError("too_many_connections",
                         f"At most {limit} open table connections per account; close some.")


def connect(*, table_id: int, channel_name: str, user: Any, bot: Player | None = None,
            now: datetime | None = None, only_quietly: bool = False) -> bool | None:
    """Register a live connection; a disconnected player who comes back plays on.
    True if that changed the table. ``only_quietly``: only if it changes nothing at
    the table, else ``None`` (nothing done)."""
    _check_user(user, bot)
    _check_connection_count(user, bot, channel_name)
    if _connect_quietly(table_id=table_id, channel_name=channel_name, user=user, bot=bot,
                        now=now or timezone.now()):
        return False
    if only_quietly:
        return None
    with locked_table(table_id, now=now) as run:
        assert run is not None
        if run.table.status == TableStatus.CLOSED:
            raise TableError("table_closed", "This table is closed.")
        Connection.objects.update_or_create(
            channel_name=channel_name,
            defaults={"table": run.table, "user": user, "bot": bot, "process": PROCESS,
                      "last_seen": run.now})
        changed = False
        for seat in run.controlled_seats(user, bot):
            row = run.seat_row(seat)
            if row is None or row.disconnected_at is None:
                continue
            occupant = run.seats[seat]
            if bot is None and occupant is not None and run.player(occupant.player_id).is_bot:
                continue  # the owner's browser is not the bot (_controls)
            row.disconnected_at = None
            run.note({"type": "PlayerReconnected", "player": seat})
            if row.sat_out_by_disconnect:
                row.sat_out_by_disconnect = False
                occupant = run.seats[seat]
                if occupant is not None and occupant.away:
                    with contextlib.suppress(TableError):  # e.g. no chips: stays away
                        run.engine(run.game.back, seat)
            run.save_seat(row)
            changed = True
        if changed:
            run.finish()
        return changed


def _connect_quietly(*, table_id: int, channel_name: str, user: Any, bot: Player | None,
                     now: datetime) -> bool:
    """The usual connection, which changes nothing at the table (none of its players is
    disconnected there), registered without loading the table: True if done; False
    if :func:`connect` has to bring a player back (or the database is not PostgreSQL).

    PostgreSQL only: ``FOR KEY SHARE`` on the table row waits for a transaction that
    locked the table (a :func:`disconnect` deciding whether nobody controls a player
    any more) and makes it wait for this one; a live table's group commit (tables.owner,
    which locks no key) is not waited for."""
    if connection.vendor != "postgresql":
        return False
    with transaction.atomic():
        status = _key_share(table_id)
        if status is None:
            raise TableError("table_not_found", f"There is no table {table_id}.")
        if status == TableStatus.CLOSED:
            raise TableError("table_closed", "This table is closed.")
        mine = _seats_of(None, bot.pk) if bot is not None else _seats_of(user.pk, None)
        if Seat.objects.filter(mine, table_id=table_id, disconnected_at__isnull=False).exists():
            return False
        # One INSERT … ON CONFLICT DO UPDATE (update_or_create: a read, an insert and
        # three savepoints; a reconnecting crowd makes thousands at once)
        Connection.objects.bulk_create(
            [Connection(channel_name=channel_name, table_id=table_id, user=user, bot=bot,
                        process=PROCESS, last_seen=now)],
            update_conflicts=True, unique_fields=["channel_name"],
            update_fields=["table", "user", "bot", "process", "last_seen"])
    return True


def heartbeat(*, channel_name: str, now: datetime | None = None) -> bool:
    """The connection is alive. False if it was already swept (the caller re-registers)."""
    updated = Connection.objects.filter(channel_name=channel_name).update(
        last_seen=now or timezone.now())
    return bool(updated)


def heartbeat_many(*, channel_names: set[str] | list[str],
                   now: datetime | None = None) -> set[str]:
    """Many connections are alive: one UPDATE per thousand (the consumers' batched
    presence, :mod:`tables.presence`). Returns the names already swept (re-register)."""
    names = sorted(channel_names)
    alive: set[str] = set()
    for start in range(0, len(names), 1000):
        chunk = Connection.objects.filter(channel_name__any=names[start:start + 1000])
        alive.update(chunk.values_list("channel_name", flat=True))
        chunk.update(last_seen=now or timezone.now())
    return set(names) - alive


def disconnect(*, channel_name: str, now: datetime | None = None,
               silent_since: datetime | None = None) -> bool:
    """The connection is gone: players nobody controls any more are sat out (V9).

    With ``silent_since`` (the presence sweep) only if the connection is still silent
    under the table lock: a heartbeat written since the sweep listed it wins."""
    connection = Connection.objects.filter(channel_name=channel_name).select_related(
        "user", "bot").first()
    if connection is None:
        return False
    with locked_table(connection.table_id, now=now) as run:
        assert run is not None
        if silent_since is not None and not Connection.objects.filter(
                pk=connection.pk, last_seen__lt=silent_since).exists():
            return False
        Connection.objects.filter(pk=connection.pk).delete()
        changed = False
        for number, occupant in enumerate(run.seats):
            if occupant is None:
                continue
            player = run.player(occupant.player_id)
            row = run.seat_row(number)
            if (player.house_strategy or row is None or row.disconnected_at is not None
                    or not _controls(connection, player) or _live_controller(run, player)):
                continue
            row.disconnected_at = run.now
            run.note({"type": "PlayerDisconnected", "player": number})
            if not occupant.away:
                run.engine(run.game.away, number, "disconnected")
                row.sat_out_by_disconnect = True
            run.save_seat(row)
            changed = True
        if changed:
            run.finish()
        return changed


def disconnect_quietly(*, channel_name: str, silent_since: datetime | None = None,
                       ) -> bool | None:
    """The usual disconnection, which changes nothing at the table: of a connection
    whose account has no seat there, or has another connection there of the same
    kind (the same bot's; the person's own), which then controls every seat this one
    did (:func:`_controls`). Its row is deleted without waiting for the table's
    commands (like :func:`_connect_quietly`, a transaction that locked the table is
    waited for, and waits for this one). With ``silent_since`` (the presence sweep)
    only a connection still silent since then: after a takeover the survivors sweep
    the dead process's connections, whose players reconnected meanwhile; each took
    its table out of play in a transaction of its own, one after another in the
    database thread (docs/benchmarks.md, twentieth session).
    False if it was already gone (or heard from since); ``None`` if :func:`disconnect`
    has to look at the seats (or the database is not PostgreSQL). A seat taken
    meanwhile through another connection of the account leaves that one controlling it."""
    if connection.vendor != "postgresql":
        return None
    with transaction.atomic():
        gone = Connection.objects.filter(channel_name=channel_name).first()
        if gone is None:
            return False
        _key_share(gone.table_id)  # (a sit or a disconnect under way at the table first)
        if Seat.objects.filter(_seats_of(gone.user_id, gone.bot_id),
                               table_id=gone.table_id).exists():
            same = (Q(bot_id=gone.bot_id) if gone.bot_id is not None
                    else Q(bot__isnull=True, user_id=gone.user_id))
            # Locked in order: of two such connections going at once, the second
            # finds itself the last one (the first one's row gone) and goes the long
            # way, which sits the player out; both quiet, nobody would control it.
            mine = list(Connection.objects.select_for_update().filter(
                same, table_id=gone.table_id).order_by("pk").values_list("pk", flat=True))
            if gone.pk not in mine:
                return False  # (gone meanwhile)
            if len(mine) < 2:
                return None
        mine = Connection.objects.filter(pk=gone.pk)
        if silent_since is not None:
            mine = mine.filter(last_seen__lt=silent_since)  # (a heartbeat since wins)
        mine.delete()
    return False


def _key_share(table_id: int) -> str | None:
    """``FOR KEY SHARE`` on the table row (PostgreSQL): waits for a transaction that
    locked the table, not for a group commit; the table's status (``None``: no table)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT status FROM tables_table WHERE id = %s FOR KEY SHARE",
                       [table_id])
        row = cursor.fetchone()
    return None if row is None else str(row[0])


def _seats_of(user_id: int | None, bot_id: int | None) -> Q:
    """The seats an account's connection is there for: its bot's, or its owner's."""
    return Q(player_id=bot_id) if bot_id is not None else Q(player__owner_id=user_id)


def presence_due(now: datetime, table_ids: list[int] | None = None
                 ) -> tuple[list[tuple[int, str]], list[tuple[int, int]]]:
    """What the presence sweep has to do (at ``table_ids`` only, if given): the silent
    connections (table, channel name) and the seats disconnected longer than the grace
    period (table, seat number), a thousand of each at most."""
    connections = Connection.objects.filter(last_seen__lt=silent_before(now))
    seats = Seat.objects.filter(
        disconnected_at__lt=now - timedelta(seconds=conf("SEAT_GRACE_SECONDS")))
    if table_ids is not None:
        connections = connections.filter(table_id__any=table_ids)  # tables/lookups.py
        seats = seats.filter(table_id__any=table_ids)
    return (list(connections.values_list("table_id", "channel_name")[:1000]),
            list(seats.values_list("table_id", "number")[:1000]))


def silent_before(now: datetime) -> datetime:
    return now - timedelta(seconds=conf("PRESENCE_TIMEOUT"))


def sweep_presence(now: datetime | None = None, *,
                   owned: Callable[[list[int]], set[int]] | None = None) -> int:
    """Drop silent connections; stand up players disconnected longer than the grace
    period. ``owned``: of some table ids, those whose live owner sweeps them itself
    (:meth:`tables.owner.Host.sweep`), left alone here."""
    now = now or timezone.now()
    silent, expired = presence_due(now)
    if owned is not None and (silent or expired):
        mine = owned(sorted({t for t, _ in silent} | {t for t, _ in expired}))
        silent = [(t, c) for t, c in silent if t not in mine]
        expired = [(t, n) for t, n in expired if t not in mine]
    count = 0
    for _table_id, channel_name in silent:
        log.info("sweeping silent connection %s", channel_name)
        disconnect(channel_name=channel_name, now=now, silent_since=silent_before(now))
        count += 1
    for table_id, number in expired:
        count += stand_up_disconnected(table_id=table_id, number=number, now=now)
    return count


def stand_up_disconnected(*, table_id: int, number: int, now: datetime) -> bool:
    """Stand up the player of seat ``number`` if still disconnected past the grace period."""
    expired = now - timedelta(seconds=conf("SEAT_GRACE_SECONDS"))
    with locked_table(table_id, skip_locked=True, now=now) as run:
        if run is None:
            return False
        row = run.seat_row(number)
        occupant = run.seats[number]
        if (row is None or row.disconnected_at is None or row.disconnected_at >= expired
                or occupant is None or occupant.leaving):
            return False
        run.note({"type": "PlayerStoodUp", "player": number, "reason": "disconnected"})
        run.engine(run.game.unseat, number)
        run.finish()
        return True


# -------------------------------------------------------- background work


def fire_due_timers(now: datetime | None = None) -> int:
    """Play the default action (check, else fold; muck at showdown) for every expired
    turn. Exactly one process fires each: the table row is locked and the stored
    deadline re-checked under the lock."""
    now = now or timezone.now()
    fired = 0
    due = Table.objects.filter(deadline__lte=now, status=TableStatus.RUNNING)
    for table_id in list(due.values_list("pk", flat=True)[:500]):
        with locked_table(table_id, skip_locked=True, now=now) as run:
            if run is None or run.table.deadline is None or run.table.deadline > now:
                continue
            time_out(run)
            fired += 1
    return fired


def run_house_bots(now: datetime | None = None) -> int:
    """Let every house bot whose turn it is (after HOUSE_BOT_DELAY) act."""
    now = now or timezone.now()
    acted = 0
    due = Table.objects.filter(bot_due__lte=now, status=TableStatus.RUNNING)
    for table_id in list(due.values_list("pk", flat=True)[:500]):
        with locked_table(table_id, skip_locked=True, now=now) as run:
            if run is None or run.table.bot_due is None or run.table.bot_due > now:
                continue
            if house_move(run):
                acted += 1
    return acted


def time_out(run: TableRun) -> int:
    """The turn's time is up: the game's default move (check, else fold; muck)."""
    run.engine(run.game.timeout)
    return run.finish()


def house_move(run: TableRun) -> bool:
    """One house-bot move at the loaded table, if a house bot is to act (one per
    pass: a simultaneous decision of several house bots takes several passes)."""
    seat, player = None, None
    for candidate in run.to_act():
        occupant = run.seats[candidate]
        if occupant is not None and run.house_strategy(occupant.player_id):
            seat, player = candidate, run.player(occupant.player_id)
            break
    if seat is None or player is None:
        return False
    view = decision_view(run.game, run.state, seat,
                         fanout.time_left(run.table.deadline, run.now))
    try:
        # This seat's own instance, told first what its seat saw since its
        # last move (tables.house: it learns live as it would offline).
        bot = house.seat_bot(run, seat, player)
        action = bot.act(view)
        run.engine(run.game.apply, seat, action)
    except Exception:  # a broken bot is treated as timed out
        if run.sink is not None:  # the live copy may be half changed: the owner reloads
            raise
        log.exception("house bot %s failed; playing the default action", player.name)
        run.state = run.game.load(run.table.state)  # the state before the attempt
        run.engine(run.game.timeout)
    run.finish()
    return True


def close_abandoned_tables(now: datetime | None = None) -> int:
    """V8: a started table with no players and no watchers left is closed (its
    hand histories stay); it leaves the lobby."""
    now = now or timezone.now()
    closed = 0
    candidates = (Table.objects.filter(status=TableStatus.RUNNING)
                  .exclude(seats__isnull=False).exclude(connections__isnull=False))
    for table_id in list(candidates.values_list("pk", flat=True)[:500]):
        with locked_table(table_id, skip_locked=True, now=now) as run:
            if run is None or run.table.status != TableStatus.RUNNING:
                continue
            if any(run.seats) or Connection.objects.filter(table=run.table).exists():
                continue
            run.table.status, run.table.closed_at = TableStatus.CLOSED, now
            run.note({"type": "TableClosed"})
            run.finish()
            closed += 1
    return closed


def may_close(user: Any, table: Table) -> bool:
    """Whether ``user`` may ask to close ``table``: its creator or a superuser (the
    creator only while nobody but house bots is seated, checked by :func:`close_table`)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.can_manage_users or (table.creator_id is not None
                                          and table.creator_id == user.pk))


def close_table(*, table_id: int, user: Any, now: datetime | None = None) -> Table:
    """Close a table for good: it leaves the lobby, its hand histories stay.

    Its creator may close it while nobody but house bots sits there; a superuser any
    table. Everyone still seated leaves through the game's leave path (``unseat``:
    poker folds a player in a hand, and the hand ends as when everybody leaves), so
    each stack is cashed out through the ledger. Refusals: ``not_allowed``,
    ``table_not_empty``, ``table_closed``, ``round_in_progress`` (a game whose round
    cannot end by everybody leaving); nothing changes on a refusal."""
    _check_user(user, None)
    now = now or timezone.now()
    with locked_table(table_id, now=now) as run:
        assert run is not None
        table = run.table
        if table.status == TableStatus.CLOSED:
            raise TableError("table_closed", "This table is already closed.")
        if not may_close(user, table):
            raise TableError("not_allowed", "Only the table's creator or a superuser may "
                                            "close it.")
        occupied = [(number, seat) for number, seat in enumerate(run.seats)
                    if seat is not None]
        if not user.can_manage_users and any(
                not run.house_strategy(seat.player_id) for _, seat in occupied):
            raise TableError("table_not_empty", "Players are seated at this table: it can "
                                                "be closed when they have left (or by a "
                                                "superuser).")
        for number, _ in occupied:
            current = run.seats[number]  # the leaves before may have ended the round
            if current is not None and not current.leaving:
                run.engine(run.game.unseat, number)
        if any(run.seats):
            raise TableError("round_in_progress", "A round is being played that cannot end "
                                                  "by everybody leaving; close the table "
                                                  "when it is over.")
        table.status, table.closed_at = TableStatus.CLOSED, now
        run.note({"type": "TableClosed"})
        run.finish()
    table.refresh_from_db()
    return table


def resume_turns(now: datetime | None = None) -> int:
    """After an outage of the channel layer (the worker paused, :mod:`tables.worker`):
    every running turn gets a full turn from ``now`` (its deadline is never moved
    earlier; a pending house-bot move its usual delay), and each such table a fresh
    version with the turn re-sent (``events`` + ``your_turn``), so clients that
    missed messages resync. Returns how many tables. Idempotent enough for several
    workers: a second pass only moves the deadlines by the time between the two."""
    now = now or timezone.now()
    resumed = 0
    running = (Table.objects.filter(status=TableStatus.RUNNING)
               .filter(Q(deadline__isnull=False) | Q(bot_due__isnull=False)))
    for table_id in list(running.values_list("pk", flat=True)):
        with locked_table(table_id, now=now) as run:
            assert run is not None
            table = run.table
            if table.status != TableStatus.RUNNING or (table.deadline is None
                                                       and table.bot_due is None):
                continue
            if table.deadline is not None:
                seconds = conf("SHOWDOWN_SECONDS") if run.status().quick else table.turn_seconds
                table.deadline = max(table.deadline, now + timedelta(seconds=seconds))
            if table.bot_due is not None:
                table.bot_due = max(table.bot_due,
                                    now + timedelta(seconds=conf("HOUSE_BOT_DELAY")))
            run.finish()  # the same decision: only the version and the deadlines change
            turns = [(group, message) for group, message in fanout.build_batch(run, new_turn=True)
                     if message["type"] == "your_turn"]
            if turns:
                transaction.on_commit(lambda turns=turns: fanout.publish(turns))  # type: ignore[misc]
            resumed += 1
    return resumed
