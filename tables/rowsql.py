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

import datetime
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


def update_many(model: type[models.Model], objs: list[models.Model],
                fields: tuple[str, ...]) -> tuple[str, list[list[Any]]]:
    """The ``UPDATE`` of these fields of ``objs`` (one ``model``) and a parameter row
    per object, for ``executemany``."""
    sql, columns = _update_sql(model, fields)
    return sql, [[*db_values(o, columns), o.pk] for o in objs]


def update_rows(objs: list[models.Model], fields: tuple[str, ...]) -> None:
    """:func:`update_row` for many rows of one model: one statement, sent once per row
    (``executemany``)."""
    if not objs:
        return
    with connection.cursor() as cursor:
        cursor.executemany(*update_many(type(objs[0]), objs, fields))


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


# -- many rows in one statement (PostgreSQL): the rows travel as one JSON document
#
# The owner's group commit writes the rows of many tables at once. Sent as one
# statement per row (``executemany``), each row costs a Bind/Execute and a result
# that psycopg handles in Python, in the committer's thread, under the interpreter
# lock the event loop needs; as one JSON array (encoded by orjson) read back by
# ``jsonb_to_recordset``, a batch is one statement and one round trip.


def record(obj: models.Model, columns: list[tuple[Any, str]], *,
           add: bool = False) -> dict[str, Any]:
    """``obj``'s values of these fields as one JSON object keyed by column, plus its
    primary key if it has one: a row for :func:`update_from` or :func:`insert_from`.

    The values are what ``save()`` writes (each field's ``pre_save`` when adding);
    numbers, text, booleans, JSON and timestamps as they are (the fields' own
    preparation changes nothing for these, and was most of a commit's work in
    Python), any other field through its ``get_db_prep_save``."""
    row: dict[str, Any] = {}
    real = connections[DEFAULT_DB_ALIAS]
    for field, kind in columns:
        value = field.pre_save(obj, add) if add else getattr(obj, field.attname)
        if value is None or kind == _PLAIN:
            pass
        elif kind == _TIMESTAMP:
            value = value.isoformat()  # what PostgreSQL reads back
        else:
            value = field.get_db_prep_save(value, real)
            if type(value) is Jsonb:
                value = value.obj
            elif isinstance(value, datetime.date | datetime.time):
                value = value.isoformat()
            elif value is not None and not isinstance(value, str | int | float):
                value = str(value)  # Decimal, UUID: their text form
        row[field.column] = value
    if obj.pk is not None:
        row[obj._meta.pk.column] = obj.pk
    return row


_PLAIN, _TIMESTAMP, _OTHER = "plain", "timestamp", "other"
_PLAIN_TYPES = frozenset({
    "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField",
    "SmallIntegerField", "PositiveIntegerField", "PositiveBigIntegerField",
    "PositiveSmallIntegerField", "CharField", "TextField", "BooleanField", "JSONField"})


def _kind(field: Any) -> str:
    """How :func:`record` writes a field's value (a foreign key as its target's)."""
    target = field.target_field if field.is_relation else field
    internal = target.get_internal_type()
    if internal in _PLAIN_TYPES:
        return _PLAIN
    return _TIMESTAMP if internal == "DateTimeField" else _OTHER


def update_from(model: type[models.Model], fields: tuple[str, ...], objs: list[models.Model],
                expected: list[int] | None = None) -> tuple[str, list[Any]]:
    """One ``UPDATE`` of these fields of ``objs`` (rows of ``model``) and its parameter.

    With ``expected`` (one version per object) a row is written only if its
    ``version`` column still holds that value, and the statement returns the primary
    keys written (optimistic concurrency: the others changed meanwhile)."""
    sql, columns = _update_from_sql(model, fields, expected is not None)
    rows = [record(obj, columns) for obj in objs]
    if expected is not None:
        for row, version in zip(rows, expected, strict=True):
            row[_EXPECTED] = version
    return sql, [Jsonb(rows, dumps=wire.dumps_bytes)]


def insert_from(objs: list[models.Model]) -> list[tuple[str, list[Any]]]:
    """What ``bulk_create(objs)`` writes: one ``INSERT`` and its parameter per model
    and primary-key presence (the objects' own primary keys are not read back)."""
    batches: dict[tuple[str, bool], tuple[str, list[Any], list[dict[str, Any]]]] = {}
    for obj in objs:
        model, with_pk = type(obj), obj.pk is not None
        key = (model._meta.label, with_pk)
        if key not in batches:
            batches[key] = (*_insert_from_sql(model, with_pk), [])
        _, columns, rows = batches[key]
        rows.append(record(obj, columns, add=True))
    return [(sql, [Jsonb(rows, dumps=wire.dumps_bytes)]) for sql, _, rows in batches.values()]


_EXPECTED = "expected__version"


def _definition(field: Any) -> str:
    return f"{connection.ops.quote_name(field.column)} {field.db_type(connection)}"


@cache
def _update_from_sql(model: type[models.Model], fields: tuple[str, ...],
                     versioned: bool) -> tuple[str, list[tuple[Any, str]]]:
    quote = connection.ops.quote_name
    meta = model._meta
    columns = [meta.get_field(name) for name in fields]
    pk = quote(meta.pk.column)
    names = [quote(f.column) for f in columns]
    definitions = [_definition(f) for f in columns] + [_definition(meta.pk)]
    where = f"t.{pk} = v.{pk}"
    if versioned:
        definitions.append(f"{quote(_EXPECTED)} bigint")
        where += f" AND t.{quote('version')} = v.{quote(_EXPECTED)}"
    sql = (f"UPDATE {quote(meta.db_table)} AS t SET "
           f"{', '.join(f'{name} = v.{name}' for name in names)} "
           f"FROM jsonb_to_recordset(%s) AS v({', '.join(definitions)}) WHERE {where}")
    if versioned:
        sql += f" RETURNING t.{pk}"
    return sql, [(f, _kind(f)) for f in columns]


@cache
def _insert_from_sql(model: type[models.Model],
                     with_pk: bool) -> tuple[str, list[tuple[Any, str]]]:
    quote = connection.ops.quote_name
    meta = model._meta
    columns = [f for f in meta.concrete_fields if f is not meta.pk]
    definitions = [_definition(f) for f in columns]
    if with_pk:
        definitions.append(_definition(meta.pk))
        columns_sql = [quote(f.column) for f in [*columns, meta.pk]]
    else:
        columns_sql = [quote(f.column) for f in columns]
    return (f"INSERT INTO {quote(meta.db_table)} ({', '.join(columns_sql)}) "
            f"SELECT {', '.join(f'v.{c}' for c in columns_sql)} "
            f"FROM jsonb_to_recordset(%s) AS v({', '.join(definitions)})",
            [(f, _kind(f)) for f in columns])
