"""A Tuppi table made in the lobby: the create form takes its one setting (the
tournament limit), the table page loads the Tuppi board, and a tester seats the
Tuppi house agents (greedy, strong, random) while a poker-only style is refused."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from accounts.services import create_house_bot
from tables.models import Table

pytestmark = pytest.mark.django_db


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_tuppi_table_from_the_lobby(alice: Any, bob: Any) -> None:
    lobby = client_of(alice).get("/lobby/?create=1&game=tuppi").content.decode()
    assert "Tournament limit" in lobby and "15 rounds" in lobby
    response = client_of(alice).post("/lobby/create/", {
        "name": "Tuppi night", "game": "tuppi", "settings_for": "tuppi", "round_limit": "15",
        "seats": 4, "turn_seconds": 30})
    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.get(name="Tuppi night")
    assert table.game == "tuppi" and table.settings == {"round_limit": 15}

    page = client_of(alice).get(f"/tables/{table.pk}/").content.decode()
    config = json.loads(re.search(r'id="table-config" type="application/json">(.*?)</script>',
                                  page).group(1))
    assert config["board_url"].endswith("games/tuppi/board.js")
    assert "games/tuppi/board.css" in page

    seated = []
    for seat, style in ((1, "greedy"), (2, "strong"), (3, "random")):
        bot = create_house_bot(name=f"Tuppi-{style}", strategy=style)
        answer = client_of(bob).post(f"/tables/{table.pk}/house-bot/",
                                     json.dumps({"player": bot.pk, "seat": seat}),
                                     content_type="application/json")
        assert answer.status_code == 200, answer.content
        seated.append(str(bot.pk))
    poker = create_house_bot(name="Poker-only", strategy="rule_based")
    refused = client_of(bob).post(f"/tables/{table.pk}/house-bot/",
                                  json.dumps({"player": poker.pk, "seat": 0}),
                                  content_type="application/json")
    assert refused.status_code in (400, 403)
    table.refresh_from_db()
    assert [s and s["id"] for s in table.state["seats"]] == [None, *seated]
