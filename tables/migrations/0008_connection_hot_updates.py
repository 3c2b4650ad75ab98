"""A live connection's presence write (``last_seen``, every few seconds for every
connection, :mod:`tables.presence`) is an update in place on PostgreSQL (HOT), as the
table's own rows are since migration 0007: ``last_seen`` is no longer indexed and the
connections' pages keep room for the new row versions. An indexed ``last_seen`` wrote
a new entry into every index of the table at every heartbeat. The owners' sweeps
that read it look among their own tables (``table_id``); the worker's scans the
table, one row per live websocket."""

from django.db import migrations, models


def fillfactor(apps, schema_editor, *, reset: bool = False) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # (SQLite has no such setting)
    setting = "RESET (fillfactor)" if reset else "SET (fillfactor = 70)"
    schema_editor.execute(
        f"ALTER TABLE {schema_editor.quote_name('tables_connection')} {setting}")


def reset_fillfactor(apps, schema_editor) -> None:
    fillfactor(apps, schema_editor, reset=True)


class Migration(migrations.Migration):

    dependencies = [
        ("tables", "0007_hot_updates"),
    ]

    operations = [
        migrations.AlterField(
            model_name="connection",
            name="last_seen",
            field=models.DateTimeField(),
        ),
        migrations.RunPython(fillfactor, reset_fillfactor),
    ]
