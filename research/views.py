"""Pages: stored batch matches with their results and cumulative-winnings chart, and
research sessions (docs/sessions.md): list, create, edit, delete, statistics, exports."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from accounts.permissions import right_required

from . import selectors, services, sessions
from .charts import line_chart
from .models import MatchRun, MatchStatus, Session

RESEARCH = "can_manage_bots"  # researchers: testers and superusers


@login_required
def match_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.matches(), 50).get_page(request.GET.get("page"))
    return render(request, "research/match_list.html", {"page": page})


# ------------------------------------------------- starting a match from the web

SEATS_SHOWN = 6  # seat pickers on the form (the API takes up to 10 bots)
# Which form field a refusal of research.services.validate_match is about (its
# sentences start with, or name, the setting); anything else is shown above the form.
REFUSAL_FIELDS = (
    ("No game called", "game"), ("A match of", "seat_1"), ("A remote bot", "seat_1"),
    ("Remote bots play", "seat_1"), ("No house bot", "seat_1"), ("No bot called", "seat_1"),
    ("hands is", "hands"), ("seed is", "seed"), ("structure is", "structure"),
    ("The blinds", "big_blind"), ("stack_bb is", "stack_bb"))


def _remote_choices(user: Any) -> list[tuple[str, str]]:
    """The user's own bot players (played from outside with the SDK: docs/protocol.md)."""
    from accounts.models import Player, PlayerKind

    bots = (Player.objects.live().filter(owner=user, kind=PlayerKind.BOT, house_strategy="")
            .order_by("name").values_list("name", flat=True))
    return [(f"remote:{name}", f"{name} (remote bot: you connect it)") for name in bots]


