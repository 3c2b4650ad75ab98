"""``POST /api/v1/conformance/``: start a conformance run of a bot (docs/conformance.md).

A conformance run is a batch match of one remote bot against the scripted checks of
:mod:`botkit.conformance_scenarios` (research/conformance.py); poll it and read its
report at ``GET /api/v1/matches/<id>/`` (``results.conformance``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import CanManageBots
from research import selectors as research_selectors
from research import services as research_services

from . import serializers as s
from .errors import ApiError
from .views import ApiView, acting_bot, errors


class ConformanceCreateSerializer(serializers.Serializer):
    bot = serializers.CharField(
        required=False, max_length=100,
        help_text="The bot's player name; default: the bot whose token makes the request.")
    turn_seconds = serializers.FloatField(
        required=False, allow_null=True, default=None,
        help_text="Seconds per decision (default 5): a slower answer fails its check.")
    connect_seconds = serializers.FloatField(
        required=False, allow_null=True, default=None,
        help_text="Seconds to wait for the bot to connect to /ws/matches/<id>/ (default 60).")


class ConformanceView(ApiView):
    permission_classes = [CanManageBots]
    throttle_scope = "create"

    @extend_schema(summary="Start a conformance run of a bot (tester+)",
                   description="The bot joins /ws/matches/<id>/ as in a batch match and is put "
                               "through scripted situations; the report is the match's "
                               "results.conformance (docs/conformance.md).",
                   request=ConformanceCreateSerializer,
                   responses={202: s.MatchSerializer, **errors(400, 403)}, tags=["matches"])
    def post(self, request: Request) -> Response:
        data = ConformanceCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        bot = acting_bot(request)
        name = values.pop("bot", None) or (bot.name if bot is not None else None)
        if not name:
            raise ApiError("bad_conformance", "Name the bot (\"bot\") or use its token.")
        try:
            match = research_services.create_match(
                settings_data={"conformance": True, "remote": name, **values},
                user=request.user)
        except ValueError as error:
            raise ApiError("bad_conformance", str(error)) from None
        return Response(research_selectors.match_json(match), status=status.HTTP_202_ACCEPTED)
