"""Issue 15: a player's tables count every player at them, not only that player."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import client_for
from tests.tables.helpers import sit

pytestmark = pytest.mark.django_db


def test_player_tables_count_every_seated_player(alice: Any, bob: Any, root: Any,
                                                  table: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    sit(table, root, 2)
    client = client_for(alice)
    for url in ("/api/v1/players/bob/tables/", "/api/v1/tables/?player=bob"):
        rows = client.get(url).json()
        rows = rows["results"] if isinstance(rows, dict) else rows
        assert [t["name"] for t in rows] == ["API NL"], url
        assert rows[0]["players"] == 3, url
        assert rows[0]["free_seats"] == 3, url
        assert sorted(rows[0]["player_names"]) == ["alice", "bob", "root"], url
    # min_free_seats on a player's tables counts the other players too
    assert client.get("/api/v1/tables/?player=bob&min_free_seats=4").json()["results"] == []
