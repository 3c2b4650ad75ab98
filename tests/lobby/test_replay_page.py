"""The replay page is the same for every game: the module it loads (the game's
``static/games/<key>/replay.js``, else the generic one; ``?board=generic`` forces it),
the round's name in the title, and only the columns and links the round has."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from engine.game import Game
from tests.lobby.helpers import make_table

pytestmark = pytest.mark.django_db


def finished_round(table: Any, players: list[tuple[int, Any, int | None, dict[str, Any]]],
                   events: list[dict[str, Any]]) -> Any:
    """A stored, finished round of ``table``: ``(seat, player, score, detail)`` each."""
    from tables.models import Hand, HandPlayer

    now = timezone.now()
    hand = Hand.objects.create(table=table, number=1, started_at=now, ended_at=now,
                               seats=[seat for seat, *_ in players],
                               participants=[str(p.pk) for _, p, *_ in players],
                               events=events)
    for position, (seat, player, score, detail) in enumerate(players):
        HandPlayer.objects.create(hand=hand, player=player, name=player.name, seat=seat,
                                  position=position, score=score, detail=detail)
    return hand


def players_of(html: str) -> list[list[str]]:
    body = html[html.index('id="rp-players"'):html.index("</table>", html.index('id="rp-players"'))]
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row)
            for row in re.findall(r"<tr data-seat[^>]*>(.*?)</tr>", body)]


def test_a_game_without_a_replay_module_gets_the_generic_one(
        client: Client, alice: Any, bob: Any, dice: Game) -> None:
    table = make_table(alice, "Dice", game="test_dice", target=20)
    hand = finished_round(table, [(0, alice.players.first(), 12, {}),
                                  (1, bob.players.first(), 20, {})],
                          [{"type": "RoundStarted", "number": 1, "seats": [0, 1]},
                           {"type": "Rolled", "player": 0, "dice": [6, 6]},
                           {"type": "RoundEnded", "results": []}])
    client.force_login(alice)
    response = client.get(f"/hands/{hand.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    config = response.context["config"]
    assert config["replay_url"].endswith("/games/_generic/replay.js")
    assert config["generic_replay_url"] == config["replay_url"]
    assert config["game_info"]["round_name"] == "roll"
    assert len(config["hand"]["events"]) == 3
    assert "<title>Roll #1 at Dice ·" in html and "Replay: roll #1" in html
    assert "Roll log" in html
    assert "Download PHH" not in html and "starting" not in html and "cards" not in html
    assert "/games/holdem/" not in html
    # A score game: no starting stack, no net, the scores.
    assert players_of(html) == [[p.name, s] for p, s in
                                ((alice.players.first(), "12"), (bob.players.first(), "20"))]


def test_holdem_picks_its_module_and_generic_on_request(client: Client, alice: Any,
                                                        bob: Any) -> None:
    table = make_table(alice, "Holdem")
    hand = finished_round(table, [(0, alice.players.first(), None, {"starting_stack": 200}),
                                  (2, bob.players.first(), None, {"starting_stack": 150})],
                          [{"type": "HandStarted", "number": 1, "button": 0, "seats": [0, 2]}])
    client.force_login(alice)
    response = client.get(f"/hands/{hand.pk}/")
    html = response.content.decode()
    assert response.context["config"]["replay_url"].endswith("/games/holdem/replay.js")
    assert "/static/games/holdem/board.css" in html
    assert "<title>Hand #1 at Holdem" in html
    assert players_of(html) == [[alice.players.first().name, "200", "+0"],
                                [bob.players.first().name, "150", "+0"]]
    response = client.get(f"/hands/{hand.pk}/?board=generic")
    assert response.context["config"]["replay_url"].endswith("/games/_generic/replay.js")
    assert "/static/games/_generic/replay.css" in response.content.decode()
