"""The admin's view of tables: read only, plus closing them (issue 15).

A table changes only through :mod:`tables.services` (the row lock, the ledger), so
nothing here edits or deletes one; "Close selected tables" calls
:func:`tables.services.close_table` for each, as a superuser: seated players are
cashed out through the leave path.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from . import services
from .errors import TableError
from .models import Table, TableStatus


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "game_name", "status", "creator", "created_at", "closed_at"]
    list_filter = ["status", "game"]
    search_fields = ["name"]
    actions = ["close_tables"]
    exclude = ["state"]  # the game state holds the deck: never shown

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in Table._meta.fields if f.name != "state"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tables are created through the lobby or the API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # closed, never deleted: their hand histories and the ledger stay

    @admin.action(description="Close selected tables (seated players are cashed out)")
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        closed = 0
        for table in queryset.exclude(status=TableStatus.CLOSED):
            try:
                services.close_table(table_id=table.pk, user=request.user)
            except TableError as error:
                self.message_user(request, f"{table.name}: {error.message}", messages.ERROR)
            else:
                closed += 1
        self.message_user(request, f"{closed} table(s) closed.", messages.SUCCESS)
