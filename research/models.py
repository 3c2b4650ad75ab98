"""Stored statistics per player and stored batch matches."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class StatsCursor(models.Model):
    """How far :func:`research.services.update_stats` has read ``tables.Hand`` (one row).

    Updaters lock this row, so several processes never count a hand twice.
    """

    name = models.CharField(max_length=32, unique=True, default="hands")
    last_hand_id = models.BigIntegerField(default=0)
    # Hands at or below last_hand_id that were still being played when the cursor
    # passed them: counted when they end (a long round elsewhere holds nothing back).
    open_hand_ids = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.name} at hand {self.last_hand_id}"


class PlayerStats(models.Model):
    """One player's tracker counters (``botkit.stats.PlayerStats.to_json()``)."""

    player = models.OneToOneField("accounts.Player", on_delete=models.CASCADE,
                                  related_name="stats")
    counters = models.JSONField(default=dict)
    hands = models.PositiveIntegerField(default=0)
    net = models.BigIntegerField(default=0)
    last_hand_id = models.BigIntegerField(default=0)  # the last hand counted for this player
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "player stats"

    def __str__(self) -> str:
        return f"stats of {self.player_id}"


class MatchStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    WAITING = "waiting", "Waiting for remote bots"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class MatchRun(models.Model):
    """A batch match between bots on the engine, with its stored results."""

    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="match_runs")
    settings = models.JSONField()  # bots, hands, seed, duplicate, structure, blinds, ...
    status = models.CharField(max_length=8, choices=MatchStatus.choices,
                              default=MatchStatus.QUEUED, db_index=True)
    results = models.JSONField(null=True, blank=True)  # botkit MatchResult.to_json()
    hands_done = models.PositiveIntegerField(default=0)  # while it runs (about every second)
    phh = models.TextField(blank=True)  # the hands as a .phhs file (small matches only)
    error = models.TextField(blank=True)
    error_code = models.CharField(max_length=40, blank=True)  # e.g. remote_bots_not_connected
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.status})"

    @property
    def title(self) -> str:
        s = self.settings
        if s.get("conformance"):
            return f"Conformance of {s.get('bots', ['?'])[0]}: {s.get('hands')} checks"
        mode = " duplicate" if s.get("duplicate") else ""
        if s.get("game", "holdem") != "holdem":
            return (f"{' vs '.join(s.get('bots', []))}: {s.get('hands')} rounds of "
                    f"{s['game']} {s.get('settings') or ''}{mode}, seed {s.get('seed')}")
        return (f"{' vs '.join(s.get('bots', []))}: {s.get('hands')} hands "
                f"{s.get('structure', 'NL')} {s.get('small_blind', 1)}/{s.get('big_blind', 2)}"
                f"{mode}, seed {s.get('seed')}")


class Session(models.Model):
    """A research session: a named set of hands — some tables, a time window, some
    players (each optional: an empty choice does not narrow) — whose statistics,
    cumulative winnings and exports :mod:`research.sessions` computes on demand."""

    name = models.CharField(max_length=120)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                   related_name="research_sessions")
    tables = models.ManyToManyField("tables.Table", blank=True, related_name="+")
    start = models.DateTimeField(null=True, blank=True)  # hands started at or after
    end = models.DateTimeField(null=True, blank=True)  # hands started before
    players = models.ManyToManyField("accounts.Player", blank=True, related_name="+")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"session {self.pk} {self.name}"
