"""House bots in production, over the API: testers create, configure, seat and delete
the server-side bots (docs/house-bots.md).

The defect: house bots could only be made by ``manage.py demo_data``, which refuses
in production, so a real deployment had no computer opponents.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from accounts.models import LedgerEntry, Player
from accounts.services import house_owner
from tables import services
from tables.models import Seat, Table
from tests.tables.helpers import assert_chips_conserved

from .conftest import client_for

pytestmark = pytest.mark.django_db


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


@override_settings(DEBUG=False)
def test_a_tester_creates_configures_seats_and_deletes_a_house_bot_in_production(
        bob: Any, alice: Any, table: Any, settings: Any) -> None:
    assert settings.DEBUG is False  # production mode: demo_data would refuse
    client = client_for(bob)
    response = client.post("/api/v1/house-bots/", {
        "name": "Prod-EHS", "style": "ehs", "params": {"samples": 120},
        "description": "Our strong house bot."}, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert (created["name"], created["style"], created["params"]) == (
        "Prod-EHS", "ehs", {"samples": 120})
    assert "holdem" in created["games"] and created["seats"] == []
    bot = Player.objects.get(pk=created["id"])
    assert bot.owner == house_owner() and bot.is_house and bot.token_hash is None
    assert [b["name"] for b in client.get("/api/v1/house-bots/").json()] == ["Prod-EHS"]

    # Seated by the tester through the table commands, it plays (the worker's pass).
    response = client.post(f"/api/v1/tables/{table.pk}/commands/", {
        "type": "sit", "seat": 0, "player": bot.pk, "buy_in": 200}, format="json")
    assert response.status_code == 200, response.content
    client_for(alice).post(f"/api/v1/tables/{table.pk}/commands/", {
        "type": "sit", "seat": 1, "buy_in": 200}, format="json")
    for _ in range(5):
        services.run_house_bots()
    assert Table.objects.get(pk=table.pk).hands.exists()
    detail = client.get(f"/api/v1/house-bots/{bot.pk}/").json()
    assert detail["seats"][0]["table"] == table.pk and detail["seats"][0]["seat"] == 0

    # Configured: fewer samples, a new name.
    response = client.patch(f"/api/v1/house-bots/{bot.pk}/",
                            {"name": "Prod-EHS-2", "params": {"samples": 60}}, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["name"], response.json()["params"]) == ("Prod-EHS-2",
                                                                    {"samples": 60})

    # Deleting it while it sits: refused, nothing lost.
    assert_error(client.delete(f"/api/v1/house-bots/{bot.pk}/"), 409, "player_seated")
    # Removed from the table (cashed out through the ledger), then deleted.
    services.execute(table_id=table.pk, user=bob, command={"type": "leave", "seat": 0})
    for _ in range(10):
        if not Seat.objects.filter(player=bot).exists():
            break
        services.fire_due_timers(Table.objects.get(pk=table.pk).deadline)
    assert not Seat.objects.filter(player=bot).exists()
    assert LedgerEntry.objects.filter(player=bot, kind="cash_out").exists()
    assert client.delete(f"/api/v1/house-bots/{bot.pk}/").status_code == 204
    assert_error(client.get(f"/api/v1/house-bots/{bot.pk}/"), 404, "house_bot_not_found")
    assert_chips_conserved()


def test_refusals_have_stable_codes_never_500(bob: Any, alice: Any) -> None:
    client = client_for(bob)
    post = lambda data: client.post("/api/v1/house-bots/", data, format="json")  # noqa: E731
    assert_error(post({"name": "x", "style": "ehs"}), 400, "invalid_name")
    assert_error(post({"name": "Bad Name!", "style": "ehs"}), 400, "invalid_name")
    assert_error(post({"name": "Okay-Bot", "style": "nonsense"}), 400, "invalid_style")
    assert_error(post({"name": "Okay-Bot", "style": ["ehs"]}), 400, "invalid_request")
    assert_error(post({"name": "Okay-Bot", "style": "ehs", "params": {"samples": 1}}), 400,
                 "invalid_params")
    assert_error(post({"name": "Okay-Bot", "style": "ehs", "params": {"samples": "many"}}),
                 400, "invalid_params")
    assert_error(post({"name": "Okay-Bot", "style": "ehs", "params": {"depth": 3}}), 400,
                 "invalid_params")
    assert_error(post({"name": "Okay-Bot", "style": "ehs", "params": [1, 2]}), 400,
                 "invalid_params")
    assert_error(post({"name": "Okay-Bot", "style": "calling_station",
                       "params": {"samples": 100}}), 400, "invalid_params")
    assert_error(post({"name": "Okay-Bot", "style": "ehs", "description": "a\x00b"}), 400,
                 "invalid_text")
    assert_error(post({"name": "bob", "style": "ehs"}), 409, "name_taken")  # bob's player
    assert_error(post({"style": "ehs"}), 400, "invalid_request")
    assert post({"name": "Weighted", "style": "random",
                 "params": {"fold": 0, "check_call": 2.5, "bet_raise": 1}}).status_code == 201
    bot_id = client.get("/api/v1/house-bots/").json()[0]["id"]
    assert_error(client.patch(f"/api/v1/house-bots/{bot_id}/", {"style": "greedy-ish"},
                              format="json"), 400, "invalid_style")
    assert_error(client.patch(f"/api/v1/house-bots/{bot_id}/", {"params": {"fold": -1}},
                              format="json"), 400, "invalid_params")
    assert_error(client.patch("/api/v1/house-bots/999999/", {}, format="json"), 404,
                 "house_bot_not_found")
    assert_error(client.post("/api/v1/house-bots/", "{not json", content_type="application/json"),
                 400, "malformed_request")


def test_only_testers_and_superusers_manage_house_bots(alice: Any, bob: Any, root: Any,
                                                       anon: Any) -> None:
    assert_error(client_for(alice).get("/api/v1/house-bots/"), 403, "permission_denied")
    assert_error(client_for(alice).post("/api/v1/house-bots/", {
        "name": "Sneaky", "style": "ehs"}, format="json"), 403, "permission_denied")
    assert anon.get("/api/v1/house-bots/").status_code in (401, 403)
    response = client_for(root).post("/api/v1/house-bots/", {"name": "Root-Bot",
                                                             "style": "rule_based"},
                                     format="json")
    assert response.status_code == 201
    bot_id = response.json()["id"]
    assert_error(client_for(alice).delete(f"/api/v1/house-bots/{bot_id}/"), 403,
                 "permission_denied")
    # Another tester may manage it too: house bots belong to the system account.
    assert client_for(bob).delete(f"/api/v1/house-bots/{bot_id}/").status_code == 204


def test_a_bot_token_may_not_manage_house_bots(bob: Any) -> None:
    from accounts.services import create_bot

    _bot, token = create_bot(owner=bob, name="Skynet")
    assert_error(client_for(token=token).get("/api/v1/house-bots/"), 403, "token_scope")


def test_house_bot_writes_are_throttled(bob: Any, settings: Any) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**rates, "create": "2/min"}}
    client = client_for(bob)
    for name in ("Bot-One", "Bot-Two"):
        assert client.post("/api/v1/house-bots/", {"name": name, "style": "random"},
                           format="json").status_code == 201
    error = assert_error(client.post("/api/v1/house-bots/", {"name": "Bot-Three",
                                                             "style": "random"},
                                     format="json"), 429, "throttled")
    assert error["details"]["scope"] == "create"


def test_the_games_endpoint_lists_each_games_styles_and_their_parameters(bob: Any) -> None:
    games = {g["key"]: g for g in client_for(bob).get("/api/v1/games/").json()}
    holdem = {s["style"]: s["params"] for s in games["holdem"]["house_bot_styles"]}
    assert set(holdem) >= {"random", "calling_station", "rule_based", "ehs", "uniform"}
    assert holdem["ehs"]["properties"]["samples"]["type"] == "integer"
    assert holdem["calling_station"]["properties"] == {}
    tuppi = {s["style"] for s in games["tuppi"]["house_bot_styles"]}
    assert {"random", "greedy", "strong"} <= tuppi and "ehs" not in tuppi
    styles = {s["style"]: s for s in client_for(bob).get("/api/v1/house-bots/styles/").json()}
    assert "holdem" in styles["ehs"]["games"] and "tuppi" in styles["strong"]["games"]


def test_a_new_style_must_play_the_tables_the_bot_sits_at(bob: Any, table: Any) -> None:
    client = client_for(bob)
    bot_id = client.post("/api/v1/house-bots/", {"name": "Switcher", "style": "ehs"},
                         format="json").json()["id"]
    client.post(f"/api/v1/tables/{table.pk}/commands/", {
        "type": "sit", "seat": 0, "player": bot_id, "buy_in": 200}, format="json")
    assert_error(client.patch(f"/api/v1/house-bots/{bot_id}/", {"style": "strong"},
                              format="json"), 409, "style_cannot_play")
    assert client.patch(f"/api/v1/house-bots/{bot_id}/", {"style": "rule_based"},
                        format="json").status_code == 200
