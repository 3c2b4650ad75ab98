"""A live table's writes at each action are updated in place on PostgreSQL (heap-only
tuples, HOT): no column they change is indexed, and the pages keep room for the new
row versions (migration tables 0007, docs/benchmarks.md "Scale")."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from tables import services
from tables.models import Table

from .helpers import act, sit, turn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _updates(table: str) -> tuple[int, int]:
    """Row updates and HOT updates of ``table`` in this transaction so far."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables "
                       "WHERE relname = %s", [table])
        row = cursor.fetchone()
    return (row[0], row[1]) if row else (0, 0)


def test_an_action_updates_the_table_row_in_place(alice: Any, bob: Any) -> None:
    table = services.create_table(creator=alice, name="Hot", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, hand, _, _ = turn(table.pk)
    assert seat is not None and hand is not None
    before = Table.objects.get(pk=table.pk)
    updates, hot = _updates("tables_table")
    act(table.pk, alice if seat == 0 else bob, {"kind": "call"})  # the hand goes on
    after = Table.objects.get(pk=table.pk)
    assert after.version > before.version and after.deadline != before.deadline
    assert after.current_hand_id == before.current_hand_id
    updates_now, hot_now = _updates("tables_table")
    assert updates_now > updates  # the row was written ...
    assert hot_now - hot == updates_now - updates  # ... and every time in place


def test_the_pages_keep_room_for_new_row_versions() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)",
                       [["tables_table", "tables_hand", "tables_seat"]])
        options = dict(cursor.fetchall())
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'tables_table'")
        indexes = " ".join(row[0] for row in cursor.fetchall())
    assert options == {"tables_table": ["fillfactor=50"], "tables_hand": ["fillfactor=70"],
                       "tables_seat": ["fillfactor=70"]}
    assert "(deadline)" not in indexes and "(bot_due)" not in indexes
    assert "(status)" in indexes  # (due timers are found among the running tables)
