"""The lobby's table list for any game: the game filter, the fact columns, sorting by
any listing fact, Hold'em's filters on the tables that have its facts, finished tables
gone, and a query count that does not grow with the tables."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from engine.game import Game
from lobby import selectors
from tables.models import TableStatus
from tests.lobby.helpers import finish, make_table
from tests.tables.helpers import sit

pytestmark = pytest.mark.django_db
HOLDEM_COLUMNS = [
    {"key": "structure", "label": "Limit", "sort": "structure", "num": False},
    {"key": "stakes", "label": "Stakes", "sort": "big_blind", "num": True},
]
TARGET = {"key": "target", "label": "Target", "sort": "target", "num": True}


def listing(client: Client, **query: Any) -> tuple[list[str], list[dict[str, Any]]]:
    response = client.get("/lobby/tables.json", query)
    assert response.status_code == 200
    data = response.json()
    return [t["name"] for t in data["tables"]], data["columns"]


@pytest.fixture
def lobby(client: Client, alice: Any, dice: Game) -> Client:
    make_table(alice, "NL 1/2")
    make_table(alice, "FL 2/4", structure="FL", small_blind=2, big_blind=4, seats=2)
    make_table(alice, "NL 5/10 ante", small_blind=5, big_blind=10, ante=1)
    make_table(alice, "Race 50", game="test_dice", target=50)
    make_table(alice, "Race 20", game="test_dice", target=20, seats=3)
    client.force_login(alice)
    return client


def test_finished_and_closed_tables_leave_the_lobby(client: Client, alice: Any,
                                                    dice: Game) -> None:
    running = make_table(alice, "Race running", game="test_dice")
    finish(make_table(alice, "Race over", game="test_dice"), [("alice", 3)])
    closed = make_table(alice, "Closed NL")
    closed.status = TableStatus.CLOSED
    closed.save(update_fields=["status"])
    client.force_login(alice)
    assert listing(client)[0] == [running.name]
    assert listing(client, game="test_dice")[0] == [running.name]
    assert [t["name"] for t in selectors.lobby_tables(selectors.TableFilter())] == [
        running.name]


def test_game_filter_and_the_columns_of_each_game(lobby: Client) -> None:
    names, columns = listing(lobby)
    assert names == ["FL 2/4", "NL 1/2", "NL 5/10 ante", "Race 20", "Race 50"]
    # Hold'em keeps its columns (first: the registry's order); the dice race adds its fact.
    assert columns == [*HOLDEM_COLUMNS, TARGET]
    rows = {t["name"]: t for t in lobby.get("/lobby/tables.json").json()["tables"]}
    assert rows["NL 5/10 ante"]["cells"] == {"structure": "NL", "stakes": "5/10 a1"}
    assert rows["FL 2/4"]["cells"] == {"structure": "FL", "stakes": "2/4"}
    assert rows["Race 50"]["cells"] == {"target": "50"}
    assert rows["Race 50"]["facts"] == {"target": 50} and rows["Race 50"]["game"] == "test_dice"
    assert rows["Race 50"]["rules"] and rows["Race 50"]["rules"] != rows["Race 20"]["rules"]
    # The first version's Hold'em keys are still there.
    assert (rows["NL 1/2"]["structure"], rows["NL 1/2"]["stakes"]) == ("NL", "1/2")

    assert listing(lobby, game="test_dice") == (["Race 20", "Race 50"], [TARGET])
    names, columns = listing(lobby, game="holdem")
    assert names == ["FL 2/4", "NL 1/2", "NL 5/10 ante"] and columns == HOLDEM_COLUMNS
    assert listing(lobby, game="nope") == ([], [])
    # Only Hold'em tables listed: exactly the Hold'em lobby's columns.
    assert listing(lobby, q="NL")[1] == HOLDEM_COLUMNS
    # Nothing listed, no game chosen: the default game's columns (as the page renders).
    assert listing(lobby, q="nothing like this") == ([], HOLDEM_COLUMNS)


def test_sort_by_any_fact_key_missing_values_last(lobby: Client) -> None:
    assert listing(lobby, sort="target")[0][:2] == ["Race 20", "Race 50"]
    assert listing(lobby, sort="target", dir="desc")[0][:2] == ["Race 50", "Race 20"]
    # Tables without the fact come last either way, in name order.
    assert listing(lobby, sort="target")[0][2:] == ["FL 2/4", "NL 1/2", "NL 5/10 ante"]
    assert listing(lobby, sort="target", dir="desc")[0][2:] == [
        "FL 2/4", "NL 1/2", "NL 5/10 ante"]
    assert listing(lobby, sort="big_blind", dir="desc")[0] == [
        "NL 5/10 ante", "FL 2/4", "NL 1/2", "Race 20", "Race 50"]
    assert listing(lobby, sort="structure")[0][:3] == ["FL 2/4", "NL 1/2", "NL 5/10 ante"]
    assert listing(lobby, sort="ante", dir="desc")[0][0] == "NL 5/10 ante"
    # Row columns as before; a sort key that is not a key at all falls back to the name.
    assert listing(lobby, sort="seat_count")[0][:3] == ["FL 2/4", "Race 50", "Race 20"]
    assert listing(lobby, sort="free", dir="desc")[0][:2] == ["NL 1/2", "NL 5/10 ante"]
    assert listing(lobby, sort="no such fact")[0] == listing(lobby)[0]
    assert listing(lobby, sort="unknown_fact")[0] == listing(lobby)[0]


def test_holdem_filters_apply_to_tables_with_those_facts(lobby: Client) -> None:
    assert listing(lobby, structure="FL")[0] == ["FL 2/4"]
    assert listing(lobby, structure="NL")[0] == ["NL 1/2", "NL 5/10 ante"]
    assert listing(lobby, bb_max="4")[0] == ["FL 2/4", "NL 1/2"]  # no dice race
    assert listing(lobby, bb_min="3")[0] == ["FL 2/4", "NL 5/10 ante"]
    assert listing(lobby, bb_min="1", bb_max="1000", game="test_dice")[0] == []
    # The generic filters apply to every game.
    assert listing(lobby, seats="2")[0] == ["FL 2/4", "Race 50"]
    assert listing(lobby, q="race")[0] == ["Race 20", "Race 50"]
    assert listing(lobby, free="3")[0] == ["NL 1/2", "NL 5/10 ante", "Race 20"]
    # What is not a number is ignored, never an error.
    for junk in ("9" * 40, "²", "-1", "x"):
        assert listing(lobby, bb_max=junk, seats=junk)[0] == listing(lobby)[0]
    assert listing(lobby, q="\x00", player="\x00", game="\x00")[0] == listing(lobby)[0]


def test_lobby_queries_do_not_grow_with_tables_or_games(client: Client, alice: Any,
                                                        bob: Any, dice: Game) -> None:
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            rows = selectors.lobby_tables(selectors.TableFilter(sort="target"))
            selectors.lobby_columns(rows)
        return len(queries.captured_queries)

    sit(make_table(alice, "Q one"), bob, 0)
    small = count()
    for i in range(6):
        table = make_table(alice, f"Q NL {i}", small_blind=1 + i, big_blind=2 + 2 * i)
        sit(table, alice, 1, buy_in=50 * table.big_blind)
        sit(table, bob, 3, buy_in=50 * table.big_blind)
        make_table(alice, f"Q race {i}", game="test_dice", target=10 + i)
    assert small == count() == 3  # tables, their seats with players, the last hour's hands
    client.force_login(alice)
    with CaptureQueriesContext(connection) as page:
        rows = client.get("/lobby/tables.json").json()["tables"]
    assert len(rows) == 13
    assert len(page.captured_queries) <= 3 + 2  # plus the session and the user


def test_lobby_page_has_the_game_filter_and_the_leaderboard_links(client: Client,
                                                                  alice: Any,
                                                                  dice: Game) -> None:
    client.force_login(alice)
    html = client.get("/lobby/").content.decode()
    assert '<select name="game"><option value="">Any</option>' in html
    assert '<option value="test_dice">Dice race</option>' in html
    # Games that end link to their leaderboard; a cash game has none.
    assert 'href="/games/test_dice/leaderboard/"' in html
    assert 'href="/games/holdem/leaderboard/"' not in html
    # The Hold'em columns are rendered before the first refresh.
    assert 'data-column="structure"><button type="button" data-sort="structure">Limit' in html
    assert 'data-sort="big_blind">Stakes</button>' in html
