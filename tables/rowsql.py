"""Fixed SQL for the statements every table command runs.

Every action locks and reads the table row, reads its running hand and writes
both back. Through the ORM, building those statements (query compilation) cost
more CPU than PostgreSQL spent running them (docs/benchmarks.md, "Scale"), so
they are written once here, per model and database vendor, and only executed.
Values go through each field's own ``get_db_prep_save``, rows through the
fields' database converters and ``Model.from_db``, so the rows are the same
model instances the ORM would give.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from psycopg.types.json import Jsonb

from . import wire

M = TypeVar("M", bound=models.Model)


def lock_row(model: type[M], pk: int, *, skip_locked: bool = False) -> M | None:
    """``SELECT … WHERE pk = %s FOR UPDATE [SKIP LOCKED]`` (no lock clause on SQLite,
    where the transaction itself serialises writers)."""
    return _fetch(model, pk, True, skip_locked)


def get_row(model: type[M], pk: int, defer: tuple[str, ...] = ()) -> M | None:
    """The row; the ``defer`` fields are left out (read by the ORM only if accessed)."""
    return _fetch(model, pk, False, False, defer)


def _fetch(model: type[M], pk: int, lock: bool, skip_locked: bool,
           defer: tuple[str, ...] = ()) -> M | None:
    if not _in_range(model, pk):  # as the ORM: no such row, not a database error
        return None
    sql, names, converters = _select(model, lock, skip_locked, defer)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for i, column, functions in converters:
        for convert in functions:
            values[i] = convert(values[i], column, connection)
    return model.from_db(connection.alias, names, values)


def _in_range(model: type[models.Model], pk: int) -> bool:
    low, high = connection.ops.integer_field_range(model._meta.pk.get_internal_type())
    return (low is None or pk >= low) and (high is None or pk <= high)


def column_by_pk(model: type[models.Model], field: str, pks: list[int]) -> dict[int, Any]:
    """``{pk: value}`` of one plain column for these rows (``SELECT pk, column … IN``)."""
    if not pks:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_column_sql(model, field, len(pks)), pks)
        return dict(cursor.fetchall())


def db_values(obj: models.Model, columns: list[Any], *, add: bool = False) -> list[Any]:
    """The parameters that write these fields of ``obj`` (each field's ``pre_save`` and
    ``get_db_prep_save``, as ``save()``); JSON for PostgreSQL encoded by orjson."""
    values = []
    for field in columns:
        value = field.get_db_prep_save(
            field.pre_save(obj, add) if add else getattr(obj, field.attname), connection)
        if type(value) is Jsonb:
            value = Jsonb(value.obj, dumps=wire.dumps_bytes)
        values.append(value)
    return values


def update_row(obj: models.Model, fields: tuple[str, ...]) -> None:
    """``UPDATE … SET <fields> WHERE pk`` — what ``obj.save(update_fields=fields)`` writes,
    without signals (none are connected to these models)."""
    sql, columns = _update_sql(type(obj), fields)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*db_values(obj, columns), obj.pk])


def update_rows(objs: list[models.Model], fields: tuple[str, ...]) -> None:
    """:func:`update_row` for many rows of one model: one statement, sent once per row
    (``executemany``)."""
    if not objs:
        return
    sql, columns = _update_sql(type(objs[0]), fields)
    with connection.cursor() as cursor:
        cursor.executemany(sql, [[*db_values(o, columns), o.pk] for o in objs])


@cache
def _select(model: type[models.Model], lock: bool, skip_locked: bool,
            defer: tuple[str, ...] = ()) -> tuple[str, list[str], list[tuple[int, Any, list[Any]]]]:
    """The statement, the field names in column order, and the converters per column."""
    quote = connection.ops.quote_name
    meta = model._meta
    fields = [f for f in meta.concrete_fields if f.name not in defer]
    sql = (f"SELECT {', '.join(quote(f.column) for f in fields)} FROM {quote(meta.db_table)} "
           f"WHERE {quote(meta.pk.column)} = %s")
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
        if skip_locked and connection.features.has_select_for_update_skip_locked:
            sql += " SKIP LOCKED"
    converters = []
    for i, field in enumerate(fields):
        column = field.get_col(meta.db_table)
        functions = (connection.ops.get_db_converters(column)
                     + field.get_db_converters(connection))
        if functions:
            converters.append((i, column, functions))
    return sql, [f.attname for f in fields], converters


@cache
def _column_sql(model: type[models.Model], field: str, count: int) -> str:
    quote = connection.ops.quote_name
    meta = model._meta
    return (f"SELECT {quote(meta.pk.column)}, {quote(meta.get_field(field).column)} "
            f"FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column)} IN "
            f"({', '.join(['%s'] * count)})")


@cache
def _update_sql(model: type[models.Model],
                fields: tuple[str, ...]) -> tuple[str, list[Any]]:
    quote = connection.ops.quote_name
    meta = model._meta
    columns = [meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in columns)
    return (f"UPDATE {quote(meta.db_table)} SET {assignments} "
            f"WHERE {quote(meta.pk.column)} = %s", columns)


# -- the owner's group commit (PostgreSQL): many rows, one statement sent per row
#
# The parameters are what ``save()`` writes, without the fields' own preparation for
# numbers, text, booleans, timestamps and JSON (it changes nothing for these, goes
# through the connection proxy at every call, and was most of a commit's work in
# Python). (Tried: every row of a batch in one statement, as one JSON document read
# by ``jsonb_to_recordset``; it halved the commit's Python but cost PostgreSQL 40 %
# more per action, see docs/benchmarks.md.)


def update_many(model: type[models.Model], fields: tuple[str, ...], objs: list[models.Model],
                expected: list[int] | None = None) -> tuple[str, list[list[Any]]]:
    """The ``UPDATE`` of these fields of ``objs`` (rows of ``model``) and a parameter
    row per object, for ``executemany``.

    With ``expected`` (one version per object) a row is written only if its
    ``version`` column still holds that value, and each statement returns the
    primary key written (optimistic concurrency: the others changed meanwhile)."""
    sql, columns = _update_many_sql(model, fields, expected is not None)
    rows = [[*_params(obj, columns), obj.pk] for obj in objs]
    if expected is not None:
        for row, version in zip(rows, expected, strict=True):
            row.append(version)
    return sql, rows


def insert_many(objs: list[models.Model]) -> list[tuple[str, list[list[Any]]]]:
    """What ``bulk_create(objs)`` writes: one ``INSERT`` per model and primary-key
    presence and a parameter row per object, for ``executemany`` (the objects' own
    primary keys are not read back)."""
    batches: dict[tuple[str, bool], tuple[str, list[Any], list[list[Any]]]] = {}
    for obj in objs:
        model, with_pk = type(obj), obj.pk is not None
        key = (model._meta.label, with_pk)
        if key not in batches:
            batches[key] = (*_insert_many_sql(model, with_pk), [])
        _, columns, rows = batches[key]
        rows.append([*_params(obj, columns, add=True), *([obj.pk] if with_pk else [])])
    return [(sql, rows) for sql, _, rows in batches.values()]


_PLAIN, _JSON, _OTHER = "plain", "json", "other"
_PLAIN_TYPES = frozenset({
    "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField",
    "SmallIntegerField", "PositiveIntegerField", "PositiveBigIntegerField",
    "PositiveSmallIntegerField", "CharField", "TextField", "BooleanField", "DateTimeField"})


def _params(obj: models.Model, columns: list[tuple[Any, str]], *,
            add: bool = False) -> list[Any]:
    values = []
    for field, kind in columns:
        value = field.pre_save(obj, add) if add else getattr(obj, field.attname)
        if value is None or kind == _PLAIN:
            pass
        elif kind == _JSON:
            value = Jsonb(value, dumps=wire.dumps_bytes)
        else:
            value = field.get_db_prep_save(value, connections[DEFAULT_DB_ALIAS])
        values.append(value)
    return values


def _kind(field: Any) -> str:
    """How :func:`_params` writes a field's value (a foreign key as its target's)."""
    target = field.target_field if field.is_relation else field
    internal = target.get_internal_type()
    if internal in _PLAIN_TYPES:
        return _PLAIN
    return _JSON if internal == "JSONField" and not field.encoder else _OTHER


@cache
def _update_many_sql(model: type[models.Model], fields: tuple[str, ...],
                     versioned: bool) -> tuple[str, list[tuple[Any, str]]]:
    sql, columns = _update_sql(model, fields)
    if versioned:
        quote = connection.ops.quote_name
        sql += f" AND {quote('version')} = %s RETURNING {quote(model._meta.pk.column)}"
    return sql, [(f, _kind(f)) for f in columns]


@cache
def _insert_many_sql(model: type[models.Model],
                     with_pk: bool) -> tuple[str, list[tuple[Any, str]]]:
    quote = connection.ops.quote_name
    meta = model._meta
    columns = [f for f in meta.concrete_fields if f is not meta.pk]
    names = [quote(f.column) for f in columns] + ([quote(meta.pk.column)] if with_pk else [])
    return (f"INSERT INTO {quote(meta.db_table)} ({', '.join(names)}) "
            f"VALUES ({', '.join(['%s'] * len(names))})", [(f, _kind(f)) for f in columns])
