"""Live tables of any registered game, their seats, connections, chat and round histories.

The game state in :attr:`Table.state` is the source of truth for the game;
:class:`Seat` rows mirror it (who sits where, stacks, state) so that queries
(the lobby, ``accounts.selectors.player_is_seated``) need not load the engine.
Every write goes through :mod:`tables.services` with the table row locked.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models


class TableStatus(models.TextChoices):
    WAITING = "waiting", "Waiting for players"  # no hand dealt yet
    RUNNING = "running", "Running"  # the game has started (V8)
    CLOSED = "closed", "Closed"  # abandoned, or closed by its creator or a superuser;
    # kept for its histories (tables.services.close_table)
    FINISHED = "finished", "Finished"  # the game ended (games that end); standings stored


class Table(models.Model):
    name = models.CharField(max_length=80, unique=True)
    game = models.CharField(max_length=32, default="holdem", db_index=True)  # registry key
    # The game's name for these settings, e.g. "Texas Hold'em NL200 (1/2)".
    game_name = models.CharField(max_length=120)
    settings = models.JSONField(default=dict)  # validated by the game, defaults filled in
    facts = models.JSONField(default=dict)  # the game's listing facts (lobby columns, filters)
    rules = models.CharField(max_length=40, blank=True, db_index=True)  # settings digest
    # Denormalised poker listing facts (lobby SQL filters); 0 / "" for other games.
    # Amounts are 64-bit: a game's settings go up to engine.game.MAX_CHIPS (10**12),
    # beyond 32 bits (docs/security.md, "Input bounds"). turn_seconds is 3 to 3600.
    structure = models.CharField(max_length=4, default="NL")
    small_blind = models.PositiveBigIntegerField()
    big_blind = models.PositiveBigIntegerField()
    ante = models.PositiveBigIntegerField(default=0)
    seat_count = models.PositiveSmallIntegerField()
    min_buy_in = models.PositiveBigIntegerField()
    max_buy_in = models.PositiveBigIntegerField(null=True, blank=True)
    turn_seconds = models.PositiveIntegerField(default=30)
    creator = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="created_tables",
    )
    status = models.CharField(max_length=10, choices=TableStatus.choices,
                              default=TableStatus.WAITING, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    standings = models.JSONField(null=True, blank=True)  # final standings (games that end)

    # Runtime state, written only by tables.services under the row lock.
    state = models.JSONField()  # game.dump(): server side only (holds the deck)
    version = models.BigIntegerField(default=0)  # +1 per accepted command
    current_hand = models.ForeignKey("Hand", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    to_act_seat = models.SmallIntegerField(null=True, blank=True)
    decision_version = models.BigIntegerField(null=True, blank=True)  # when the turn began
    decision_key = models.CharField(max_length=40, blank=True)  # hand number + action count
    # Not indexed: both change at nearly every action, and an indexed column that
    # changes makes PostgreSQL insert the new row version into every index of the
    # table (no HOT update; migration 0007). Due timers are found among the running
    # tables (``status``, indexed) instead.
    deadline = models.DateTimeField(null=True, blank=True)  # turn timer
    bot_due = models.DateTimeField(null=True, blank=True)  # house bot to act
    # ``None``: ``state`` is the game state now. A number n: ``state`` is the state after
    # the first n calls of the running round ``current_hand``, whose later calls (in its
    # row and its steps, :class:`HandStep`) bring it up to date: a live table's owner
    # writes the state when a round starts, not at every action (tables.handlog).
    replay_from = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class SeatState(models.TextChoices):
    PLAYING = "playing", "Playing"
    SITTING_OUT = "sitting_out", "Sitting out"
    WAITING_FOR_BB = "waiting_for_bb", "Waiting for the big blind"
    DISCONNECTED = "disconnected", "Disconnected"


class Seat(models.Model):
    """A player sitting at a table (the row exists exactly while they sit)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="seats")
    stack = models.BigIntegerField(default=0)
    state = models.CharField(max_length=16, choices=SeatState.choices, default=SeatState.PLAYING)
    sat_at = models.DateTimeField(auto_now_add=True)
    disconnected_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Sat out because the connection was lost: a reconnect sits the player in again.
    sat_out_by_disconnect = models.BooleanField(default=False)
    # Formalities (poker: the optional show or muck) are answered at once with the game's
    # default move instead of holding the table for a short timer. On for people (the
    # table's "Auto-muck" box), off for bots, which answer at once anyway.
    skip_formalities = models.BooleanField(default=False)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tables_seat_unique_number"),
            models.UniqueConstraint(fields=["table", "player"], name="tables_seat_unique_player"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id}#{self.number} {self.player_id}"


