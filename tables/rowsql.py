"""Fixed SQL for the statements every table command runs.

Every action locks and reads the table row, reads its running hand and writes
both back. Through the ORM, building those statements (query compilation) cost
more CPU than PostgreSQL spent running them (docs/benchmarks.md, "Scale"), so
they are written once here, per model and database vendor, and only executed.
Values go through each field's own ``get_db_prep_save`` and rows through
``Model.objects.raw`` (which applies the fields' converters), so the rows are
the same model instances the ORM would give.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


def lock_row(model: type[M], pk: int, *, skip_locked: bool = False) -> M | None:
    """``SELECT * … WHERE pk = %s FOR UPDATE [SKIP LOCKED]`` (no lock clause on SQLite,
    where the transaction itself serialises writers)."""
    if not _in_range(model, pk):  # as the ORM: no such row, not a database error
        return None
    return next(iter(model.objects.raw(_select_sql(model, True, skip_locked), [pk])), None)


def get_row(model: type[M], pk: int) -> M | None:
    if not _in_range(model, pk):
        return None
    return next(iter(model.objects.raw(_select_sql(model, False, False), [pk])), None)


def _in_range(model: type[models.Model], pk: int) -> bool:
    low, high = connection.ops.integer_field_range(model._meta.pk.get_internal_type())
    return (low is None or pk >= low) and (high is None or pk <= high)


def update_row(obj: models.Model, fields: tuple[str, ...]) -> None:
    """``UPDATE … SET <fields> WHERE pk`` — what ``obj.save(update_fields=fields)`` writes,
    without signals (none are connected to these models)."""
    sql, columns = _update_sql(type(obj), fields)
    values = [field.get_db_prep_save(getattr(obj, field.attname), connection)
              for field in columns]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, obj.pk])


@cache
def _select_sql(model: type[models.Model], lock: bool, skip_locked: bool) -> str:
    quote = connection.ops.quote_name
    meta = model._meta
    sql = f"SELECT * FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column)} = %s"
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
        if skip_locked and connection.features.has_select_for_update_skip_locked:
            sql += " SKIP LOCKED"
    return sql


@cache
def _update_sql(model: type[models.Model],
                fields: tuple[str, ...]) -> tuple[str, list[Any]]:
    quote = connection.ops.quote_name
    meta = model._meta
    columns = [meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in columns)
    return (f"UPDATE {quote(meta.db_table)} SET {assignments} "
            f"WHERE {quote(meta.pk.column)} = %s", columns)
