"""The REST API (docs/api.md): one thin view per operation.

Table commands go through :func:`tables.services.execute` exactly as the
websocket's do; reads go through :mod:`tables.selectors` and
:mod:`research.selectors`. Errors are rendered by :mod:`api.errors`.
The long-poll ``wait`` endpoint is async and lives in :mod:`api.longpoll`.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any, cast

from django.db import DataError, IntegrityError, transaction
from django.db.models import Count, F, QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services as accounts_services
from accounts.authentication import TokenScopes
from accounts.models import Player, PlayerKind, TokenScope
from accounts.permissions import CanCreateTables, CanManageBots
from engine.game import Game
from engine.registry import GAMES
from research import selectors as research_selectors
from research import services as research_services
from research.models import MatchRun
from tables import owner, selectors, services
from tables.errors import TableError
from tables.models import Hand, Seat, Table, TableStatus

from . import serializers as s
from .errors import ApiError, ScopedThrottled, exception_handler
from .models import IdempotentRequest
from .throttles import ScopeThrottle

ERRORS = {code: OpenApiResponse(s.ErrorSerializer, description=text) for code, text in (
    (400, "Invalid request"), (401, "Not authenticated"), (403, "Not allowed"),
    (404, "Not found"), (409, "Refused in the current state"), (429, "Throttled"))}


RULES_DIGEST = re.compile(r"[0-9a-f]{40}")  # a rule set: tables.runtime.rules_digest
RULE_SET_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")  # a game's rule-set identity (Game.rule_set_id)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in (401, 429, *codes)}


def acting_bot(request: Request) -> Player | None:
    """The bot a bearer token authenticates (None for a browser session)."""
    return request.auth if isinstance(request.auth, Player) else None


def int_param(request: Request, name: str, *, minimum: int = 0,
              maximum: int = 2**62) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ApiError("invalid_request", f"“{name}” must be a whole number.",
                       details={"fields": {name: ["A whole number is required."]}}) from None
    if not minimum <= value <= maximum:
        raise ApiError("invalid_request", f"“{name}” must be between {minimum} and {maximum}.",
                       details={"fields": {name: ["Out of range."]}})
    return value


class ApiView(APIView):
    """Base: per-scope throttling whose 429 says which scope was hit, and the token
    scope every view needs (``token_scope``: ``play`` unless it says otherwise;
    :class:`accounts.authentication.TokenScopes`)."""

    throttle_classes = [ScopeThrottle]
    throttle_scope = "default"
    token_scope: str | None = TokenScope.PLAY.value

    def get_permissions(self) -> list[Any]:
        return [TokenScopes(), *super().get_permissions()]

    def check_throttles(self, request: Request) -> None:
        for throttle in self.get_throttles():
            if not throttle.allow_request(request, self):
                raise ScopedThrottled(throttle.wait(), getattr(throttle, "scope", "default"))

    def finalize_response(self, request: Request, response: HttpResponse, *args: Any,
                          **kwargs: Any) -> HttpResponse:
        """Every API answer, errors included, is ``Cache-Control: no-store``: some carry
        a raw bot token (creating a bot, a new token) and none is for a shared cache."""
        from django.utils.cache import patch_cache_control

        response = super().finalize_response(request, response, *args, **kwargs)
        patch_cache_control(response, no_store=True)
        return response


class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


# ----------------------------------------------------------------- me


class MeView(ApiView):
    token_scope = None  # every token may ask who it is
    @extend_schema(summary="Who am I", responses={200: s.MeSerializer, **errors()},
                   tags=["account"])
    def get(self, request: Request) -> Response:
        user, bot = request.user, acting_bot(request)
        # A bot token sees its own profile only, not its owner's other players.
        players = ([bot] if bot is not None else
                   Player.objects.live().filter(owner=user).order_by("-kind", "name"))
        return Response({
            "username": user.username,
            "role": user.get_role_display(),
            "rights": {right: bool(getattr(user, right)) for right in (
                "can_play", "can_create_tables", "can_manage_bots", "can_see_all_cards",
                "can_manage_users")},
            "bot": {"id": bot.pk, "name": bot.name} if bot is not None else None,
            "players": [{"id": p.pk, "name": p.name, "kind": p.kind, "balance": p.balance}
                        for p in players],
        })


# --------------------------------------------------------------- games


def game_json(game: Game) -> dict[str, Any]:
    """The game's description; ``house_bot_styles``: every house-bot style that plays it
    (``botkit.house.house_bots``) with the JSON schema of its parameters."""
    from botkit.house import house_bots, params_schema

    key = game.info.key
    return {**game.info.to_json(), "settings_schema": game.settings_schema(),
            "house_bot_styles": [{"style": style, "params": params_schema(style, key)}
                                 for style in house_bots(key)]}


class GamesView(ApiView):
    @extend_schema(summary="The games this server hosts, with their settings schemas",
                   description="`key` is the `game` of `POST /api/v1/tables/`; "
                   "`settings_schema` (JSON schema) describes its `settings`.",
                   responses={200: s.GameSerializer(many=True), **errors()}, tags=["tables"])
    def get(self, request: Request) -> Response:
        return Response([game_json(game) for game in GAMES.values()])


LEADERBOARD_LIMIT = 10


class LeaderboardView(ApiView):
    @extend_schema(
        summary="A game's leaderboard: the best finishes, of one rule set or of all",
        description="Built from the final standings of the game's finished tables (games "
        "that end): highest score first, then the earliest finish. `rules` is a table's "
        "`rules` digest (tables created with the same game and settings share it); an "
        "unknown digest gives an empty list. A cash game (`ends: false`) never finishes "
        "a table, so its leaderboard stays empty.",
        parameters=[
            OpenApiParameter("key", str, OpenApiParameter.PATH,
                             description="A game's key (`GET /api/v1/games/`)."),
            OpenApiParameter("rules", str, pattern="^[0-9a-f]{40}$",
                             description="Only this rule set (a table's `rules`)."),
            OpenApiParameter("rule_set", str, pattern="^[A-Za-z0-9_-]{1,40}$",
                             description="Only this rule-set identity (the dice game's "
                             "`rules_id`, in a table's `facts`): the top 10 of a rule set "
                             "whatever the seat count. Only the finishes the game lists "
                             "enter (dice: every solitaire game, the winner of a game of "
                             "several players)."),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 100},
                             default=LEADERBOARD_LIMIT, description="How many entries "
                             "(1–100, default 10)."),
        ],
        responses={200: s.LeaderboardSerializer, **errors(400, 404)}, tags=["games"])
    def get(self, request: Request, key: str) -> Response:
        game = GAMES.get(key)
        if game is None:
            raise ApiError("unknown_game", f"There is no game called “{key[:40]}”.", 404)
        rules = request.query_params.get("rules", "").strip()
        if rules and not RULES_DIGEST.fullmatch(rules):
            raise ApiError("invalid_request", "“rules” is a rule set's 40-character digest "
                           "(a table's `rules`).",
                           details={"fields": {"rules": ["Not a rule set digest."]}})
        identity = request.query_params.get("rule_set", "").strip()
        if identity and not RULE_SET_ID.fullmatch(identity):
            raise ApiError("invalid_request", "“rule_set” is a rule-set identity: 1 to 40 "
                           "letters, digits, _ or -.",
                           details={"fields": {"rule_set": ["Not a rule-set identity."]}})
        limit = int_param(request, "limit", minimum=1, maximum=100)
        limit = LEADERBOARD_LIMIT if limit is None else limit
        entries = selectors.leaderboard(key, rules or None, limit, rule_set=identity or None)
        ids = {entry["table"] for entry in entries}
        tables = {pk: (name, digest, game_name) for pk, name, digest, game_name in
                  Table.objects.filter(pk__in=ids).values_list("pk", "name", "rules",
                                                               "game_name")} if ids else {}
        for entry in entries:
            entry["table_name"], entry["rules"], entry["game_name"] = tables.get(
                entry["table"], ("", "", ""))
        rule_set = (Table.objects.filter(game=key, rules=rules).order_by("id")
                    .values("settings", "game_name").first()) if rules else None
        return Response({
            "game": key, "title": game.info.title, "ends": game.info.ends,
            "rules": rules or None, "rule_set": identity or None,
            "settings": rule_set["settings"] if rule_set else None,
            "game_name": rule_set["game_name"] if rule_set else None,
            "limit": limit, "results": entries,
        })


# -------------------------------------------------------------- tables

TABLE_ORDERING = {
    "id": "id", "name": "name", "game": "game", "game_name": "game_name",
    "structure": "structure", "small_blind": "small_blind", "big_blind": "big_blind",
    "ante": "ante", "seats": "seat_count", "players": "n_players", "free_seats": "n_free",
    "min_buy_in": "min_buy_in", "max_buy_in": "max_buy_in", "turn_seconds": "turn_seconds",
    "status": "status", "created_at": "created_at",
}
TABLE_FILTERS = [
    OpenApiParameter("game", str, description="Game key, e.g. `holdem`."),
    OpenApiParameter("structure", str, enum=["NL", "PL", "FL"]),
    OpenApiParameter("stakes", str, description="Blinds as `small/big`, e.g. `1/2`."),
    OpenApiParameter("small_blind", int), OpenApiParameter("big_blind", int),
    OpenApiParameter("ante", int),
    OpenApiParameter("seats", int, description="Number of seats (2–10)."),
    OpenApiParameter("min_free_seats", int, description="At least this many free seats."),
    OpenApiParameter("status", str, enum=["waiting", "running", "closed", "finished"],
                     description="Default: every table still open (waiting or running); "
                     "`finished`: games that ended, with their standings."),
    OpenApiParameter("rules", str, pattern="^[0-9a-f]{40}$",
                     description="Tables of this rule set (a table's `rules` digest: same "
                     "game and settings)."),
    OpenApiParameter("player", str, description="Tables where this player sits (V6)."),
    OpenApiParameter("name", str, description="Part of the table name."),
    OpenApiParameter("ordering", str, description="Comma-separated columns, `-` for "
                     "descending: " + ", ".join(TABLE_ORDERING)),
    OpenApiParameter("page", int), OpenApiParameter("page_size", int),
]


def table_rows(tables: QuerySet[Table]) -> QuerySet[Table]:
    return (tables.annotate(n_players=Count("seats", distinct=True))
            .annotate(n_free=F("seat_count") - F("n_players"))
            .prefetch_related("seats__player"))


def tables_of_player(name: str) -> QuerySet[Seat]:
    """The ids of the tables where the player called ``name`` sits (a subquery)."""
    return Seat.objects.filter(player__name__iexact=name).values("table_id")


def table_json(table: Table) -> dict[str, Any]:
    info = selectors.table_info(table)
    # The game's settings and listing facts (stored on the table by the runtime).
    info.setdefault("settings", getattr(table, "settings", None))
    info.setdefault("facts", getattr(table, "facts", None))
    info["rules"] = table.rules  # the rule set: its leaderboard
    info["players"] = table.n_players
    info["free_seats"] = table.n_free
    info["created_at"] = table.created_at.isoformat()
    info["player_names"] = [seat.player.name for seat in table.seats.all()]
    return info


def filter_tables(request: Request) -> QuerySet[Table]:
    params = request.query_params
    wanted_status = params.get("status")
    if wanted_status:
        if wanted_status not in TableStatus.values:
            raise ApiError("invalid_request", "status is waiting, running, closed or finished.")
        tables = Table.objects.filter(status=wanted_status)
    else:  # finished tables left the lobby like closed ones
        tables = selectors.open_tables().exclude(status=TableStatus.FINISHED)
    tables = table_rows(tables)
    if params.get("game"):
        tables = tables.filter(game=params["game"])
    if params.get("structure"):
        tables = tables.filter(structure__iexact=params["structure"])
    if params.get("name"):
        tables = tables.filter(name__icontains=params["name"])
    if params.get("rules"):
        if not RULES_DIGEST.fullmatch(params["rules"]):
            raise ApiError("invalid_request", "“rules” is a rule set's 40-character digest.",
                           details={"fields": {"rules": ["Not a rule set digest."]}})
        tables = tables.filter(rules=params["rules"])
    if params.get("player"):
        tables = tables.filter(pk__in=tables_of_player(params["player"]))
    if params.get("stakes"):
        small, slash, big = params["stakes"].partition("/")
        if not slash or not all(part.strip().isascii() and part.strip().isdigit()
                                and len(part.strip()) <= 13 for part in (small, big)):
            raise ApiError("invalid_request", "stakes is written small/big, e.g. 1/2.")
        tables = tables.filter(small_blind=int(small), big_blind=int(big))
    for name, field in (("small_blind", "small_blind"), ("big_blind", "big_blind"),
                        ("ante", "ante"), ("seats", "seat_count")):
        value = int_param(request, name)
        if value is not None:
            tables = tables.filter(**{field: value})
    free = int_param(request, "min_free_seats")
    if free is not None:
        tables = tables.filter(n_free__gte=free)
    order = []
    for column in (params.get("ordering") or "name").split(","):
        column = column.strip()
        descending = column.startswith("-")
        field = TABLE_ORDERING.get(column.lstrip("-"))
        if field is None:
            raise ApiError("invalid_request", f"Cannot sort by “{column}”; use one of: "
                           + ", ".join(TABLE_ORDERING) + ".")
        order.append(f"-{field}" if descending else field)
    return tables.order_by(*order, "id")


class TablesView(ApiView):
    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [CanCreateTables()]
        return super().get_permissions()

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "create" if self.request.method == "POST" else "default"
        return super().get_throttles()

    @extend_schema(summary="List, search and sort tables (V5, V6, V26)",
                   parameters=TABLE_FILTERS, responses={200: s.TableSerializer(many=True),
                                                        **errors(400, 404)}, tags=["tables"])
    def get(self, request: Request) -> Response:
        pages = Pages()
        page = pages.paginate_queryset(filter_tables(request), request, view=self)
        return pages.get_paginated_response([table_json(t) for t in page or []])

    @extend_schema(
        summary="Create a table of any game (V7)",
        description="`{\"name\", \"game\", \"settings\", \"turn_seconds\"}`: `game` is a key "
        "of `GET /api/v1/games/` (default `holdem`), `settings` follow that game's "
        "`settings_schema` and are validated by the game (refusals keep the game's code, "
        "e.g. `bad_settings`). For Hold'em the flat fields `structure`, `small_blind`, "
        "... are still accepted instead of `settings`.",
        request=s.TableCreateSerializer,
        responses={201: s.TableSerializer, **errors(400, 403, 409)}, tags=["tables"])
    def post(self, request: Request) -> Response:
        data = s.TableCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        try:
            table = services.create_table(
                creator=request.user, name=values["name"], game=values["game"],
                settings=values["settings"], turn_seconds=values.get("turn_seconds"))
        except TableError as error:  # refusals other than these are invalid settings
            raise ApiError(error.code, error.message,
                           CREATE_STATUS.get(error.code, status.HTTP_400_BAD_REQUEST)) from None
        except (DataError, OverflowError):  # a value the game accepts but a column cannot hold
            raise ApiError("bad_settings", "A setting is too large.") from None
        return Response(table_json(table_rows(Table.objects.filter(pk=table.pk)).get()),
                        status=status.HTTP_201_CREATED)


# How table creation's refusals map to statuses; any other code (the game's
# ``bad_settings``, ``unknown_game``...) is a 400.
CREATE_STATUS = {"name_taken": 409, "not_allowed": 403, "not_authenticated": 401}


class TableView(ApiView):
    @extend_schema(summary="A table as you may see it (the websocket snapshot)",
                   responses={200: OpenApiTypes.OBJECT, **errors(404)}, tags=["tables"])
    def get(self, request: Request, table_id: int) -> Response:
        return Response(selectors.snapshot(table_id, request.user, acting_bot(request)))


class TableRouteView(ApiView):
    @extend_schema(
        summary="Which server process to connect to for a table",
        description="With live tables owned by one process each (docs/scale.md): "
        "`owner` is the websocket base address of the process that owns the table now "
        "(`null` if none does), `by_rule` the process that the rule *table id mod "
        "processes* names (it takes the table with its first connection), `path` the "
        "websocket path. Connecting there saves forwarding every command; any process "
        "serves any table. Without live tables both are `null`.",
        responses={200: OpenApiTypes.OBJECT, **errors(404)}, tags=["tables"])
    def get(self, request: Request, table_id: int) -> Response:
        if not Table.objects.filter(pk=table_id).exists():
            raise TableError("table_not_found", f"There is no table {table_id}.")
        return Response(owner.route(table_id))


class CloseTableView(ApiView):
    @extend_schema(
        summary="Close a table (its creator when empty, a superuser any)",
        description="The table leaves the lobby; its hand histories stay. Its creator may "
        "close it while nobody but house bots is seated (`409 table_not_empty` otherwise), "
        "a superuser any table: everyone seated leaves as with the `leave` command (poker: "
        "folded if in a hand) and is cashed out through the ledger. Others get `403 "
        "not_allowed`; a closed table `409 table_closed`.",
        request=None, responses={200: s.TableSerializer, **errors(403, 404, 409)},
        tags=["tables"])
    def post(self, request: Request, table_id: int) -> Response:
        services.close_table(table_id=table_id, user=request.user)
        return Response(table_json(table_rows(Table.objects.filter(pk=table_id)).get()))


def _fingerprint(table_id: int, command: Any) -> str:
    text = json.dumps([table_id, command], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class CommandsView(ApiView):
    throttle_scope = "commands"

    @extend_schema(
        summary="Send a table command: sit, leave, sit_out, sit_in, wait_for_bb, add_chips, act",
        description="The same commands as the websocket. `act` must echo `hand` and `version` "
        "of your `your_turn`; a late or repeated action is refused (`stale_version`, "
        "`wrong_hand`, `not_your_turn`). With an `Idempotency-Key` header a repeated "
        "request returns the first answer and is never applied twice.",
        request=s.CommandSerializer,
        parameters=[OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                                     description="Up to 100 characters, unique per command.")],
        responses={200: s.CommandResultSerializer, **errors(400, 403, 404, 409)},
        tags=["tables"])
    def post(self, request: Request, table_id: int) -> Response:
        check = s.CommandSerializer(data=request.data)
        check.is_valid(raise_exception=True)
        command = dict(request.data)
        user, bot = request.user, acting_bot(request)
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return self.execute(table_id, user, bot, command)
        if not 1 <= len(key) <= 100:
            raise ApiError("invalid_request", "An Idempotency-Key is 1 to 100 characters.")
        fingerprint = _fingerprint(table_id, command)
        bot_id = bot.pk if bot is not None else 0
        stored = IdempotentRequest.objects.filter(user=user, bot_id=bot_id, key=key).first()
        if stored is None:
            response = self.execute(table_id, user, bot, command)
            if response.status_code >= 500:
                # Nothing was done and the answer says to try again (server_busy,
                # unavailable): the same key must run the command then, not replay this.
                return response
            try:
                with transaction.atomic():
                    IdempotentRequest.objects.create(
                        user=user, bot_id=bot_id, key=key, fingerprint=fingerprint,
                        status_code=response.status_code, response=response.data)
            except IntegrityError:  # a concurrent twin won: answer as it did
                stored = IdempotentRequest.objects.get(user=user, bot_id=bot_id, key=key)
            else:
                if random.random() < 0.01:
                    IdempotentRequest.purge_expired()
                return response
        if stored.fingerprint != fingerprint:
            raise ApiError("idempotency_key_reused",
                           "This Idempotency-Key was already used for a different request.",
                           status_code=422)
        return Response(stored.response, status=stored.status_code,
                        headers={"Idempotent-Replayed": "true"})

    @staticmethod
    def execute(table_id: int, user: Any, bot: Player | None, command: dict[str, Any]) -> Response:
        try:
            version = owner.command_sync(table_id, user, bot, command)  # live tables
            if version is None:
                version = services.execute(table_id=table_id, user=user, command=command,
                                           bot=bot).version
        except TableError as error:  # rendered here: the answer is kept for its key
            return cast(Response, exception_handler(error, {}))  # (every TableError)
        return Response({"table": table_id, "version": version})


# --------------------------------------------------------------- hands


class HandsView(ApiView):
    @extend_schema(summary="Finished hands, newest first",
                   parameters=[OpenApiParameter("table", int), OpenApiParameter("player", str),
                               OpenApiParameter("page", int), OpenApiParameter("page_size", int)],
                   responses={200: s.HandSummarySerializer(many=True), **errors(400, 404)},
                   tags=["hands"])
    def get(self, request: Request) -> Response:
        hands = Hand.objects.filter(ended_at__isnull=False).select_related("table")
        table = int_param(request, "table")
        if table is not None:
            hands = hands.filter(table_id=table)
        if request.query_params.get("player"):
            hands = hands.filter(players__name__iexact=request.query_params["player"])
        pages = Pages()
        page = pages.paginate_queryset(hands.prefetch_related("players").order_by("-id"),
                                       request, view=self)
        return pages.get_paginated_response([{
            "id": h.pk, "table": h.table_id, "table_name": h.table.name, "number": h.number,
            "started_at": h.started_at.isoformat(), "ended_at": h.ended_at.isoformat(),
            "players": [{"seat": p.seat, "name": p.name, "net": p.net} for p in h.players.all()],
        } for h in page or []])


class HandView(ApiView):
    @extend_schema(summary="A hand history (JSON) as you may see it",
                   responses={200: OpenApiTypes.OBJECT, **errors(404)}, tags=["hands"])
    def get(self, request: Request, hand_id: int) -> Response:
        return Response(selectors.hand_history(hand_id, request.user))


class HandPhhView(ApiView):
    @extend_schema(summary="A hand history in PHH (hidden cards as ????)",
                   responses={(200, "text/plain"): OpenApiTypes.STR, **errors(404)},
                   tags=["hands"])
    def get(self, request: Request, hand_id: int) -> HttpResponse:
        history = selectors.hand_history(hand_id, request.user)
        return HttpResponse(history["phh"], content_type="text/plain; charset=utf-8")


# ------------------------------------------------------------- players


class PlayerStatsView(ApiView):
    @extend_schema(summary="A player's statistics (hands, bb/100, VPIP, PFR, AF, WTSD, W$SD, "
                           "fold to bet, 3-bet, c-bet)",
                   description="With ?since=&until= (ISO dates or date-times: hands started "
                               "in [since, until); a date as until: to the end of that day) "
                               "or ?table=<id> they are computed from those hands.",
                   parameters=[OpenApiParameter("since", str), OpenApiParameter("until", str),
                               OpenApiParameter("table", int)],
                   responses={200: s.PlayerStatsSerializer, **errors(400, 404)},
                   tags=["players"])
    def get(self, request: Request, name: str) -> Response:
        from research.sessions import SessionError, parse_time

        try:
            since = parse_time(request.query_params.get("since"), "since")
            until = parse_time(request.query_params.get("until"), "until", end=True)
        except SessionError as error:
            raise ApiError(error.code, error.message,
                           details={"fields": {error.field: [error.message]}}) from None
        table = int_param(request, "table", minimum=1)
        if table is not None and not Table.objects.filter(pk=table).exists():
            raise ApiError("unknown_table", f"There is no table {table}.",
                           details={"fields": {"table": ["No such table."]}})
        if since is not None and until is not None and since >= until:
            raise ApiError("bad_time_window", "“since” must be before “until”.",
                           details={"fields": {"until": ["Not after since."]}})
        if since is None and until is None and table is None:
            research_services.update_stats()  # the stored lifetime statistics, current
        data = research_selectors.player_stats(name, since=since, until=until, table=table)
        if data is None:
            raise ApiError("player_not_found", f"There is no player called “{name}”.", 404)
        return Response(data)


class PlayerTablesView(ApiView):
    @extend_schema(summary="The tables where a player sits (V6)",
                   responses={200: s.TableSerializer(many=True), **errors(404)},
                   tags=["players"])
    def get(self, request: Request, name: str) -> Response:
        if not Player.objects.filter(name__iexact=name).exists():
            raise ApiError("player_not_found", f"There is no player called “{name}”.", 404)
        # The player's tables as a subquery: a filter on ``seats`` before the
        # ``Count("seats")`` would count only that player's seat.
        tables = table_rows(Table.objects.filter(pk__in=tables_of_player(name))
                            .exclude(status__in=(TableStatus.CLOSED, TableStatus.FINISHED))
                            ).order_by("name")
        return Response([table_json(t) for t in tables])


# ---------------------------------------------------------------- bots


def bot_json(bot: Player) -> dict[str, Any]:
    return {"id": bot.pk, "name": bot.name, "description": bot.description,
            "balance": bot.balance, "created_at": bot.created_at.isoformat(),
            "token_created_at": bot.token_created_at.isoformat()
            if bot.token_created_at else None}


def own_bot(request: Request, bot_id: int) -> Player:
    bot = Player.objects.live().filter(pk=bot_id, owner=request.user,
                                       kind=PlayerKind.BOT).first()
    if bot is None:
        raise ApiError("bot_not_found", f"You have no bot {bot_id}.", 404)
    return bot


class BotsView(ApiView):
    permission_classes = [CanManageBots]
    token_scope = TokenScope.BOTS.value

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "create" if self.request.method == "POST" else "default"
        return super().get_throttles()

    @extend_schema(summary="Your bots (tester+)",
                   responses={200: s.BotSerializer(many=True), **errors(403)}, tags=["bots"])
    def get(self, request: Request) -> Response:
        bots = Player.objects.live().filter(owner=request.user, kind=PlayerKind.BOT)
        return Response([bot_json(b) for b in bots.order_by("name")])

    @extend_schema(summary="Create a bot; its token is shown once (tester+)",
                   request=s.BotCreateSerializer,
                   responses={201: s.BotTokenSerializer, **errors(400, 403, 409)}, tags=["bots"])
    def post(self, request: Request) -> Response:
        data = s.BotCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot, token = accounts_services.create_bot(owner=request.user,
                                                  name=data.validated_data["name"],
                                                  description=data.validated_data["description"])
        return Response({**bot_json(bot), "token": token}, status=status.HTTP_201_CREATED)


class BotView(ApiView):
    permission_classes = [CanManageBots]
    token_scope = TokenScope.BOTS.value

    @extend_schema(summary="One of your bots", responses={200: s.BotSerializer, **errors(403, 404)},
                   tags=["bots"])
    def get(self, request: Request, bot_id: int) -> Response:
        return Response(bot_json(own_bot(request, bot_id)))

    @extend_schema(summary="Delete one of your bots (refused while it sits at a table)",
                   responses={204: None, **errors(403, 404, 409)}, tags=["bots"])
    def delete(self, request: Request, bot_id: int) -> Response:
        accounts_services.delete_player(own_bot(request, bot_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class BotTokenView(ApiView):
    permission_classes = [CanManageBots]
    token_scope = TokenScope.BOTS.value
    throttle_scope = "create"

    @extend_schema(summary="Regenerate a bot's token (the old one stops working)", request=None,
                   responses={200: s.BotTokenSerializer, **errors(403, 404)}, tags=["bots"])
    def post(self, request: Request, bot_id: int) -> Response:
        bot = own_bot(request, bot_id)
        token = accounts_services.regenerate_bot_token(bot)
        return Response({**bot_json(bot), "token": token})


# ------------------------------------------------------------- matches


class MatchesView(ApiView):
    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [CanManageBots()]
        return super().get_permissions()

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "create" if self.request.method == "POST" else "default"
        return super().get_throttles()

    @extend_schema(summary="Batch matches, newest first",
                   parameters=[OpenApiParameter("page", int), OpenApiParameter("page_size", int)],
                   responses={200: s.MatchSerializer(many=True), **errors(404)},
                   tags=["matches"])
    def get(self, request: Request) -> Response:
        pages = Pages()
        page = pages.paginate_queryset(research_selectors.matches(), request, view=self)
        return pages.get_paginated_response(
            [research_selectors.match_json(m) for m in page or []])

    @extend_schema(summary="Start a batch match between house bots and remote bots (tester+)",
                   description="Played on the engine in the background; poll the match. "
                               "Remote bots join over /ws/matches/<id>/ (docs/protocol.md).",
                   request=s.MatchCreateSerializer,
                   responses={202: s.MatchSerializer, **errors(400, 403)}, tags=["matches"])
    def post(self, request: Request) -> Response:
        data = s.MatchCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            match = research_services.create_match(settings_data=dict(data.validated_data),
                                                   user=request.user)
        except ValueError as error:
            raise ApiError("bad_match", str(error)) from None
        return Response(research_selectors.match_json(match), status=status.HTTP_202_ACCEPTED)


def get_match(match_id: int) -> MatchRun:
    match = research_selectors.matches().filter(pk=match_id).first()
    if match is None:
        raise ApiError("match_not_found", f"There is no match {match_id}.", 404)
    return match


class MatchView(ApiView):
    @extend_schema(summary="A match: status, mbb/hand ± 95 % CI per bot, crosstable, series",
                   responses={200: s.MatchSerializer, **errors(404)}, tags=["matches"])
    def get(self, request: Request, match_id: int) -> Response:
        return Response(research_selectors.match_json(get_match(match_id)))


class MatchPhhView(ApiView):
    @extend_schema(summary="A match's hands as a .phhs file",
                   responses={(200, "text/plain"): OpenApiTypes.STR, **errors(404)},
                   tags=["matches"])
    def get(self, request: Request, match_id: int) -> HttpResponse:
        match = get_match(match_id)
        if not match.phh:
            raise ApiError("phh_not_stored", "This match's hands were not stored.", 404)
        response = HttpResponse(match.phh, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.phhs"'
        return response


