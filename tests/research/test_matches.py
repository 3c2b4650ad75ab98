"""Batch matches: the command and the API store results with confidence intervals."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from research.models import MatchRun, MatchStatus

pytestmark = pytest.mark.django_db


def test_run_match_command_stores_results() -> None:
    out = StringIO()
    call_command("run_match", "--bots", "rule_based,random", "--hands", "200", "--seed", "1",
                 "--duplicate", stdout=out)
    match = MatchRun.objects.get()
    assert match.status == MatchStatus.DONE
    bots = match.results["bots"]
    assert set(bots) == {"rule_based", "random"}
    assert all(b["ci95"] > 0 and b["hands"] == 200 for b in bots.values())
    assert sum(b["net"] for b in bots.values()) == 0
    assert match.results["cumulative"]["rule_based"]
    assert "mbb/hand" in out.getvalue() and match.phh.startswith("[1]")


def test_matches_endpoint_three_bots_crosstable_and_pages(bob: Any, alice: Any,
                                                          settings: Any,
                                                          django_capture_on_commit_callbacks:
                                                          Any) -> None:
    settings.RESEARCH = {**settings.RESEARCH, "MATCHES_IN_THREAD": False}
    tester, player = APIClient(), APIClient()
    tester.force_login(bob)
    player.force_login(alice)
    body = {"bots": ["rule_based", "random", "calling_station"], "hands": 90, "seed": 3}
    assert player.post("/api/v1/matches/", body, format="json").status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        response = tester.post("/api/v1/matches/", body, format="json")
    assert response.status_code == 202, response.content
    match_id = response.json()["id"]
    data = player.get(f"/api/v1/matches/{match_id}/").json()
    assert data["status"] == "done"
    assert set(data["results"]["crosstable"]) == set(body["bots"])
    assert all("ci95" in b for b in data["results"]["bots"].values())
    bad = tester.post("/api/v1/matches/", {**body, "bots": ["nobody", "random"]}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_match"
    phh = player.get(f"/api/v1/matches/{match_id}/phh")
    assert phh.status_code == 200 and b"[1]" in phh.content
    page = player.get(f"/research/matches/{match_id}/").content.decode()
    assert "<svg" in page and "polyline" in page and "calling_station" in page
    assert "Crosstable" in page
    assert f"/research/matches/{match_id}/" in player.get("/research/matches/").content.decode()
