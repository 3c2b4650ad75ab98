"""Issue 15: closing a table. The creator closes an empty table (nobody seated, or
only house bots), a superuser any table (web, API, admin): seated players are cashed
out through the leave path, the table leaves the lobby."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Player, PlayerKind
from tables import selectors, services
from tables.errors import TableError
from tables.models import Seat, Table, TableStatus
from tests.tables.helpers import act, assert_chips_conserved, sit, turn

pytestmark = pytest.mark.django_db


def api(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def lobby_names(user: Any) -> list[str]:
    return [t["name"] for t in api(user).get("/api/v1/tables/").json()["results"]]


def house_bot(owner: Any) -> Player:
    return Player.objects.create(owner=owner, name="House-Station", kind=PlayerKind.BOT,
                                 house_strategy="calling_station")


def test_creator_closes_an_empty_table_by_the_api(alice: Any, table: Any) -> None:
    assert "Test NL" in lobby_names(alice)
    response = api(alice).post(f"/api/v1/tables/{table.pk}/close/")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "closed"
    table.refresh_from_db()
    assert table.status == TableStatus.CLOSED and table.closed_at is not None
    assert "Test NL" not in lobby_names(alice)
    assert not selectors.open_tables().filter(pk=table.pk).exists()
    # closing twice, or playing at a closed table, is refused
    again = api(alice).post(f"/api/v1/tables/{table.pk}/close/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "table_closed"
    with pytest.raises(TableError) as error:
        sit(table, alice, 0)
    assert error.value.code == "table_closed"


def test_creator_closes_a_table_left_to_house_bots_by_the_web_form(
        alice: Any, bob: Any, root: Any, table: Any) -> None:
    house = house_bot(root)
    services.execute(table_id=table.pk, user=bob,
                     command={"type": "sit", "seat": 1, "buy_in": 200, "player": house.pk})
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    page = browser.get(f"/tables/{table.pk}/")
    assert b'id="close-table-form"' in page.content
    # without the CSRF token: refused, nothing changes
    assert browser.post(f"/tables/{table.pk}/close/").status_code == 403
    assert Table.objects.get(pk=table.pk).status == TableStatus.WAITING
    token = browser.cookies["csrftoken"].value
    response = browser.post(f"/tables/{table.pk}/close/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response.url == "/lobby/"
    assert Table.objects.get(pk=table.pk).status == TableStatus.CLOSED
    assert not Seat.objects.filter(table=table).exists()
    house.refresh_from_db()
    assert house.balance == 0  # the house bot's buy-in came back through the ledger
    assert_chips_conserved()
    assert "Test NL" not in lobby_names(alice)


def test_others_may_not_close_and_the_creator_not_with_players_seated(
        alice: Any, bob: Any, table: Any) -> None:
    refused = api(bob).post(f"/api/v1/tables/{table.pk}/close/")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_allowed"
    browser = Client()
    browser.force_login(bob)
    assert b'id="close-table-form"' not in browser.get(f"/tables/{table.pk}/").content
    assert browser.post(f"/tables/{table.pk}/close/").status_code == 403
    sit(table, bob, 0)
    busy = api(alice).post(f"/api/v1/tables/{table.pk}/close/")
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "table_not_empty"
    assert Table.objects.get(pk=table.pk).status == TableStatus.WAITING
    missing = api(alice).post("/api/v1/tables/999999/close/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "table_not_found"


def test_superuser_closes_a_table_in_a_hand_and_the_ledger_balances(
        alice: Any, bob: Any, carol: Any, root: Any, table: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    sit(table, carol, 2, buy_in=150)
    seat, _hand, _version, legal = turn(table.pk)
    assert seat is not None  # a hand is running
    actor = {0: alice, 1: bob, 2: carol}[seat]
    act(table.pk, actor, {"kind": "call"} if legal["call_amount"] else {"kind": "check"})
    assert_chips_conserved()
    response = api(root).post(f"/api/v1/tables/{table.pk}/close/")
    assert response.status_code == 200, response.content
    table.refresh_from_db()
    assert table.status == TableStatus.CLOSED
    assert not Seat.objects.filter(table=table).exists()
    assert selectors.chips_on_tables() == 0
    assert_chips_conserved()
    names = {p.name: p.balance for p in Player.objects.filter(name__in=["alice", "bob",
                                                                           "carol"])}
    assert sum(names.values()) == 0  # every chip bought in went back to someone
    assert "Test NL" not in lobby_names(root)


def test_superuser_closes_tables_in_the_admin(alice: Any, bob: Any, root: Any,
                                              table: Any) -> None:
    sit(table, bob, 0)
    browser = Client()
    browser.force_login(root)
    assert browser.get("/admin/tables/table/").status_code == 200
    response = browser.post("/admin/tables/table/", {
        "action": "close_tables", "_selected_action": [str(table.pk)]})
    assert response.status_code == 302, response.content[:500]
    assert Table.objects.get(pk=table.pk).status == TableStatus.CLOSED
    assert not Seat.objects.filter(table=table).exists()
    assert_chips_conserved()
