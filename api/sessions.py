"""Research sessions over the API (docs/sessions.md), and a batch match's statistics
and CSV.

* ``GET/POST /api/v1/sessions/`` — your sessions (a superuser: everyone's); create one.
* ``GET/PATCH/DELETE /api/v1/sessions/<id>/`` — one session.
* ``GET /api/v1/sessions/<id>/stats`` — per player statistics, nets (and the ledger's),
  cumulative-winnings series.
* ``GET /api/v1/sessions/<id>/phh`` and ``.../csv`` — the hands as one ``.phhs`` file
  and as CSV, streamed.
* ``GET /api/v1/matches/<id>/stats`` and ``.../csv`` — the same for a batch match.

Sessions are for researchers: testers and superusers (``can_manage_bots``), with the
browser session or a personal token with the ``bots`` scope. Another user's session is
``404 session_not_found``. Refusals have stable codes (``unknown_table``,
``unknown_player``, ``bad_time``, ``bad_time_window``, ``too_many_tables``,
``too_many_players``, ``invalid_name``, ``invalid_text``...).
"""

from __future__ import annotations

from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import TokenScope
from accounts.permissions import CanManageBots
from research import sessions
from research.models import Session

from .errors import ApiError
from .views import ApiView, Pages, errors, get_match


class SessionWriteSerializer(serializers.Serializer):
    """A session as sent: every field optional in PATCH."""

    name = serializers.CharField(max_length=sessions.MAX_NAME, trim_whitespace=True)
    tables = serializers.ListField(child=serializers.JSONField(), required=False,
                                   help_text="table ids (or names), at most "
                                             f"{sessions.MAX_TABLES}; empty: every table")
    players = serializers.ListField(child=serializers.JSONField(), required=False,
                                    help_text="player names (or ids), at most "
                                              f"{sessions.MAX_PLAYERS}; empty: everyone")
    start = serializers.CharField(required=False, allow_null=True, allow_blank=True,
                                  help_text="ISO date or date-time: hands started from")
    end = serializers.CharField(required=False, allow_null=True, allow_blank=True,
                                help_text="ISO date or date-time: hands started before "
                                          "(a date: to the end of that day)")
    notes = serializers.CharField(required=False, allow_blank=True,
                                  max_length=sessions.MAX_NOTES, trim_whitespace=False)


class SessionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    created_by = serializers.CharField()
    tables = serializers.ListField(child=serializers.DictField())
    players = serializers.ListField(child=serializers.DictField())
    start = serializers.DateTimeField(allow_null=True)
    end = serializers.DateTimeField(allow_null=True)
    notes = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class SessionStatsSerializer(serializers.Serializer):
    hands = serializers.IntegerField()
    players = serializers.ListField(child=serializers.DictField())
    cumulative = serializers.DictField()
    ledger_checked = serializers.BooleanField()


def refused(error: sessions.SessionError) -> ApiError:
    fields = {error.field: [error.message]} if error.field else {}
    return ApiError(error.code, error.message, 400, {"fields": fields} if fields else {})


def own_session(request: Request, session_id: int) -> Session:
    session = sessions.sessions_of(request.user).filter(pk=session_id).first()
    if session is None:
        raise ApiError("session_not_found", f"You have no session {session_id}.", 404)
    return session


class SessionApiView(ApiView):
    permission_classes = [CanManageBots]
    token_scope = TokenScope.BOTS.value

    def get_throttles(self) -> list[Any]:
        if self.request.method in ("POST", "PATCH"):
            self.throttle_scope = "create"
        return super().get_throttles()


class SessionsView(SessionApiView):
    @extend_schema(summary="Your research sessions, newest first (testers+; a superuser: all)",
                   responses={200: SessionSerializer(many=True), **errors(403)},
                   tags=["sessions"])
    def get(self, request: Request) -> Response:
        pages = Pages()
        page = pages.paginate_queryset(sessions.sessions_of(request.user), request, view=self)
        return pages.get_paginated_response([sessions.session_json(x) for x in page or []])

    @extend_schema(summary="Create a research session: tables, a time window, players",
                   request=SessionWriteSerializer,
                   responses={201: SessionSerializer, **errors(400, 403)}, tags=["sessions"])
    def post(self, request: Request) -> Response:
        data = SessionWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            session = sessions.save_session(user=request.user, data=data.validated_data)
        except sessions.SessionError as error:
            raise refused(error) from None
        return Response(sessions.session_json(session), status=status.HTTP_201_CREATED)


