"""Helpers for the lobby and leaderboard tests: a test-only game that ends, and
finished tables with their standings written as ``tables.runtime`` writes them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from tests.api.test_games import DiceRace

__all__ = ["DiceRace", "finish", "make_table"]
EPOCH = datetime(2024, 1, 1, 12, 0, tzinfo=timezone.get_fixed_timezone(0))


def make_table(creator: Any, name: str, game: str = "holdem", **settings: Any) -> Any:
    from tables.services import create_table

    if game == "holdem":
        settings = {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6,
                    **settings}
    return create_table(creator=creator, name=name, game=game, settings=settings)


def finish(table: Any, places: list[tuple[str, int]], minutes: int = 0) -> Any:
    """End ``table``'s game: one Standing per ``(player name, score)`` (ranked by score,
    in the order given on ties), the standings JSON, status ``finished``; as
    ``TableRun._end_game`` does. ``minutes`` after :data:`EPOCH` is when it ended."""
    from accounts.models import Player
    from tables.models import Standing, TableStatus

    at = EPOCH + timedelta(minutes=minutes)
    ordered = sorted(enumerate(places), key=lambda item: -item[1][1])
    standings = []
    for rank, (seat, (name, score)) in enumerate(ordered, start=1):
        player = Player.objects.filter(name=name).first()
        Standing.objects.create(table=table, game=table.game, rules=table.rules, player=player,
                                name=name, seat=seat, rank=rank, score=score, finished_at=at)
        standings.append({"seat": seat, "player_id": str(player.pk) if player else "",
                          "rank": rank, "score": score, "name": name})
    table.standings = standings
    table.status, table.closed_at = TableStatus.FINISHED, at
    table.save(update_fields=["standings", "status", "closed_at"])
    return table
