"""``field__any=values``: membership in a list, as one parameter on PostgreSQL.

``field__in=[…]`` becomes ``IN (%s, %s, …)``, one placeholder per value: Django
compiles each and PostgreSQL parses and plans each. The owner's presence sweep asks
every second which of its live tables (hundreds) have silent connections or
expired seats, and the batched heartbeat names up to a thousand connections: with
``= ANY(%s)`` and the whole list as one array, the two sweep queries at 700 tables
took 2.4 ms instead of 13.9 ms (docs/benchmarks.md, "twenty-fourth session").
On other databases (SQLite, the embedded default) it is ``IN``.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db.models import Field, ForeignObject, Lookup


class AnyOf(Lookup):
    lookup_name = "any"
    prepare_rhs = False

    def get_prep_lookup(self) -> list[Any]:
        field = self.lhs.output_field
        return [field.get_prep_value(value) for value in self.rhs]

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        field = self.lhs.output_field
        values = [field.get_db_prep_value(value, connection, prepared=True) for value in self.rhs]
        if connection.vendor == "postgresql":
            return f"{lhs} = ANY(%s)", [*lhs_params, values]
        if not values:
            raise EmptyResultSet
        return f"{lhs} IN ({', '.join(['%s'] * len(values))})", [*lhs_params, *values]


def install() -> None:
    Field.register_lookup(AnyOf)
    ForeignObject.register_lookup(AnyOf)  # its lookups are its own, not Field's
