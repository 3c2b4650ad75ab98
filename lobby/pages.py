"""The table page, the seat-a-house-bot endpoints, hand lists, replay, statistics and
the leaderboards."""

from __future__ import annotations

import functools
import re
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.models import Player
from engine.registry import GAMES
from research import selectors as research_selectors
from research.charts import line_chart, number
from research.services import update_stats
from tables import selectors as table_selectors
from tables import services
from tables.errors import TableError
from tables.models import Table, TableStatus
from tables.wire import load_json

from . import rulesets, selectors
from .public import login_or_public

GENERIC_BOARD = "_generic"


def _module_key(game: str, module: str) -> str:
    """The folder of ``static/games/`` whose ``module`` (``board.js``, ``replay.js``)
    a game uses: its own if it has one, else the generic one."""
    key = game if re.fullmatch(r"[a-z0-9_]+", game or "") else GENERIC_BOARD
    return key if finders.find(f"games/{key}/{module}") else GENERIC_BOARD


@functools.cache
def _board_files(game: str) -> tuple[str, str | None]:
    """The board module of a game (``static/games/<game>/board.js``, else the generic
    board) and its stylesheet if it has one, as static URLs."""
    key = _module_key(game, "board.js")
    css = f"games/{key}/board.css"
    return static(f"games/{key}/board.js"), static(css) if finders.find(css) else None


@functools.cache
def _replay_files(game: str) -> tuple[str, tuple[str, ...]]:
    """The replay module of a game (``static/games/<game>/replay.js``, else the generic
    replay) and the stylesheets it draws with (that folder's ``board.css`` and
    ``replay.css``, those that exist), as static URLs."""
    key = _module_key(game, "replay.js")
    css = tuple(static(f"games/{key}/{name}") for name in ("board.css", "replay.css")
                if finders.find(f"games/{key}/{name}"))
    return static(f"games/{key}/replay.js"), css


def _game_info(game: str) -> dict[str, Any]:
    """The game's self-description; a stand-in for a game no longer registered."""
    return table_selectors.game_info(game) or {
        "key": game, "title": game, "round_name": "round", "economy": True}


@login_or_public
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    obj = get_object_or_404(Table, pk=table_id)
    info = _game_info(obj.game)
    # ?board=generic shows any game on the generic board (its view as JSON, its moves
    # as plain controls): a look at what a game sends before it has a board of its own.
    board = GENERIC_BOARD if request.GET.get("board") == "generic" \
        else info.get("client") or obj.game
    board_url, board_css = _board_files(board)
    leaderboard_url = _leaderboard_url(obj) if info.get("ends") or obj.standings else None
    return render(request, "tables/table.html", {
        "table": obj,
        "board_css": board_css,
        "finished": obj.status == TableStatus.FINISHED,
        "closed": obj.status == TableStatus.CLOSED,
        "can_close": obj.status != TableStatus.CLOSED and services.may_close(request.user, obj),
        "standings": sorted(obj.standings or [], key=lambda s: s.get("rank", 0)),
        "leaderboard_url": leaderboard_url,
        "round_name": info.get("round_name") or "round",
        "economy": info.get("economy", True),
        "config": {
            "table": obj.pk, "game": obj.game, "game_info": info,
            "board_url": board_url, "generic_board_url": _board_files(GENERIC_BOARD)[0],
            "ws": f"/ws/tables/{obj.pk}/",
            "log_url": f"/tables/{obj.pk}/log.json",
            "account_url": "/lobby/account.json",
            "house_url": f"/tables/{obj.pk}/house-bot/",
            "can_manage_bots": bool(getattr(request.user, "can_manage_bots", False)),
            "guest": not request.user.is_authenticated,
            "seatable": selectors.seatable_players(request.user, obj),
            "house_seats": selectors.house_seats(obj),
            "leaderboard_url": leaderboard_url,
        },
    })


def _leaderboard_url(table: Table) -> str:
    """The leaderboard of the table's game and rule set: the game's rule-set identity
    when it has one (the dice game's top-10 per rule set), else the settings digest."""
    url = reverse("leaderboard", args=[table.game])
    game = GAMES.get(table.game)
    try:
        identity = game.rule_set_id(table.settings) if game is not None else ""
    except (TypeError, KeyError, ValueError, AttributeError):
        identity = ""
    if identity and rulesets.RULE_SET_ID.fullmatch(identity):
        return f"{url}?rule_set={identity}"
    return f"{url}?rules={table.rules}" if table.rules else url


