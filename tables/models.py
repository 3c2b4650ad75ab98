"""Live tables, their seats, connections, chat and hand histories.

The engine state in :attr:`Table.state` is the source of truth for the game;
:class:`Seat` rows mirror it (who sits where, stacks, state) so that queries
(the lobby, ``accounts.selectors.player_is_seated``) need not load the engine.
Every write goes through :mod:`tables.services` with the table row locked.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TableStatus(models.TextChoices):
    WAITING = "waiting", "Waiting for players"  # no hand dealt yet
    RUNNING = "running", "Running"  # the game has started (V8)
    CLOSED = "closed", "Closed"  # abandoned after it started; kept for its histories


class Table(models.Model):
    name = models.CharField(max_length=80, unique=True)
    game = models.CharField(max_length=32, default="holdem")  # engine registry key
    # The engine's name, e.g. "Texas Hold'em NL200 (1/2)".
    game_name = models.CharField(max_length=120)
    structure = models.CharField(max_length=4, default="NL")
    small_blind = models.PositiveIntegerField()
    big_blind = models.PositiveIntegerField()
    ante = models.PositiveIntegerField(default=0)
    seat_count = models.PositiveSmallIntegerField()
    min_buy_in = models.PositiveIntegerField()
    max_buy_in = models.PositiveIntegerField(null=True, blank=True)
    turn_seconds = models.PositiveIntegerField(default=30)
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="created_tables",
    )
    status = models.CharField(max_length=8, choices=TableStatus.choices,
                              default=TableStatus.WAITING, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    # Runtime state, written only by tables.services under the row lock.
    state = models.JSONField()  # game.dump(): server side only (holds the deck)
    version = models.BigIntegerField(default=0)  # +1 per accepted command
    current_hand = models.ForeignKey("Hand", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    to_act_seat = models.SmallIntegerField(null=True, blank=True)
    decision_version = models.BigIntegerField(null=True, blank=True)  # when the turn began
    decision_key = models.CharField(max_length=40, blank=True)  # hand number + action count
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)  # turn timer
    bot_due = models.DateTimeField(null=True, blank=True, db_index=True)  # house bot to act

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

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tables_seat_unique_number"),
            models.UniqueConstraint(fields=["table", "player"], name="tables_seat_unique_player"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id}#{self.number} {self.player_id}"


class Hand(models.Model):
    """One dealt hand: the history (V12, V24). The deck never leaves the server."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveIntegerField()  # per table
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    button = models.SmallIntegerField()
    seats = models.JSONField()  # dealt-in seats in position order
    deck = models.CharField(max_length=200)  # server side only
    setup = models.JSONField()  # engine HandSetup (stacks, blinds, structure)
    events = models.JSONField(default=list)  # omniscient, seat-labelled
    phh = models.TextField(blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tables_hand_unique_number"),
        ]

    def __str__(self) -> str:
        return f"hand {self.number} at table {self.table_id}"


class HandPlayer(models.Model):
    """One player's part in a finished hand."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="players")
    player = models.ForeignKey("accounts.Player", null=True, on_delete=models.SET_NULL,
                               related_name="hands")
    name = models.CharField(max_length=64)  # kept if the player is ever removed
    seat = models.PositiveSmallIntegerField()
    position = models.PositiveSmallIntegerField()
    starting_stack = models.BigIntegerField()
    net = models.BigIntegerField()
    hole_cards = models.CharField(max_length=16)  # server side; rendered per viewer
    shown = models.BooleanField(default=False)

    class Meta:
        ordering = ["hand", "position"]

    def __str__(self) -> str:
        return f"{self.name} in hand {self.hand_id}"


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
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
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    bot = models.ForeignKey("accounts.Player", null=True, blank=True, on_delete=models.CASCADE,
                            related_name="+")
    process = models.CharField(max_length=100, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.channel_name
