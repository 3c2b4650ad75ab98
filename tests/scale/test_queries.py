"""Queries per table command, pinned so that they cannot creep up (no N+1): an
action in the middle of a hand, and the action that ends a hand, which costs the
same at a 6-max table as heads-up."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables import services
from tests.tables.helpers import turn

pytestmark = pytest.mark.django_db
CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK")


def _table(creator: Any, owner: Any, seats: int) -> tuple[int, list[Any]]:
    from accounts.services import create_bot
    from tables.services import create_table

    table = create_table(creator=creator, name=f"Q{seats}", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": seats})
    bots = [create_bot(owner=owner, name=f"Query{seats}x{i}")[0] for i in range(seats)]
    for seat, bot in enumerate(bots):
        services.execute(table_id=table.pk, user=owner, bot=bot,
                         command={"type": "sit", "seat": seat, "buy_in": 200})
    return table.pk, bots


def _act(table_id: int, owner: Any, bots: list[Any], kind: str) -> int:
    """Queries (without transaction control) of one act by the player to act."""
    seat, hand, version, legal = turn(table_id)
    if not legal["can_fold"] and legal["can_muck"]:
        kind = "muck"
    assert seat is not None
    with CaptureQueriesContext(connection) as queries:
        services.execute(table_id=table_id, user=owner, bot=bots[seat], command={
            "type": "act", "hand": hand, "version": version, "action": {"kind": kind}})
    return sum(1 for q in queries.captured_queries
               if not q["sql"].upper().startswith(CONTROL))


def test_an_action_is_five_queries(alice: Any, bob: Any) -> None:
    table_id, bots = _table(alice, bob, 6)
    # lock the table, read its hand (after the lock, never joined into the locking
    # query: tests/tables/test_turn_always_names_its_hand.py), the seated players'
    # house-bot flags (is the next to act played by the server?), write both back
    assert _act(table_id, bob, bots, "call") == 5


def test_ending_a_hand_costs_the_same_at_any_table_size(alice: Any, bob: Any) -> None:
    ending = {}
    for seats in (2, 6):
        table_id, bots = _table(alice, bob, seats)
        first_hand = turn(table_id)[1]
        while turn(table_id)[1] == first_hand:  # dealt while the others sat down
            _act(table_id, bob, bots, "fold")
        full_hand = turn(table_id)[1]
        while turn(table_id)[1] == full_hand:  # everybody is in: fold round to the BB
            ending[seats] = _act(table_id, bob, bots, "fold")  # the last one ends it
    # the 5 of an action, the players (names for the archive), the finished hand and its
    # player rows, the next hand, the seats read, and one fixed UPDATE per seat whose
    # stack the hand changed (here the two blinds, at either table size)
    assert ending[2] == ending[6] <= 12, ending


def _queries(call: Any) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        call()
    return [q["sql"] for q in queries.captured_queries
            if not q["sql"].upper().startswith(CONTROL)]


def test_a_snapshot_is_four_queries(alice: Any, bob: Any) -> None:
    """What every (re)connecting client asks for: after a takeover, a crowd at once."""
    from tables.selectors import snapshot

    table_id, bots = _table(alice, bob, 6)
    # the table row, its seats with their players, the chat, the connections' count
    assert len(_queries(lambda: snapshot(table_id, bob, bots[2]))) == 4


@pytest.mark.postgres
def test_a_reconnect_registers_its_connection_in_one_statement(alice: Any, bob: Any) -> None:
    """The usual connection (nobody of the account disconnected at the table): the
    account's connections counted, the table's key share, the disconnected-seat check
    and one upsert; connecting again under the same channel name keeps the row."""
    from tables.models import Connection

    table_id, bots = _table(alice, bob, 2)

    def connect() -> None:
        assert services.connect(table_id=table_id, channel_name="c.1", user=bob,
                                bot=bots[0], only_quietly=True) is False

    first = _queries(connect)
    opened = Connection.objects.get(channel_name="c.1").opened_at
    again = _queries(connect)
    assert len(first) == len(again) == 4, first
    assert "ON CONFLICT" in first[-1]
    row = Connection.objects.get(channel_name="c.1")
    assert (row.opened_at, row.table_id, row.bot_id) == (opened, table_id, bots[0].pk)
    assert row.last_seen > opened