@login_or_public
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
    """A tester or superuser seats a house bot (``{"player", "seat"}`` plus the game's
    seat options, poker: ``buy_in``) or removes one (``{"remove": seat}``); the table
    service checks the rights."""
    try:
        body = load_json((request.body or b"{}").decode())  # bounded depth (tables.wire)
    except ValueError:
        return _error(TableError("malformed_message", "Send a JSON object."))
    if not isinstance(body, dict):
        return _error(TableError("malformed_message", "Send a JSON object."))
    if "remove" in body:
        command = {"type": "leave", "seat": body["remove"]}
    else:  # the seat options (poker: buy_in) as the sit command has them
        command = {**body, "type": "sit", "seat": body.get("seat"), "player": body.get("player")}
    try:
        result = services.execute(table_id=table_id, user=request.user, command=command)
    except TableError as error:
        return _error(error, 403 if error.code in {"not_allowed", "not_your_player"} else 400)
    return JsonResponse({"version": result.version})


@require_POST
@login_required
def close_table(request: HttpRequest, table_id: int) -> HttpResponse:
    """The "Close table" form of the table page (the creator of an empty table, a
    superuser any table): back to the lobby, or to the table with the refusal."""
    get_object_or_404(Table, pk=table_id)
    try:
        table = services.close_table(table_id=table_id, user=request.user)
    except TableError as error:
        if error.code == "not_allowed":
            raise PermissionDenied(error.message) from None
        messages.error(request, error.message)
        return redirect("table", table_id=table_id)
    messages.success(request, f"The table “{table.name}” is closed.")
    return redirect("lobby")


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


def _mine(request: HttpRequest, kind: str) -> HttpResponse:
    """"My hands" / "My statistics": the page of the user's only player, else a list
    of the user's players with both links."""
    from accounts.selectors import players_of

    players = list(players_of(request.user))  # type: ignore[arg-type]
    if len(players) == 1:
        return redirect(f"player_{kind}", player_id=players[0].pk)
    return render(request, "lobby/my_players.html", {"players": players, "kind": kind})


@login_required
def my_hands(request: HttpRequest) -> HttpResponse:
    return _mine(request, "hands")


@login_required
def my_stats(request: HttpRequest) -> HttpResponse:
    return _mine(request, "stats")


@login_required
def player_stats(request: HttpRequest, player_id: int) -> HttpResponse:
    """The stored lifetime statistics; with ``?since=&until=&table=`` (ISO dates, a
    table id) computed from the hands of that period and table."""
    from research.sessions import SessionError, parse_time

    player = get_object_or_404(Player, pk=player_id)
    raw = {key: request.GET.get(key, "").strip()[:40] for key in ("since", "until", "table")}
    error, since, until, table = "", None, None, None
    try:
        since = parse_time(raw["since"], "since")
        until = parse_time(raw["until"], "until", end=True)
        if raw["table"]:
            if not raw["table"].isdigit() or len(raw["table"]) > 18 or not Table.objects.filter(
                    pk=int(raw["table"])).exists():
                raise SessionError("unknown_table", f"There is no table {raw['table']!r}.")
            table = int(raw["table"])
        if since is not None and until is not None and since >= until:
            raise SessionError("bad_time_window", "“since” must be before “until”.")
    except SessionError as refusal:
        error, since, until, table = refusal.message, None, None, None
    update_stats()  # the worker keeps them current; this catches the last second
    stats = research_selectors.player_stats(player.name, since=since, until=until,
                                            table=table) or {}
    curve = [0, *stats.get("cumulative", {}).get("net", [])]
    tables = (Table.objects.filter(hands__players__player=player).distinct()
              .order_by("-pk").values("pk", "name")[:200])
    return render(request, "tables/stats.html", {
        "player": player, "s": stats.get("stats", {}),
        "chart": line_chart({player.name: curve[1:]}, height=240),
        "chart_hands": str(len(curve) - 1), "chart_last": number(curve[-1], sign=True),
        "filters": raw, "filtered": "filters" in stats, "error": error, "tables": tables,
    }, status=400 if error else 200)


def _history(request: HttpRequest, hand_id: int) -> dict:  # type: ignore[type-arg]
    try:
        return table_selectors.hand_history(hand_id, request.user)
    except TableError:
        raise Http404("No such finished hand.") from None


