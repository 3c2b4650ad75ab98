"""Every endpoint: happy path, authentication, roles, privacy, idempotency, errors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import client_for
from tests.tables.helpers import act, assert_chips_conserved, sit, turn

pytestmark = pytest.mark.django_db


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body["error"]


def test_me_for_session_and_bot(alice: Any, bot_client: Any, anon: Any) -> None:
    me = client_for(alice).get("/api/v1/me/").json()
    assert me["username"] == "alice" and me["bot"] is None and me["role"] == "Player"
    assert me["rights"]["can_play"] and not me["rights"]["can_manage_bots"]
    me = bot_client.get("/api/v1/me/").json()
    assert me["username"] == "bob" and me["bot"]["name"] == "Skynet"
    assert_error(anon.get("/api/v1/me/"), 401, "not_authenticated")
    assert_error(client_for(token="nonsense").get("/api/v1/me/"), 401, "invalid_token")


def test_error_format_404_405_unknown_url(alice: Any) -> None:
    client = client_for(alice)
    assert_error(client.get("/api/v1/tables/999999/"), 404, "table_not_found")
    assert_error(client.get("/api/v1/nowhere/"), 404, "not_found")
    assert_error(client.delete("/api/v1/me/"), 405, "method_not_allowed")
    assert_error(client.post("/api/v1/tables/", "not json", content_type="application/json"),
                 400, "malformed_request")


def test_list_filter_sort_tables(alice: Any, bob: Any, table: Any) -> None:
    from tables.services import create_table

    create_table(creator=alice, name="API FL", settings={
        "structure": "FL", "small_blind": 2, "big_blind": 4, "seats": 2})
    sit(table, bob, 0)
    client = client_for(alice)
    names = [t["name"] for t in client.get("/api/v1/tables/").json()["results"]]
    assert names == ["API FL", "API NL"]
    assert [t["name"] for t in client.get("/api/v1/tables/?structure=FL").json()["results"]] \
        == ["API FL"]
    assert [t["name"] for t in client.get("/api/v1/tables/?stakes=1/2").json()["results"]] \
        == ["API NL"]
    found = client.get("/api/v1/tables/?player=bob").json()["results"]
    assert [t["name"] for t in found] == ["API NL"] and found[0]["player_names"] == ["bob"]
    assert [t["name"] for t in client.get("/api/v1/tables/?min_free_seats=3").json()[
        "results"]] == ["API NL"]
    ordered = client.get("/api/v1/tables/?ordering=-big_blind").json()["results"]
    assert [t["name"] for t in ordered] == ["API FL", "API NL"]
    ordered = client.get("/api/v1/tables/?ordering=free_seats").json()["results"]
    assert [t["free_seats"] for t in ordered] == [2, 5]
    assert_error(client.get("/api/v1/tables/?ordering=deck"), 400, "invalid_request")
    assert_error(client.get("/api/v1/tables/?seats=x"), 400, "invalid_request")
    assert [t["name"] for t in client.get("/api/v1/players/bob/tables/").json()] == ["API NL"]
    assert_error(client.get("/api/v1/players/nobody/tables/"), 404, "player_not_found")


def test_create_table_rights(alice: Any, anon: Any) -> None:
    data = {"name": "Mine", "structure": "PL", "small_blind": 1, "big_blind": 2, "seats": 4}
    assert_error(anon.post("/api/v1/tables/", data, format="json"), 401, "not_authenticated")
    response = client_for(alice).post("/api/v1/tables/", data, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["structure"] == "PL" and response.json()["seats"] == 4
    assert_error(client_for(alice).post("/api/v1/tables/", data, format="json"), 409,
                 "name_taken")
    assert_error(client_for(alice).post("/api/v1/tables/", {**data, "name": "x", "seats": 11},
                                        format="json"), 400, "invalid_request")


def test_csrf_required_for_session_not_for_bearer(alice: Any, bot_client: Any) -> None:
    from rest_framework.test import APIClient

    strict = APIClient(enforce_csrf_checks=True)
    strict.force_login(alice)
    response = strict.post("/api/v1/tables/", {"name": "CSRF"}, format="json")
    assert_error(response, 403, "permission_denied")
    assert bot_client.post("/api/v1/tables/", {"name": "Bot table"},
                           format="json").status_code == 201


def play_to_bot_turn(table: Any, alice: Any, skynet: Any, bot_client: Any) -> dict[str, Any]:
    sit(table, alice, 0)
    response = bot_client.post(f"/api/v1/tables/{table.pk}/commands/",
                               {"type": "sit", "seat": 1, "buy_in": 200}, format="json")
    assert response.status_code == 200, response.content
    seat, _hand, _version, _legal = turn(table.pk)
    if seat == 0:
        act(table.pk, alice, {"kind": "call"})
    snapshot = bot_client.get(f"/api/v1/tables/{table.pk}/").json()
    assert snapshot["your_turn"] is not None
    return snapshot


def test_bot_sits_acts_idempotently_and_stale_is_refused(
        table: Any, alice: Any, skynet: Any, bot_client: Any) -> None:
    snapshot = play_to_bot_turn(table, alice, skynet, bot_client)
    turn_message = snapshot["your_turn"]
    # The view on the wire is exactly the game contract's decision view for the seat.
    from engine.game import decision_view
    from engine.registry import get_game
    from tables.models import Table

    game = get_game("holdem")
    state = game.load(Table.objects.get(pk=table.pk).state)
    expected = decision_view(game, state, turn_message["seat"],
                             turn_message["view"]["time_left"])
    assert turn_message["view"] == expected
    command = {"type": "act", "hand": turn_message["hand"], "version": turn_message["version"],
               "action": {"kind": "check"} if turn_message["legal"]["can_check"]
               else {"kind": "call"}}
    url = f"/api/v1/tables/{table.pk}/commands/"
    first = bot_client.post(url, command, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == 200, first.content
    again = bot_client.post(url, command, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert again.status_code == 200 and again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert Table.objects.get(pk=table.pk).version == first.json()["version"]  # applied once
    assert_error(bot_client.post(url, {**command, "action": {"kind": "fold"}}, format="json",
                                 HTTP_IDEMPOTENCY_KEY="k1"), 422, "idempotency_key_reused")
    stale = bot_client.post(url, command, format="json")
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] in {"stale_version", "not_your_turn", "wrong_hand"}
    assert_chips_conserved()


def test_privacy_of_state_and_hand_histories(table: Any, alice: Any, carol: Any, root: Any,
                                             skynet: Any, bot_client: Any, bob: Any) -> None:
    play_to_bot_turn(table, alice, skynet, bot_client)
    url = f"/api/v1/tables/{table.pk}/"

    def hole_cards(snapshot: dict[str, Any]) -> dict[int, Any]:
        players = snapshot["state"]["hand"]["players"]
        return {p["player"]: p["cards"] for p in players}

    assert hole_cards(client_for(carol).get(url).json()) == {0: "????", 1: "????"}
    owner = hole_cards(client_for(bob).get(url).json())
    assert owner[0] == "????" and "?" not in owner[1] and len(owner[1]) == 4
    superuser = hole_cards(client_for(root).get(url).json())
    assert "?" not in superuser[0] + superuser[1]
    # Finish the hand: the bot folds.
    snapshot = bot_client.get(url).json()["your_turn"]
    folded = bot_client.post(f"{url}commands/", {"type": "act", "hand": snapshot["hand"],
                                                 "version": snapshot["version"],
                                                 "action": {"kind": "fold"}}, format="json")
    assert folded.status_code == 200, folded.content
    while turn(table.pk)[0] == 0:  # the winner may show or muck (V37): alice mucks
        act(table.pk, alice, {"kind": "muck"})
    hands = client_for(carol).get(f"/api/v1/hands/?table={table.pk}").json()["results"]
    hand_id = hands[0]["id"]
    seen = client_for(carol).get(f"/api/v1/hands/{hand_id}/").json()
    assert all(p["cards"] == "????" for p in seen["players"])
    phh = client_for(carol).get(f"/api/v1/hands/{hand_id}/phh")
    assert phh["Content-Type"].startswith("text/plain") and "????" in phh.content.decode()
    mine = client_for(bob).get(f"/api/v1/hands/{hand_id}/").json()
    assert {p["name"]: "?" in p["cards"] for p in mine["players"]} == {
        "alice": True, "Skynet": False}
    everything = client_for(root).get(f"/api/v1/hands/{hand_id}/phh").content.decode()
    assert "????" not in everything
    assert_error(client_for(carol).get("/api/v1/hands/999999/"), 404, "hand_not_found")


def test_bots_crud_and_roles(alice: Any, bob: Any, root: Any, anon: Any) -> None:
    assert_error(anon.get("/api/v1/bots/"), 401, "not_authenticated")
    assert_error(client_for(alice).get("/api/v1/bots/"), 403, "permission_denied")
    assert_error(client_for(alice).post("/api/v1/bots/", {"name": "NoBot"}, format="json"),
                 403, "permission_denied")
    created = client_for(bob).post("/api/v1/bots/", {"name": "Skynet2"}, format="json")
    assert created.status_code == 201 and created.json()["token"]
    token, bot_id = created.json()["token"], created.json()["id"]
    assert client_for(token=token).get("/api/v1/me/").json()["bot"]["id"] == bot_id
    assert [b["name"] for b in client_for(bob).get("/api/v1/bots/").json()] == ["Skynet2"]
    assert "token" not in client_for(bob).get(f"/api/v1/bots/{bot_id}/").json()
    assert_error(client_for(root).delete(f"/api/v1/bots/{bot_id}/"), 404, "bot_not_found")
    fresh = client_for(bob).post(f"/api/v1/bots/{bot_id}/token/").json()["token"]
    assert_error(client_for(token=token).get("/api/v1/me/"), 401, "invalid_token")
    assert client_for(token=fresh).get("/api/v1/me/").status_code == 200
    assert_error(client_for(bob).post("/api/v1/bots/", {"name": "Skynet2"}, format="json"),
                 409, "name_taken")
    assert client_for(bob).delete(f"/api/v1/bots/{bot_id}/").status_code == 204
    assert_error(client_for(token=fresh).get("/api/v1/me/"), 401, "invalid_token")


def test_throttled_429_format(alice: Any, settings: Any) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**rates, "default": "2/min"}}
    client = client_for(alice)
    assert client.get("/api/v1/me/").status_code == 200
    assert client.get("/api/v1/me/").status_code == 200
    response = client.get("/api/v1/me/")
    error = assert_error(response, 429, "throttled")
    assert error["details"]["scope"] == "default"
    assert 1 <= error["details"]["wait_seconds"] <= 60
    assert int(response.headers["Retry-After"]) == error["details"]["wait_seconds"]


def test_long_poll_returns_on_change_and_times_out(table: Any, alice: Any, bob: Any) -> None:
    client = client_for(bob)
    version = client.get(f"/api/v1/tables/{table.pk}/").json()["version"]
    quiet = client.get(f"/api/v1/tables/{table.pk}/wait/?since={version}&timeout=0.2").json()
    assert quiet["changed"] is False and quiet["version"] == version
    sit(table, alice, 0)
    changed = client.get(f"/api/v1/tables/{table.pk}/wait/?since={version}&timeout=5").json()
    assert changed["changed"] is True and changed["version"] > version
    assert changed["snapshot"]["seats"][0]["name"] == "alice"
    assert_error(client.get(f"/api/v1/tables/{table.pk}/wait/?since=x"), 400,
                 "malformed_message")
    assert_error(client.get("/api/v1/tables/99999/wait/?timeout=0"), 404, "table_not_found")
    assert_error(client_for().get(f"/api/v1/tables/{table.pk}/wait/"), 401,
                 "not_authenticated")


def test_schema_validates_and_docs_use_no_cdn(alice: Any) -> None:
    import re

    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    assert "/api/v1/tables/{table_id}/wait/" in schema["paths"]
    response = client_for().get("/api/v1/schema/")
    assert response.status_code == 200
    page = client_for().get("/api/v1/docs/").content.decode()
    hosts = re.findall(r"""(?:src|href)=["']?(https?:)?//([^/"']+)""", page)
    assert hosts == [], hosts
    assert "swagger-ui" in page and "/static/" in page
