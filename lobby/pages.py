"""The table page, the seat-a-house-bot endpoints, hand lists, replay and statistics."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from accounts.models import Player
from research import selectors as research_selectors
from research.services import update_stats
from tables import selectors as table_selectors
from tables import services
from tables.errors import TableError
from tables.models import Table

from . import selectors


@login_required
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    obj = get_object_or_404(Table, pk=table_id)
    return render(request, "tables/table.html", {
        "table": obj,
        "config": {
            "table": obj.pk, "ws": f"/ws/tables/{obj.pk}/",
            "log_url": f"/tables/{obj.pk}/log.json",
            "account_url": "/lobby/account.json",
            "house_url": f"/tables/{obj.pk}/house-bot/",
            "can_manage_bots": bool(request.user.can_manage_bots),  # type: ignore[union-attr]
            "seatable": selectors.seatable_players(request.user, obj),
            "house_seats": selectors.house_seats(obj),
        },
    })


@login_required
def table_log(request: HttpRequest, table_id: int) -> JsonResponse:
    """The running hand's events for this viewer, plus what the seat dialog needs."""
    obj = get_object_or_404(Table.objects.select_related("current_hand"), pk=table_id)
    data = selectors.current_hand_log(obj, request.user)
    data["seatable"] = selectors.seatable_players(request.user, obj)
    data["house_seats"] = selectors.house_seats(obj)
    return JsonResponse(data)


def _error(error: TableError, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": error.to_json()}, status=status)


@require_POST
@login_required
def house_bot(request: HttpRequest, table_id: int) -> JsonResponse:
    """A tester or superuser seats a house bot (``{"player", "seat", "buy_in"}``) or
    removes one (``{"remove": seat}``); the table service checks the rights."""
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return _error(TableError("malformed_message", "Send a JSON object."))
    if not isinstance(body, dict):
        return _error(TableError("malformed_message", "Send a JSON object."))
    if "remove" in body:
        command = {"type": "leave", "seat": body["remove"]}
    else:
        command = {"type": "sit", "seat": body.get("seat"), "buy_in": body.get("buy_in"),
                   "player": body.get("player")}
    try:
        result = services.execute(table_id=table_id, user=request.user, command=command)
    except TableError as error:
        return _error(error, 403 if error.code in {"not_allowed", "not_your_player"} else 400)
    return JsonResponse({"version": result.version})


@login_required
def table_hands(request: HttpRequest, table_id: int) -> HttpResponse:
    obj = get_object_or_404(Table, pk=table_id)
    return render(request, "tables/hands.html", {
        "title": f"Hands at {obj.name}", "table": obj,
        "hands": selectors.hands_of_table(obj)})


@login_required
def player_hands(request: HttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    return render(request, "tables/player_hands.html", {
        "player": player, "rows": selectors.hands_of_player(player)})


@login_required
def player_stats(request: HttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    update_stats()  # the worker keeps them current; this catches the last second
    stats = research_selectors.player_stats(player.name) or {}
    curve = [0, *stats.get("cumulative", {}).get("net", [])]
    return render(request, "tables/stats.html", {
        "player": player, "s": stats.get("stats", {}), "chart": selectors.chart_points(curve),
    })


def _history(request: HttpRequest, hand_id: int) -> dict:  # type: ignore[type-arg]
    try:
        return table_selectors.hand_history(hand_id, request.user)
    except TableError:
        raise Http404("No such finished hand.") from None


@login_required
def replay(request: HttpRequest, hand_id: int) -> HttpResponse:
    history = _history(request, hand_id)
    obj = get_object_or_404(Table, pk=history["table"])
    return render(request, "tables/replay.html", {
        "hand": history, "table": obj,
        "config": {"hand": history, "info": table_selectors.table_info(obj)},
    })


@login_required
def phh(request: HttpRequest, hand_id: int) -> HttpResponse:
    history = _history(request, hand_id)
    response = HttpResponse(history["phh"], content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="table{history["table"]}-hand{history["number"]}.phh"')
    return response
