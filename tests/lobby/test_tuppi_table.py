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


def test_a_tuppi_round_in_the_history(alice: Any, bob: Any) -> None:
    """A finished round: the replay page loads Tuppi's replay module and offers the
    round's JSON export (not PHH); a watcher's export hides the hands."""
    from datetime import timedelta

    from django.utils import timezone

    from tables import services
    from tables.models import Hand
    from tests.conftest import _make_user

    table = services.create_table(creator=bob, name="Tuppi history", game="tuppi",
                                  settings={"round_limit": 0})
    users = [alice, bob, _make_user("carl", 3), _make_user("dora", 3)]
    for seat, user in enumerate(users):
        services.execute(table_id=table.pk, user=user, command={"type": "sit", "seat": seat})
    for hour in range(1, 80):  # nobody moves: the timer plays every default move
        services.fire_due_timers(timezone.now() + timedelta(hours=hour))
        if Hand.objects.filter(table=table, ended_at__isnull=False).exists():
            break
    hand = Hand.objects.get(table=table, ended_at__isnull=False)

    page = client_of(alice).get(f"/hands/{hand.pk}/").content.decode()
    assert "Download JSON" in page and "Download PHH" not in page
    assert "games/tuppi/replay.js" in page and "games/tuppi/board.css" in page
    download = client_of(alice).get(f"/hands/{hand.pk}/phh/")
    assert download["Content-Type"] == "application/json"
    assert download["Content-Disposition"].endswith(f'-hand{hand.number}.json"')
    own = json.loads(download.content)
    assert "??" not in own["hands"][0] and own["format"] == "tuppi-round/1"
    watcher = json.loads(client_of(_make_user("wendy", 3)).get(f"/hands/{hand.pk}/phh/").content)
    assert watcher["bids"] == [b if s in own["revealed"] else None
                               for s, b in enumerate(own["bids"])]
    played = {c for trick in own["tricks"] for c in trick["cards"]}
    for text in watcher["hands"]:
        assert all(text[i:i + 2] in played or text[i:i + 2] == "??"
                   for i in range(0, len(text), 2))
