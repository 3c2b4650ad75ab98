"""The leaderboard page per game and rule set, and a finished table's page: its final
standings in the shell and the link to its rule set's leaderboard."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from engine.game import Game
from tests.lobby.helpers import finish, make_table

pytestmark = pytest.mark.django_db


def names_in(html: str) -> list[str]:
    return re.findall(r'<td class="pname">([^<]*)</td>', html)


@pytest.fixture
def boards(alice: Any, bob: Any, root: Any, dice: Game) -> dict[str, Any]:
    """Two rule sets of the dice race, a few finished games each."""
    to20 = [make_table(alice, f"To 20 #{i}", game="test_dice", target=20) for i in range(3)]
    to50 = make_table(alice, "To 50", game="test_dice", target=50, seats=3)
    finish(to20[0], [("alice", 20), ("bob", 7)], minutes=1)
    finish(to20[1], [("bob", 20), ("root", 12)], minutes=2)  # alice's 20 came first
    finish(to20[2], [("root", 18), ("alice", 3)], minutes=3)
    finish(to50, [("root", 50), ("bob", 41), ("alice", 9)], minutes=4)
    return {"to20": to20, "to50": to50}


def test_top_ten_of_a_game_and_of_a_rule_set(client: Client, alice: Any,
                                             boards: dict[str, Any]) -> None:
    client.force_login(alice)
    response = client.get("/games/test_dice/leaderboard/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Dice race leaderboard" in html
    assert names_in(html) == ["root", "bob", "alice", "bob", "root", "root", "alice", "bob",
                              "alice"]
    # Unfiltered: each entry names its rule set and links to it; the rule sets are listed.
    to20, to50 = boards["to20"][0].rules, boards["to50"].rules
    assert f'href="/games/test_dice/leaderboard/?rules={to50}">Dice race to 50</a>' in html
    assert f'href="/games/test_dice/leaderboard/?rules={to20}">Dice race to 20</a>' in html
    assert f'href="/tables/{boards["to50"].pk}/">To 50</a>' in html

    html = client.get(f"/games/test_dice/leaderboard/?rules={to20}").content.decode()
    assert names_in(html) == ["alice", "bob", "root", "root", "bob", "alice"]
    assert "Rule set: Dice race to 20" in html
    settings = re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>", html)
    assert settings == [("Seats", "2"), ("Target", "20")]  # schema order, labels
    assert 'id="all-rule-sets"' in html


def test_only_the_top_ten(client: Client, alice: Any, dice: Game) -> None:
    for i in range(12):
        finish(make_table(alice, f"Race {i}", game="test_dice"), [("alice", i)], minutes=i)
    client.force_login(alice)
    html = client.get("/games/test_dice/leaderboard/").content.decode()
    scores = re.findall(r'<td class="num score">(\d+)</td>', html)
    assert scores == [str(i) for i in range(11, 1, -1)]


def test_unknown_game_bad_rules_empty_boards_and_login(client: Client, alice: Any,
                                                       dice: Game) -> None:
    assert client.get("/games/test_dice/leaderboard/").status_code == 302  # log in first
    client.force_login(alice)
    assert client.get("/games/nope/leaderboard/").status_code == 404
    response = client.get("/games/test_dice/leaderboard/?rules=not-a-digest")
    assert response.status_code == 400
    assert "40-character digest" in response.content.decode()
    html = client.get("/games/test_dice/leaderboard/?rules=" + "0" * 40).content.decode()
    assert "No finished games yet with these rules." in html
    assert "No table was ever created with these rules." in html
    html = client.get("/games/holdem/leaderboard/").content.decode()
    assert "is a cash game" in html and "No finished games yet." in html


def test_a_finished_table_shows_its_standings_and_links_its_leaderboard(
        client: Client, alice: Any, boards: dict[str, Any]) -> None:
    table = boards["to50"]
    client.force_login(alice)
    response = client.get(f"/tables/{table.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    box = html[html.index('id="standings"'):html.index("</section>", html.index(
        'id="standings"'))]
    assert " hidden" not in box.split(">")[0]
    assert re.findall(r'<span class="pname">([^<]*)</span> <span class="score">(\d+)', box) \
        == [("root", "50"), ("bob", "41"), ("alice", "9")]
    link = f"/games/test_dice/leaderboard/?rules={table.rules}"
    assert f'href="{link}"' in box
    assert response.context["config"]["leaderboard_url"] == link
    assert 'id="finished-badge"' in html
    # What the shell reads (snapshot.info) carries them too.
    from tables.selectors import table_info

    table.refresh_from_db()
    assert [s["name"] for s in table_info(table)["standings"]] == ["root", "bob", "alice"]


def test_a_running_cash_table_has_no_standings_box_shown(client: Client, alice: Any) -> None:
    table = make_table(alice, "Cash")
    client.force_login(alice)
    response = client.get(f"/tables/{table.pk}/")
    html = response.content.decode()
    assert 'id="standings" aria-label="Final standings" hidden' in html
    assert "standings-leaderboard" not in html and 'id="finished-badge"' not in html
    assert response.context["config"]["leaderboard_url"] is None
