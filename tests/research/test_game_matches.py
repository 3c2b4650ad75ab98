"""Server batch matches of any registered game (house bots through the contract)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from research.models import MatchRun, MatchStatus
from research.services import validate_match

pytestmark = pytest.mark.django_db


def test_a_kuhn_poker_match_of_house_bots_through_the_api(bob: Any, settings: Any,
                                                         django_capture_on_commit_callbacks:
                                                         Any) -> None:
    settings.RESEARCH = {**settings.RESEARCH, "MATCHES_IN_THREAD": False}
    tester = APIClient()
    tester.force_login(bob)
    body = {"game": "kuhn", "settings": {"ante": 2}, "bots": ["uniform", "uniform"],
            "hands": 400, "seed": 5, "duplicate": True}
    with django_capture_on_commit_callbacks(execute=True):
        response = tester.post("/api/v1/matches/", body, format="json")
    assert response.status_code == 202, response.content
    match = MatchRun.objects.get()
    assert match.status == MatchStatus.DONE, match.error
    assert match.settings["game"] == "kuhn" and match.settings["settings"] == {"ante": 2}
    bots = match.results["bots"]
    assert sum(b["net"] for b in bots.values()) == 0  # chips conserved, duplicate
    assert all(b["hands"] == 400 for b in bots.values())


def test_a_match_of_a_game_that_ends_plays_whole_games() -> None:
    checked = validate_match({"game": "tictactoe", "settings": {"rounds": 1},
                              "bots": ["uniform", "random"], "hands": 20, "seed": 1})
    match = MatchRun.objects.create(settings=checked)
    from research.services import run_match

    run_match(match.pk)
    match.refresh_from_db()
    assert match.status == MatchStatus.DONE, match.error
    assert set(match.results["bots"]) == {"uniform", "random"}


@pytest.mark.parametrize(("data", "message"), [
    ({"game": "chess", "bots": ["uniform", "uniform"]}, "No game called"),
    ({"game": "kuhn", "bots": ["uniform"] * 3}, "needs 2 to 2 bots"),
    ({"game": "kuhn", "bots": ["ehs", "uniform"]}, "No house bot called “ehs”"),
    ({"game": "kuhn", "settings": {"ante": 0}, "bots": ["uniform"] * 2}, "ante"),
    ({"game": "kuhn", "bots": ["uniform", {"remote": "x"}]}, "No bot called"),
])
def test_bad_game_matches_are_refused_clearly(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate_match(data)


@pytest.mark.parametrize(("body", "aivat"), [
    ({"bots": ["rule_based", "random"], "hands": 20}, True),
    ({"bots": ["rule_based", "random"], "hands": 20, "aivat": False}, False),
    ({"game": "kuhn", "bots": ["uniform", "uniform"], "hands": 20}, None),
])
def test_the_api_passes_the_aivat_choice(bob: Any, settings: Any, body: dict[str, Any],
                                         aivat: bool | None) -> None:
    settings.RESEARCH = {**settings.RESEARCH, "MATCHES_IN_THREAD": False}
    tester = APIClient()
    tester.force_login(bob)
    response = tester.post("/api/v1/matches/", body, format="json")
    assert response.status_code == 202, response.content
    assert MatchRun.objects.get().settings.get("aivat") is aivat
    bad = tester.post("/api/v1/matches/", {**body, "aivat": "perhaps"}, format="json")
    assert bad.status_code == 400 and MatchRun.objects.count() == 1
