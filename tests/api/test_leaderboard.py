"""Leaderboards over the API: per game and per rule set, ordering, limits, stable
errors; each table's rule set in the table JSON; finished tables out of the default
list."""

from __future__ import annotations

from typing import Any

import pytest

from engine.game import Game
from engine.registry import GAMES
from tests.api.conftest import client_for
from tests.api.test_endpoints import assert_error
from tests.lobby.helpers import DiceRace, finish, make_table

pytestmark = pytest.mark.django_db
URL = "/api/v1/games/test_dice/leaderboard/"


@pytest.fixture
def race(monkeypatch: pytest.MonkeyPatch) -> Game:
    game = DiceRace()
    monkeypatch.setitem(GAMES, game.info.key, game)
    return game


@pytest.fixture
def finished(alice: Any, bob: Any, root: Any, race: Game) -> dict[str, Any]:
    to20 = [make_table(alice, f"To 20 #{i}", game="test_dice", target=20) for i in range(2)]
    to30 = make_table(alice, "To 30", game="test_dice", target=30)
    finish(to20[0], [("alice", 20), ("bob", 11)], minutes=1)
    finish(to30, [("root", 30), ("alice", 20)], minutes=2)  # alice's 20 at To 20 was first
    finish(to20[1], [("bob", 20), ("root", 19)], minutes=3)
    return {"to20": to20, "to30": to30}


def entries(response: Any) -> list[tuple[str, int, int]]:
    assert response.status_code == 200, response.content
    return [(e["name"], e["score"], e["rank"]) for e in response.json()["results"]]


def test_best_finishes_first_then_the_earliest(alice: Any, finished: dict[str, Any]) -> None:
    response = client_for(alice).get(URL)
    assert entries(response) == [("root", 30, 1), ("alice", 20, 2), ("alice", 20, 3),
                                 ("bob", 20, 4), ("root", 19, 5), ("bob", 11, 6)]
    data = response.json()
    assert (data["game"], data["title"], data["ends"], data["rules"], data["settings"],
            data["game_name"], data["limit"]) == (
        "test_dice", "Dice race", True, None, None, None, 10)
    first = data["results"][0]
    to30 = finished["to30"]
    assert first == {"rank": 1, "name": "root", "player": first["player"], "score": 30,
                     "place": 1, "table": to30.pk, "table_name": "To 30",
                     "rules": to30.rules, "game_name": "Dice race to 30",
                     "finished_at": first["finished_at"]}
    assert data["results"][1]["table_name"] == "To 20 #0"  # same score: earlier first
    assert [e["place"] for e in data["results"]] == [1, 1, 2, 1, 2, 2]


def test_the_rules_filter(alice: Any, finished: dict[str, Any]) -> None:
    to20 = finished["to20"][0].rules
    assert finished["to20"][1].rules == to20 != finished["to30"].rules
    response = client_for(alice).get(URL, {"rules": to20})
    assert entries(response) == [("alice", 20, 1), ("bob", 20, 2), ("root", 19, 3),
                                 ("bob", 11, 4)]
    data = response.json()
    assert (data["rules"], data["settings"], data["game_name"]) == (
        to20, {"seats": 2, "target": 20}, "Dice race to 20")
    assert {e["rules"] for e in data["results"]} == {to20}
    # A digest nobody played: an empty board, no settings.
    response = client_for(alice).get(URL, {"rules": "f" * 40})
    assert entries(response) == [] and response.json()["settings"] is None


def test_limits(alice: Any, race: Game) -> None:
    for i in range(12):
        finish(make_table(alice, f"Race {i}", game="test_dice"), [("alice", i)], minutes=i)
    client = client_for(alice)
    assert [s for _, s, _ in entries(client.get(URL))] == list(range(11, 1, -1))
    assert [s for _, s, _ in entries(client.get(URL, {"limit": 3}))] == [11, 10, 9]
    assert len(entries(client.get(URL, {"limit": 1}))) == 1
    assert len(entries(client.get(URL, {"limit": 100}))) == 12
    assert client.get(URL, {"limit": 3}).json()["limit"] == 3
    for bad in ("0", "101", "-1", "x", "1.5", "9" * 30):
        error = assert_error(client.get(URL, {"limit": bad}), 400, "invalid_request")
        assert "limit" in error["details"]["fields"]


