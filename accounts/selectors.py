"""Read-only queries about players and money."""

from __future__ import annotations

from django.apps import apps
from django.db.models import QuerySet

from .models import LedgerEntry, Player, User


def players_of(user: User) -> QuerySet[Player]:
    """The user's live players: human players first, then bots, each by name."""
    return Player.objects.live().filter(owner=user).order_by("-kind", "name")


def ledger_of(user: User) -> QuerySet[LedgerEntry]:
    """Ledger entries of the user's live players, newest first."""
    return LedgerEntry.objects.filter(player__owner=user).select_related("player")


def player_name_taken(name: str) -> bool:
    """Whether any player, live or deleted, already has this name (ignoring case)."""
    return Player.objects.filter(name__iexact=name).exists()


def player_is_seated(player: Player) -> bool:
    """Whether the player currently sits at a table.

    Seats belong to the ``tables`` app, which defines ``tables.Seat`` with
    ``player = ForeignKey(Player, related_name="seats")``; a Seat row exists while
    the player sits. Until that model exists, nothing can be seated, so the answer
    is False. Looked up through the app registry so that accounts does not import
    tables (tables depends on accounts, not the other way round).
    """
    try:
        seat_model = apps.get_model("tables", "Seat")
    except LookupError:
        return False
    return bool(seat_model.objects.filter(player=player).exists())
