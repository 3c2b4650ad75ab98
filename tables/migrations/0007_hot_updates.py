"""The rows a live table writes at every action are updated in place (PostgreSQL's
heap-only tuples, HOT): ``deadline`` and ``bot_due`` are no longer indexed (they change
at nearly every action, and a changed indexed column writes the new row version into
every index of the table), and the pages of tables, rounds and seats keep room for
the new versions (``fillfactor``). Less written per action: no index entries for
an update done in place, so less WAL and fewer index pages dirtied (each one's first
change after a checkpoint is a full-page image); docs/benchmarks.md, "Scale"."""

from django.db import migrations, models

FILLFACTOR = {"tables_table": 50, "tables_hand": 70, "tables_seat": 70}


def fillfactor(apps, schema_editor, *, reset: bool = False) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # (SQLite has no such setting)
    quote = schema_editor.quote_name
    for table, percent in FILLFACTOR.items():
        setting = "RESET (fillfactor)" if reset else f"SET (fillfactor = {percent})"
        schema_editor.execute(f"ALTER TABLE {quote(table)} {setting}")


def reset_fillfactor(apps, schema_editor) -> None:
    fillfactor(apps, schema_editor, reset=True)


class Migration(migrations.Migration):

    dependencies = [
        ("tables", "0006_hand_policies"),
    ]

    operations = [
        migrations.AlterField(
            model_name="table",
            name="deadline",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="table",
            name="bot_due",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(fillfactor, reset_fillfactor),
    ]
