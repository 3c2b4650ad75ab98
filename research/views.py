"""Pages: stored batch matches with their results and cumulative-winnings chart."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from . import selectors
from .charts import line_chart


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
