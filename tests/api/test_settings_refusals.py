"""Issue 15: blinds out of order and buy-ins below the big blind are refused cleanly."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tables.models import Table
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("values", "code", "word"), [
    ({"structure": "NL", "small_blind": 3, "big_blind": 2}, "bad_blinds", "small blind"),
    ({"structure": "NL", "small_blind": 2, "big_blind": 2}, "bad_blinds", "small blind"),
    ({"structure": "NL", "small_blind": 1, "big_blind": 2, "min_buy_in": 1},
     "buy_in_below_big_blind", "minimum buy-in"),
])
def test_create_table_refuses_bad_blinds_and_buy_ins(alice: Any, values: dict[str, Any],
                                                     code: str, word: str) -> None:
    client = client_for(alice)
    for body in ({"name": "Odd", "settings": values}, {"name": "Odd", **values}):
        response = client.post("/api/v1/tables/", body, format="json")
        assert response.status_code == 400, response.content
        error = response.json()["error"]
        assert error["code"] == code and word in error["message"], error
    assert not Table.objects.filter(name="Odd").exists()


def test_lobby_form_refuses_bad_blinds_next_to_the_field(alice: Any) -> None:
    browser = Client()
    browser.force_login(alice)
    for fields, field in (({"small_blind": "3", "big_blind": "2"}, "small_blind"),
                          ({"small_blind": "2", "big_blind": "2"}, "small_blind"),
                          ({"small_blind": "1", "big_blind": "2", "min_buy_in": "1"},
                           "min_buy_in")):
        response = browser.post("/lobby/create/", {
            "name": "Odd", "game": "holdem", "settings_for": "holdem", "structure": "NL",
            "seats": "6", "turn_seconds": "30", **fields})
        assert response.status_code == 400
        assert response.context["form"].errors.get(field), response.context["form"].errors
    assert not Table.objects.filter(name="Odd").exists()
