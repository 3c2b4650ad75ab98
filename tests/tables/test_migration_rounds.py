"""Migration 0002 carries stored Hold'em hands into generic rounds without loss."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from engine.game import Viewer

pytestmark = pytest.mark.django_db(transaction=True)

OLD = [("tables", "0001_initial"), ("accounts", "0002_player_house_strategy")]
PHH = '''variant = "NT"
ante_trimming_status = false
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [200, 200]
actions = ["d dh p1 AsKd", "d dh p2 7c2h", "p2 f"]
finishing_stacks = [201, 199]
players = ["alice", "bob"]
table = "Old"
hand = 1
seats = [4, 1]
seat_count = 6
'''


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def back_to_latest() -> Any:
    """Whatever happens, the database ends at the latest migrations again."""
    yield
    executor = MigrationExecutor(connection)
    _migrate(executor.loader.graph.leaf_nodes())


def test_old_hands_become_rounds_with_chance_record_results_and_privacy(
        back_to_latest: Any) -> None:
    apps = _migrate(OLD)
    User = apps.get_model("accounts", "User")
    Player = apps.get_model("accounts", "Player")
    Table = apps.get_model("tables", "Table")
    Hand = apps.get_model("tables", "Hand")
    HandPlayer = apps.get_model("tables", "HandPlayer")
    owner = User.objects.create(username="alice", role=3)
    other = User.objects.create(username="bob", role=3)
    alice = Player.objects.create(owner=owner, name="alice", kind="human")
    bob = Player.objects.create(owner=other, name="bob", kind="human")
    settings = {"structure": "NL", "small_blind": 1, "big_blind": 2, "ante": 0, "seats": 6,
                "min_buy_in": 40, "max_buy_in": 200}
    table = Table.objects.create(
        name="Old", game="holdem", game_name="Texas Hold'em NL200 (1/2)", structure="NL",
        small_blind=1, big_blind=2, seat_count=6, min_buy_in=40, max_buy_in=200,
        state={"settings": settings, "seats": [None] * 6, "button": 4, "hand_number": 1,
               "positions": [], "settled": True, "hand": None})
    events = [{"type": "HandStarted", "number": 1, "button": 4, "seats": [4, 1]},
              {"type": "HoleCardsDealt", "player": 4, "cards": "AsKd"},
              {"type": "HoleCardsDealt", "player": 1, "cards": "7c2h"},
              {"type": "PlayerFolded", "player": 1}, {"type": "HandEnded"}]
    from django.utils import timezone

    hand = Hand.objects.create(table=table, number=1, started_at=timezone.now(),
                               ended_at=timezone.now(), button=4, seats=[4, 1],
                               deck="AsKd7c2h" + "2c" * 10, setup={"stacks": [200, 200]},
                               events=events, phh=PHH)
    HandPlayer.objects.create(hand=hand, player=alice, name="alice", seat=4, position=0,
                              starting_stack=200, net=1, hole_cards="AsKd", shown=False)
    HandPlayer.objects.create(hand=hand, player=bob, name="bob", seat=1, position=1,
                              starting_stack=200, net=-1, hole_cards="7c2h", shown=False)

    executor = MigrationExecutor(connection)
    _migrate(executor.loader.graph.leaf_nodes())  # tables 0002 (and everything after)
    from accounts.models import User as NewUser
    from tables import selectors
    from tables.models import Hand as NewHand
    from tables.models import Table as NewTable

    migrated = NewHand.objects.get(pk=hand.pk)
    assert migrated.chance == {"deck": "AsKd7c2h" + "2c" * 10}
    assert migrated.participants == [str(alice.pk), str(bob.pk)]
    assert migrated.events == events
    assert [h[:2] for h in migrated.hidden] == [[1, 4], [2, 1]]
    assert migrated.record["fields"]["actions"] == ["d dh p1 AsKd", "d dh p2 7c2h", "p2 f"]
    rows = {p.name: p for p in migrated.players.all()}
    assert rows["alice"].net == 1 and rows["alice"].secret == {"cards": "AsKd"}
    assert rows["alice"].detail["starting_stack"] == 200
    assert NewTable.objects.get(pk=table.pk).settings == settings
    # One privacy path: the owner sees their cards, the other player and the public not.
    as_alice = selectors.hand_history(hand.pk, NewUser.objects.get(username="alice"))
    cards = {p["name"]: p["cards"] for p in as_alice["players"]}
    assert cards == {"alice": "AsKd", "bob": "????"}
    assert "d dh p1 AsKd" in as_alice["phh"] and "d dh p2 ????" in as_alice["phh"]
    public = selectors.export_round(migrated, Viewer.spectator())
    assert "AsKd" not in public and "7c2h" not in public and 'players = ["alice", "bob"]' in public
    dealt = [e for e in selectors.visible_events(migrated, Viewer.spectator())
             if e["type"] == "HoleCardsDealt"]
    assert [e["cards"] for e in dealt] == ["????", "????"]
