"""Pages: stored batch matches with their results and cumulative-winnings chart, and
research sessions (docs/sessions.md): list, create, edit, delete, statistics, exports."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from accounts.permissions import right_required

from . import selectors, sessions
from .charts import line_chart
from .models import Session


@login_required
def match_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.matches(), 50).get_page(request.GET.get("page"))
    return render(request, "research/match_list.html", {"page": page})


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

RESEARCH = "can_manage_bots"  # researchers: testers and superusers


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
