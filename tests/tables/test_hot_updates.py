"""A live table's writes at each action, and the connections' presence writes, are
updates in place on PostgreSQL (heap-only tuples, HOT): no column they change is
indexed, and the pages keep room for the new row versions (migrations tables 0007 and
0008, docs/benchmarks.md "Scale")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from tables import services
from tables.models import Connection, Table

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


def test_a_presence_write_updates_the_connections_in_place(alice: Any) -> None:
    table = services.create_table(creator=alice, name="Hot", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    names = {f"hot.{n}" for n in range(20)}
    Connection.objects.bulk_create(Connection(table=table, user=alice, channel_name=name,
                                              last_seen=timezone.now()) for name in names)
    updates, hot = _updates("tables_connection")
    assert services.heartbeat_many(channel_names=names | {"gone.1"}) == {"gone.1"}
    updates_now, hot_now = _updates("tables_connection")
    assert updates_now - updates == len(names)  # every one written ...
    assert hot_now - hot == len(names)  # ... in place
    assert not services.presence_due(timezone.now(), [table.pk])[0]  # (none silent)
    later = timezone.now() + timedelta(seconds=60)
    assert len(services.presence_due(later, [table.pk])[0]) == len(names)


def _indexes(table: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [table])
        return " ".join(row[0] for row in cursor.fetchall())


def test_the_pages_keep_room_for_new_row_versions() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)",
                       [["tables_table", "tables_hand", "tables_seat", "tables_connection"]])
        options = dict(cursor.fetchall())
    assert options == {"tables_table": ["fillfactor=50"], "tables_hand": ["fillfactor=70"],
                       "tables_seat": ["fillfactor=70"],
                       "tables_connection": ["fillfactor=70"]}
    indexes = _indexes("tables_table")
    assert "(deadline)" not in indexes and "(bot_due)" not in indexes
    assert "(status)" in indexes  # (due timers are found among the running tables)
    indexes = _indexes("tables_connection")
    assert "(last_seen)" not in indexes
    assert "(table_id)" in indexes  # (the sweeps look among their own tables)
