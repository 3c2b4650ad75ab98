"""tables.rowsql: its fixed SQL reads and writes exactly what the ORM would."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, models
from django.utils import timezone

from tables import rowsql, services
from tables.models import Hand, HandPlayer, Seat, Table

from .helpers import act, sit, turn


def _values(obj: models.Model) -> dict[str, Any]:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def _playing_table(alice: Any, bob: Any) -> Table:
    table = services.create_table(creator=alice, name="Rows", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    sit(table, alice, 0)
    sit(table, bob, 1)
    return table


def test_rows_read_by_rowsql_equal_the_orms(alice: Any, bob: Any) -> None:
    table = _playing_table(alice, bob)
    seat, hand, _, _ = turn(table.pk)
    assert seat is not None and hand is not None
    act(table.pk, alice if seat == 0 else bob, {"kind": "call"})
    for model, pk in ((Table, table.pk), (Hand, hand), (Seat, Seat.objects.first().pk)):
        fast, orm = rowsql.get_row(model, pk), model.objects.get(pk=pk)
        assert fast is not None and _values(fast) == _values(orm), model
        assert rowsql.lock_row(model, pk, skip_locked=True) is not None
        assert not fast._state.adding and fast._state.db == orm._state.db
    assert isinstance(rowsql.get_row(Table, table.pk).state, dict)  # JSON decoded


def test_missing_and_out_of_range_keys_are_no_row(db: None) -> None:
    assert rowsql.get_row(Table, 987654) is None
    assert rowsql.lock_row(Table, 2**80) is None and rowsql.get_row(Hand, -(2**80)) is None


def test_update_row_writes_only_the_named_fields(alice: Any, bob: Any) -> None:
    table = _playing_table(alice, bob)
    mine = Table.objects.get(pk=table.pk)
    mine.state = {"changed": [1, 2, 3]}
    mine.version = 1234
    mine.name = "not written"
    rowsql.update_row(mine, ("state", "version"))
    stored = Table.objects.get(pk=table.pk)
    assert stored.state == {"changed": [1, 2, 3]} and stored.version == 1234
    assert stored.name == "Rows"


@pytest.mark.postgres
def test_insert_many_writes_what_bulk_create_would(alice: Any, bob: Any) -> None:
    table = _playing_table(alice, bob)
    _, hand, _, _ = turn(table.pk)
    detail = {"stack": 198, 3: ["As", "Kd"], "name": "Äö ♠ \"quoted\" \\"}  # int key, text
    rows = [HandPlayer(hand_id=hand, player=None, name=f"p{i}", seat=i, position=i,
                       net=2**40 * (1 - 2 * i), detail=detail, secret={})
            for i in range(2)]
    orm = [HandPlayer(hand_id=hand, player=None, name=f"p{i}", seat=i, position=i,
                      net=2**40 * (1 - 2 * i), detail=detail, secret={})
           for i in range(2)]
    HandPlayer.objects.bulk_create(orm)
    with connection.cursor() as cursor:
        statements = rowsql.insert_many(rows)
        assert len(statements) == 1  # two rows, one statement
        for sql, params in statements:
            assert sql.startswith("INSERT") and len(params) == 2
            cursor.executemany(sql, params)
    stored = list(HandPlayer.objects.filter(hand_id=hand).order_by("pk"))
    assert len(stored) == 4
    by_orm, by_rowsql = stored[:2], stored[2:]
    for a, b in zip(by_orm, by_rowsql, strict=True):
        assert {k: v for k, v in _values(a).items() if k != "id"} == {
            k: v for k, v in _values(b).items() if k != "id"}
    assert by_rowsql[0].detail == {"stack": 198, "3": ["As", "Kd"],
                                   "name": "Äö ♠ \"quoted\" \\"}


@pytest.mark.postgres
def test_insert_many_keeps_given_keys_and_every_kind_of_value(alice: Any, bob: Any) -> None:
    table = _playing_table(alice, bob)
    source = Hand.objects.get(pk=turn(table.pk)[1])
    copy = Hand.objects.get(pk=source.pk)
    copy.pk = source.pk + 1000
    copy.number = 77
    copy.ended_at = None  # NULL, a timestamp, JSON lists and objects
    copy.record = {"none": None, "list": [], "float": 0.1, "big": 2**62}
    with connection.cursor() as cursor:
        for sql, params in rowsql.insert_many([copy]):
            cursor.executemany(sql, params)
    stored = Hand.objects.get(pk=source.pk + 1000)
    expected = _values(copy)
    assert _values(stored) == expected and stored.record["none"] is None
    assert stored.started_at == source.started_at and stored.events == source.events


@pytest.mark.postgres
def test_update_many_writes_the_named_fields_of_every_row(alice: Any, bob: Any) -> None:
    table = _playing_table(alice, bob)
    moment = timezone.now().replace(microsecond=123456)
    rows = []
    for i, seat in enumerate(Seat.objects.filter(table=table).order_by("number")):
        seat.stack, seat.disconnected_at = 1000 + i, moment if i else None
        seat.state = "not written"
        rows.append(seat)
    sql, params = rowsql.update_many(Seat, ("stack", "disconnected_at"), rows)
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)
    stored = list(Seat.objects.filter(table=table).order_by("number"))
    assert [(s.stack, s.disconnected_at) for s in stored] == [(1000, None), (1001, moment)]
    assert "not written" not in {s.state for s in stored}


@pytest.mark.postgres
def test_update_many_with_versions_writes_only_rows_still_at_them(alice: Any, bob: Any) -> None:
    one, two = _playing_table(alice, bob), services.create_table(
        creator=alice, name="Other", settings={"structure": "NL", "small_blind": 1,
                                               "big_blind": 2, "seats": 2})
    mine = [Table.objects.get(pk=one.pk), Table.objects.get(pk=two.pk)]
    expected = [t.version for t in mine]
    Table.objects.filter(pk=two.pk).update(version=expected[1] + 5)  # moved behind us
    for t in mine:
        t.state, t.version = {"changed": [1, 2, 3]}, t.version + 1
    sql, params = rowsql.update_many(Table, ("state", "version"), mine, expected=expected)
    written = []
    with connection.connection.cursor() as cursor:
        cursor.executemany(sql, params, returning=True)
        while True:
            written += [pk for (pk,) in cursor.fetchall()]
            if not cursor.nextset():
                break
    assert written == [one.pk]
    assert Table.objects.get(pk=one.pk).state == {"changed": [1, 2, 3]}
    assert Table.objects.get(pk=two.pk).version == expected[1] + 5


def test_update_rows_writes_each_row(alice: Any, bob: Any) -> None:
    table = _playing_table(alice, bob)
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    for i, seat in enumerate(seats):
        seat.stack = 1000 + i
    rowsql.update_rows(seats, ("stack",))
    rowsql.update_rows([], ("stack",))  # nothing: no statement
    assert [s.stack for s in Seat.objects.filter(table=table).order_by("number")] == [
        1000, 1001]


@pytest.mark.django_db
def test_a_commits_snapshot_of_a_row_is_the_copy_copy_would_make(alice: Any, bob: Any) -> None:
    """The owner's group commit copies each row it writes (tables.owner._snapshot)
    without ``copy.copy``'s pickling: the same values, its own state, its own lists."""
    import copy

    from tables.owner import _snapshot

    table = _playing_table(alice, bob)
    hand = Hand.objects.get(pk=turn(table.pk)[1])
    assert hand.table.pk == table.pk  # (a cached relation: the copy's cache is its own)
    for row in (Table.objects.get(pk=table.pk), hand):
        snapshot, reference = _snapshot(row), copy.copy(row)
        assert type(snapshot) is type(row) and snapshot.pk == row.pk
        assert _values(snapshot) == _values(reference) == _values(row)
        assert snapshot._state is not row._state and not snapshot._state.adding
        assert snapshot._state.db == row._state.db
        assert snapshot._state.fields_cache == row._state.fields_cache
        assert snapshot._state.fields_cache is not row._state.fields_cache
        for field in row._meta.concrete_fields:
            value = getattr(row, field.attname)
            if isinstance(value, list):
                assert getattr(snapshot, field.attname) is not value
                value.append("later")  # a later change does not reach the snapshot
                assert getattr(snapshot, field.attname) != value
