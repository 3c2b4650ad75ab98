"""Starting a batch match from the web: the form mirrors POST /api/v1/matches/ (the
API's serializer, then research.services.validate_match), errors per field, CSRF,
testers only; the progress page and its JSON."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from research.models import MatchRun, MatchStatus

pytestmark = pytest.mark.django_db

BODY = {"game": "holdem", "seat_1": "rule_based", "seat_2": "calling_station",
        "hands": "50", "seed": "7", "structure": "NL", "small_blind": "1",
        "big_blind": "2", "stack_bb": "200", "aivat": "on"}


@pytest.fixture
def tester(bob: Any) -> Client:
    client = Client()
    client.force_login(bob)
    return client


@pytest.fixture
def inline_matches(settings: Any) -> None:
    settings.RESEARCH = {**settings.RESEARCH, "MATCHES_IN_THREAD": False}


def test_form_lists_the_house_bots_of_the_chosen_game(tester: Client) -> None:
    page = tester.get("/research/matches/new/").content.decode()
    assert 'name="seat_1"' in page and ">ehs<" in page and 'name="structure"' in page
    tuppi = tester.get("/research/matches/new/?game=tuppi").content.decode()
    assert ">strong<" in tuppi and 'name="seat_4"' in tuppi and 'name="seat_5"' not in tuppi
    assert 'name="settings"' in tuppi and 'name="structure"' not in tuppi


def test_players_and_anonymous_may_not_start_matches(alice: Any) -> None:
    anonymous = Client()
    response = anonymous.get("/research/matches/new/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    player = Client()
    player.force_login(alice)
    assert player.get("/research/matches/new/").status_code == 403
    assert player.post("/research/matches/new/", BODY).status_code == 403
    assert not MatchRun.objects.exists()


def test_a_tester_starts_a_match_and_follows_it(
        tester: Client, inline_matches: None, django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = tester.post("/research/matches/new/", {**BODY, "duplicate": "on"})
    match = MatchRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/research/matches/{match.pk}/progress/"
    assert match.settings["bots"] == ["rule_based", "calling_station"]
    assert match.settings["duplicate"] is True and match.settings["seed"] == 7
    assert match.settings["aivat"] is True  # the API's default: the same code path
    match.refresh_from_db()
    assert match.status == MatchStatus.DONE
    data = tester.get(f"/research/matches/{match.pk}/progress.json").json()
    assert data["finished"] and data["hands_done"] == data["hands_total"] == 50
    assert data["elapsed"] is not None and data["elapsed"] >= 0
    assert data["results_url"] == f"/research/matches/{match.pk}/"
    page = tester.get(response["Location"]).content.decode()
    assert 'id="match-bar"' in page and f'href="/research/matches/{match.pk}/"' in page


def test_settings_equal_the_apis(tester: Client, bob: Any, inline_matches: None,
                                 django_capture_on_commit_callbacks: Any) -> None:
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_login(bob)
    with django_capture_on_commit_callbacks(execute=True):
        tester.post("/research/matches/new/", BODY)
        api.post("/api/v1/matches/", {"bots": ["rule_based", "calling_station"], "hands": 50,
                                      "seed": 7}, format="json")
    web, rest = MatchRun.objects.order_by("pk")
    assert web.settings == rest.settings
    with django_capture_on_commit_callbacks(execute=True):
        tester.post("/research/matches/new/", {k: v for k, v in BODY.items() if k != "aivat"})
    assert MatchRun.objects.order_by("pk").last().settings["aivat"] is False  # unticked


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"hands": "0"}, "hands", "greater than or equal to 1"),
    ({"hands": "many"}, "hands", "whole number"),
    ({"hands": "100000000"}, "hands", "hands is 1 to"),
    ({"seed": "-1"}, "seed", "greater than or equal to 0"),
    ({"small_blind": "5", "big_blind": "2"}, "big_blind", "small_blind <= big_blind"),
    ({"seat_2": "nobody"}, "seat_2", "Select a valid choice"),
    ({"stack_bb": "20000"}, "stack_bb", "less than or equal to 10000"),
])
def test_errors_are_shown_on_their_field(tester: Client, change: dict[str, str], field: str,
                                         words: str) -> None:
    response = tester.post("/research/matches/new/", {**BODY, **change})
    assert response.status_code == 400
    form = response.context["form"]
    assert any(words in e for e in form.errors.get(field, [])), form.errors
    page = response.content.decode()
    start = page.index(f'data-field="{field}"')
    assert 'class="error"' in page[start:start + 2000]
    assert not MatchRun.objects.exists()


def test_a_game_refusal_of_the_settings_is_on_the_settings_field(tester: Client) -> None:
    body = {"game": "tuppi", "hands": "4", "seed": "1", "settings": "{\"seats\": 9}",
            **{f"seat_{n}": "random" for n in range(1, 5)}}
    response = tester.post("/research/matches/new/", body)
    assert response.status_code == 400, response.content
    assert response.context["form"].errors.get("settings"), response.context["form"].errors
    bad_json = tester.post("/research/matches/new/", {**body, "settings": "{nope"})
    assert bad_json.status_code == 400 and bad_json.context["form"].errors.get("settings")


def test_the_form_needs_the_csrf_token(bob: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    assert client.post("/research/matches/new/", BODY).status_code == 403
    page = client.get("/research/matches/new/").content.decode()
    assert 'name="csrfmiddlewaretoken"' in page


def test_progress_of_a_queued_match_and_of_none(tester: Client, bob: Any) -> None:
    match = MatchRun.objects.create(created_by=bob, settings={
        "bots": ["random", "random"], "hands": 101, "seed": 1, "duplicate": True})
    data = tester.get(f"/research/matches/{match.pk}/progress.json").json()
    assert data["status"] == "queued" and not data["finished"]
    assert data["hands_total"] == 100 and data["hands_done"] == 0  # duplicate: 2 seatings
    assert data["elapsed"] is None
    assert tester.get("/research/matches/999999/progress.json").status_code == 404
    assert "Follow its progress" in tester.get(f"/research/matches/{match.pk}/").content.decode()


def test_match_list_links_the_form_for_testers_only(tester: Client, alice: Any) -> None:
    assert "/research/matches/new/" in tester.get("/research/matches/").content.decode()
    player = Client()
    player.force_login(alice)
    assert "/research/matches/new/" not in player.get("/research/matches/").content.decode()
