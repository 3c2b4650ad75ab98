"""A table's row is updated in place on PostgreSQL (HOT) also when a new round starts:
``current_hand`` is no longer indexed. Indexed, every new round's update of the row
(one action in eight at heads-up) wrote a new entry into each of the table's eleven
indexes and left a dead row version that only a vacuum removes: at 1,000 tables, 26,000
dead versions of the 1,000 rows and an index of 984 kB for them after four minutes,
and the commits slowing down as they grew (docs/benchmarks.md, nineteenth session)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("tables", "0008_connection_hot_updates"),
    ]

    operations = [
        migrations.AlterField(
            model_name="table",
            name="current_hand",
            field=models.ForeignKey(blank=True, db_index=False, null=True,
                                    on_delete=django.db.models.deletion.SET_NULL,
                                    related_name="+", to="tables.hand"),
        ),
    ]
