"""Read-only queries of the research app: player statistics and matches.

:func:`player_stats` is what the browser's statistics page and the API show.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from accounts.models import Player
from botkit.stats import PlayerStats as Counters
from tables.models import HandPlayer

from .models import MatchRun, PlayerStats

Json = dict[str, Any]
SERIES_POINTS = 500


def cumulative_series(player: Player, points: int = SERIES_POINTS) -> Json:
    """Cumulative net chips after each of the player's finished hands, thinned to
    about ``points`` points: ``{"step": k, "hands": [...], "net": [...]}``."""
    nets = list(HandPlayer.objects.filter(player=player, hand__ended_at__isnull=False)
                .order_by("hand_id").values_list("net", flat=True))
    return thinned_cumulative(nets, points)


def thinned_cumulative(nets: list[int], points: int = SERIES_POINTS) -> Json:
    """The running total of ``nets`` after every ``step``-th hand (and the last), about
    ``points`` points: ``{"step": k, "hands": [...], "net": [...]}``."""
    step = max(1, len(nets) // points) if points else 1
    hands, series, total = [], [], 0
    for index, net in enumerate(nets, start=1):
        total += net
        if index % step == 0 or index == len(nets):
            hands.append(index)
            series.append(total)
    return {"step": step, "hands": hands, "net": series}


def player_stats(name: str, *, series: bool = True, since: datetime | None = None,
                 until: datetime | None = None, table: int | None = None) -> Json | None:
    """The statistics of the player called ``name`` (any case), or None if there is none.

    ``{"player": {...}, "stats": {hands, net, bb_per_100, vpip, pfr, af, wtsd, wsd,
    fold_to_flop_bet, fold_to_turn_bet, fold_to_river_bet, three_bet,
    fold_to_three_bet, cbet, positions}, "last_hand_id": n, "cumulative": {...}}``.
    Reads what :func:`research.services.update_stats` stored (the caller may run it
    first); with ``since``/``until`` (hands started in ``[since, until)``) or
    ``table`` (a table id) it computes them from those hands on the fly and adds
    ``"filters"``.
    """
    player = Player.objects.filter(name__iexact=name).first()
    if player is None:
        return None
    if since is not None or until is not None or table is not None:
        from .sessions import player_stats_filtered

        computed = player_stats_filtered(player, start=since, end=until, table=table)
        data = {
            "player": {"id": player.pk, "name": player.name, "kind": player.kind,
                       "deleted": player.is_deleted},
            "stats": computed["stats"], "last_hand_id": 0,
            "filters": {"since": since.isoformat() if since else None,
                        "until": until.isoformat() if until else None, "table": table},
        }
        if series:
            data["cumulative"] = computed["cumulative"]
        return data
    row = PlayerStats.objects.filter(player=player).first()
    counters = Counters.from_json(row.counters) if row and row.counters else Counters()
    data: Json = {
        "player": {"id": player.pk, "name": player.name, "kind": player.kind,
                   "deleted": player.is_deleted},
        "stats": counters.summary(),
        "last_hand_id": row.last_hand_id if row else 0,
    }
    if series:
        data["cumulative"] = cumulative_series(player)
    return data


def matches() -> QuerySet[MatchRun]:
    return MatchRun.objects.select_related("created_by")


def match_json(match: MatchRun) -> Json:
    return {
        "id": match.pk, "title": match.title, "status": match.status,
        "settings": match.settings, "results": match.results, "error": match.error,
        "error_code": match.error_code,
        "participants": match.settings.get("participants") or [
            {"name": name, "kind": "house", "house": name} for name in match.settings["bots"]],
        "created_by": match.created_by.username if match.created_by else None,
        "created_at": match.created_at.isoformat(),
        "started_at": match.started_at.isoformat() if match.started_at else None,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "has_phh": bool(match.phh),
    }
