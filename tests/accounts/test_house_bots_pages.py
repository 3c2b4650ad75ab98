"""House bots in production from the web: the "House bots" page (testers create,
change and delete them; CSRF on every form) and the admin (superusers)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client, override_settings

from accounts.models import Player
from accounts.services import add_house_bot, house_owner
from tables import services as tables_services
from tables.models import Seat

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _tables(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "HOUSE_BOT_DELAY": 0.0, "WORKER_IN_PROCESS": False}


def browser(user: Any) -> tuple[Client, str]:
    """A client that enforces CSRF, logged in, with the token of the page it read."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get("/account/house-bots/")
    assert page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert token is not None
    return client, token.group(1)


@override_settings(DEBUG=False, SECURE_SSL_REDIRECT=False)
def test_a_tester_creates_seats_changes_and_deletes_a_house_bot_from_the_web(
        bob: Any, alice: Any, settings: Any) -> None:
    assert settings.DEBUG is False
    client, csrf = browser(bob)
    # Without the CSRF token: refused.
    assert client.post("/account/house-bots/", {
        "name": "Web-EHS", "style": "ehs", "params": "{}"}).status_code == 403
    response = client.post("/account/house-bots/", {
        "csrfmiddlewaretoken": csrf, "name": "Web-EHS", "style": "ehs",
        "params": '{"samples": 150}', "description": "Made in the browser."})
    assert response.status_code == 302, response.content.decode()[:2000]
    bot = Player.objects.get(name="Web-EHS")
    assert bot.owner == house_owner() and bot.house_strategy == "ehs"
    assert bot.house_params == {"samples": 150}
    page = client.get("/account/house-bots/").content.decode()
    assert "Web-EHS" in page and "samples=150" in page
    # Seated by the tester from the table page (the same table service as the API).
    table = tables_services.create_table(creator=bob, name="Web NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6})
    response = client.post(f"/tables/{table.pk}/house-bot/",
                           {"player": bot.pk, "seat": 2, "buy_in": 200},
                           content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert response.status_code == 200, response.content
    assert Seat.objects.filter(table=table, player=bot, number=2).exists()
    assert "Web NL" in client.get("/account/house-bots/").content.decode()
    # Changed: another style and parameters.
    response = client.post(f"/account/house-bots/{bot.pk}/", {
        "csrfmiddlewaretoken": csrf, "name": "Web-Bot", "style": "random",
        "params": '{"fold": 0.5}', "description": ""})
    assert response.status_code == 302
    bot.refresh_from_db()
    assert (bot.name, bot.house_strategy, bot.house_params) == ("Web-Bot", "random",
                                                                {"fold": 0.5})
    # Deleting a seated bot is refused with a clear message; nothing changes.
    response = client.post(f"/account/house-bots/{bot.pk}/delete/",
                           {"csrfmiddlewaretoken": csrf}, follow=True)
    assert "remove it from the table first" in response.content.decode()
    bot.refresh_from_db()
    assert not bot.is_deleted
    tables_services.execute(table_id=table.pk, user=bob, command={"type": "leave", "seat": 2})
    assert not Seat.objects.filter(player=bot).exists()
    response = client.post(f"/account/house-bots/{bot.pk}/delete/",
                           {"csrfmiddlewaretoken": csrf})
    assert response.status_code == 302
    bot.refresh_from_db()
    assert bot.is_deleted


def test_bad_input_is_shown_on_the_form_never_a_500(bob: Any) -> None:
    client, csrf = browser(bob)
    for data, text in (
        ({"name": "x", "style": "ehs", "params": "{}"}, "3 to 24 characters"),
        ({"name": "Good-Name", "style": "nonsense", "params": "{}"}, "not one of the"),
        ({"name": "Good-Name", "style": "ehs", "params": "{oops"}, "not valid JSON"),
        ({"name": "Good-Name", "style": "ehs", "params": "[1]"}, "JSON object"),
        ({"name": "Good-Name", "style": "ehs", "params": '{"samples": 1}'}, "at least 10"),
        ({"name": "Good-Name", "style": "ehs", "params": '{"depth": 1}'}, "no parameter"),
        ({"name": "bob", "style": "ehs", "params": "{}"}, "already taken"),
    ):
        response = client.post("/account/house-bots/", {"csrfmiddlewaretoken": csrf, **data})
        assert response.status_code == 400, data
        assert text in response.content.decode(), (data, text)
    assert not Player.objects.live().house().exists()


def test_players_may_not_manage_house_bots(alice: Any, bob: Any) -> None:
    bot = add_house_bot(by=bob, name="Guarded", style="rule_based")
    client = Client()
    client.force_login(alice)
    assert client.get("/account/house-bots/").status_code == 403
    assert client.post("/account/house-bots/", {"name": "Mine", "style": "ehs"}).status_code \
        == 403
    assert client.post(f"/account/house-bots/{bot.pk}/delete/").status_code == 403
    assert Client().get("/account/house-bots/").status_code == 302  # to the login page
    # The account page links to it for testers only.
    assert "/account/house-bots/" not in client.get("/account/").content.decode()
    tester = Client()
    tester.force_login(bob)
    assert "/account/house-bots/" in tester.get("/account/").content.decode()


def test_superusers_create_and_change_house_bots_in_the_admin(root: Any) -> None:
    client = Client()
    client.force_login(root)
    response = client.post("/admin/accounts/player/add/", {
        "name": "Admin-EHS", "house_strategy": "ehs", "house_params": '{"samples": 80}',
        "description": ""})
    assert response.status_code == 302, response.content.decode()[:3000]
    bot = Player.objects.get(name="Admin-EHS")
    assert bot.is_house and bot.owner == house_owner() and bot.house_params == {"samples": 80}
    response = client.post("/admin/accounts/player/add/", {
        "name": "Admin-Bad", "house_strategy": "ehs", "house_params": '{"samples": 0}',
        "description": ""})
    assert response.status_code == 200 and "at least 10" in response.content.decode()
    change = client.get(f"/admin/accounts/player/{bot.pk}/change/")
    assert change.status_code == 200 and "house_params" in change.content.decode()
    response = client.post(f"/admin/accounts/player/{bot.pk}/change/", {
        "name": "Admin-EHS", "house_strategy": "rule_based", "house_params": "{}",
        "description": "Tuned."})
    assert response.status_code == 302, response.content.decode()[:3000]
    bot.refresh_from_db()
    assert (bot.house_strategy, bot.house_params) == ("rule_based", {})
