"""House bots made by testers from the web and the API may carry parameters for
their style (``Player.house_params``, e.g. ``{"samples": 200}`` for ehs)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_personal_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="house_params",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