class MatchForm(forms.Form):
    """The web form of ``POST /api/v1/matches/``: its values are checked by the API's own
    serializer and then by :func:`research.services.validate_match` (one code path)."""

    game = forms.CharField(widget=forms.HiddenInput)
    hands = forms.IntegerField(initial=1000, min_value=1, widget=forms.NumberInput(
        attrs={"min": 1, "step": 1}), help_text="Duplicate mode rounds it down to a multiple "
        "of the number of bots.")
    seed = forms.IntegerField(initial=1, min_value=0, help_text="The same seed deals the "
                              "same cards: a match can be repeated exactly.")
    duplicate = forms.BooleanField(required=False, help_text="Replay every deal once per "
                                   "seating: much less luck in the result.")

    def __init__(self, *args: Any, game: str, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from botkit.house import house_bots
        from engine.registry import get_game

        info = get_game(game).info
        self.game_key, self.info = game, info
        self.fields["game"].initial = game
        choices: list[tuple[str, str]] = [(b, b) for b in house_bots(game)]
        if game == services.DEFAULT_GAME:
            choices += _remote_choices(user)
        seats = max(info.min_players, min(SEATS_SHOWN, info.max_players))
        self.seat_names = []
        for number in range(1, seats + 1):
            name = f"seat_{number}"
            required = number <= info.min_players
            self.fields[name] = forms.ChoiceField(
                label=f"Seat {number}", required=required,
                choices=([] if required else [("", "— empty —")]) + choices,
                initial=(choices[min(number - 1, len(choices) - 1)][0]
                         if required and choices else ""))
            self.seat_names.append(name)
        if game == services.DEFAULT_GAME:
            self.fields["structure"] = forms.ChoiceField(
                choices=[("NL", "No limit"), ("PL", "Pot limit"), ("FL", "Fixed limit")],
                initial="NL")
            self.fields["small_blind"] = forms.IntegerField(initial=1, min_value=1)
            self.fields["big_blind"] = forms.IntegerField(initial=2, min_value=1)
            self.fields["stack_bb"] = forms.IntegerField(
                initial=200, min_value=1, label="Stack (big blinds)")
            self.fields["aivat"] = forms.BooleanField(
                required=False, initial=True, label="AIVAT",
                help_text="Results corrected for luck beside the raw ones (docs/aivat.md; "
                "about 1–5 ms of CPU per hand).")
        else:
            self.fields["settings"] = forms.CharField(
                required=False, initial="{}", widget=forms.Textarea(attrs={"rows": 3}),
                label="Table settings (JSON)",
                help_text="The game's settings (GET /api/v1/games/); {} for its defaults.")

    def api_data(self) -> dict[str, Any]:
        """The request body the API would get for these values."""
        data = self.cleaned_data
        body: dict[str, Any] = {
            "game": self.game_key, "hands": data["hands"], "seed": data["seed"],
            "duplicate": data["duplicate"],
            "bots": [data[name] for name in self.seat_names if data.get(name)]}
        if self.game_key == services.DEFAULT_GAME:
            body.update({k: data[k] for k in ("structure", "small_blind", "big_blind",
                                              "stack_bb", "aivat")})
        else:
            raw = (data.get("settings") or "").strip() or "{}"
            try:
                body["settings"] = json.loads(raw)
            except ValueError:
                body["settings"] = raw  # the serializer refuses it, on the field
        return body

    def add_refusal(self, field: str | None, message: str) -> None:
        if field == "bots" or (field and field.startswith("bots")):
            field = "seat_1"
        self.add_error(field if field in self.fields else None, message)


def _refusal_field(message: str) -> str | None:
    for start, field in REFUSAL_FIELDS:
        if message.startswith(start):
            return field
    return None


@right_required(RESEARCH)
def match_new(request: HttpRequest) -> HttpResponse:
    """Start a batch match from the browser (testers and superusers)."""
    from api.serializers import MatchCreateSerializer
    from engine.registry import GAMES

    source = request.POST if request.method == "POST" else request.GET
    game = source.get("game") or services.DEFAULT_GAME
    if game not in GAMES:
        game = services.DEFAULT_GAME
    form = MatchForm(request.POST if request.method == "POST" else None, game=game,
                     user=request.user)
    if request.method == "POST" and form.is_valid():
        checked = MatchCreateSerializer(data=form.api_data())
        if not checked.is_valid():
            for field, problems in checked.errors.items():
                for problem in problems if isinstance(problems, list) else [problems]:
                    text = problem if isinstance(problem, str) else "; ".join(
                        str(p) for p in (problem.values() if isinstance(problem, dict)
                                         else problem))
                    form.add_refusal(None if field == "non_field_errors" else field, text)
        else:
            try:
                match = services.create_match(settings_data=dict(checked.validated_data),
                                              user=request.user)  # type: ignore[arg-type]
            except ValueError as error:
                # Another game's refusal of its table settings names no setting of ours.
                field = _refusal_field(str(error)) or (
                    "settings" if game != services.DEFAULT_GAME else None)
                form.add_refusal(field, str(error))
            else:
                messages.success(request, f"Match {match.pk} started.")
                return redirect("research:match_progress", match_id=match.pk)
    return render(request, "research/match_new.html", {
        "form": form, "games": [(key, g.info.title) for key, g in GAMES.items()],
        "game": game, "seat_fields": [form[name] for name in form.seat_names],
        "other_fields": [form[name] for name in form.fields
                         if name not in form.seat_names and name != "game"],
    }, status=400 if form.errors else 200)


def progress_json(match: MatchRun) -> dict[str, Any]:
    """Where a match is: its status and the hands played (stored about every second
    while it runs, ``MatchRun.hands_done``)."""
    s = match.settings
    rotations = len(s.get("bots", [])) if s.get("duplicate") else 1
    total = max(1, int(s.get("hands", 0)) // max(1, rotations)) * max(1, rotations)
    results = match.results or {}
    finished = match.status in (MatchStatus.DONE, MatchStatus.FAILED)
    return {
        "id": match.pk, "status": match.status, "status_display": match.get_status_display(),
        "hands_total": results.get("hands", total),
        "hands_done": results.get("hands") if match.status == MatchStatus.DONE else
        match.hands_done,
        "finished": finished, "error": match.error, "error_code": match.error_code,
        "seconds": results.get("seconds"),
        # How long it has been running (or ran).
        "elapsed": round(((match.finished_at or timezone.now()) - match.started_at)
                         .total_seconds(), 1) if match.started_at else None,
        "results_url": reverse("research:match_detail", args=[match.pk]),
    }


@login_required
def match_progress(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match(match_id)
    return render(request, "research/match_progress.html", {
        "match": match, "progress": progress_json(match),
        "config": {"url": reverse("research:match_progress_json", args=[match.pk])}})


@login_required
def match_progress_data(request: HttpRequest, match_id: int) -> JsonResponse:
    match = selectors.matches().filter(pk=match_id).first()
    if match is None:
        return JsonResponse({"error": {"code": "match_not_found",
                                       "message": f"There is no match {match_id}."}},
                            status=404)
    response = JsonResponse(progress_json(match))
    response["Cache-Control"] = "no-store"
    return response


@login_required
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = selectors.matches().filter(pk=match_id).first()
    if match is None:
        raise Http404("There is no such match.")
    results = match.results or {}
    bots = sorted((results.get("bots") or {}).values(), key=lambda r: -r["mbb_per_hand"])
    chart = None
    if results.get("cumulative"):
        chart = line_chart(results["cumulative"], step=results.get("cumulative_step", 1))
    crosstable = results.get("crosstable")
    names = list(crosstable) if crosstable else []
    rows = [{"name": a, "cells": [None if a == b else crosstable[a][b] for b in names]}
            for a in names]
    return render(request, "research/match_detail.html", {
        "match": match, "results": results, "bots": bots, "chart": chart,
        "cross_names": names, "cross_rows": rows})


def _match(match_id: int) -> Any:
    match = selectors.matches().filter(pk=match_id).first()
    if match is None:
        raise Http404("There is no such match.")
    return match


@login_required
def match_stats(request: HttpRequest, match_id: int) -> HttpResponse:
    """A batch match's tracker statistics per bot, from its stored hands."""
    match = _match(match_id)
    stats = sessions.match_stats(match)
    rows = [{"bot": bot, "cells": stat_cells(bot)} for bot in (stats or {}).get("bots", [])]
    return render(request, "research/session_match.html", {
        "match": match, "stats": stats, "rows": rows,
        "headings": [c[0] for c in COLUMNS]})


@login_required
def match_csv(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match(match_id)
    if not match.phh:
        raise Http404("This match's hands were not stored.")
    return sessions.download(
        request, sessions.match_csv_chunks(match), "text/csv; charset=utf-8",
        f"match-{match.pk}.csv")


# The statistics columns of the session and match pages: (heading, summary key, kind).
COLUMNS = (
    ("bb/100", "bb_per_100", "number"), ("VPIP", "vpip", "pct"), ("PFR", "pfr", "pct"),
    ("3-bet", "three_bet", "pct"), ("Fold to 3-bet", "fold_to_three_bet", "pct"),
    ("C-bet", "cbet", "pct"), ("AF", "af", "number"), ("WTSD", "wtsd", "pct"),
    ("W$SD", "wsd", "pct"), ("Fold to flop bet", "fold_to_flop_bet", "pct"),
    ("Fold to turn bet", "fold_to_turn_bet", "pct"),
    ("Fold to river bet", "fold_to_river_bet", "pct"),
)


def stat_cells(summary: dict[str, Any] | None) -> list[str]:
    """The statistics columns of one player, formatted ("–" where undefined)."""
    cells = []
    for _heading, key, kind in COLUMNS:
        value = (summary or {}).get(key)
        if value is None:
            cells.append("–")
        elif kind == "pct":
            cells.append(f"{100 * value:.0f}%")
        else:
            cells.append(f"{value:.2f}" if key == "af" else f"{value:+.1f}")
    return cells


# -------------------------------------------------------------- sessions



class SessionForm(forms.Form):
    name = forms.CharField(max_length=sessions.MAX_NAME)
    tables = forms.CharField(required=False, help_text="Table ids or names, comma-separated; "
                             "empty: every table.")
    players = forms.CharField(required=False, help_text="Player names, comma-separated: "
                              "hands where at least one of them sat; empty: everyone.")
    start = forms.CharField(required=False, label="From",
                            widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                            help_text="Hands started at or after (server time).")
    end = forms.CharField(required=False, label="Until",
                          widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                          help_text="Hands started before.")
    notes = forms.CharField(required=False, max_length=sessions.MAX_NOTES,
                            widget=forms.Textarea(attrs={"rows": 4}))


def _initial(session: Session) -> dict[str, str]:
    def local(moment: Any) -> str:
        return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M") if moment else ""

    return {"name": session.name, "notes": session.notes,
            "tables": ", ".join(str(pk) for pk in session.tables.values_list("pk", flat=True)),
            "players": ", ".join(session.players.values_list("name", flat=True)),
            "start": local(session.start), "end": local(session.end)}


def _own(request: HttpRequest, session_id: int) -> Session:
    session = sessions.sessions_of(request.user).filter(pk=session_id).first()
    if session is None:
        raise Http404("There is no such session.")
    return session


def _edit(request: HttpRequest, session: Session | None) -> HttpResponse:
    if request.method == "POST":
        form = SessionForm(request.POST)
        if form.is_valid():
            try:
                saved = sessions.save_session(user=request.user, data=form.cleaned_data,
                                              session=session)
            except sessions.SessionError as error:
                field = error.field if error.field in form.fields else None
                form.add_error(field, error.message)
            else:
                messages.success(request, f"Session “{saved.name}” saved.")
                return redirect("research:session_detail", session_id=saved.pk)
    else:
        form = SessionForm(initial=_initial(session) if session else None)
    return render(request, "research/session_form.html", {"form": form, "session": session},
                  status=400 if form.errors else 200)


@right_required(RESEARCH)
def session_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(sessions.sessions_of(request.user).prefetch_related("tables", "players"),
                     50).get_page(request.GET.get("page"))
    return render(request, "research/session_list.html", {
        "page": page, "everyone": sessions.sees_every_session(request.user)})


@right_required(RESEARCH)
def session_create(request: HttpRequest) -> HttpResponse:
    return _edit(request, None)


@right_required(RESEARCH)
def session_edit(request: HttpRequest, session_id: int) -> HttpResponse:
    return _edit(request, _own(request, session_id))


@right_required(RESEARCH)
def session_delete(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _own(request, session_id)
    if request.method == "POST":
        name = session.name
        session.delete()
        messages.success(request, f"Session “{name}” deleted.")
        return redirect("research:session_list")
    return render(request, "research/session_confirm_delete.html", {"session": session})


@right_required(RESEARCH)
def session_detail(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _own(request, session_id)
    data = sessions.session_stats(session)
    series = data["cumulative"]["series"]
    chart = None
    if data["hands"] and series:
        shown = dict(list(series.items())[:sessions.CHART_LINES])
        chart = line_chart(shown, step=data["cumulative"]["step"])
    rows = [{"player": row, "cells": stat_cells(row["stats"]),
             "agrees": row["ledger"] is None or row["ledger"] == row["net"]}
            for row in data["players"]]
    return render(request, "research/session_detail.html", {
        "session": session, "data": data, "chart": chart, "rows": rows,
        "headings": [c[0] for c in COLUMNS],
        "tables": list(session.tables.order_by("pk")),
        "players": list(session.players.order_by("name"))})


@right_required(RESEARCH)
def session_phh(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _own(request, session_id)
    return sessions.download(
        request, sessions.phh_chunks(sessions.session_hands(session), request.user),
        "text/plain; charset=utf-8", f"session-{session.pk}.phhs")


@right_required(RESEARCH)
def session_csv(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _own(request, session_id)
    return sessions.download(
        request, sessions.csv_chunks(sessions.session_hands(session)),
        "text/csv; charset=utf-8", f"session-{session.pk}.csv")
