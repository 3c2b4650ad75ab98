"""tables.rowsql: its fixed SQL reads and writes exactly what the ORM would."""

from __future__ import annotations

from typing import Any

from django.db import models

from tables import rowsql, services
from tables.models import Hand, Seat, Table

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
