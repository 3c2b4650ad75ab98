"""``field__any=[...]`` is ``field__in=[...]`` with the list as one array parameter on
PostgreSQL (tables/lookups.py); on SQLite it is ``IN``. Runs on both databases."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tables import services
from tables.models import Connection, Table

pytestmark = pytest.mark.django_db


def _tables(alice: Any, count: int) -> list[Table]:
    return [services.create_table(creator=alice, name=f"Any {n}", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2}) for n in range(count)]


def test_any_finds_the_rows_in_finds(alice: Any) -> None:
    tables = _tables(alice, 4)
    Connection.objects.bulk_create(
        Connection(table=t, user=alice, channel_name=f"any.{t.pk}.{n}", last_seen=timezone.now())
        for t in tables for n in range(3))
    for ids in ([], [tables[0].pk], [t.pk for t in tables[1:3]] + [10**9]):
        pks = Connection.objects.values_list("pk", flat=True)
        found = set(pks.filter(table_id__any=ids))
        assert found == set(pks.filter(table_id__in=ids))
        assert len(found) == 3 * len([t for t in tables if t.pk in ids])
    names = [f"any.{tables[3].pk}.1", f"any.{tables[3].pk}.2", "nobody"]
    assert sorted(Connection.objects.filter(channel_name__any=names)
                  .values_list("channel_name", flat=True)) == names[:2]
    assert Table.objects.filter(pk__any=[tables[2].pk]).get() == tables[2]
    assert Connection.objects.filter(table__any=[tables[1].pk]).count() == 3  # the relation's name


def test_any_is_one_parameter_on_postgresql(alice: Any) -> None:
    ids = list(range(1, 701))
    with CaptureQueriesContext(connection) as queries:
        silent, expired = services.presence_due(timezone.now(), ids)
    assert (silent, expired) == ([], [])
    assert len(queries) == 2
    for query in queries:
        if connection.vendor == "postgresql":
            assert '"table_id" = ANY(' in query["sql"] and " IN (" not in query["sql"]
        else:
            assert query["sql"].count(", ") >= 699  # SQLite: one placeholder per id