def test_stable_errors(alice: Any, anon: Any, race: Game) -> None:
    client = client_for(alice)
    error = assert_error(client.get("/api/v1/games/nope/leaderboard/"), 404, "unknown_game")
    assert "nope" in error["message"]
    assert_error(client.get("/api/v1/games/" + "x" * 500 + "/leaderboard/"), 404,
                 "unknown_game")
    for bad in ("abc", "G" * 40, "0" * 41, "0" * 39 + "\u00e9", "../" * 14):
        error = assert_error(client.get(URL, {"rules": bad}), 400, "invalid_request")
        assert "rules" in error["details"]["fields"]
    assert_error(anon.get(URL), 401, "not_authenticated")  # as the games list
    assert_error(client.post(URL, {}), 405, "method_not_allowed")


def test_a_cash_game_has_an_empty_board(alice: Any, bot_client: Any) -> None:
    data = bot_client.get("/api/v1/games/holdem/leaderboard/").json()
    assert (data["ends"], data["results"]) == (False, [])


def test_tables_carry_their_rules_and_finished_ones_leave_the_list(
        alice: Any, finished: dict[str, Any]) -> None:
    client = client_for(alice)
    running = make_table(alice, "Race on", game="test_dice", target=20)
    listed = client.get("/api/v1/tables/").json()["results"]
    assert [t["name"] for t in listed] == ["Race on"]
    assert listed[0]["rules"] == running.rules == finished["to20"][0].rules
    done = client.get("/api/v1/tables/", {"status": "finished"}).json()["results"]
    assert [t["name"] for t in done] == ["To 20 #0", "To 20 #1", "To 30"]
    assert [s["name"] for s in done[2]["standings"]] == ["root", "alice"]
    same_rules = client.get("/api/v1/tables/", {"status": "finished",
                                                "rules": running.rules}).json()["results"]
    assert [t["name"] for t in same_rules] == ["To 20 #0", "To 20 #1"]
    assert_error(client.get("/api/v1/tables/", {"status": "over"}), 400, "invalid_request")
    assert_error(client.get("/api/v1/tables/", {"rules": "x"}), 400, "invalid_request")


def test_openapi_documents_the_leaderboard(alice: Any) -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/games/{key}/leaderboard/"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert params["key"]["in"] == "path"
    assert params["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100,
                                         "default": 10}
    assert params["rules"]["schema"]["pattern"] == "^[0-9a-f]{40}$"
    assert set(operation["responses"]) >= {"200", "400", "401", "404"}
    board = schema["components"]["schemas"]["Leaderboard"]["properties"]
    assert {"game", "rules", "settings", "limit", "results"} <= set(board)
    assert "rules" in schema["components"]["schemas"]["Table"]["properties"]


def test_a_game_played_to_its_end_lands_on_the_leaderboard(alice: Any, bob: Any) -> None:
    """Through the table service: the test-only tic-tac-toe (tests/conftest.py) ends, the
    runtime writes the standings; the table leaves the lobby and the API list."""
    assert "tictactoe" in GAMES, "tests/conftest.py registers the test-only tic-tac-toe"
    from django.test import Client

    from tables import services
    from tables.models import Table

    table = services.create_table(creator=alice, name="Noughts", game="tictactoe",
                                  settings={"rounds": 1})
    for seat, user in enumerate((alice, bob)):
        services.execute(table_id=table.pk, user=user, command={"type": "sit", "seat": seat})
    game = GAMES["tictactoe"]
    for _ in range(20):  # whoever is to act marks the first free square
        table = Table.objects.get(pk=table.pk)
        if table.status == "finished":
            break
        seat = table.to_act_seat
        assert seat is not None
        moves = game.legal_moves(game.load(table.state), seat)
        square = moves[0]["params"]["square"]["options"][0]
        services.execute(table_id=table.pk, user=(alice, bob)[seat], command={
            "type": "act", "hand": table.current_hand_id, "version": table.decision_version,
            "action": {"kind": "mark", "square": square}})
    assert table.status == "finished" and table.standings
    client = client_for(alice)
    board = client.get("/api/v1/games/tictactoe/leaderboard/", {"rules": table.rules}).json()
    assert [(e["score"], e["place"]) for e in board["results"]] == [(2, 1), (0, 2)]
    assert {e["name"] for e in board["results"]} == {"alice", "bob"}
    assert board["settings"] == {"rounds": 1} and board["results"][0]["table"] == table.pk
    assert "Noughts" not in [t["name"] for t in client.get("/api/v1/tables/").json()["results"]]
    browser = Client()
    browser.force_login(alice)
    assert "Noughts" not in [t["name"] for t in
                             browser.get("/lobby/tables.json").json()["tables"]]
    html = browser.get(f"/tables/{table.pk}/").content.decode()
    assert f'href="/games/tictactoe/leaderboard/?rules={table.rules}"' in html
