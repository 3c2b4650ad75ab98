"""House bots over the API (docs/house-bots.md): testers and superusers create, list,
change and delete the server-side bots that the table worker plays.

``GET/POST /api/v1/house-bots/``, ``GET/PATCH/DELETE /api/v1/house-bots/<id>/``. A house
bot belongs to the system account; any tester may manage any house bot (as any may
seat one). Refusals have stable codes: ``invalid_request`` (malformed fields),
``invalid_name``, ``invalid_text``, ``invalid_style``, ``invalid_params`` (400),
``name_taken``, ``player_seated``, ``style_cannot_play`` (409), ``house_bot_not_found``
(404), ``permission_denied`` (403). Writes are throttled in the ``create`` scope.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import services
from accounts.errors import AccountsError
from accounts.models import Player, TokenScope
from accounts.permissions import CanManageBots
from accounts.validators import PLAYER_NAME_MAX, validate_multiline_text, validate_plain_text

from .errors import ApiError
from .views import ApiView, errors

# Codes the generic handler would answer with 409: these are bad input.
BAD_INPUT = {"invalid_style", "invalid_params", "invalid_name", "invalid_text"}


def house_bot_json(bot: Player, styles: dict[str, list[str]] | None = None) -> dict[str, Any]:
    seats = sorted(bot.seats.all(), key=lambda s: (s.table_id, s.number))  # type: ignore[attr-defined]
    styles = services.house_bot_styles() if styles is None else styles
    return {"id": bot.pk, "name": bot.name, "style": bot.house_strategy,
            "params": bot.house_params, "description": bot.description,
            "balance": bot.balance, "created_at": bot.created_at.isoformat(),
            "games": styles.get(bot.house_strategy, []),
            "seats": [{"table": s.table_id, "table_name": s.table.name, "seat": s.number,
                       "stack": s.stack} for s in seats]}


def styles_json() -> list[dict[str, Any]]:
    return [{"style": style, "games": games,
             "params": {"type": "object", "properties": services.house_bot_params(style),
                        "additionalProperties": False}}
            for style, games in services.house_bot_styles().items()]


def refusal(exc: AccountsError) -> ApiError:
    if exc.code in BAD_INPUT:
        return ApiError(exc.code, exc.message, 400)
    if exc.code == "not_allowed":
        return ApiError("permission_denied", exc.message, 403)
    return ApiError(exc.code, exc.message, 409)


def house_bot(bot_id: int) -> Player:
    bot = Player.objects.live().house().filter(pk=bot_id).first()
    if bot is None:
        raise ApiError("house_bot_not_found", f"There is no house bot {bot_id}.", 404)
    return bot


class HouseBotCreateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=PLAYER_NAME_MAX, validators=[validate_plain_text])
    style = serializers.CharField(max_length=40, help_text="A style of `GET /api/v1/house-bots/"
                                  "styles/` (`ehs`, `rule_based`...).")
    params = serializers.JSONField(required=False, default=dict,
                                   help_text="The style's parameters, e.g. {\"samples\": 200}.")
    description = serializers.CharField(max_length=2000, required=False, default="",
                                        allow_blank=True, validators=[validate_multiline_text])


class HouseBotChangeSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=PLAYER_NAME_MAX, required=False,
                                 validators=[validate_plain_text])
    style = serializers.CharField(max_length=40, required=False)
    params = serializers.JSONField(required=False)
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True,
                                        validators=[validate_multiline_text])


HOUSE_BOT = inline_serializer("HouseBot", {
    "id": serializers.IntegerField(), "name": serializers.CharField(),
    "style": serializers.CharField(), "params": serializers.DictField(),
    "description": serializers.CharField(), "balance": serializers.IntegerField(),
    "created_at": serializers.DateTimeField(),
    "games": serializers.ListField(child=serializers.CharField()),
    "seats": serializers.ListField(child=serializers.DictField())})


class _HouseBotView(ApiView):
    permission_classes = [CanManageBots]
    token_scope = TokenScope.BOTS.value

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "default" if self.request.method == "GET" else "create"
        return super().get_throttles()


class HouseBotsView(_HouseBotView):
    @extend_schema(summary="Every house bot (tester+)", operation_id="house_bots_list",
                   responses={200: HOUSE_BOT, **errors(403)}, tags=["house bots"])
    def get(self, request: Request) -> Response:
        bots = Player.objects.live().house().order_by("name").prefetch_related("seats__table")
        styles = services.house_bot_styles()
        return Response([house_bot_json(b, styles) for b in bots])

    @extend_schema(summary="Create a house bot (tester+)", request=HouseBotCreateSerializer,
                   responses={201: HOUSE_BOT, **errors(400, 403, 409)}, tags=["house bots"])
    def post(self, request: Request) -> Response:
        data = HouseBotCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            bot = services.add_house_bot(by=request.user, **data.validated_data)
        except AccountsError as exc:
            raise refusal(exc) from None
        return Response(house_bot_json(bot), status=status.HTTP_201_CREATED)


class HouseBotStylesView(_HouseBotView):
    @extend_schema(summary="The house-bot styles, the games each plays, their parameters",
                   responses={200: inline_serializer("HouseBotStyle", {
                       "style": serializers.CharField(),
                       "games": serializers.ListField(child=serializers.CharField()),
                       "params": serializers.DictField()}), **errors(403)},
                   tags=["house bots"])
    def get(self, request: Request) -> Response:
        return Response(styles_json())


class HouseBotView(_HouseBotView):
    @extend_schema(summary="One house bot", responses={200: HOUSE_BOT, **errors(403, 404)},
                   tags=["house bots"])
    def get(self, request: Request, house_bot_id: int) -> Response:
        return Response(house_bot_json(house_bot(house_bot_id)))

    @extend_schema(summary="Rename a house bot, change its style, parameters or description",
                   request=HouseBotChangeSerializer,
                   responses={200: HOUSE_BOT, **errors(400, 403, 404, 409)},
                   tags=["house bots"])
    def patch(self, request: Request, house_bot_id: int) -> Response:
        bot = house_bot(house_bot_id)
        data = HouseBotChangeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            bot = services.update_house_bot(bot, by=request.user, **data.validated_data)
        except AccountsError as exc:
            raise refusal(exc) from None
        return Response(house_bot_json(bot))

    @extend_schema(summary="Delete a house bot (refused while it sits at a table: "
                           "`player_seated`)",
                   responses={204: None, **errors(403, 404, 409)}, tags=["house bots"])
    def delete(self, request: Request, house_bot_id: int) -> Response:
        try:
            services.delete_house_bot(house_bot(house_bot_id), by=request.user)
        except AccountsError as exc:
            raise refusal(exc) from None
        return Response(status=status.HTTP_204_NO_CONTENT)
