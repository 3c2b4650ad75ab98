"""The API hosts any registered game: the games list, and tables of any game with the
game's own settings (validated by the game, refused with its stable code)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import MalformedAction
from engine.game import Game, GameInfo, Json, Listing, SeatInfo
from engine.registry import GAMES
from tests.api.conftest import client_for
from tests.api.test_endpoints import assert_error

pytestmark = pytest.mark.django_db


class DiceRace(Game):
    """The least a game needs for a table to be created and listed (no rounds)."""

    info = GameInfo(key="test_dice", title="Dice race", min_players=2, max_players=4,
                    economy=False, ends=True, round_name="roll")

    def settings_schema(self) -> Json:
        return {"type": "object", "additionalProperties": False, "properties": {
            "seats": {"type": "integer", "minimum": 2, "maximum": 4, "default": 2},
            "target": {"type": "integer", "minimum": 1, "default": 20}}}

    def validate_settings(self, data: Json) -> Json:
        settings = {"seats": 2, "target": 20}
        if not isinstance(data, dict) or set(data) - set(settings):
            raise MalformedAction("bad_settings", "Dice race has seats and target.")
        settings.update(data)
        if type(settings["seats"]) is not int or not 2 <= settings["seats"] <= 4:
            raise MalformedAction("bad_settings", "Dice race has 2 to 4 seats.")
        if type(settings["target"]) is not int or settings["target"] < 1:
            raise MalformedAction("bad_target", "The target is a positive whole number.")
        return settings

    def settings_json(self, settings: Json) -> Json:
        return dict(settings)

    def listing(self, settings: Json) -> Listing:
        return Listing(name=f"Dice race to {settings['target']}", seats=settings["seats"],
                       facts={"target": settings["target"]})

    def create(self, settings: Json) -> Json:
        return {"settings": settings, "seats": [None] * settings["seats"]}

    def seats(self, state: Json) -> list[SeatInfo | None]:
        return [None] * len(state["seats"])

    def dump(self, state: Json) -> Json:
        return state

    def load(self, data: Json) -> Json:
        return data


@pytest.fixture
def dice(monkeypatch: pytest.MonkeyPatch) -> Game:
    game = DiceRace()
    monkeypatch.setitem(GAMES, game.info.key, game)
    return game


def test_games_lists_every_registered_game_with_its_settings_schema(
        alice: Any, anon: Any, dice: Game) -> None:
    games = client_for(alice).get("/api/v1/games/").json()
    assert [g["key"] for g in games] == list(GAMES) and games[0]["key"] == "holdem"
    holdem = games[0]
    assert holdem == {**GAMES["holdem"].info.to_json(),
                      "settings_schema": GAMES["holdem"].settings_schema(),
                      "house_bot_styles": holdem["house_bot_styles"]}  # docs/house-bots.md
    assert holdem["economy"] is True and holdem["export_format"] == "phh"
    assert holdem["settings_schema"]["type"] == "object"
    assert "small_blind" in holdem["settings_schema"]["properties"]
    assert games[-1]["title"] == "Dice race" and games[-1]["settings_schema"][
        "properties"]["target"]["default"] == 20
    assert_error(anon.get("/api/v1/games/"), 401, "not_authenticated")  # as /tables/


def test_create_a_table_of_any_game_with_its_settings(alice: Any, dice: Game) -> None:
    client = client_for(alice)
    response = client.post("/api/v1/tables/", {
        "name": "Race", "game": "test_dice", "settings": {"seats": 3, "target": 50},
        "turn_seconds": 10}, format="json")
    assert response.status_code == 201, response.content
    table = response.json()
    assert (table["game"], table["game_name"], table["seats"], table["turn_seconds"]) == (
        "test_dice", "Dice race to 50", 3, 10)
    assert table["settings"] == {"seats": 3, "target": 50}
    assert table["facts"] == {"target": 50}
    listed = client.get("/api/v1/tables/?game=test_dice").json()["results"]
    assert [(t["name"], t["game"], t["facts"]) for t in listed] == [
        ("Race", "test_dice", {"target": 50})]
    # The game validates its settings; its codes pass through (400, never 409 or 500).
    for settings, code in (({"seats": 9}, "bad_settings"), ({"target": 0}, "bad_target"),
                           ({"blinds": 1}, "bad_settings"), ({"target": "x"}, "bad_target")):
        assert_error(client.post("/api/v1/tables/", {
            "name": "Bad", "game": "test_dice", "settings": settings}, format="json"),
            400, code)


def test_create_holdem_with_settings_or_with_the_flat_fields(alice: Any) -> None:
    client = client_for(alice)
    settings = {"structure": "PL", "small_blind": 2, "big_blind": 5, "seats": 4}
    new = client.post("/api/v1/tables/", {"name": "New style", "game": "holdem",
                                          "settings": settings}, format="json")
    assert new.status_code == 201, new.content
    old = client.post("/api/v1/tables/", {"name": "Old style", **settings}, format="json")
    assert old.status_code == 201, old.content
    for table in (new.json(), old.json()):
        assert table["game"] == "holdem" and table["seats"] == 4
        assert (table["structure"], table["small_blind"], table["big_blind"]) == ("PL", 2, 5)
        assert table["settings"]["structure"] == "PL" and table["facts"]["big_blind"] == 5
    assert new.json()["settings"] == old.json()["settings"]
    # Defaults of both styles are the game's.
    plain = client.post("/api/v1/tables/", {"name": "Defaults"}, format="json").json()
    assert plain["game"] == "holdem" and plain["settings"] == client.post(
        "/api/v1/tables/", {"name": "Defaults 2", "settings": {}}, format="json").json()[
        "settings"]


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"name": "X", "game": "chess"}, 400, "invalid_request"),  # not a registered game
    ({"name": "X", "game": ["holdem"]}, 400, "invalid_request"),
    ({"name": "X", "settings": "NL"}, 400, "invalid_request"),  # not an object
    ({"name": "X", "settings": {"structure": "NL"}, "small_blind": 1}, 400,
     "invalid_request"),  # both styles at once
    ({"name": "X", "settings": {"structure": "XL"}}, 400, "bad_settings"),
    ({"name": "X", "settings": {"big_blind": 10**30}}, 400, "invalid_request"),
    ({"name": "X", "settings": {"a": {"b": {"c": {"d": {"e": {"f": {}}}}}}}}, 400,
     "invalid_request"),
    ({"name": "X", "settings": {"seats": 1.5}}, 400, "bad_settings"),
    ({"name": "X", "turn_seconds": 1}, 400, "invalid_request"),
    ({"name": "   "}, 400, "invalid_request"),
])
def test_create_refusals_have_stable_codes(alice: Any, body: Json, status: int,
                                           code: str) -> None:
    assert_error(client_for(alice).post("/api/v1/tables/", body, format="json"), status, code)


def test_values_the_game_accepts_but_a_column_cannot_hold_are_no_server_error(
        alice: Any) -> None:
    big = {"small_blind": 10**12, "big_blind": 10**12}  # buy-ins 20 and 100 times that
    response = client_for(alice).post("/api/v1/tables/", {"name": "Big", "settings": big},
                                      format="json")
    if response.status_code != 201:  # PostgreSQL's 32-bit columns; SQLite stores 64 bits
        assert_error(response, 400, "bad_settings")


def test_openapi_documents_games_and_settings(alice: Any) -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert "/api/v1/games/" in schema["paths"]
    create = schema["components"]["schemas"]["TableCreateRequest"]["properties"]
    assert create["settings"]["type"] == "object"
    assert schema["components"]["schemas"]["GameEnum"]["enum"] == list(GAMES)
    assert create["game"]["allOf"] == [{"$ref": "#/components/schemas/GameEnum"}]
    assert "structure" in create  # the flat Hold'em fields are still documented