@login_required
def replay(request: HttpRequest, hand_id: int) -> HttpResponse:
    """A finished round step by step: the replay shell (static/js/replay.js) with the
    game's replay module, or the generic one (also with ``?board=generic``)."""
    history = _history(request, hand_id)
    obj = get_object_or_404(Table, pk=history["table"])
    info = table_selectors.table_info(obj)
    game_info = info.get("game_info") or _game_info(obj.game)
    module = GENERIC_BOARD if request.GET.get("board") == "generic" \
        else game_info.get("client") or obj.game
    replay_url, replay_css = _replay_files(module)
    players = history["players"]
    # The viewer's own seats (players it owns, bots included), as the live table's
    # "you.seats": the replay draws the first of them at the bottom.
    mine = set(Player.objects.filter(
        pk__in=[p["player"] for p in players if p.get("player")], owner=request.user)
        .values_list("pk", flat=True))
    my_seats = sorted(p["seat"] for p in players if p.get("player") in mine)
    return render(request, "tables/replay.html", {
        "hand": history, "table": obj, "replay_css": replay_css,
        "round_name": game_info.get("round_name") or "round",
        # The players panel shows a column only when some player has a value for it.
        "show_stack": any(p.get("starting_stack") is not None for p in players),
        "show_net": game_info.get("economy", True) or any(p.get("net") for p in players),
        "show_score": any(p.get("score") is not None for p in players),
        "export_label": _export_format(obj.game).upper(),
        "config": {
            "hand": history, "info": info, "game_info": game_info,
            "replay_url": replay_url, "generic_replay_url": _replay_files(GENERIC_BOARD)[0],
            "sees_everything": bool(getattr(request.user, "can_see_all_cards", False)),
            "my_seats": my_seats,
        },
    })


def _export_format(game: str) -> str:
    """The game's export format (``GameInfo.export_format``: ``phh``, ``json``...)."""
    return str(_game_info(game).get("export_format") or "phh")


@login_required
def phh(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The round's export (PHH for poker; a game's own format, e.g. Tuppi's JSON)."""
    history = _history(request, hand_id)
    kind = _export_format(history["game"])
    content_type = "application/json" if kind == "json" else "text/plain; charset=utf-8"
    response = HttpResponse(history["phh"], content_type=content_type)
    response["Content-Disposition"] = (
        f'attachment; filename="table{history["table"]}-hand{history["number"]}.{kind}"')
    return response


LEADERBOARD_SIZE = 10


@login_required
def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    """The best finishes of a game, of one rule set with ``?rules=<digest>`` (its
    settings shown), or of every rule set (each entry names its rule set)."""
    engine_game = GAMES.get(game)
    if engine_game is None:
        raise Http404("No such game.")
    rules = request.GET.get("rules", "").strip()
    # ?rule_set=<identity>: the top-10 of a game's rule set (Game.rule_set_id: the dice
    # game's rules_id), whatever the tables' other settings.
    identity = request.GET.get("rule_set", "").strip()
    context: dict[str, Any] = {"game": engine_game.info.to_json(), "rules": rules,
                               "rule_set": None, "settings": [], "entries": [],
                               "identity": identity, "identity_name": "",
                               "has_rule_sets": engine_game.rule_sets() is not None}
    if rules and not selectors.RULES_DIGEST.fullmatch(rules):
        context["error"] = "A rule set is named by its 40-character digest."
        return render(request, "lobby/leaderboard.html", context, status=400)
    if identity and not rulesets.RULE_SET_ID.fullmatch(identity):
        context["error"] = "A rule set's identity is 1 to 40 letters, digits, _ or -."
        return render(request, "lobby/leaderboard.html", context, status=400)
    context["entries"] = [{**e, "finished": datetime.fromisoformat(e["finished_at"])}
                          for e in selectors.leaderboard(game, rules, LEADERBOARD_SIZE,
                                                         rule_set=identity)]
    if identity:
        context["identity_name"] = rulesets.rule_set_name(engine_game, identity)
        context["identity_rule"] = (engine_game.rule_sets() or {}).get("top10", "")
    if rules:
        rule_set = selectors.rule_sets(game, [rules]).get(rules)
        context["rule_set"] = rule_set
        if rule_set is not None:
            context["settings"] = selectors.settings_rows(game, rule_set["settings"])
    else:
        context["rule_sets"] = selectors.finished_rule_sets(game)
    return render(request, "lobby/leaderboard.html", context)