class Hand(models.Model):
    """One round of a table's game (a hand of poker, a deal of Tuppi...): the history
    (V12, V24). Its chance input, hidden values and record never leave the server
    except through the game's projection (:mod:`tables.selectors`)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveIntegerField()  # per table
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    button = models.SmallIntegerField(null=True, blank=True)  # poker's button seat, if any
    seats = models.JSONField()  # participants' seats in the game's order
    participants = models.JSONField(default=list)  # their player ids, same order
    chance = models.JSONField(default=dict)  # the drawn chance input: the round replays from it
    events = models.JSONField(default=list)  # every event, full (omniscient), seat-labelled
    # Private events: [index into events, audience seat, public form or null].
    hidden = models.JSONField(default=list)
    record = models.JSONField(default=dict)  # the game's round record (for export)
    # The exact replay: the game state just before the round started (server side) and
    # every game call made during the round, in order (tables.selectors.replay_round).
    start_state = models.JSONField(null=True, blank=True)
    calls = models.JSONField(default=list)
    # Bots' stated move probabilities (an act's optional ``policy``, docs/protocol.md):
    # [{"call": index into calls, "seat": s, "policy": [...]}]. Private to the seat's
    # owner and superusers (a policy can tell what the bot holds).
    policies = models.JSONField(default=list)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tables_hand_unique_number"),
        ]

    def __str__(self) -> str:
        return f"hand {self.number} at table {self.table_id}"


class HandStep(models.Model):
    """What a running round's logs gained in one group commit of its table's owner
    (tables.owner): appended, instead of rewriting the round's whole logs at every
    action. ``part`` is ``{"at": {log: length before}, log: [new entries], …}`` for the
    logs ``events``, ``calls``, ``hidden`` and ``policies`` (only those that grew). A
    round's steps are deleted when it ends, its row then holding its logs whole
    (:func:`tables.handlog.merge`)."""

    id = models.BigAutoField(primary_key=True)
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="steps")
    part = models.JSONField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"step {self.pk} of hand {self.hand_id}"


class HandPlayer(models.Model):
    """One participant's result of a finished round."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="players")
    player = models.ForeignKey("accounts.Player", null=True, on_delete=models.SET_NULL,
                               related_name="hands")
    name = models.CharField(max_length=64)  # kept if the player is ever removed
    seat = models.PositiveSmallIntegerField()
    position = models.PositiveSmallIntegerField()  # index among the round's participants
    net = models.BigIntegerField(default=0)  # chips (economy games)
    score = models.BigIntegerField(null=True, blank=True)  # points (score games)
    detail = models.JSONField(default=dict)  # public facts (poker: stack, shown cards)
    secret = models.JSONField(default=dict)  # the participant's own eyes (poker: hole cards)

    class Meta:
        ordering = ["hand", "position"]

    def __str__(self) -> str:
        return f"{self.name} in hand {self.hand_id}"


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                             related_name="+")
    player = models.ForeignKey("accounts.Player", null=True, on_delete=models.SET_NULL,
                               related_name="+")
    name = models.CharField(max_length=64)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.name}: {self.text[:40]}"


class Connection(models.Model):
    """A live websocket at a table (presence; watchers count, V8)."""

    channel_name = models.CharField(max_length=200, unique=True)
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="connections")
    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    bot = models.ForeignKey("accounts.Player", null=True, blank=True, on_delete=models.CASCADE,
                            related_name="+")
    process = models.CharField(max_length=100, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    # Not indexed: the batched presence write changes it for every live connection every
    # few seconds, and in place only if no index holds it (migration 0008). The owners'
    # sweeps look among their own tables (``table``); the worker's reads the whole
    # table, one row per live websocket (a scan of a few thousand rows).
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return self.channel_name


class Standing(models.Model):
    """One place in the final standings of a finished game: the leaderboards (per game,
    per rule set) are built from these."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="final_standings")
    game = models.CharField(max_length=32, db_index=True)
    rules = models.CharField(max_length=40, db_index=True)  # Table.rules: same settings
    # The game's rule-set identity (Game.rule_set_id: the dice game's rules_id), shared
    # by tables of the same rules whatever their other settings; "" for other games.
    rule_set = models.CharField(max_length=40, blank=True, default="", db_index=True)
    # Whether it enters its rule set's top list (Game.on_leaderboard: dice, only the
    # winner of a game of several players); the per-settings boards list every finish.
    listed = models.BooleanField(default=True)
    player = models.ForeignKey("accounts.Player", null=True, on_delete=models.SET_NULL,
                               related_name="standings")
    name = models.CharField(max_length=64)
    seat = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField()
    score = models.BigIntegerField(default=0)
    finished_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-score", "finished_at"]

    def __str__(self) -> str:
        return f"{self.name} #{self.rank} at {self.table_id}"