class SessionView(SessionApiView):
    @extend_schema(summary="A research session", responses={200: SessionSerializer,
                                                             **errors(403, 404)},
                   tags=["sessions"])
    def get(self, request: Request, session_id: int) -> Response:
        return Response(sessions.session_json(own_session(request, session_id)))

    @extend_schema(summary="Change a research session (the fields given)",
                   request=SessionWriteSerializer,
                   responses={200: SessionSerializer, **errors(400, 403, 404)}, tags=["sessions"])
    def patch(self, request: Request, session_id: int) -> Response:
        session = own_session(request, session_id)
        data = SessionWriteSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        try:
            session = sessions.save_session(user=request.user, data=data.validated_data,
                                            session=session)
        except sessions.SessionError as error:
            raise refused(error) from None
        return Response(sessions.session_json(session))

    @extend_schema(summary="Delete a research session (its hands stay)",
                   responses={204: None, **errors(403, 404)}, tags=["sessions"])
    def delete(self, request: Request, session_id: int) -> Response:
        own_session(request, session_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class SessionStatsView(SessionApiView):
    @extend_schema(summary="A session's statistics per player, nets (and the ledger's), "
                           "cumulative winnings",
                   responses={200: SessionStatsSerializer, **errors(403, 404)},
                   tags=["sessions"])
    def get(self, request: Request, session_id: int) -> Response:
        session = own_session(request, session_id)
        return Response({"session": sessions.session_json(session),
                         **sessions.session_stats(session)})


class SessionPhhView(SessionApiView):
    @extend_schema(summary="A session's hands as one .phhs file (streamed)",
                   responses={(200, "text/plain"): OpenApiTypes.STR, **errors(403, 404)},
                   tags=["sessions"])
    def get(self, request: Request, session_id: int) -> StreamingHttpResponse:
        session = own_session(request, session_id)
        return sessions.download(
            request, sessions.phh_chunks(sessions.session_hands(session), request.user),
            "text/plain; charset=utf-8", f"session-{session.pk}.phhs")


class SessionCsvView(SessionApiView):
    @extend_schema(summary="A session's hands as CSV, one row per player per hand (streamed)",
                   responses={(200, "text/csv"): OpenApiTypes.STR, **errors(403, 404)},
                   tags=["sessions"])
    def get(self, request: Request, session_id: int) -> StreamingHttpResponse:
        session = own_session(request, session_id)
        return sessions.download(
            request, sessions.csv_chunks(sessions.session_hands(session)),
            "text/csv; charset=utf-8", f"session-{session.pk}.csv")


class MatchStatsView(ApiView):
    @extend_schema(summary="A batch match's statistics per bot (from its stored hands, or "
                           "counted while a long match was played)",
                   responses={200: OpenApiTypes.OBJECT, **errors(404)}, tags=["matches"])
    def get(self, request: Request, match_id: int) -> Response:
        match = get_match(match_id)
        data = sessions.match_stats(match)
        if data is None:
            raise ApiError("phh_not_stored", "This match has no statistics (a game "
                           "without them, or not done yet).", 404)
        return Response({"match": match.pk, **data})


class MatchCsvView(ApiView):
    @extend_schema(summary="A batch match's hands as CSV, one row per bot per hand",
                   responses={(200, "text/csv"): OpenApiTypes.STR, **errors(404)},
                   tags=["matches"])
    def get(self, request: Request, match_id: int) -> StreamingHttpResponse:
        match = get_match(match_id)
        if not match.phh:
            raise ApiError("phh_not_stored", "This match's hands were not stored.", 404)
        return sessions.download(
            request, sessions.match_csv_chunks(match), "text/csv; charset=utf-8",
            f"match-{match.pk}.csv")
